"""Scrolling for the panel's figures and plots: vertical only, as wide as the figures need."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QScrollArea, QWidget


class ScrollContent(QWidget):
    """Fills the scroll area's viewport down to its minimum height, then scrolls.

    Word-wrapped labels make the layout height-for-width, and QScrollArea then sizes the
    content to the layout's *preferred* height (tall plot size hints): the plots would always
    scroll. Reporting no height-for-width makes it use the viewport height instead.
    """

    def heightForWidth(self, width: int) -> int:  # Qt override
        return -1

    def event(self, event: QEvent) -> bool:  # Qt override
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # new minimum width: tell the panel
            scroll = self.parentWidget().parentWidget() if self.parentWidget() else None
            if scroll is not None:
                scroll.updateGeometry()
        return handled


class FigureScroll(QScrollArea):
    """Scrolls vertically only, so it is as wide as the figures need."""

    def minimumSizeHint(self) -> QSize:  # Qt override
        hint = super().minimumSizeHint()
        content = self.widget()
        if content is None:
            return hint
        width = (content.minimumSizeHint().width() + 2 * self.frameWidth()
                 + self.verticalScrollBar().sizeHint().width())
        return QSize(max(width, hint.width()), hint.height())


__all__ = ["FigureScroll", "ScrollContent"]
