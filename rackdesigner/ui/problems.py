"""The Problems dock: design-rule findings, live.

Findings are recomputed from the model a short while after the last change (debounced: a drop
of a whole system is one recompute, not hundreds); `flush()` runs a pending recompute at once
(tests use it instead of sleeping). Activating a finding emits the ids it involves, which the
main window selects and shows.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QLabel,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.model import ERROR, Finding, Layout, check_layout

DEBOUNCE_MS = 200
OBJECTS_ROLE = Qt.ItemDataRole.UserRole


class ProblemsWidget(QWidget):
    objects_activated = Signal(object)  # tuple of ids
    findings_changed = Signal(int, int)  # errors, warnings

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.layout_: Layout | None = None
        self.findings: list[Finding] = []
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
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.refresh)
        self.tree.itemActivated.connect(self._on_tree_item_activated)
        self.tree.itemClicked.connect(self._on_tree_item_activated)

    def set_layout(self, layout: Layout) -> None:
        self.layout_ = layout
        self.refresh()

    def schedule(self, event: object = None) -> None:
        """A model change happened: recompute after the debounce delay."""
        self._timer.start()

    def flush(self) -> None:
        if self._timer.isActive():
            self.refresh()

    def refresh(self) -> None:
        self._timer.stop()
        if self.layout_ is None:
            return
        self.findings = check_layout(self.layout_)
        self.tree.clear()
        error_icon = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxCritical)
        warning_icon = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        items = []
        for finding in self.findings[:2000]:
            item = QTreeWidgetItem(["", finding.message, ", ".join(finding.objects[:4])])
            item.setIcon(0, error_icon if finding.severity == ERROR else warning_icon)
            item.setToolTip(1, f"{finding.severity} [{finding.code}]: {finding.message}")
            item.setData(0, OBJECTS_ROLE, tuple(finding.objects))
            items.append(item)
        self.tree.addTopLevelItems(items)
        errors = sum(1 for f in self.findings if f.severity == ERROR)
        warnings = len(self.findings) - errors
        if not self.findings:
            self.summary.setText("No problems found.")
        else:
            self.summary.setText(f"{errors} error(s), {warnings} warning(s)"
                                 + (" — showing the first 2000" if len(items) < len(self.findings)
                                    else ""))
        self.findings_changed.emit(errors, warnings)

    def _on_tree_item_activated(self, item: QTreeWidgetItem, column: int = 0) -> None:
        objects = item.data(0, OBJECTS_ROLE)
        if objects:
            self.objects_activated.emit(tuple(objects))
