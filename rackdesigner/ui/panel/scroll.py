"""Scrolling for the panel's figures and plots: vertical only, as wide as the figures need."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QScrollArea, QTabWidget, QWidget


def wrapped_minimum(widget: QWidget, hint: QSize) -> QSize:
    """`hint` (a vertical box's minimum) made tall enough for its word-wrapped labels at the
    widget's width: the box's own minimum takes one line per wrapped label, and a box forced to
    that height squeezes its other rows below their minimum (values cut in half, a spin box's
    digits clipped at the bottom). Each fixed part counts its height for this width; only the
    stretching parts may shrink to their own minimum."""
    box = widget.layout()
    if box is None:
        return hint
    margins = box.contentsMargins()
    width = max(widget.width(), hint.width()) - margins.left() - margins.right()
    total, shown = margins.top() + margins.bottom(), 0
    for i in range(box.count()):
        item = box.itemAt(i)
        if item.isEmpty():
            continue
        height = item.minimumSize().height()
        if item.hasHeightForWidth() and box.stretch(i) == 0:
            height = max(height, item.heightForWidth(width))
        total += height
        shown += 1
    total += box.spacing() * max(shown - 1, 0)
    return QSize(hint.width(), max(hint.height(), total))


class ScrollContent(QWidget):
    """Fills the scroll area's viewport down to its minimum height, then scrolls.

    Word-wrapped labels make the layout height-for-width, and QScrollArea then sizes the
    content to the layout's *preferred* height (tall plot size hints): the plots would always
    scroll. Reporting no height-for-width makes it use the viewport height instead.

    The minimum height, though, must count the wrapped text at the current width: the layout's
    own minimum takes one line per wrapped label, and when the notes are expanded the box
    layout then squeezes the headline tiles below their minimum (values cut in half). So the
    minimum is the sum of each fixed part's height for this width; only the stretching part
    (the plots' tabs) may shrink to its own minimum.
    """

    def heightForWidth(self, width: int) -> int:  # Qt override
        return -1

    def minimumSizeHint(self) -> QSize:  # Qt override
        return wrapped_minimum(self, super().minimumSizeHint())

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._ask_scroll_area()

    def _ask_scroll_area(self) -> None:
        """Make the scroll area size this content again (its minimum height depends on width)."""
        scroll = self.parentWidget().parentWidget() if self.parentWidget() else None
        if isinstance(scroll, QScrollArea):
            QCoreApplication.postEvent(scroll, QEvent(QEvent.Type.LayoutRequest))

    def event(self, event: QEvent) -> bool:  # Qt override
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # new minimum width: tell the panel
            scroll = self.parentWidget().parentWidget() if self.parentWidget() else None
            if scroll is not None:
                scroll.updateGeometry()
                self._ask_scroll_area()
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


class PlotTabs(QTabWidget):
    """The plots' tabs: they take the height left over, so they report no height-for-width.

    A box layout treats a height-for-width item's height as fixed; the tabs (whose pages hold
    wrapped text) would then keep their preferred height and squeeze the headline tiles.
    """

    def hasHeightForWidth(self) -> bool:  # Qt override
        return False


__all__ = ["FigureScroll", "PlotTabs", "ScrollContent", "wrapped_minimum"]
