"""`NotesBar`: the engine's messages by severity — warnings stand out, notes stay out of the way.

A warning (`Message.severity == "warning"`: GPUs that cannot reach each other, no GPUs, racks
over budget, a run that failed) is a problem with the design or with what the figures cover,
so it gets the yellow banner. A note says how a figure was obtained (NCCL's model latency,
SHARP assumed, devices without a published power figure): it is worth knowing but is not a
problem, so it sits in one dim "▸ 2 notes" line that expands on a click. The severity comes from
the simulation result (`SimulationResult.classified()`), never from matching the text here.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from rackdesigner.simulation.result import WARNING, Message
from rackdesigner.ui.panel.theme import TEXT_DIM
from rackdesigner.ui.plain_text import plain

BANNER_CHARS = 120
QWIDGETSIZE_MAX = (1 << 24) - 1  # Qt's QWIDGETSIZE_MAX: no maximum height
WARNING_STYLE = ("background: #fff8e1; color: #5d4300; border: 1px solid #f0d98c;"
                 " border-radius: 3px; padding: 3px 6px; font-size: 8pt;")
NOTES_STYLE = f"color: {TEXT_DIM}; font-size: 8pt; padding: 0 4px 2px 16px;"


def _short(text: str) -> str:
    return text if len(text) <= BANNER_CHARS else text[:BANNER_CHARS - 1].rstrip() + "…"


class NotesBar(QWidget):
    """`warning`: the banner (first warning, how many more, all on hover); `notes_button`:
    the collapsed "n notes" line; `notes_label`: the notes, shown while the line is expanded."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.warning = QLabel(self)
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet(WARNING_STYLE)
        self.warning.setVisible(False)
        self.notes_button = QToolButton(self)
        self.notes_button.setCheckable(True)
        self.notes_button.setAutoRaise(True)
        self.notes_button.setArrowType(Qt.ArrowType.RightArrow)
        self.notes_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.notes_button.setStyleSheet(f"QToolButton {{ color: {TEXT_DIM}; font-size: 8pt;"
                                        " border: none; padding: 0; }")
        self.notes_button.setVisible(False)
        self.notes_button.toggled.connect(self._on_notes_button_toggled)
        self.notes_label = QLabel(self)
        self.notes_label.setWordWrap(True)
        self.notes_label.setTextFormat(Qt.TextFormat.PlainText)
        self.notes_label.setStyleSheet(NOTES_STYLE)
        self.notes_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # wrapped text must not set the panel's minimum width
        self.notes_label.setSizePolicy(QSizePolicy.Policy.Ignored,
                                       QSizePolicy.Policy.Preferred)
        self.notes_label.setMinimumWidth(10)
        self.notes_label.setVisible(False)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(1)
        box.addWidget(self.warning)
        box.addWidget(self.notes_button, 0, Qt.AlignmentFlag.AlignLeft)
        box.addWidget(self.notes_label)
        self.warnings: tuple[str, ...] = ()
        self.notes: tuple[str, ...] = ()

    def hold(self) -> None:
        """Nothing to say yet (a file is opening): the texts go, the bar keeps its height so
        what is under it in the panel stays where the user's next click goes."""
        self.setFixedHeight(self.height() if self.isVisible() else 0)
        for label in (self.warning, self.notes_label):
            label.setText("")
            label.setToolTip("")
        self.notes_button.setText("…")

    def show_messages(self, messages: Sequence[Message]) -> None:
        """Show `messages` (a result's `classified()`, plus any reason it could not run)."""
        self.setMinimumHeight(0)
        self.setMaximumHeight(QWIDGETSIZE_MAX)
        self.warnings = tuple(m.text for m in messages if m.severity == WARNING)
        self.notes = tuple(m.text for m in messages if m.severity != WARNING)
        text = ""
        if self.warnings:
            text = f"⚠ {_short(self.warnings[0])}"
            more = len(self.warnings) - 1
            if more:
                text += f"  (+{more} more warning{'s' * (more != 1)}: hover)"
        self.warning.setText(plain(text))
        self.warning.setToolTip(plain("\n\n".join(self.warnings)))
        self.warning.setVisible(bool(self.warnings))
        n = len(self.notes)
        self.notes_button.setText(f"{n} note{'s' * (n != 1)}")
        shown = "hide)" if self.notes_button.isChecked() else "show)"
        self.notes_button.setToolTip(plain("How these figures were obtained (click to " + shown))
        self.notes_button.setVisible(bool(n))
        self.notes_label.setText("\n".join(f"• {note}" for note in self.notes))
        self.notes_label.setVisible(bool(n) and self.notes_button.isChecked())
        self.setVisible(bool(self.warnings or n))

    def _on_notes_button_toggled(self, checked: bool) -> None:
        self.notes_button.setArrowType(Qt.ArrowType.DownArrow if checked
                                       else Qt.ArrowType.RightArrow)
        self.notes_label.setVisible(checked and bool(self.notes))
        self.notes_button.setToolTip(plain("How these figures were obtained (click to "
                                           + ("hide)" if checked else "show)")))


__all__ = ["NotesBar"]
