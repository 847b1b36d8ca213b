"""The Inspector's edits: each field's change becomes one command on `command_requested`.

`InspectorEdits` is a mixin of `InspectorWidget` (ui/inspector.py), which builds the pages and
shows the selection. Spin boxes push mergeable commands (scrubbing is one undo step); a change
to several links at once is one `Macro`.
"""

from __future__ import annotations

from rackdesigner.commands import (
    Command,
    Macro,
    change_device,
    change_group,
    change_link,
)
from rackdesigner.commands.racks import set_slot
from rackdesigner.model.power import with_budget_prop


class InspectorEdits:
    """Field edits of `InspectorWidget` turned into commands (a mixin: `self` is the widget)."""

    def _push(self, command: Command) -> None:
        self.command_requested.emit(command)

    def _on_device_name_edited(self) -> None:
        self.device_name.setModified(False)
        if self.devices and self.layout_ is not None:
            name = self.device_name.text().strip()
            if name != self.layout_.device(self.devices[0]).name:
                self._push(change_device(self.devices[0], f"Rename {self.devices[0]}", name=name))

    # a part of a mounted system moves the whole system (commands/racks.py `set_slot`)
    def _on_device_rack_activated(self, index: int) -> None:
        if self.devices and self.layout_ is not None:
            rack = self.device_rack.itemData(index)
            device = self.layout_.device(self.devices[0])
            self._push(set_slot(self.layout_, device.id, rack, device.u if rack else None))

    def _on_device_u_changed(self, value: int) -> None:
        if self.devices and self.layout_ is not None:
            device = self.layout_.device(self.devices[0])
            self._push(set_slot(self.layout_, device.id, device.rack, value or None, True))

    def _on_device_group_activated(self, index: int) -> None:
        if self.devices:
            self._push(change_device(self.devices[0], f"Move {self.devices[0]} to a group",
                                     group=self.device_group.itemData(index)))

    def _on_device_budget_changed(self, value: float) -> None:
        if not self.devices or self.layout_ is None:
            return
        device = self.layout_.device(self.devices[0])
        props = with_budget_prop(device.props, value * 1000 if value > 0 else None)
        if props != device.props:
            self._push(change_device(device.id, f"Set power budget of {device.id}", True,
                                     props=props))

    def _on_link_count_changed(self, value: int) -> None:
        if self.links:
            self._push(change_link(self.links[0], f"Set count of {self.links[0]}", True,
                                   count=value))

    def _on_link_cable_activated(self, index: int) -> None:
        if self.links:
            self._change_links("cable", False, cable=self.link_cable.itemData(index))

    def _on_link_length_changed(self, value: float) -> None:
        if self.links:
            self._change_links("length", True, length_m=value or None)

    def _on_group_name_edited(self) -> None:
        self.group_name.setModified(False)
        if self.groups and self.layout_ is not None:
            name = self.group_name.text().strip()
            if name != self.layout_.group(self.groups[0]).name:
                self._push(change_group(self.groups[0], f"Rename {self.groups[0]}", name=name))

    def _on_group_kind_activated(self, index: int) -> None:
        if self.groups:
            self._push(change_group(self.groups[0], f"Set kind of {self.groups[0]}",
                                    kind=self.group_kind.itemText(index)))

    def _on_group_collapsed_toggled(self, checked: bool) -> None:
        if self.groups:
            verb = "Collapse" if checked else "Expand"
            self._push(change_group(self.groups[0], f"{verb} {self.groups[0]}",
                                    collapsed=checked))

    def _change_links(self, what: str, mergeable: bool, **changes: object) -> None:
        if len(self.links) == 1:
            self._push(change_link(self.links[0], f"Set {what} of {self.links[0]}", mergeable,
                                   **changes))
            return
        children = [change_link(k, mergeable=mergeable, **changes) for k in self.links]
        key = ("links", what, tuple(self.links)) if mergeable else None
        self._push(Macro(f"Set {what} of {len(self.links)} links", children, key))
