"""The panel's Heat tab: which traffic the canvas heat map shows, and the hottest links.

Turning the heat map on (View ▸ Heat map, or the check box here) asks the live simulation to
list per-link loads for the chosen collective and size in every run; the canvas recolours from
the result (`heat_changed`), and the table lists the hottest links, sortable, each row
selecting its link on the canvas (`links_activated`). The traffic may also be the Workload tab's
training job (all its TP/CP/EP/PP/DP exchanges, or one class): the panel supplies the job.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.analysis.heat import DEFAULT_COLLECTIVE, DEFAULT_SIZE, HEAT_COLLECTIVES, HeatMap
from rackdesigner.analysis.jobheat import ASSUMPTION, CLASSES
from rackdesigner.ui.panel.figures import REFERENCE_SIZES, format_bytes
from rackdesigner.ui.panel.theme import TEXT_DIM
from rackdesigner.ui.plain_text import plain

HOTTEST = 25
#: the training job's traffic (the Workload tab's job): all of it, or one class
WORKLOAD_CHOICES = {"workload (TP/PP/DP/EP)": CLASSES,
                    **{f"workload: {c} only": (c,) for c in CLASSES}}
SIZES = (2**16, 2**20, *[s for s in REFERENCE_SIZES if s > 2**20])


class _Row(QTreeWidgetItem):
    """Sorts numerically on the figure columns."""

    def __lt__(self, other: QTreeWidgetItem) -> bool:
        column = self.treeWidget().sortColumn() if self.treeWidget() else 0
        a, b = self.data(column, Qt.ItemDataRole.UserRole), other.data(
            column, Qt.ItemDataRole.UserRole)
        if isinstance(a, float) and isinstance(b, float):
            return a < b
        return self.text(column) < other.text(column)


class HeatTab(QWidget):
    heat_requested = Signal(object)  # (collective, bytes) or None: what the live run lists
    links_activated = Signal(list)  # link ids to select on the canvas

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.enabled_check = QCheckBox("Heat map on the canvas", self)
        self.enabled_check.setToolTip("Colour every network link by its utilisation under the "
                                      "traffic below (View ▸ Heat map)")
        self.collective_combo = QComboBox(self)
        self.collective_combo.addItems(list(HEAT_COLLECTIVES))
        self.collective_combo.insertSeparator(len(HEAT_COLLECTIVES))
        self.collective_combo.addItems(list(WORKLOAD_CHOICES))
        self.collective_combo.setToolTip("Traffic: a collective at a size, or the Workload "
                                         "tab's training job (its TP/PP/DP/EP exchanges)")
        self.collective_combo.setCurrentText(DEFAULT_COLLECTIVE)
        self.size_combo = QComboBox(self)
        for size in SIZES:
            self.size_combo.addItem(format_bytes(size), size)
        self.size_combo.setCurrentIndex(SIZES.index(DEFAULT_SIZE))
        self.summary = QLabel("", self)
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet(f"color: {TEXT_DIM}; font-size: 8pt;")
        self.table = QTreeWidget(self)
        self.table.setRootIsDecorated(False)
        self.table.setHeaderLabels(["link", "between", "load GB/s", "utilisation", "traffic"])
        self.table.setSortingEnabled(True)
        self.table.setMinimumHeight(160)
        self.table.itemSelectionChanged.connect(self._on_table_selection_changed)
        row = QHBoxLayout()
        row.addWidget(self.collective_combo)
        row.addWidget(self.size_combo)
        row.addStretch(1)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.enabled_check)
        box.addLayout(row)
        box.addWidget(self.summary)
        box.addWidget(self.table, 1)
        self.enabled_check.toggled.connect(self._emit_request)
        self.collective_combo.currentTextChanged.connect(self._emit_request)
        self.size_combo.currentIndexChanged.connect(self._emit_request)
        self.heat: HeatMap | None = None

    def traffic(self) -> tuple:
        """(collective, bytes), or ("workload", classes) for the training job's traffic."""
        text = self.collective_combo.currentText()
        if text in WORKLOAD_CHOICES:
            return "workload", WORKLOAD_CHOICES[text]
        return text, int(self.size_combo.currentData())

    def workload_chosen(self) -> bool:
        return self.collective_combo.currentText() in WORKLOAD_CHOICES

    def _emit_request(self, *args) -> None:
        self.size_combo.setEnabled(not self.workload_chosen())
        self.heat_requested.emit(self.traffic() if self.enabled_check.isChecked() else None)

    def show_heat(self, heat: HeatMap | None, why: str = "") -> None:
        """List `heat`'s hottest links; with none, say why (`why`, or the default reasons)."""
        self.heat = heat
        self.table.setSortingEnabled(False)
        self.table.clear()
        if heat is None:
            if why:
                text = why
            elif not self.enabled_check.isChecked():
                text = "Off: turn the heat map on to colour links by utilisation."
            elif self.workload_chosen():
                text = "Routing the workload's traffic…"
            else:
                text = "No network links carry this traffic (NVLink and host links have no heat)."
            self.summary.setText(plain(text))
            self.table.setSortingEnabled(True)
            return
        shown = min(HOTTEST, len(heat.loads))
        if heat.label:  # a training job: what ran, how utilisation is defined
            parts = ", ".join(f"{x.name} {x.peak:.0%}" for x in heat.exchanges)
            self.summary.setText(plain(f"{heat.label}: {len(heat.loads):,} links loaded (NVLink "
                                       f"too), peak {heat.peak:.0%}. Exchanges (busiest link): "
                                       f"{parts or 'none'}. Model: {ASSUMPTION}. "
                                       + " ".join(n + "." for n in heat.notes[1:])
                                       + f" The {shown} hottest:"))
        else:
            self.summary.setText(plain(f"{heat.collective} {format_bytes(heat.bytes)}"
                                       f"{f' ({heat.algorithm})' if heat.algorithm else ''}: "
                                       f"{len(heat.loads):,} network links loaded, peak "
                                       f"{heat.peak:.0%}; the {shown} hottest:"))
        for load in heat.hottest(HOTTEST):
            item = _Row([load.link, f"{load.a} – {load.b}", f"{load.load_GBps:,.1f}",
                         f"{load.utilisation:.0%}",
                         heat.link_class.get(load.link, heat.collective)])
            item.setData(2, Qt.ItemDataRole.UserRole, float(load.load_GBps))
            item.setData(3, Qt.ItemDataRole.UserRole, float(load.utilisation))
            item.setData(0, Qt.ItemDataRole.UserRole + 1, load.link)
            self.table.addTopLevelItem(item)
        self.table.setSortingEnabled(True)
        self.table.sortItems(3, Qt.SortOrder.DescendingOrder)
        for column in (0, 1):  # the link and its ends tell rows apart: never cut them
            self.table.resizeColumnToContents(column)

    def _on_table_selection_changed(self) -> None:
        ids = [i.data(0, Qt.ItemDataRole.UserRole + 1) for i in self.table.selectedItems()]
        if ids:
            self.links_activated.emit(ids)
