"""The bulk-wiring dialog: what a plan will wire (count, rail order, cables) before it applies.

Shown non-modally-blocking (`open()`), so the caller pushes the plan's one command when the user
accepts; tests drive its buttons like a user.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.commands.bulk import BulkPlan
from rackdesigner.ui.plain_text import plain

MAX_SKIPPED_SHOWN = 6


class BulkWireDialog(QDialog):
    """Previews a `BulkPlan`; `accepted` means "apply it"."""

    def __init__(self, title: str, plan: BulkPlan, action: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.plan = plan
        self.summary = QLabel(plain(plan.summary), self)
        self.summary.setWordWrap(True)
        self.count_label = QLabel(f"<b>{len(plan.links)} link{'s' * (len(plan.links) != 1)}"
                                  f"</b>, {plan.port_count} port{'s' * (plan.port_count != 1)} "
                                  "at each end — one undo step", self)
        box = QVBoxLayout(self)
        box.addWidget(self.summary)
        box.addWidget(self.count_label)
        if plan.skipped:
            shown = list(plan.skipped[:MAX_SKIPPED_SHOWN])
            more = len(plan.skipped) - len(shown)
            text = "Left out:\n" + "\n".join(f"• {s}" for s in shown)
            if more:
                text += f"\n… and {more} more"
            self.skipped_label = QLabel(plain(text), self)
            self.skipped_label.setWordWrap(True)
            box.addWidget(self.skipped_label)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel, self)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText(action)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        box.addWidget(self.buttons)
        self.setMinimumWidth(420)


__all__ = ["BulkWireDialog"]
