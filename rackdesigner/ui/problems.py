"""The Problems dock: design-rule findings, live, computed off the GUI thread.

Findings are recomputed a short while after the last change (debounced: a drop of a whole
system is one recompute, not hundreds). The recompute runs on a `QThreadPool` worker, as the live
simulation does (`ui/panel/live.py`), because `check_layout` on a 1,016-GPU SuperPOD takes
40–150 ms: on the GUI thread that was a frozen frame after every edit. The worker snapshots the
layout (`Layout.copy()`, about 1 ms there) and checks the snapshot; the GUI thread only fills
the list. One run is in flight at a time; a change made meanwhile waits for it to end.

A result is shown only if it is for the newest request and for the revision of the layout shown
now; any other is dropped (counted in `dropped`, announced by `result_dropped`). Taking the
snapshot on the worker is safe for the reason given in `live.py`: the GUI thread is the only
writer and every edit asks for a new run before a result can be delivered, so a snapshot that
raced an edit always belongs to a dropped result (a copy that trips over a dict changing size
raises and is dropped the same way).

`flush()` (tests, `MainWindow.flush`) is synchronous: if a recompute is pending or running, it
checks the layout on the GUI thread at once and shows that; the run in flight, now stale, is
dropped when it ends. Activating a finding emits the ids it involves, which the main window
selects and shows.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import (
    QLabel,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.model import ERROR, Finding, Layout, check_layout

log = logging.getLogger(__name__)
DEBOUNCE_MS = 200
MAX_ROWS = 2000
OBJECTS_ROLE = Qt.ItemDataRole.UserRole


@dataclass(frozen=True)
class ProblemsResult:
    """The findings of one run: for which request, layout and revision, or why there are none."""

    request: int
    layout: Layout
    revision: int
    findings: tuple[Finding, ...] = ()
    error: str = ""
    elapsed_s: float = 0.0  # snapshot + check_layout, on the worker


def _check(request: int, layout: Layout) -> ProblemsResult:
    """The worker's job: snapshot `layout`, check the snapshot; never raises."""
    start = time.perf_counter()
    revision = layout.revision
    try:
        snapshot = layout.copy()
        revision = snapshot.revision
        findings = tuple(check_layout(snapshot))
    except Exception as exc:  # a torn snapshot (always stale) or a bug in a rule
        return ProblemsResult(request, layout, revision, (), f"{type(exc).__name__}: {exc}",
                              time.perf_counter() - start)
    return ProblemsResult(request, layout, revision, findings, "", time.perf_counter() - start)


class _Relay(QObject):
    """Lives on the GUI thread; the worker emits through it, so delivery is queued."""

    finished = Signal(object)


