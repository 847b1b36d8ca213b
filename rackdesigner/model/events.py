"""Change events a `Layout` emits, one per mutation, after the change happened.

`affects_simulation` tells listeners such as the live panel whether the figures can change:
canvas moves and renames cannot; rack placement can (it decides cable lengths), and so can a
rack's power budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.model.items import Device, Group, Link, Meta


@dataclass(frozen=True, slots=True)
class DeviceAdded:
    device: Device
    affects_simulation = True


@dataclass(frozen=True, slots=True)
class DeviceRemoved:
    device: Device
    affects_simulation = True


@dataclass(frozen=True, slots=True)
class DeviceChanged:
    old: Device
    new: Device

    @property
    def is_move(self) -> bool:
        """Only the position changed (the canvas's drag, an arrow-key nudge)."""
        o, n = self.old, self.new
        return o.pos != n.pos and (o.id, o.model, o.name, o.rack, o.u, o.group, o.props,
                                   o.status) == (n.id, n.model, n.name, n.rack, n.u, n.group,
                                                 n.props, n.status)

    @property
    def affects_simulation(self) -> bool:
        o, n = self.old, self.new
        if (o.model, o.rack, o.u, o.group, o.status) != (n.model, n.rack, n.u, n.group,
                                                          n.status):
            return True
        # a rack's power budget (model.power.BUDGET_PROP) changes the power figures
        return dict(o.props).get("power_budget_w") != dict(n.props).get("power_budget_w")


@dataclass(frozen=True, slots=True)
class LinkAdded:
    link: Link
    affects_simulation = True


@dataclass(frozen=True, slots=True)
class LinkRemoved:
    link: Link
    affects_simulation = True


@dataclass(frozen=True, slots=True)
class LinkChanged:
    old: Link
    new: Link
    affects_simulation = True


@dataclass(frozen=True, slots=True)
class GroupAdded:
    group: Group
    affects_simulation = True


@dataclass(frozen=True, slots=True)
class GroupRemoved:
    group: Group
    affects_simulation = True


@dataclass(frozen=True, slots=True)
class GroupChanged:
    old: Group
    new: Group

    @property
    def affects_simulation(self) -> bool:
        return (self.old.parent, self.old.status) != (self.new.parent, self.new.status)


@dataclass(frozen=True, slots=True)
class MetaChanged:
    old: Meta
    new: Meta

    @property
    def affects_simulation(self) -> bool:
        return self.old.sharp != self.new.sharp


Event = (
    DeviceAdded
    | DeviceRemoved
    | DeviceChanged
    | LinkAdded
    | LinkRemoved
    | LinkChanged
    | GroupAdded
    | GroupRemoved
    | GroupChanged
    | MetaChanged
)
