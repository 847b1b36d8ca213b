"""Analyze ▸ Single failures…: every single failure of a kind, on a worker, worst first.

The analysis (`analysis.whatif.WhatIf.each`) runs on a snapshot of the document in a
`QThreadPool` thread and reports progress through a relay object living on the GUI thread
(queued signals), so the window stays responsive; closing the dialog cancels between
simulations. When the Workload tab has a job (`job_source`), every scenario also estimates it and
the table gets its change in tokens/s and step time ("cannot run" when the failure takes GPUs the
job needs). "lost GPUs" are failed with their node plus stranded. Each row stands for a
class of interchangeable objects; clicking it selects them all on the canvas
(`objects_activated`). Columns sort numerically.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QThreadPool, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.analysis.whatif import TARGETS, WhatIf, WhatIfError
from rackdesigner.model import Layout
from rackdesigner.ui.jobs import Worker
from rackdesigner.ui.plain_text import plain
from rackdesigner.workload.jobfile import JobSpec

log = logging.getLogger(__name__)
COLUMNS = (("objects", None), ("count", None), ("lost GPUs", None),
           ("degraded GPUs", None), ("bisection", "bisection_GBps"),
           ("all_reduce", "all_reduce_busbw_GBps"), ("all_to_all", "all_to_all_busbw_GBps"),
           ("scale-out/GPU", "per_gpu_scale_out_GBps"), ("scale-up/GPU", "per_gpu_scale_up_GBps"))
#: with a training job: its change per scenario
JOB_COLUMNS = (("job tokens/s", "tokens_per_s"), ("job step time", "step_time_s"))


class _Relay(QObject):
    progress = Signal(int, int)
    finished = Signal(object)  # list[ClassImpact] or an error text


class _Row(QTreeWidgetItem):
    def __lt__(self, other: QTreeWidgetItem) -> bool:
        column = self.treeWidget().sortColumn() if self.treeWidget() else 0
        a = self.data(column, Qt.ItemDataRole.UserRole)
        b = other.data(column, Qt.ItemDataRole.UserRole)
        if isinstance(a, int | float) and isinstance(b, int | float):
            return a < b
        return self.text(column) < other.text(column)


def _pct(value: float | None) -> str:
    if value is None:
        return "n/a"
    return "0%" if abs(value) < 5e-5 else f"{value * 100:+.1f}%"


class SingleFailuresDialog(QDialog):
    objects_activated = Signal(list)  # ids to select on the canvas
    finished_rows = Signal(int)  # rows shown (tests, status bar)

    def __init__(self, layout: Layout, parent: QWidget | None = None,
                 job_source: Callable[[], tuple[JobSpec | None, str]] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Single failures")
        self.layout_ref = layout
        self.job_source = job_source
        self.job: JobSpec | None = None
        self.kind_combo = QComboBox(self)
        self.kind_combo.addItems(list(TARGETS))
        self.kind_combo.setCurrentText("switch")
        self.run_button = QPushButton("Run", self)
        self.run_button.clicked.connect(self.run)
        self.progress = QProgressBar(self)
        self.progress.setVisible(False)
        self.status = QLabel("Fail every object of a kind in turn and compare with the intact "
                             "design; interchangeable objects are one row.", self)
        self.status.setWordWrap(True)
        self.table = QTreeWidget(self)
        self.table.setRootIsDecorated(False)
        self.table.setHeaderLabels([c for c, _ in COLUMNS])
        self.table.setSortingEnabled(True)
        self.table.itemSelectionChanged.connect(self._on_table_selection_changed)
        row = QHBoxLayout()
        row.addWidget(QLabel("Kind:", self))
        row.addWidget(self.kind_combo)
        row.addWidget(self.run_button)
        row.addWidget(self.progress, 1)
        box = QVBoxLayout(self)
        box.addLayout(row)
        box.addWidget(self.status)
        box.addWidget(self.table, 1)
        self.resize(900, 420)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._relay = _Relay(self)
        self._relay.progress.connect(self._on_relay_progress)
        self._relay.finished.connect(self._on_relay_finished)
        self._cancel = threading.Event()
        self._worker = Worker()
        self.rows = []

    def run(self) -> None:
        """Start the analysis of the chosen kind on a snapshot (one run at a time)."""
        if self._pool.activeThreadCount():
            return
        kind = self.kind_combo.currentText()
        snapshot = self.layout_ref.snapshot()  # O(1): an immutable state
        spec = self.job = self.job_source()[0] if self.job_source is not None else None
        self._cancel.clear()
        self.run_button.setEnabled(False)
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.status.setText(plain(f"Simulating every single {kind} failure…"))
        relay, cancel, worker = self._relay, self._cancel, self._worker

        def each(job_spec) -> object:
            whatif = WhatIf(snapshot, job=job_spec)
            if not whatif.candidates(kind):
                return f"This design has no object of kind {kind}."
            return whatif.each(kind, progress=lambda d, t: relay.progress.emit(d, t),
                               cancelled=cancel.is_set)

        def analyse() -> object:
            try:
                try:
                    return each(spec)
                except WhatIfError as exc:
                    if spec is None:
                        raise
                    # the Workload tab's job cannot run on this design (another design's
                    # degrees, issue 38 item 4): the failures without it, saying why
                    rows = each(None)
                    return (rows, f"The Workload tab's job is left out: {exc}.") if isinstance(
                        rows, list) else rows
            except WhatIfError as exc:
                return f"{exc}"
            except Exception as exc:  # say it; never take the designer down
                log.exception("single-failure analysis failed")
                return f"The analysis failed: {type(exc).__name__}: {exc}"

        def job() -> None:
            ok, rows = worker.run(analyse)  # closing the dialog stops it where it is
            relay.finished.emit(rows if ok else "The analysis was stopped.")

        self._pool.start(job)

    @property
    def running(self) -> bool:
        return self._pool.activeThreadCount() > 0

    def wait(self) -> None:
        """Block until a run in flight is done (tests; closing)."""
        self._pool.waitForDone()

    def _on_relay_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    def _on_relay_finished(self, rows) -> None:
        note = ""
        if isinstance(rows, tuple):  # run without the tab's job: (rows, why)
            rows, note = rows
        self.run_button.setEnabled(True)
        self.progress.setVisible(False)
        self.table.setSortingEnabled(False)
        self.table.clear()
        if isinstance(rows, str):
            self.status.setText(plain(rows))
            self.rows = []
            self.finished_rows.emit(0)
            return
        self.rows = rows
        total = sum(r.count for r in rows)
        job = rows[0].impact.job_intact if rows else None
        self.table.setHeaderLabels([c for c, _ in COLUMNS]
                                   + ([c for c, _ in JOB_COLUMNS] if job is not None else []))
        self.status.setText(plain(f"{total} object{'s' * (total != 1)} in {len(rows)} "
                                  f"class{'es' * (len(rows) != 1)}, worst first. Click a row "
                                  "to select its objects on the canvas. " + (
                                f"Training job (Workload tab): {job.label}." if job is not None
                                else note or "Set a job in the Workload tab to see what each "
                                "failure costs it.")))
        for rank, r in enumerate(rows):
            i = r.impact
            first, last = self._named(r.members[0]), self._named(r.members[-1])
            name = first if r.count == 1 else f"any of {r.count}: {first} … {last}"
            if i.partitioned:
                name += "  (PARTITIONS)"
            values: list[tuple[str, float]] = [(name, float(rank)), (str(r.count), r.count),
                                               (str(i.failed_gpus + i.stranded_gpus),
                                                i.failed_gpus + i.stranded_gpus),
                                               (str(i.degraded_gpus), i.degraded_gpus)]
            for _, key in COLUMNS[4:]:
                v = i.delta.get(key)
                values.append((_pct(v), v if v is not None else 0.0))
            if job is not None and i.job_delta is not None:
                gone = i.job_after is not None and not i.job_after.ran
                for _, key in JOB_COLUMNS:
                    v = i.job_delta.get(key)
                    values.append(("cannot run" if gone else _pct(v),
                                   -1.0 if gone else v if v is not None else 0.0))
            item = _Row([t for t, _ in values])
            for col, (_, v) in enumerate(values):
                item.setData(col, Qt.ItemDataRole.UserRole, v)
            item.setData(0, Qt.ItemDataRole.UserRole + 1, list(r.members))
            self.table.addTopLevelItem(item)
        self.table.setSortingEnabled(True)
        self.table.sortItems(0, Qt.SortOrder.AscendingOrder)
        self.table.resizeColumnToContents(0)  # what failed tells rows apart: never cut it
        self.finished_rows.emit(len(rows))

    def _named(self, member: str) -> str:
        """What the canvas calls a failed object ("Spine rack 1"), not its id
        ("rack-69.group"); a link (or anything unnamed) by its id."""
        layout = self.layout_ref
        if layout.has_group(member):
            return layout.group(member).label
        if layout.has_device(member):
            return layout.device(member).label
        return member

    def _on_table_selection_changed(self) -> None:
        ids: list[str] = []
        for item in self.table.selectedItems():
            ids.extend(item.data(0, Qt.ItemDataRole.UserRole + 1))
        if ids:
            self.objects_activated.emit(ids)

    def done(self, result: int) -> None:  # Qt override: cancel a run when closed
        self._cancel.set()
        self._worker.cancel()  # now, not after the scenario it is simulating
        super().done(result)
