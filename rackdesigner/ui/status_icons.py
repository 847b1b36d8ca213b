"""Severity icons drawn with QPainter, and the status bar's problem counts built from them.

Emoji such as "⛔" depend on the fonts installed (with only fonts-dejavu it renders as an empty
box), so the status bar draws its own: a red disc with a bar (errors), an amber triangle with an
exclamation mark (warnings), a green tick (no problems).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from rackdesigner.ui.plain_text import plain
from rackdesigner.vocabulary.wording import counted

ERROR_COLOR = QColor("#d32f2f")
WARNING_COLOR = QColor("#f9a825")
OK_COLOR = QColor("#2e7d32")


def severity_pixmap(kind: str, size: int = 14, ratio: float = 1.0) -> QPixmap:
    """A drawn icon: "error", "warning" or "ok"."""
    pixmap = QPixmap(round(size * ratio), round(size * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    p = QPainter(pixmap)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    s = float(size)
    if kind == "error":
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(ERROR_COLOR)
        p.drawEllipse(QRectF(0.5, 0.5, s - 1, s - 1))
        p.setBrush(Qt.GlobalColor.white)
        p.drawRect(QRectF(s * 0.22, s * 0.42, s * 0.56, s * 0.16))
    elif kind == "warning":
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(WARNING_COLOR)
        p.drawPolygon(QPolygonF([QPointF(s / 2, 0.5), QPointF(s - 0.5, s - 1),
                                 QPointF(0.5, s - 1)]))
        p.setBrush(QColor("#3e2700"))
        p.drawRect(QRectF(s * 0.44, s * 0.32, s * 0.12, s * 0.34))
        p.drawEllipse(QRectF(s * 0.43, s * 0.72, s * 0.14, s * 0.14))
    else:
        pen = QPen(OK_COLOR, s * 0.16)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        p.setPen(pen)
        path = QPainterPath(QPointF(s * 0.15, s * 0.55))
        path.lineTo(s * 0.42, s * 0.8)
        path.lineTo(s * 0.88, s * 0.2)
        p.drawPath(path)
    p.end()
    return pixmap


#: what the status bar says while a design just opened is being checked
CHECKING = "checking…"


class ProblemsStatus(QWidget):
    """"[error icon] 2  [warning icon] 1" or "[tick] no problems" in the status bar."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        ratio = self.devicePixelRatioF() if parent is not None else 1.0
        self._icons = {k: severity_pixmap(k, 14, ratio) for k in ("error", "warning", "ok")}
        self.error_icon, self.error_count = QLabel(self), QLabel(self)
        self.warning_icon, self.warning_count = QLabel(self), QLabel(self)
        self.ok_icon, self.ok_text = QLabel(self), QLabel("no problems", self)
        # a partitioned design must look broken at a glance: said in red next to the counts
        self.partition = QLabel(self)
        self.partition.setStyleSheet("color: #c62828; font-weight: bold;")
        self.partition.setVisible(False)
        self.error_icon.setPixmap(self._icons["error"])
        self.warning_icon.setPixmap(self._icons["warning"])
        self.ok_icon.setPixmap(self._icons["ok"])
        box = QHBoxLayout(self)
        box.setContentsMargins(0, 0, 4, 0)
        box.setSpacing(3)
        for w in (self.error_icon, self.error_count, self.warning_icon, self.warning_count,
                  self.ok_icon, self.ok_text, self.partition):
            box.addWidget(w)
        self.errors = self.warnings = 0
        self.checking = False  # a design just set is being checked (`set_checking`)
        self.set_counts(0, 0)
        self.setVisible(False)

    def set_counts(self, errors: int, warnings: int) -> None:
        self.errors, self.warnings = errors, warnings
        self.checking = False
        self.error_count.setText(str(errors))
        self.warning_count.setText(str(warnings))
        problems = bool(errors or warnings)
        for w in (self.error_icon, self.error_count, self.warning_icon, self.warning_count):
            w.setVisible(problems)
        self.ok_icon.setVisible(not problems)
        self.ok_text.setText("no problems")
        self.ok_text.setVisible(not problems)
        self.setToolTip(plain(f"{errors} error{'s' * (errors != 1)}, {warnings} "
                              f"warning{'s' * (warnings != 1)} (the Problems dock lists them)"))
        self.setVisible(True)

    def set_checking(self) -> None:
        """"checking…": a design just opened is being checked (until `set_counts` says how it
        went; the previous design's counts are not shown meanwhile)."""
        self.checking = True
        for w in (self.error_icon, self.error_count, self.warning_icon, self.warning_count,
                  self.ok_icon):
            w.setVisible(False)
        self.ok_text.setText(CHECKING)
        self.ok_text.setVisible(True)
        self.partition.setVisible(False)
        self.setToolTip("The design rules are being checked (the Problems dock lists the result)")
        self.setVisible(True)

    def set_partition(self, text: str, detail: str = "") -> None:
        """"8 of 16 GPUs cannot reach each other" (empty: the design is connected)."""
        self.partition.setText(plain(text))
        self.partition.setToolTip(plain(detail))
        self.partition.setVisible(bool(text))

    def text(self) -> str:
        """What the icons say, as text (tests, accessibility)."""
        if self.checking:
            return CHECKING
        said = (f"{counted(self.errors, 'error')}, {counted(self.warnings, 'warning')}"
                if self.errors or self.warnings else "no problems")
        return f"{said} · {self.partition.text()}" if self.partition.text() else said


__all__ = ["ProblemsStatus", "severity_pixmap"]