class ProblemsWidget(QWidget):
    objects_activated = Signal(object)  # tuple of ids
    findings_changed = Signal(int, int)  # errors, warnings
    result_dropped = Signal(object)  # ProblemsResult that arrived after a newer request

    def __init__(self, parent: QWidget | None = None, *, debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.layout_: Layout | None = None
        self.findings: list[Finding] = []
        self.shown_revision: int | None = None  # layout revision the list shows
        self.runs = 0  # worker runs started
        self.dropped = 0  # results discarded because they were stale
        self.summary = QLabel(self)
        self.tree = QTreeWidget(self)
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["", "Problem", "Objects"])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setColumnWidth(0, 28)
        self.tree.setColumnWidth(1, 520)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.summary)
        box.addWidget(self.tree)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._relay = _Relay(self)
        self._relay.finished.connect(self._on_worker_finished)
        self._request = 0  # id of the newest request
        self._in_flight: int | None = None
        self._pending = False  # the newest request has not started yet
        self._closed = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._start_pending)
        self.tree.itemActivated.connect(self._on_tree_item_activated)
        self.tree.itemClicked.connect(self._on_tree_item_activated)

    # ---- inputs -----------------------------------------------------------------------------
    def set_layout(self, layout: Layout) -> None:
        """Follow another document: start a run at once (no debounce for a file just opened)."""
        self.layout_ = layout
        self._request_run()
        self._timer.stop()
        self._start_pending()

    def schedule(self, event: object = None) -> None:
        """A model change happened: recompute after the debounce delay."""
        self._request_run()
        self._timer.start()  # restarting is the debounce

    def _request_run(self) -> None:
        if self._closed:
            return
        self._request += 1
        self._pending = True

    @property
    def busy(self) -> bool:
        """A recompute is pending or running: the list may be behind the model."""
        return self._pending or self._in_flight is not None

    # ---- running ----------------------------------------------------------------------------
    def _start_pending(self) -> None:
        if not self._pending or self._in_flight is not None or self._closed:
            return
        if self.layout_ is None:
            self._pending = False
            return
        self._pending = False
        request, layout, relay = self._request, self.layout_, self._relay
        self._in_flight = request
        self.runs += 1
        self._pool.start(lambda: relay.finished.emit(_check(request, layout)))

    def _is_current(self, result: ProblemsResult) -> bool:
        return (result.request == self._request and result.layout is self.layout_
                and result.revision == result.layout.revision)

    def _on_worker_finished(self, result: ProblemsResult) -> None:
        self._in_flight = None
        if self._closed:
            return
        if self._is_current(result):
            if result.error:  # not a race (the result is current): a rule failed
                log.error("design rules failed: %s", result.error)
            self._show(list(result.findings), result.revision, result.error)
        else:
            self.dropped += 1
            log.debug("dropped problems for request %d revision %d (newest %d)",
                      result.request, result.revision, self._request)
            self.result_dropped.emit(result)
            if (not self._pending and result.request == self._request
                    and result.layout is self.layout_):
                self._pending = True  # changed without a schedule(): run again
        if self._pending and not self._timer.isActive():
            self._start_pending()

    def flush(self) -> None:
        """Bring the list up to date now, on this thread (tests use it instead of waiting)."""
        if not self.busy or self._closed:
            return
        self._timer.stop()
        self._pending = False
        self._request += 1  # a run in flight is stale now: its result will be dropped
        if self.layout_ is not None:
            self._show(check_layout(self.layout_), self.layout_.revision)

    def refresh(self) -> None:
        """Recompute now (synchronously) whatever the state."""
        self._pending = True
        self.flush()

    def close_problems(self) -> None:
        """Stop recomputing and wait for a run in flight (the window is closing)."""
        self._closed = True
        self._timer.stop()
        self._pool.waitForDone()

    # ---- showing ----------------------------------------------------------------------------
    def _show(self, findings: list[Finding], revision: int, error: str = "") -> None:
        self.findings = findings
        self.shown_revision = revision
        self.tree.clear()
        error_icon = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxCritical)
        warning_icon = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        items = []
        for finding in findings[:MAX_ROWS]:
            item = QTreeWidgetItem(["", finding.message, ", ".join(finding.objects[:4])])
            item.setIcon(0, error_icon if finding.severity == ERROR else warning_icon)
            item.setToolTip(1, f"{finding.severity} [{finding.code}]: {finding.message}")
            item.setData(0, OBJECTS_ROLE, tuple(finding.objects))
            items.append(item)
        self.tree.addTopLevelItems(items)
        errors = sum(1 for f in findings if f.severity == ERROR)
        warnings = len(findings) - errors
        if error:
            self.summary.setText(f"The design rules could not be checked ({error}).")
        elif not findings:
            self.summary.setText("No problems found.")
        else:
            self.summary.setText(f"{errors} error(s), {warnings} warning(s)"
                                 + (f" — showing the first {MAX_ROWS}"
                                    if len(items) < len(findings) else ""))
        self.findings_changed.emit(errors, warnings)

    def _on_tree_item_activated(self, item: QTreeWidgetItem, column: int = 0) -> None:
        objects = item.data(0, OBJECTS_ROLE)
        if objects:
            self.objects_activated.emit(tuple(objects))
