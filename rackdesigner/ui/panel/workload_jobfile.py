"""The Workload tab's job as a file: Load Job… and Save Job… (`workload/jobfile.py` format).

A job saved here is what compare, cost, whatif and sweeps read with `--job`; with "best layout"
it is a search job (`layout: search`) that every design lays out for itself. Loading sets the
tab's fields from the file (a model file beside the job is offered in the model list); a file
that cannot be used is refused with its line, and the tab keeps its job.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QFileDialog, QMessageBox

from rackdesigner.ui.plain_text import plain
from rackdesigner.workload.jobfile import JobFileError, JobSpec, dump_job, load_job

if TYPE_CHECKING:
    from rackdesigner.ui.panel.workload import WorkloadTab

JOB_FILTER = "Job files (*.yaml *.yml);;All files (*)"


def apply_job(tab: WorkloadTab, spec: JobSpec) -> None:
    """Set the tab's fields from `spec` (one estimate follows, not one per field)."""
    job = spec.job
    widgets = (tab.model_combo, tab.layout_combo, tab.precision_combo, tab.recompute_combo,
               tab.profile_combo, tab.tp, tab.pp, tab.vp, tab.cp, tab.ep, tab.gpus, tab.gbs,
               tab.mbs, tab.tokens)
    blockers = [QSignalBlocker(w) for w in widgets]
    try:
        if tab.model_combo.findText(spec.model) < 0:  # a model file: listed by its name
            tab.load_model_file(spec.model)
        tab.model_combo.setCurrentText(spec.model.rsplit("/", 1)[-1])
        tab.layout_combo.setCurrentText("best layout" if spec.search else "manual")
        tab.precision_combo.setCurrentText(job.precision)
        tab.recompute_combo.setCurrentText(job.recompute)
        if job.profile:
            tab.profile_combo.setCurrentText(job.profile)
        for box, value in ((tab.tp, job.tp), (tab.pp, job.pp), (tab.vp, job.vp),
                           (tab.cp, job.cp), (tab.ep, job.ep), (tab.gbs, job.gbs),
                           (tab.mbs, job.mbs), (tab.gpus, spec.gpus or 0)):
            box.setValue(value)
        if spec.tokens:
            tab.tokens.setValue(spec.tokens / 1e12)
    finally:
        del blockers
    tab.mark_batch_chosen()
    tab.refresh_request()


def load_job_dialog(tab: WorkloadTab) -> bool:
    path, _ = QFileDialog.getOpenFileName(tab, "Load a training job", job_folder(tab),
                                          JOB_FILTER)
    return load_job_file(tab, path) if path else False


def job_folder(tab: WorkloadTab, name: str = "") -> str:
    """Where the tab's file dialogs start: the folder of the job file loaded or saved last,
    else the open design's (or the last opened design's) folder, else home — never the
    working directory the app was started from."""
    folder = tab.job_folder
    if not folder:
        files = getattr(tab.window(), "files", None)  # the main window's (None standalone)
        last = files.last_folder() if files is not None else None
        folder = str(last) if last is not None else str(Path.home())
    return str(Path(folder) / name) if name else folder


def load_job_file(tab: WorkloadTab, path: str) -> bool:
    try:
        spec = load_job(path)
    except JobFileError as exc:
        _warn(tab, "Cannot load the job", str(exc))
        return False
    apply_job(tab, spec)
    tab.job_folder = str(Path(path).parent)
    return True


def save_job_dialog(tab: WorkloadTab) -> bool:
    path, _ = QFileDialog.getSaveFileName(tab, "Save the training job",
                                          job_folder(tab, "job.yaml"), JOB_FILTER)
    return save_job_file(tab, path) if path else False


def save_job_file(tab: WorkloadTab, path: str) -> bool:
    from rackdesigner.io import atomic

    spec, why = tab.job_spec()
    if spec is None:
        _warn(tab, "No job to save", why)
        return False
    if not path.endswith((".yaml", ".yml")):
        path += ".yaml"
    try:
        atomic.write_text(path, dump_job(spec))
    except OSError as exc:
        _warn(tab, "Cannot save the job", f"{path}: {exc.strerror or exc}")
        return False
    tab.job_folder = str(Path(path).parent)
    return True


def _warn(tab: WorkloadTab, title: str, text: str) -> None:
    box = QMessageBox(QMessageBox.Icon.Warning, title, plain(text),  # a file's text is data
                      QMessageBox.StandardButton.Ok, tab)
    box.open()
    tab.job_file_box = box


__all__ = ["apply_job", "job_folder", "load_job_dialog", "load_job_file", "save_job_dialog",
           "save_job_file"]
