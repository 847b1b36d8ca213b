"""The live panel's option rows and what they set: scope, algorithm, SHARP, rank placement,
fabric tuning, reference size, the Bandwidth tab's collectives and metric, the Power tab's PUE.

`PanelOptions` is a mixin of `SimulationPanel` (ui/panel/panel.py): it builds the rows' widgets
on the panel and holds their handlers and the selection scope, so the panel module keeps only
its composition, results and exports. A SHARP toggle is one command on the document's stack.
"""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
)

from rackdesigner.commands import Command, set_sharp
from rackdesigner.model import Layout, natural_key
from rackdesigner.simulation import ALGORITHM_CHOICES
from rackdesigner.simulation.placement import PLACEMENTS
from rackdesigner.ui.panel.export import EXPORT_KINDS
from rackdesigner.ui.panel.figures import (
    DEFAULT_REFERENCE,
    REFERENCE_SIZES,
    format_bytes,
)
from rackdesigner.ui.panel.live import Scope
from rackdesigner.ui.panel.theme import COLLECTIVE_COLORS, COLLECTIVE_LABELS, TEXT_DIM
from rackdesigner.ui.plain_text import plain
from rackdesigner.vocabulary import FABRIC_TUNINGS

METRICS = (("busbw", "busbw"), ("algbw", "algbw"), ("busbw + algbw", "both"))
PUE_MIN, PUE_MAX, PUE_STEP = 1.0, 3.0, 0.05
#: the PUE box's lowest value: no PUE of the user's, the design's own (model.pue.design_pue)
PUE_AUTO, PUE_AUTO_TEXT = PUE_MIN - PUE_STEP, "cooling"


