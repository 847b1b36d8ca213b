"""What devices exist: frozen specs loaded from `resources/catalog/`, lookup and validation."""

from rackdesigner.catalog.catalog import (
    Catalog,
    bundled_catalog,
    default_catalog,
    load_catalog,
    reset_default_catalog,
)
from rackdesigner.catalog.loader import CatalogError, CatalogProblem
from rackdesigner.catalog.spec import (
    KINDS,
    PROTOCOLS,
    DeviceSpec,
    PortGroup,
    Power,
    SystemPart,
    SystemSpec,
    WiringRule,
)

__all__ = [
    "KINDS",
    "PROTOCOLS",
    "Catalog",
    "CatalogError",
    "CatalogProblem",
    "DeviceSpec",
    "PortGroup",
    "Power",
    "SystemPart",
    "SystemSpec",
    "WiringRule",
    "bundled_catalog",
    "default_catalog",
    "load_catalog",
    "reset_default_catalog",
]
