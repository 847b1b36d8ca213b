"""The Workload tab: what the design does for a training job, live.

Pick a model (bundled, or "Load file…"), the best layout or a manual one (TP, PP, VP, CP, EP,
recomputation), batch, precision and tokens to train; the tab shows step time, tokens/s, MFU,
time and energy to train, memory per GPU and a stacked bar of where the step goes (compute,
exposed TP/CP/EP/DP communication, pipeline bubble and sends, optimizer). Estimates follow the
design's edits through `LiveEstimate` (debounced, on a worker). "Pin as baseline" keeps the
current estimate so the next design is drawn beside it, with deltas: the scale-up vs scale-out
question on one screen.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QSignalBlocker, QSize, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.model import Layout
from rackdesigner.ui.panel import workload_jobfile as jobfile_ui
from rackdesigner.ui.panel.axes import CategoryAxisItem, styled_plot
from rackdesigner.ui.panel.forms import option_grid, status_label
from rackdesigner.ui.panel.scroll import wrapped_minimum
from rackdesigner.ui.panel.theme import TEXT_DIM, pg
from rackdesigner.ui.panel.workload_live import LiveEstimate, WorkloadOutcome, WorkloadRequest
from rackdesigner.ui.panel.workload_results import FIGURES, PARTS, WorkloadResults
from rackdesigner.ui.plain_text import plain
from rackdesigner.vocabulary.wording import counted
from rackdesigner.workload import Estimate, Job, bundled_ids
from rackdesigner.workload.jobfile import JobSpec
from rackdesigner.workload.profile import DEFAULT_PROFILE, bundled_profile_ids

LOAD_FILE = "Load file…"


def _spin(lo: int, hi: int, value: int, tip: str) -> QSpinBox:
    box = QSpinBox()
    box.setRange(lo, hi)
    box.setValue(value)
    box.setToolTip(plain(tip))
    return box


NO_JOB = ("No workload set: in the Workload tab choose a model and \"manual\" degrees, or let "
          "it find the best layout (open the tab); the heat map then draws that job's traffic.")


#: the batch a design's default is rounded up from (sequences per step)
DEFAULT_BATCH = 256


def batch_unit(gpus: int) -> int:
    """The design's node count (GPUs / 8), or its GPUs when they do not come in eights."""
    return gpus // 8 if gpus >= 8 and gpus % 8 == 0 else max(gpus, 1)


