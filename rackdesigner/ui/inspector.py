"""The Inspector dock: properties of the selection; edits leave as commands.

Refreshing from the model blocks the editors' signals (`QSignalBlocker`), so showing a value
never pushes a command. Spin boxes push mergeable commands: scrubbing is one undo step.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QSignalBlocker, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.commands import port_usage
from rackdesigner.model import Layout
from rackdesigner.model.items import GROUP_KINDS
from rackdesigner.model.power import budget_prop
from rackdesigner.ui import style
from rackdesigner.ui.inspector_cooling import CoolingRows
from rackdesigner.ui.inspector_edits import InspectorEdits
from rackdesigner.ui.inspector_events import changes_choices as _changes_choices
from rackdesigner.ui.inspector_events import touched_ids as _touched_ids
from rackdesigner.ui.plain_text import plain
from rackdesigner.vocabulary.wording import counted

NONE = "(none)"


FAILED_NOTE = "  — failed (left out of the figures; F restores)"


def _form(parent: QWidget) -> tuple[QWidget, QFormLayout]:
    page = QWidget(parent)
    form = QFormLayout(page)
    form.setContentsMargins(8, 8, 8, 8)
    return page, form


def _set_combo(combo: QComboBox, items: list[tuple[str, str | None]], current: str | None) -> None:
    with QSignalBlocker(combo):
        if getattr(combo, "choices_shown", None) != items:  # refill only when they changed
            combo.clear()  # (5,000 groups at 32k GPUs: 20 ms per refresh)
            for text, value in items:
                combo.addItem(text, value)
            combo.choices_shown = items
        index = combo.findData(current) if current is not None else 0
        combo.setCurrentIndex(max(0, index))


class InspectorWidget(InspectorEdits, QWidget):
    command_requested = Signal(object)  # a plain Command
    objects_requested = Signal(object)  # ids to select (a group's rack, from its page)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.layout_: Layout | None = None
        self.devices: list[str] = []
        self.links: list[str] = []
        self.groups: list[str] = []
        self._choice_lists: tuple[list, list] | None = None  # racks, groups (`_choices`)
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(0)
        self._refresh_timer.timeout.connect(self.refresh)
        self.stack = QStackedWidget(self)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.stack)
        self.empty = QLabel("Select a device, a link or a group to see its properties.")
        self.empty.setWordWrap(True)
        self.empty.setMargin(10)
        self.empty.setStyleSheet(f"color: {style.TEXT_DIM.name()}")
        self.stack.addWidget(self.empty)
        self._build_device_page()
        self._build_link_page()
        self._build_group_page()

    # ---- pages ------------------------------------------------------------------------------
    def _build_device_page(self) -> None:
        page, form = _form(self)
        self.device_id = QLabel()
        self.device_model = QLabel()
        self.device_model.setWordWrap(True)
        self.device_name = QLineEdit()
        self.device_name.setPlaceholderText("defaults to the id")
        self.device_rack = QComboBox()
        self.device_u = QSpinBox()
        self.device_u.setRange(0, 60)
        self.device_u.setSpecialValueText("—")
        self.device_group = QComboBox()
        self.device_pos = QLabel()
        self.device_ports = QLabel()
        self.device_ports.setWordWrap(True)
        # a rack's own power budget; 0 shows the model's default (the special value text)
        self.device_budget = QDoubleSpinBox()
        self.device_budget.setRange(0.0, 10_000.0)
        self.device_budget.setDecimals(1)
        self.device_budget.setSingleStep(0.5)
        self.device_budget.setSuffix(" kW")
        self.device_budget.setToolTip("Power this rack may draw at most (its feeds' capacity). "
                                      "0 uses the rack model's default.")
        for label, widget in (("Id", self.device_id), ("Model", self.device_model),
                              ("Name", self.device_name), ("Rack", self.device_rack),
                              ("U", self.device_u), ("Group", self.device_group),
                              ("Position", self.device_pos), ("Ports", self.device_ports),
                              ("Power budget", self.device_budget)):
            form.addRow(label, widget)
        self.device_form = form
        self.cooling_rows = CoolingRows(form, self._push, lambda: self.layout_)
        self.device_name.editingFinished.connect(self._on_device_name_edited)
        self.device_budget.valueChanged.connect(self._on_device_budget_changed)
        self.device_rack.activated.connect(self._on_device_rack_activated)
        self.device_u.valueChanged.connect(self._on_device_u_changed)
        self.device_group.activated.connect(self._on_device_group_activated)
        self.device_page = page
        self.stack.addWidget(page)

    def _build_link_page(self) -> None:
        page, form = _form(self)
        self.link_id = QLabel()
        self.link_ends = QLabel()
        self.link_ends.setWordWrap(True)
        self.link_count = QSpinBox()
        self.link_count.setRange(1, 4096)
        self.link_cable = QComboBox()
        self.link_length = QDoubleSpinBox()
        self.link_length.setRange(0.0, 10000.0)
        self.link_length.setDecimals(1)
        self.link_length.setSuffix(" m")
        self.link_length.setSpecialValueText("—")
        for label, widget in (("Id", self.link_id), ("Ends", self.link_ends),
                              ("Count", self.link_count), ("Cable", self.link_cable),
                              ("Length", self.link_length)):
            form.addRow(label, widget)
        self.link_count.valueChanged.connect(self._on_link_count_changed)
        self.link_cable.activated.connect(self._on_link_cable_activated)
        self.link_length.valueChanged.connect(self._on_link_length_changed)
        self.link_page = page
        self.stack.addWidget(page)

    def _build_group_page(self) -> None:
        page, form = _form(self)
        self.group_id = QLabel()
        self.group_name = QLineEdit()
        self.group_kind = QComboBox()
        self.group_kind.addItems(list(GROUP_KINDS))
        self.group_collapsed = QCheckBox("Show as one box")
        self.group_members = QLabel()
        # the rack device of a system drawn as one box (an NVL72): a link to its own page
        # (power budget, air limit, CDU), reachable without expanding the group
        self.group_racks = QLabel()
        self.group_racks.setWordWrap(True)
        self.group_racks.setToolTip("Show this rack's own settings (power budget, cooling)")
        self.group_racks.linkActivated.connect(lambda rack: self.objects_requested.emit([rack]))
        for label, widget in (("Id", self.group_id), ("Name", self.group_name),
                              ("Kind", self.group_kind), ("Collapsed", self.group_collapsed),
                              ("Contents", self.group_members), ("Rack", self.group_racks)):
            form.addRow(label, widget)
        self.group_form = form
        self.group_name.editingFinished.connect(self._on_group_name_edited)
        self.group_kind.activated.connect(self._on_group_kind_activated)
        self.group_collapsed.toggled.connect(self._on_group_collapsed_toggled)
        self.group_page = page
        self.stack.addWidget(page)

    # ---- showing -------------------------------------------------------------------------------
    def set_layout(self, layout: Layout) -> None:
        self.layout_ = layout
        self._choice_lists = None
        self.show_selection([], [], [])

    def _choices(self) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """(label, id) of every rack and every group: the device page's Rack and Group
        choices, listed again only after an edit that can change them (`_changes_choices`):
        a scan of the whole design per refresh took 0.1 s at 32k GPUs on every edit."""
        if self._choice_lists is None:
            layout = self.layout_
            assert layout is not None
            does = layout.index().device_traits
            self._choice_lists = ([(d.label, d.id) for d in layout.devices()
                                   if does(d.id).contains == "units"],
                                  [(g.label, g.id) for g in layout.groups()])
        return self._choice_lists

    def show_selection(self, devices: list[str], links: list[str], groups: list[str]) -> None:
        if (list(devices), list(groups)) != (self.devices, self.groups):
            self.device_name.setModified(False)
            self.group_name.setModified(False)
        self.devices, self.links, self.groups = list(devices), list(links), list(groups)
        self.refresh()

    def on_model_event(self, event: object) -> None:
        """Refresh at once when a shown object changed; coalesce everything else.

        A bulk edit (moving an SU, dropping an NVL72) emits thousands of events; refreshing
        the device page on each would rebuild its rack list thousands of times.
        """
        if _changes_choices(event):
            self._choice_lists = None
        if not (self.devices or self.links or self.groups):
            return
        if _touched_ids(event) & {*self.devices, *self.links, *self.groups}:
            self.refresh()
        else:
            self._refresh_timer.start()

    def flush(self) -> None:
        if self._refresh_timer.isActive():
            self.refresh()

    def refresh(self, event: object = None) -> None:
        self._refresh_timer.stop()
        layout = self.layout_
        if layout is None:
            return
        self.devices = [d for d in self.devices if layout.has_device(d)]
        self.links = [k for k in self.links if layout.has_link(k)]
        self.groups = [g for g in self.groups if layout.has_group(g)]
        if self.groups and len(self.groups) == 1:
            self._show_group(self.groups[0])
        elif len(self.devices) == 1 and not self.links and not self.groups:
            self._show_device(self.devices[0])
        elif self.links and not self.devices and not self.groups:
            self._show_links(self.links)
        else:
            parts = [counted(len(x), name) for x, name in ((self.devices, "device"),
                     (self.links, "link"), (self.groups, "group")) if x]
            self.empty.setText(plain(", ".join(parts) + " selected." if parts else
                                     "Select a device, a link or a group to see its properties."))
            self.stack.setCurrentWidget(self.empty)

    def _show_device(self, device_id: str) -> None:
        layout = self.layout_
        assert layout is not None
        device = layout.device(device_id)
        spec = layout.spec(device_id)
        failed = FAILED_NOTE if device.status == "failed" else ""
        self.device_id.setText(plain(device.id + failed))
        self.device_model.setText(plain(f"{spec.manufacturer} {spec.model} ({spec.id})" if spec
                                        else f"unknown model {device.model}"))
        with QSignalBlocker(self.device_name):
            if not self.device_name.isModified():  # never overwrite what the user is typing
                self.device_name.setText(device.name)
        racks, groups = self._choices()
        _set_combo(self.device_rack, [(NONE, None), *racks], device.rack)
        with QSignalBlocker(self.device_u):
            self.device_u.setValue(device.u or 0)
        _set_combo(self.device_group, [(NONE, None), *groups], device.group)
        self.device_pos.setText(f"{device.pos[0]:g}, {device.pos[1]:g}")
        usage = port_usage(layout, device_id)
        if spec is not None and spec.ports:
            self.device_ports.setText(plain("\n".join(
                f"{g.name}: {usage.get(g.name, 0)} of {g.count} used "
                f"({style.PROTOCOL_LABELS.get(g.protocol, g.protocol)} "
                f"{style.format_rate(g.rate_gbps)})" for g in spec.ports)))
        else:
            self.device_ports.setText("none")
        is_rack = spec is not None and spec.rack is not None
        self.device_form.setRowVisible(self.device_budget, is_rack)
        if is_rack:
            assert spec is not None and spec.rack is not None
            own = budget_prop(device)
            default = spec.rack.power_budget_w / 1000
            with QSignalBlocker(self.device_budget):
                self.device_budget.setSpecialValueText(f"default {default:,.1f} kW")
                self.device_budget.setValue(own / 1000 if own is not None else 0.0)
            self.device_budget.setToolTip(
                plain("Power this rack may draw at most (its feeds' capacity). 0 uses the model's "
                      f"default: {spec.rack.budget_basis or f'{default:,.1f} kW'}."))
        self.cooling_rows.show(device, spec)
        self.stack.setCurrentWidget(self.device_page)

    def _show_links(self, link_ids: list[str]) -> None:
        """One link, or a bundle: cable and length then apply to every selected link."""
        layout = self.layout_
        assert layout is not None
        links = [layout.link(k) for k in link_ids]
        first = links[0]
        single = len(links) == 1
        self.link_id.setText(plain(first.id if single else f"{len(links)} links"))
        ends = {(lk.a.device, lk.b.device) for lk in links}
        self.link_ends.setText(plain(f"{first.a}\n{first.b}" if single else
                                     "\n".join(f"{a} ↔ {b}" for a, b in sorted(ends)[:6])))
        with QSignalBlocker(self.link_count):
            self.link_count.setValue(first.count if single else
                                     sum(lk.count for lk in links))
        self.link_count.setEnabled(single)
        cables = [(f"{s.model} ({s.id})", s.id) for s in layout.catalog.doing("media", "cable")]
        shared_cable = first.cable if all(lk.cable == first.cable for lk in links) else None
        _set_combo(self.link_cable, [(NONE, None), *cables], shared_cable)
        with QSignalBlocker(self.link_length):
            same = all(lk.length_m == first.length_m for lk in links)
            self.link_length.setValue((first.length_m or 0.0) if same else 0.0)
        self.stack.setCurrentWidget(self.link_page)

    def _show_group(self, group_id: str) -> None:
        layout = self.layout_
        assert layout is not None
        group = layout.group(group_id)
        source = f"  (from {group.template})" if group.template else ""
        self.group_id.setText(plain(group.id + source
                                    + (FAILED_NOTE if group.status == "failed" else "")))
        with QSignalBlocker(self.group_name):
            if not self.group_name.isModified():
                self.group_name.setText(group.name)
        with QSignalBlocker(self.group_kind):
            self.group_kind.setCurrentText(group.kind)
        with QSignalBlocker(self.group_collapsed):
            self.group_collapsed.setChecked(group.collapsed)
        self.group_members.setText(plain(f"{len(layout.group_devices(group_id))} devices, "
                                         f"{len(layout.group_children(group_id))} sub-groups"))
        does = layout.index().device_traits
        racks = [d for d in layout.group_devices(group_id, recursive=False)
                 if does(d).contains == "units"][:4]
        self.group_racks.setText("<br>".join(
            f'<a href="{html.escape(r, quote=True)}">{html.escape(layout.device(r).label)}</a>'
            for r in racks))
        self.group_form.setRowVisible(self.group_racks, bool(racks))
        self.stack.setCurrentWidget(self.group_page)

    def focus_name(self) -> bool:
        """Rename (F2): put the cursor in the name field of the selected object."""
        page = self.stack.currentWidget()
        editor = {id(self.device_page): self.device_name,
                  id(self.group_page): self.group_name}.get(id(page))
        if editor is None:
            return False
        editor.setFocus()
        editor.selectAll()
        return True
