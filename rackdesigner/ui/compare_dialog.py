"""File ▸ Compare With…: the open design against saved ones, in the table `rackdesigner compare`
prints (cost/compare.py), with the winner of each row marked.

The open design is compared as it is now (a snapshot, unsaved edits included) and priced with
the Cost tab's book and assumptions; with "the Workload tab's job" checked, every design is also
estimated for that job. The work runs on a worker (`BackgroundJob`): simulating and pricing a
few designs takes seconds, and the window stays responsive meanwhile. The table can be saved as
CSV or JSON.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from rackdesigner.io.jsonout import json_text
from rackdesigner.model import Layout
from rackdesigner.ui.jobs import BackgroundJob, JobResult
from rackdesigner.ui.plain_text import plain

WIN = QColor("#e3f4e1")
MAYBE = QColor("#fff4d6")


def _compare(snapshot: Layout | None, params: tuple) -> Any:
    """The worker: the open design plus the files, simulated and priced; a `Comparison`, or
    the text of what could not be read (a file, a price book, a job)."""
    from rackdesigner.cost import PriceBookError, find_price_book
    from rackdesigner.cost.compare import compare, figures
    from rackdesigner.io import LayoutFileError, load_layout
    from rackdesigner.workload import EstimateError, ModelFileError

    label, paths, book_path, assumptions, job = params
    designs = []
    sources: list[tuple[str, Any]] = []
    if snapshot is not None:
        sources.append((label, snapshot))
    sources += [(p, None) for p in paths]
    names = _names([name for name, _ in sources])
    for (source, layout), name in zip(sources, names, strict=True):
        try:
            if layout is None:
                layout = load_layout(source)
            book = find_price_book(layout, book_path)
            designs.append(figures(name, layout, book, assumptions, job=job))
        except (LayoutFileError, PriceBookError) as exc:
            return f"{exc}"
        except (EstimateError, ModelFileError, ValueError) as exc:
            return f"{name}: {exc}"
    if len(designs) < 2:
        return "add at least one saved design to compare with"
    comparison = compare(designs)
    if job is not None:
        comparison = replace(comparison, notes=(job_note(job, designs), *comparison.notes))
    return comparison


def job_note(job: Any, designs: list) -> str:
    """What the training rows ran: the job (model, batch, tokens) and, for each design, on
    how many of its GPUs (a search job may leave some idle when that is faster: a batch that
    does not spread over all of them). The rows alone hid why a design trained slower."""
    from rackdesigner.cost.text import format_count
    from rackdesigner.vocabulary.wording import counted

    head = (f"job: {job.model}, a batch of {counted(job.job.gbs, 'sequence')}, "
            f"{format_count(job.tokens)} tokens; ")
    runs = []
    for d in designs:
        t = d.cost.training
        if t is None:
            continue
        runs.append(f"{d.label} on {'all ' if t.gpus == d.gpus else ''}{t.gpus:,}"
                    + (f" of its {d.gpus:,}" if t.gpus != d.gpus else "") + " GPUs")
    how = ("each design's fastest layout: " if job.search
           else "the same degrees on every design: ")
    return head + how + ", ".join(runs)


def _names(sources: list[str]) -> list[str]:
    stems = [Path(s).stem for s in sources]
    return stems if len(set(stems)) == len(stems) else sources


class CompareDialog(QDialog):
    """The comparison table; `add_paths` and `run` drive it from code (tests, scripts)."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window_ = window
        self.setWindowTitle("Compare designs")
        self.resize(900, 640)
        self.job = BackgroundJob(_compare, self, debounce_ms=0)
        self.job.result_ready.connect(self._on_job_result_ready)
        self.job.busy_changed.connect(self._on_job_busy_changed)
        self.comparison: Any = None
        self.files = QListWidget(self)
        self.files.setMaximumHeight(90)
        self.files.setToolTip("Saved designs to compare with the open one")
        self.add_button = QPushButton("Add designs…", self)
        self.add_button.clicked.connect(self._on_add_clicked)
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        self.job_check = QCheckBox("With the Workload tab's job", self)
        self.job_check.setToolTip("Estimate that job on every design: tokens/s, days and "
                                  "dollars to train, tokens per dollar")
        self.run_button = QPushButton("Compare", self)
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run)
        self.status = QLabel("Add the designs to compare with, then Compare.", self)
        self.status.setWordWrap(True)
        self.table = QTableWidget(self)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.against = QLabel(self)
        self.notes = QLabel(self)
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #616e7c; font-size: 8pt;")
        self.save_button = QPushButton("Save table…", self)
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self._on_save_clicked)
        close = QPushButton("Close", self)
        close.clicked.connect(self.close)
        top = QHBoxLayout()
        left = QVBoxLayout()
        left.addWidget(self.against)
        left.addWidget(self.files, 1)
        top.addLayout(left, 1)
        side = QVBoxLayout()
        for w in (self.add_button, self.remove_button, self.job_check, self.run_button):
            side.addWidget(w)
        side.addStretch(1)
        top.addLayout(side)
        bottom = QHBoxLayout()
        bottom.addWidget(self.save_button)
        bottom.addStretch(1)
        bottom.addWidget(close)
        box = QVBoxLayout(self)
        self._show_against()
        box.addLayout(top)
        box.addWidget(self.status)
        box.addWidget(self.table, 1)
        box.addWidget(self.notes)
        box.addLayout(bottom)
        self._restore_inputs()
        self.job_check.toggled.connect(self._remember_inputs)

    # ---- inputs ----------------------------------------------------------------------------
    def _label(self) -> str:
        document = self.window_.document
        return document.path.name if document.path is not None else (
            document.layout.meta.name or "this design")

    def _show_against(self) -> None:
        self.against.setText(plain(f"The open design ({self._label()}, as it is now) against:"))

    def showEvent(self, event) -> None:  # Qt override: the open design may have changed
        self._show_against()
        super().showEvent(event)

    def _settings(self) -> Any:
        return getattr(self.window_, "settings", None)

    def _restore_inputs(self) -> None:
        """The files and option of the last comparison (QSettings, as the template dialog
        remembers its template): the dialog opens as it was left, also in the next session."""
        settings = self._settings()
        if settings is None:
            return
        paths, with_job = settings.compare_inputs()
        self._adding(paths)
        self.job_check.setChecked(with_job)

    def _remember_inputs(self) -> None:
        settings = self._settings()
        if settings is not None:
            settings.save_compare_inputs(self.paths(), self.job_check.isChecked())

    def add_paths(self, paths: list[str]) -> None:
        self._adding(paths)
        self._remember_inputs()

    def _adding(self, paths: list[str]) -> None:
        present = set(self.paths())
        for path in paths:
            if path not in present:
                self.files.addItem(path)
                present.add(path)

    def paths(self) -> list[str]:
        return [self.files.item(i).text() for i in range(self.files.count())]

    def _folder(self) -> str:
        path = getattr(self.window_.document, "path", None)
        return str(path.parent) if path is not None else ""

    def _on_add_clicked(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Designs to compare with", self._folder(),
                                                "RackDesigner layouts (*.yaml *.yml)")
        self.add_paths(paths)

    def _on_remove_clicked(self) -> None:
        for item in self.files.selectedItems():
            self.files.takeItem(self.files.row(item))
        self._remember_inputs()

    def run(self) -> None:
        """Compare the open design with the listed files (on the worker)."""
        window = self.window_
        panel = window.simulation_panel
        cost = panel.cost_tab
        job = None
        if self.job_check.isChecked():
            job, why = panel.workload.job_spec()
            if job is None or not job.tokens:
                self.status.setText(plain(f"The Workload tab has no job to compare: "
                                          f"{why or 'set the tokens to train there'}"))
                return
        document = window.document
        label = self._label()
        self.job.set_layout(document.layout)
        self.job.set_params((label, self.paths(), cost.live.book_path, cost.assumptions(), job))
        self.job.request(immediate=True)

    def flush(self) -> Any:
        self.job.flush(120_000)
        return self.comparison

    # ---- results ---------------------------------------------------------------------------
    def _on_job_busy_changed(self, busy: bool) -> None:
        self.run_button.setEnabled(not busy)
        if busy:
            self.status.setText("Simulating and pricing the designs…")

    def _on_job_result_ready(self, result: JobResult) -> None:
        value = result.value
        if result.error or isinstance(value, str):
            self.comparison = None
            self.status.setText(plain(f"Cannot compare: {result.error or value}"))
            self.save_button.setEnabled(False)
            return
        self.comparison = value
        self.status.setText(plain(f"{len(value.designs)} designs compared in "
                                  f"{result.elapsed_s:.1f} s — ✓ best of the row, ? best so "
                                  "far but a lower bound (parts without a price)"))
        self._fill(value)
        self.save_button.setEnabled(True)

    def _fill(self, comparison: Any) -> None:
        rows, designs = comparison.rows, comparison.designs
        self.table.clear()
        self.table.setRowCount(len(rows))
        self.table.setColumnCount(len(designs))
        self.table.setHorizontalHeaderLabels(list(designs))
        self.table.setVerticalHeaderLabels([r.label for r in rows])
        bold = QFont()
        bold.setBold(True)
        for r, row in enumerate(rows):
            for c in range(len(designs)):
                text = comparison.cell(row, c)
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if row.winner == c:
                    item.setText(text + (" ✓" if row.certain else " ?"))
                    item.setBackground(QBrush(WIN if row.certain else MAYBE))
                    item.setFont(bold)
                    item.setToolTip(plain("best of the row" if row.certain else
                                          "best so far, but it leaves parts without a price out"))
                elif row.range_tie and row.best == c:
                    item.setText(text + " ≈")
                    spread = next((x for i, x in enumerate(row.ranges) if i != c and x), None)
                    item.setToolTip(plain("best, but inside another design's range: a tie"
                                          + (f" ({spread.text()})" if spread is not None else "")))
                self.table.setItem(r, c, item)
        self.notes.setText(plain("\n".join(comparison.notes)))

    def winner_cells(self) -> dict[str, str]:
        """metric key -> the winning design (tests, scripts)."""
        c = self.comparison
        if c is None:
            return {}
        return {row.key: c.designs[row.winner] for row in c.rows if row.winner is not None}

    def save(self, path: str | Path) -> Path:
        from rackdesigner.io.atomic import write_text

        if self.comparison is None:
            raise ValueError("nothing compared yet")
        text = (json_text(self.comparison.to_json(), newline=True)
                if str(path).endswith(".json") else self.comparison.to_csv())
        return write_text(path, text)

    def _on_save_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the comparison",
                                              str(Path(self._folder()) / "comparison.csv"),
                                              "CSV (*.csv);;JSON (*.json)")
        if not path:
            return
        try:
            self.save(path)
        except (OSError, ValueError) as exc:
            self.status.setText(plain(f"Cannot save: {exc}"))
            return
        self.status.setText(plain(f"Saved the comparison to {path}"))

    def closeEvent(self, event) -> None:  # Qt override: wait for a run in flight
        self.job.close()
        super().closeEvent(event)


def open_compare_dialog(window: Any, paths: list[str] | None = None) -> CompareDialog:
    """File ▸ Compare With…: one dialog per window (kept, with its list of files)."""
    dialog = getattr(window, "compare_dialog", None)
    if dialog is None or dialog.job._closed:
        dialog = CompareDialog(window)
        window.compare_dialog = dialog
    if paths:
        dialog.add_paths(paths)
    dialog.show()
    dialog.raise_()
    return dialog


__all__ = ["CompareDialog", "open_compare_dialog"]
