"""The Problems dock: design-rule findings, live, computed off the GUI thread.

Findings are recomputed a short while after the last change on a `BackgroundJob`
(`ui/jobs.py`: debounce, snapshot on the GUI thread, one run in flight, stale results dropped,
errors reported) — the same helper the live panel uses — because `check_layout` on a 1,016-GPU
SuperPOD takes 40–150 ms: on the GUI thread that was a frozen frame after every edit. A result
is shown only if it is for the newest request and for the revision of the design shown now.

The findings come from the design's derived index (`model/index.py`), like the panel's figures,
so a partitioned design shows the same "GPUs cannot reach the others" in Problems, the status
bar and the panel.

`flush()` (tests, `MainWindow.flush`) is synchronous: if a recompute is pending or running, it
checks the design on the GUI thread at once and shows that; the run in flight, now stale, is
dropped when it ends. Activating a finding emits the ids it involves, which the main window
selects and shows.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.model import ERROR, Finding, Layout, check_layout
from rackdesigner.model.finding_groups import GROUP_FROM, FindingGroup, group_findings
from rackdesigner.model.findings import findings
from rackdesigner.ui.jobs import BackgroundJob, JobResult
from rackdesigner.ui.plain_text import plain
from rackdesigner.vocabulary.wording import counted

log = logging.getLogger(__name__)
DEBOUNCE_MS = 200
MAX_ROWS = 2000
FRESH = "fresh"  # the job's parameter that checks a design from nothing
OBJECTS_ROLE = Qt.ItemDataRole.UserRole

def _check(snapshot: Layout | None,
           params: Any = None) -> tuple[list[Finding], list[FindingGroup]]:
    """The worker's job: the findings of a snapshot (`check_layout` looked up at call time),
    kept per state (`model/findings.py`: a move or a Fail reuses the findings of the state
    before it; `params` "fresh" checks from nothing: a design just opened, Refresh), grouped
    by what they say (the same finding on 102,400 links is one row); it also derives the
    counts the status bar shows, so the GUI thread only reads them."""
    if snapshot is None:
        return [], []
    found = findings(snapshot, check_layout, fresh=params == FRESH)
    snapshot.index().counts()
    return found, group_findings(snapshot, found)


def _keeps_findings(event: object) -> bool:
    """A move or a status change (Fail / Restore): no rule reads either."""
    if getattr(event, "is_move", False):
        return True
    old, new = getattr(event, "old", None), getattr(event, "new", None)
    return (old is not None and new is not None and hasattr(new, "status")
            and old.status != new.status and replace(old, status=new.status) == new)


#: what the list says while a design just set is being checked (the list is empty until then)
CHECKING = "Checking the design rules…"


class ProblemsWidget(QWidget):
    objects_activated = Signal(object)  # tuple of ids
    findings_changed = Signal(int, int)  # errors, warnings
    checking = Signal()  # a design just set is being checked: the counts shown are not its own
    result_dropped = Signal(object)  # JobResult that arrived after a newer request or edit

    def __init__(self, parent: QWidget | None = None, *, debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.findings: list[Finding] = []
        self.shown_revision: int | None = None  # layout revision the list shows
        self.shown_snapshot: Layout | None = None  # the design state the list was checked on
        self.summary = QLabel(self)
        self.tree = QTreeWidget(self)
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["", "Problem", "Objects"])
        self.tree.setRootIsDecorated(True)  # a finding on many objects opens to list them
        self.tree.setAlternatingRowColors(True)
        self.tree.setColumnWidth(0, 28)
        self.tree.setColumnWidth(1, 520)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.summary)
        box.addWidget(self.tree)
        self.job = BackgroundJob(_check, self, debounce_ms=debounce_ms, follow_revision=True)
        self.job.result_ready.connect(self._on_job_result_ready)
        self.job.result_dropped.connect(self.result_dropped)
        self.tree.itemActivated.connect(self._on_tree_item_activated)
        self.tree.itemClicked.connect(self._on_tree_item_activated)

    # ---- inputs -----------------------------------------------------------------------------
    def follow_document(self, document) -> None:
        """Follow a `Document`: its changes reschedule, a replaced design is checked at once
        (from the event loop: once the views have painted it)."""
        document.changed.connect(self.schedule)
        document.replaced.connect(lambda layout: self.set_layout(layout, idle=True))
        self.set_layout(document.layout)

    @property
    def layout_(self) -> Layout | None:
        return self.job.layout

    def set_layout(self, layout: Layout, *, idle: bool = False) -> None:
        """Follow another design: start a run at once (no debounce for a file just opened);
        `idle`: from the event loop, once the views have painted it (`BackgroundJob.request`)."""
        self.job.set_layout(layout)
        self.job.set_params(FRESH)
        self.job.request(immediate=True, idle=idle)
        if self.job.busy:  # the list shown is another design's until this run ends
            self.tree.clear()
            self.summary.setText(CHECKING)
            self.checking.emit()

    def schedule(self, event: object = None) -> None:
        """A model change happened: recompute after the debounce delay (an edit that cannot
        change a finding — a move, a Fail — shows the findings kept for the state before, as
        soon as the edit is whole: no check to wait for)."""
        self.job.set_params(None)
        self.job.request(soon=_keeps_findings(event))

    @property
    def busy(self) -> bool:
        """A recompute is pending or running: the list may be behind the model."""
        return self.job.busy

    @property
    def runs(self) -> int:
        return self.job.runs

    @property
    def dropped(self) -> int:
        return self.job.dropped

    def flush(self) -> None:
        """Bring the list up to date now, on this thread (tests use it instead of waiting)."""
        if self.job.busy:
            self.job.run_now()

    def refresh(self) -> None:
        """Recompute now (synchronously) whatever the state."""
        self.job.set_params(FRESH)
        self.job.run_now()

    def close_problems(self) -> None:
        """Stop recomputing and wait for a run in flight (the window is closing)."""
        self.job.close()

    def _on_job_result_ready(self, result: JobResult) -> None:
        self.shown_snapshot = result.snapshot  # its derived index is computed: reading is free
        found, groups = result.value or ([], [])
        self._show(list(found), result.revision, result.error, groups)

    # ---- showing ----------------------------------------------------------------------------
    def _show(self, findings: list[Finding], revision: int, error: str = "",
              groups: list[FindingGroup] | None = None) -> None:
        self.findings = findings
        self.shown_revision = revision
        if groups is None:
            groups = ([FindingGroup((f,)) for f in findings] if self.shown_snapshot is None
                      else group_findings(self.shown_snapshot, findings))
        self.tree.clear()
        icons = {ERROR: self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxCritical)}
        warning_icon = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        items = []
        rows = 0
        for group in groups:
            if rows >= MAX_ROWS:
                break
            icon = icons.get(group.severity, warning_icon)
            if len(group) < GROUP_FROM:
                for finding in group.findings:
                    items.append(self._finding_item(finding, icon))
                rows += len(group)
                continue
            objects = tuple(o for f in group.findings[:MAX_ROWS] for o in f.objects[:1])
            parent = QTreeWidgetItem(["", group.summary(), counted(len(group), "object")])
            parent.setIcon(0, icon)
            parent.setToolTip(1, plain(f"{group.severity} [{group.code}] on "
                                       f"{counted(len(group), 'object')}: "
                                       f"{group.first.message}"))
            parent.setData(0, OBJECTS_ROLE, objects)
            parent.addChildren([self._finding_item(f, icon)
                                for f in group.findings[:MAX_ROWS - rows]])
            rows += parent.childCount()
            items.append(parent)
        self.tree.addTopLevelItems(items)
        errors = sum(1 for f in findings if f.severity == ERROR)
        warnings = len(findings) - errors
        if error:
            self.summary.setText(plain(f"The design rules could not be checked ({error})."))
        elif not findings:
            self.summary.setText("No problems found.")
        else:
            kinds = f" ({counted(len(groups), 'kind')})" if len(groups) < len(findings) else ""
            self.summary.setText(plain(f"{counted(errors, 'error')}, "
                                       f"{counted(warnings, 'warning')}" + kinds
                                       + (f" — showing the first {MAX_ROWS:,}"
                                          if rows < len(findings) else "")))
        self.findings_changed.emit(errors, warnings)

    @staticmethod
    def _finding_item(finding: Finding, icon) -> QTreeWidgetItem:
        item = QTreeWidgetItem(["", finding.message, ", ".join(finding.objects[:4])])
        item.setIcon(0, icon)
        item.setToolTip(1, plain(f"{finding.severity} [{finding.code}]: {finding.message}"))
        item.setData(0, OBJECTS_ROLE, tuple(finding.objects))
        return item

    def _on_tree_item_activated(self, item: QTreeWidgetItem, column: int = 0) -> None:
        objects = item.data(0, OBJECTS_ROLE)
        if objects:
            self.objects_activated.emit(tuple(objects))