def default_batch(gpus: int, least: int = DEFAULT_BATCH) -> int:
    """The smallest multiple of the design's node count (`batch_unit`) of at least `least`
    sequences: TP 8 inside each node leaves one data-parallel rank per node, which then gets
    whole micro-batches."""
    unit = batch_unit(gpus)
    return max(unit, -(-least // unit) * unit)


class WorkloadTab(WorkloadResults, QWidget):
    job_changed = Signal()  # the job the heat map would draw may have changed

    def __init__(self, parent: QWidget | None = None, *, debounce_ms: int | None = None) -> None:
        super().__init__(parent)
        kw = {} if debounce_ms is None else {"debounce_ms": debounce_ms}
        self.live = LiveEstimate(self, **kw)
        self.current: WorkloadOutcome | None = None
        self.baseline: Estimate | None = None
        self._model_files: dict[str, str] = {}
        self._pue: float | None = None
        self._fabric_tuning: str | None = None  # the panel's Fabric setting (None: default)
        self._scope: str | tuple[str, ...] | None = None
        self._build()
        self.live.result_ready.connect(self._on_live_result_ready)
        self.live.busy_changed.connect(self._on_live_busy_changed)
        self._on_option_changed()

    # ---- construction ------------------------------------------------------------------------
    def _build(self) -> None:
        self.model_combo = QComboBox(self)
        self.model_combo.addItems([*bundled_ids(), LOAD_FILE])
        self.model_combo.setCurrentText("llama3-8b")
        self.model_combo.setToolTip("Model to train: bundled, or a model file (docs/workload.md)")
        self.model_combo.activated.connect(self._on_model_combo_activated)
        self.layout_combo = QComboBox(self)
        self.layout_combo.addItems(["best layout", "manual"])
        self.layout_combo.setToolTip("Search every valid layout, or use the degrees below")
        self.precision_combo = QComboBox(self)
        self.precision_combo.addItems(["bf16", "fp8", "fp4"])
        self.recompute_combo = QComboBox(self)
        self.recompute_combo.addItems(["selective", "none", "full"])
        self.profile_combo = QComboBox(self)
        self.profile_combo.addItems(bundled_profile_ids())
        self.profile_combo.setCurrentText(DEFAULT_PROFILE)
        self.profile_combo.setToolTip(
            "Software stack (efficiency profile): fused attention, kernel fusion and "
            "communication overlap as that stack does them (docs/workload.md)")
        self.tp = _spin(1, 512, 1, "tensor-parallel degree (keep it inside an NVLink domain)")
        self.pp = _spin(1, 512, 1, "pipeline stages")
        self.vp = _spin(1, 64, 1, "virtual stages per GPU (interleaved 1F1B)")
        self.cp = _spin(1, 64, 1, "context-parallel degree")
        self.ep = _spin(1, 512, 1, "expert-parallel degree (MoE models)")
        self.gpus = _spin(0, 1_000_000, 0, "use the first N GPUs of the design (0: all)")
        self.gpus.setSpecialValueText("all")
        self.gbs = _spin(1, 1_000_000, DEFAULT_BATCH, "global batch (sequences per step)")
        self.mbs = _spin(1, 64, 1, "micro-batch (sequences)")
        self.tokens = QDoubleSpinBox(self)
        self.tokens.setRange(0.001, 1000.0)
        self.tokens.setDecimals(3)
        self.tokens.setValue(1.0)
        self.tokens.setSuffix(" T tokens")
        self.tokens.setToolTip("Tokens to train, for time and energy to train")
        for combo in (self.model_combo, self.layout_combo, self.precision_combo,
                      self.recompute_combo, self.profile_combo):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(3)
        for combo in (self.precision_combo, self.recompute_combo, self.profile_combo):
            combo.currentIndexChanged.connect(self._on_option_changed)
        self.layout_combo.currentIndexChanged.connect(self._on_layout_combo_changed)
        self._gbs_chosen = False  # the user set the batch: a design opened keeps it
        self.job_folder = ""  # the folder of the job file loaded or saved last
        self.gbs.valueChanged.connect(self._on_gbs_changed)
        for box in (self.tp, self.pp, self.vp, self.cp, self.ep, self.gbs, self.mbs,
                    self.tokens, self.gpus):
            box.valueChanged.connect(self._on_option_changed)
        self.pin_button = QPushButton("Pin as baseline", self)
        self.pin_button.setToolTip("Keep this estimate; the next design is compared with it")
        self.pin_button.setEnabled(False)
        self.pin_button.clicked.connect(self.pin_baseline)
        self.clear_button = QPushButton("Clear", self)
        self.clear_button.setEnabled(False)
        self.clear_button.clicked.connect(self.clear_baseline)
        self.load_job_button = QPushButton("Load Job…", self)
        self.load_job_button.setToolTip("Set the fields from a job file (--job FILE of "
                                        "estimate, compare, cost, whatif)")
        self.load_job_button.clicked.connect(lambda: jobfile_ui.load_job_dialog(self))
        self.save_job_button = QPushButton("Save Job…", self)
        self.save_job_button.setToolTip("Write this job as a job file; with \"best layout\" "
                                        "each design lays it out for itself (layout: search)")
        self.save_job_button.clicked.connect(lambda: jobfile_ui.save_job_dialog(self))

        grid = option_grid(self, (
            ("Model", self.model_combo), ("Layout", self.layout_combo),
            ("Precision", self.precision_combo), ("Recompute", self.recompute_combo),
            ("TP", self.tp), ("PP", self.pp), ("VP", self.vp), ("CP", self.cp),
            ("EP", self.ep), ("GPUs", self.gpus), ("Batch", self.gbs), ("Micro", self.mbs),
            ("Train", self.tokens), ("Stack", self.profile_combo)))
        self.batch_note = status_label(self)  # why the batch is not the one last shown
        self.batch_note.setVisible(False)
        self.status = status_label(self)
        self.figure_labels: dict[str, QLabel] = {}
        figures = QGridLayout()
        names = {"step": "Step time", "tokens": "Tokens/s", "mfu": "MFU",
                 "train": "Time to train", "energy": "Energy to train", "memory": "Memory/GPU"}
        for i, key in enumerate(FIGURES):
            title = QLabel(names[key], self)
            title.setStyleSheet(f"color: {TEXT_DIM}; font-size: 8pt;")
            value = QLabel("–", self)
            value.setStyleSheet("font-size: 11pt; font-weight: 600;")
            value.setWordWrap(True)
            figures.addWidget(title, 2 * (i // 3), i % 3)
            figures.addWidget(value, 2 * (i // 3) + 1, i % 3)
            self.figure_labels[key] = value
        self.axis = CategoryAxisItem()
        self.plot = styled_plot("Where the step goes", "s", axis_items={"bottom": self.axis})
        self.bars: dict[str, pg.BarGraphItem] = {}
        for key, _label, color in PARTS:
            bar = pg.BarGraphItem(x=[], height=[], width=0.6, brush=color,
                                  pen=pg.mkPen("w", width=0.5))
            self.plot.getPlotItem().addItem(bar)
            self.bars[key] = bar
        legend = QLabel("  ".join(f"<span style='color:{c}'>■</span> {t}" for _k, t, c in PARTS),
                        self)
        legend.setWordWrap(True)
        legend.setStyleSheet(f"color: {TEXT_DIM}; font-size: 8pt;")
        buttons = QHBoxLayout()
        buttons.addWidget(self.pin_button)
        buttons.addWidget(self.clear_button)
        buttons.addStretch(1)
        buttons.addWidget(self.load_job_button)
        buttons.addWidget(self.save_job_button)
        box = QVBoxLayout(self)
        box.setContentsMargins(2, 2, 2, 2)
        box.setSpacing(4)
        box.addLayout(grid)
        box.addWidget(self.batch_note)
        box.addWidget(self.status)
        box.addLayout(figures)
        box.addLayout(buttons)
        box.addWidget(legend)
        box.addWidget(self.plot, 1)

    # ---- inputs ------------------------------------------------------------------------------
    def set_layout(self, layout: Layout | None) -> None:
        """Follow another document (the scope returns to the whole design, as the panel's).
        Unless the user chose a batch, it is one every data-parallel width of the design
        can split: 256 sequences would not divide over a 4-SU SuperPOD's 127 nodes, and the
        tab opened on "Cannot estimate" (issue 26)."""
        self._scope = None
        if layout is not None and not self._gbs_chosen:
            gpus = layout.index().counts()[0]["gpu"]
            before, batch = self.gbs.value(), default_batch(gpus)
            blocker = QSignalBlocker(self.gbs)
            self.gbs.setValue(batch)
            del blocker
            self._note_batch(before, batch, gpus)
        self.live.set_request(self.request())
        self.live.set_layout(layout)

    def request(self) -> WorkloadRequest:
        manual = self.layout_combo.currentText() == "manual"
        for box in (self.tp, self.pp, self.vp, self.cp, self.ep):
            box.setEnabled(manual)
        self.recompute_combo.setEnabled(manual)
        job = Job(tp=self.tp.value(), pp=self.pp.value(), vp=self.vp.value(),
                  cp=self.cp.value(), ep=self.ep.value(), gbs=self.gbs.value(),
                  mbs=self.mbs.value(), precision=self.precision_combo.currentText(),
                  recompute=self.recompute_combo.currentText(),
                  profile=self.profile_combo.currentText())
        name = self.model_combo.currentText()
        return WorkloadRequest(self._model_files.get(name, name), job, best=not manual,
                               tokens=self.tokens.value() * 1e12,
                               gpus=self.gpus.value() or None, pue=self._pue,
                               scope=self._scope, fabric_tuning=self._fabric_tuning)

    def set_scope(self, scope: str | tuple[str, ...] | None) -> None:
        """The panel's "Selection only" scope (a group id or GPU ids; None: the design)."""
        self._scope = scope
        self._on_option_changed()

    def set_pue(self, pue: float | None) -> None:
        """The panel's PUE (Power tab): energy to train is facility energy."""
        self._pue = pue
        self._on_option_changed()

    def set_fabric_tuning(self, tuning: str) -> None:
        """The panel's Fabric setting: the estimate's collectives run under it, as the
        Bandwidth tab's do."""
        self._fabric_tuning = tuning
        self._on_option_changed()

    def _note_batch(self, before: int, batch: int, gpus: int) -> None:
        """Say next to the field why the batch is not 256 (or not what the last design had):
        Compare, Single Failures and a saved job all run this batch (issue 38 item 3: 256 on
        one design became 378 on the next, unseen, and the comparison's job with it)."""
        if batch == DEFAULT_BATCH and before == batch:
            self.batch_note.setVisible(False)
            return
        unit = batch_unit(gpus)
        of = (f"this design's {counted(unit, 'node')} ({counted(gpus, 'GPU')} / 8)"
              if unit != gpus else f"this design's {counted(gpus, 'GPU')}")
        was = f" (was {before:,})" if before != batch else ""
        self.batch_note.setText(plain(
            f"Batch {batch:,}{was}: the smallest multiple of {of} of at least "
            f"{DEFAULT_BATCH:,} sequences, so every data-parallel rank gets whole sequences. "
            "Compare and Single Failures run this batch; set the batch to keep yours on every "
            "design."))
        self.batch_note.setVisible(True)

    def _on_gbs_changed(self, _value: int) -> None:
        self._gbs_chosen = True
        self.batch_note.setVisible(False)  # the user's batch: kept, nothing to explain

    def mark_batch_chosen(self) -> None:
        """The batch was set by the user (a loaded job): a design opened keeps it."""
        self._gbs_chosen = True
        self.batch_note.setVisible(False)

    def refresh_request(self) -> None:
        """Fields were set with their signals blocked (a loaded job): estimate once now."""
        self._on_option_changed()

    def _on_layout_combo_changed(self, _index: int) -> None:
        """Going to "manual" starts from the layout the search found (its degrees shown),
        not from TP 1 / PP 1."""
        est = self.current.estimate if self.current is not None else None
        if self.layout_combo.currentText() == "manual" and est is not None:
            job = est.job
            for box, value in ((self.tp, job.tp), (self.pp, job.pp), (self.vp, job.vp),
                               (self.cp, job.cp), (self.ep, job.ep), (self.mbs, job.mbs)):
                blocker = QSignalBlocker(box)
                box.setValue(value)
                del blocker
            blocker = QSignalBlocker(self.recompute_combo)
            self.recompute_combo.setCurrentText(job.recompute)
            del blocker
        self._on_option_changed()

    def _on_option_changed(self, *_args) -> None:
        self.live.set_request(self.request())
        self.job_changed.emit()

    def heat_job(self) -> tuple[WorkloadRequest | None, str]:
        """The job the heat map draws: the manual degrees, or the best layout found (None and
        why when the search has not run yet)."""
        req = self.request()
        if not req.best:
            return req, ""
        est = self.current.estimate if self.current is not None else None
        if est is not None:
            return replace(req, job=est.job, best=False), ""
        if self.current is not None and self.current.error and not self.live.job.busy:
            return None, f"The Workload tab has no job: {self.current.error}"
        self.live.kick()  # hidden tab: search now; `job_changed` follows with the result
        return None, (f"Finding the best layout of {req.model} in the Workload tab first… "
                      f"(or set \"manual\" degrees there). {NO_JOB}")

    def job_spec(self, *, once_estimated: bool = False) -> tuple[JobSpec | None, str]:
        """The tab's job as a job file would give it (compare, Single Failures, Save Job…):
        with "best layout" a search job that every design — or what survives a failure —
        lays out for itself; with "manual" its degrees. `once_estimated`: a search job only
        once the tab has estimated it (Single Failures adds a job's columns, each failure a
        search, only when the user has set the tab up)."""
        req = self.request()
        if once_estimated and req.best and self.current is None:
            return None, NO_JOB
        group = req.scope if isinstance(req.scope, str) else None
        return JobSpec(req.model, req.job, gpus=req.gpus, group=group, tokens=req.tokens,
                       pue=req.pue, search=req.best), ""

    def found_job_spec(self) -> tuple[JobSpec | None, str]:
        """The job this design runs, fixed: the manual degrees or the layout the search found
        here (None and why before it has), for figures of this design only (the Cost tab)."""
        req, why = self.heat_job()
        if req is None:
            return None, why
        group = req.scope if isinstance(req.scope, str) else None
        return JobSpec(req.model, req.job, gpus=req.gpus, group=group, tokens=req.tokens,
                       pue=req.pue), ""

    def _on_model_combo_activated(self, index: int) -> None:
        if self.model_combo.itemText(index) == LOAD_FILE:
            path, _ = QFileDialog.getOpenFileName(self, "Load a model file",
                                                  jobfile_ui.job_folder(self),
                                                  "Model files (*.yaml *.yml)")
            self.load_model_file(path) if path else self.model_combo.setCurrentIndex(0)
            return
        self._on_option_changed()

    def load_model_file(self, path: str) -> None:
        """Use the model described in `path` (errors show in the tab when it is estimated)."""
        name = path.rsplit("/", 1)[-1]
        self._model_files[name] = path
        if self.model_combo.findText(name) < 0:
            self.model_combo.insertItem(self.model_combo.count() - 1, name)
        self.model_combo.setCurrentText(name)
        self._on_option_changed()

    def flush(self) -> WorkloadOutcome | None:
        return self.live.flush()

    def minimumSizeHint(self) -> QSize:  # Qt override
        """Tall enough for the notes wrapped at this width: the option rows (Train's digits)
        are never squeezed below their own height in a short dock (issue 38 item 4)."""
        return wrapped_minimum(self, super().minimumSizeHint())

    def resizeEvent(self, event) -> None:  # Qt override
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # the wrapped notes' height, so the minimum, changed

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.live.set_active(True)

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self.live.set_active(False)

    def close_tab(self) -> None:
        self.live.close()

__all__ = ["WorkloadTab"]
