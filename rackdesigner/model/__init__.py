"""The document: Layout (a handle on an immutable DesignState), Device, Link, Group, PortRef,
events, transactions, the derived index (DesignIndex) every reader shares, design rules."""

from rackdesigner.model.events import (
    DeviceAdded,
    DeviceChanged,
    DeviceRemoved,
    Event,
    GroupAdded,
    GroupChanged,
    GroupRemoved,
    LinkAdded,
    LinkChanged,
    LinkRemoved,
    MetaChanged,
)
from rackdesigner.model.index import DesignIndex, Reachability
from rackdesigner.model.instantiate import Parts, instantiate
from rackdesigner.model.items import Device, Group, Link, Meta, PortRef, Site, is_valid_id
from rackdesigner.model.layout import Layout, LayoutError, MissingError, natural_key
from rackdesigner.model.rules import (
    ERROR,
    WARNING,
    Finding,
    check_layout,
    has_errors,
    nvlink_domains,
)
from rackdesigner.model.state import DesignState
from rackdesigner.model.transaction import Transaction

__all__ = [
    "ERROR",
    "WARNING",
    "DesignIndex",
    "DesignState",
    "Device",
    "DeviceAdded",
    "DeviceChanged",
    "DeviceRemoved",
    "Event",
    "Finding",
    "Group",
    "GroupAdded",
    "GroupChanged",
    "GroupRemoved",
    "Layout",
    "LayoutError",
    "Link",
    "LinkAdded",
    "LinkChanged",
    "LinkRemoved",
    "Meta",
    "MetaChanged",
    "MissingError",
    "Parts",
    "PortRef",
    "Reachability",
    "Site",
    "Transaction",
    "check_layout",
    "has_errors",
    "instantiate",
    "is_valid_id",
    "natural_key",
    "nvlink_domains",
]
