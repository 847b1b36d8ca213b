"""The document: Layout (networkx keeps the graph), Device, Link, Group, PortRef, events, rules."""

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
from rackdesigner.model.instantiate import Parts, instantiate
from rackdesigner.model.items import Device, Group, Link, Meta, PortRef, is_valid_id
from rackdesigner.model.layout import Layout, LayoutError, natural_key
from rackdesigner.model.rules import (
    ERROR,
    WARNING,
    Finding,
    check_layout,
    has_errors,
    nvlink_domains,
)

__all__ = [
    "ERROR",
    "WARNING",
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
    "Parts",
    "PortRef",
    "check_layout",
    "has_errors",
    "instantiate",
    "is_valid_id",
    "natural_key",
    "nvlink_domains",
]