class PanelOptions:
    """The option rows of `SimulationPanel` and their handlers (a mixin: `self` is the panel)."""

    def _build_options(self) -> list[QHBoxLayout]:
        """The four rows above the figures, their widgets set on the panel."""
        self.scope_button = QToolButton(self)
        self.scope_button.setCheckable(True)
        self.scope_button.setText("Selection only")
        self.scope_button.setToolTip("Limit the simulation to the selected group or GPUs")
        self.scope_button.setEnabled(False)
        self.scope_button.toggled.connect(self._on_scope_button_toggled)
        self.scope_label = QLabel("Whole design", self)
        self.scope_label.setStyleSheet("font-weight: 600;")
        self.busy_label = QLabel("updating…", self)
        self.busy_label.setStyleSheet(f"color: {TEXT_DIM}; font-style: italic; font-size: 8pt;")
        self.busy_label.setVisible(False)
        self.algorithm_combo = QComboBox(self)
        self.algorithm_combo.addItems(list(ALGORITHM_CHOICES))
        self.algorithm_combo.setToolTip("NCCL algorithm: auto picks the fastest per size")
        self.algorithm_combo.currentTextChanged.connect(self._on_algorithm_combo_changed)
        self.sharp_check = QCheckBox("SHARP", self)
        self.sharp_check.setToolTip(
            "In-network reduction (NVLS across nodes, CollNet/SHARP) is available on this "
            "cluster: only if it runs NCCL's SHARP plugin with an aggregation manager. Saved "
            "in the design; off by default")
        self.sharp_check.toggled.connect(self._on_sharp_check_toggled)
        self.placement_combo = QComboBox(self)
        self.placement_combo.addItems(list(PLACEMENTS))
        self.placement_combo.setToolTip(
            "Rank placement: contiguous (NCCL/Slurm default: consecutive ranks on consecutive "
            "nodes), scattered (consecutive nodes under different leaves) or random")
        self.placement_combo.currentTextChanged.connect(self._on_placement_combo_changed)
        self.fabric_combo = QComboBox(self)
        for name, tuning in FABRIC_TUNINGS.items():
            self.fabric_combo.addItem(tuning.label, name)
        self.fabric_combo.setToolTip(
            "NCCL network settings the cluster runs: vendor-tuned (several queue pairs per "
            "connection, adaptive routing for every message, as NVIDIA's reference designs) or "
            "typical defaults (NCCL's defaults); published runs of one design differ by up to "
            "a quarter between them")
        self.fabric_combo.currentIndexChanged.connect(self._on_fabric_combo_changed)
        self.reference_combo = QComboBox(self)
        for size in REFERENCE_SIZES:
            self.reference_combo.addItem(format_bytes(size), size)
        self.reference_combo.setCurrentIndex(REFERENCE_SIZES.index(DEFAULT_REFERENCE))
        self.reference_combo.setToolTip("Message size of the all_reduce headline figure")
        self.reference_combo.currentIndexChanged.connect(self._on_reference_combo_changed)
        self.collectives_button = QToolButton(self)
        self.collectives_button.setText("Collectives")
        self.collectives_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.collectives_button)
        self.collective_actions: dict[str, QAction] = {}
        for name in COLLECTIVE_COLORS:
            action = menu.addAction(f"■ {COLLECTIVE_LABELS[name]}")
            action.setCheckable(True)
            action.setChecked(name in self.collectives)
            action.toggled.connect(self._on_collective_action_toggled)
            self.collective_actions[name] = action
        self.collectives_button.setMenu(menu)
        self.metric_combo = QComboBox(self)
        for text, quantity in METRICS:
            self.metric_combo.addItem(text, quantity)
        self.metric_combo.setToolTip("Bus bandwidth (nccl-tests busbw), algorithm bandwidth, "
                                     "or both (algbw dotted)")
        self.metric_combo.currentIndexChanged.connect(self._on_metric_combo_changed)
        self.pue_spin = QDoubleSpinBox(self)
        self.pue_spin.setRange(PUE_AUTO, PUE_MAX)
        self.pue_spin.setSingleStep(PUE_STEP)
        self.pue_spin.setDecimals(2)
        self.pue_spin.setSpecialValueText(PUE_AUTO_TEXT)  # shown at the lowest value
        self.pue_spin.setValue(PUE_AUTO)
        self.pue_spin.setToolTip("Power usage effectiveness: facility power = IT power × PUE. "
                                 "'cooling' (the lowest value): the site's stated PUE, else the "
                                 "one of the design's cooling mix, as the Cost tab and `cost` "
                                 "use")
        self.pue_spin.valueChanged.connect(self._on_pue_spin_changed)
        self.export_button = QToolButton(self)
        self.export_button.setText("Export")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        export_menu = QMenu(self.export_button)
        for kind, (title, _filter, ext) in EXPORT_KINDS.items():
            action = export_menu.addAction(f"{title} as {ext[1:].upper()}…")
            action.triggered.connect(lambda checked=False, k=kind: self.export_dialog(k))
        self.export_button.setMenu(export_menu)

        row1 = QHBoxLayout()
        row1.setSpacing(6)
        row1.addWidget(self.scope_label, 1)
        row1.addWidget(self.busy_label)
        row1.addWidget(self.scope_button)
        row1.addWidget(self.export_button)
        row2 = QHBoxLayout()
        row2.setSpacing(4)
        row3 = QHBoxLayout()  # design choices: on their own row so a narrow dock still fits
        row3.setSpacing(4)
        row4 = QHBoxLayout()  # the cluster's NCCL network settings
        row4.setSpacing(4)
        for row, text, w in ((row2, "Algorithm", self.algorithm_combo),
                             (row2, "all_reduce at", self.reference_combo),
                             (row3, "Ranks", self.placement_combo),
                             (row4, "Fabric", self.fabric_combo)):
            label = QLabel(text, self)
            label.setStyleSheet(f"color: {TEXT_DIM}; font-size: 8pt;")
            row.addWidget(label)
            row.addWidget(w)
        row3.addWidget(self.sharp_check)
        row2.addStretch(1)
        row3.addStretch(1)
        row4.addStretch(1)
        return [row1, row2, row3, row4]

    def set_selection(self, devices: list[str] | tuple[str, ...],
                      links: list[str] | tuple[str, ...] = (),
                      groups: list[str] | tuple[str, ...] = ()) -> None:
        """The canvas selection (as `Editor.selection()` gives it): one group → that group;
        otherwise the selected GPUs and the GPUs of the selected groups. Links do not count."""
        layout = self.live.layout
        scope: Scope = None
        label = ""
        if layout is not None:
            groups = [g for g in groups if layout.has_group(g)]
            in_groups: set[str] = set()
            for g in groups:
                in_groups.update(layout.group_devices(g))
            loose = [d for d in devices if d not in in_groups and layout.has_device(d)]
            if len(groups) == 1 and not loose:
                group = layout.group(groups[0])
                scope, label = groups[0], f"group {group.name or group.id}"
            else:
                gpus = {d for d in (*loose, *in_groups) if self._is_gpu(layout, d)}
                if gpus:
                    scope = tuple(sorted(gpus, key=natural_key))
                    label = f"{len(gpus)} selected GPU{'s' * (len(gpus) != 1)}"
        self._selection_scope, self._selection_label = scope, label
        self.reliability_tab.set_selection(devices, links, groups)
        checked = self.scope_button.isChecked()
        self.scope_button.setEnabled(scope is not None or checked)
        if checked:
            self.live.set_scope(scope)
            self.workload.set_scope(self.live.scope)
            self.serving.set_scope(self.live.scope)
        self._update_scope_label()

    def follow_selection(self, selection: tuple) -> None:
        """Slot for the window's `selection_changed(devices, links, groups)`."""
        self.set_selection(*selection)

    @staticmethod
    def _is_gpu(layout: Layout, device_id: str) -> bool:
        spec = layout.spec(device_id) if layout.has_device(device_id) else None
        return spec is not None and spec.traits.computes

    def _update_scope_label(self) -> None:
        scope = self.live.scope
        if scope is None:
            text = "Whole design"
            if self.scope_button.isChecked():
                text += " (nothing simulable selected)"
        else:
            text = f"Scope: {self._selection_label}"
        self.scope_label.setText(plain(text))
        self.scope_button.setToolTip(
            plain(f"Limit the simulation to {self._selection_label}" if self._selection_label
                  else "Select a group or GPUs on the canvas to limit the simulation to them"))

    def _on_scope_button_toggled(self, checked: bool) -> None:
        self.live.set_scope(self._selection_scope if checked else None)
        self.workload.set_scope(self.live.scope)
        self.serving.set_scope(self.live.scope)
        if not checked and self._selection_scope is None:
            self.scope_button.setEnabled(False)
        self._update_scope_label()

    def _on_algorithm_combo_changed(self, text: str) -> None:
        self.live.set_options(algorithm=text)

    def _on_sharp_check_toggled(self, checked: bool) -> None:
        layout = self.live.layout
        if layout is None or layout.meta.sharp == checked:
            return
        command = set_sharp(checked)
        if self.command_sink is not None:
            self.command_sink(command)  # one undo step; the meta change re-runs the panel
        else:
            command.apply(layout)

    def _on_placement_combo_changed(self, text: str) -> None:
        self.live.set_options(placement=text)

    def _on_fabric_combo_changed(self, index: int) -> None:
        self.live.set_options(fabric_tuning=str(self.fabric_combo.itemData(index)))
        self.workload.set_fabric_tuning(str(self.fabric_combo.itemData(index)))

    def _on_reference_combo_changed(self, index: int) -> None:
        self.reference = int(self.reference_combo.itemData(index))
        self._redraw()

    def _on_metric_combo_changed(self, index: int) -> None:
        self.bandwidth.set_quantity(self.metric_combo.itemData(index))

    def _on_pue_spin_changed(self, value: float) -> None:
        pue = None if value < PUE_MIN - 1e-9 else round(value, 2)  # None: the design's own
        self.live.set_pue(pue)
        self.workload.set_pue(pue)
        self.serving.set_pue(pue)
        self.cost_tab.set_pue(pue)

    def _push_command(self, command: Command) -> None:
        """A document edit from a tab (Cost: embed a book, site limits): one undo step."""
        layout = self.live.layout
        if self.command_sink is not None:
            self.command_sink(command)
        elif layout is not None:
            command.apply(layout)

    def _on_collective_action_toggled(self, checked: bool) -> None:
        self.collectives = [n for n, a in self.collective_actions.items() if a.isChecked()]
        self._redraw()

    def set_collectives(self, names: list[str]) -> None:
        for name, action in self.collective_actions.items():
            action.blockSignals(True)
            action.setChecked(name in names)
            action.blockSignals(False)
        self._on_collective_action_toggled(True)
