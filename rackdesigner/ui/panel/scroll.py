"""Scrolling for the panel's figures and plots: vertical only, as wide as the figures need.

The panel scrolls as a whole only when its dock cannot hold the headline tiles and a tab page
of `PAGE_LEAST`; a page taller than its tab (the Workload form, the Cost and Reliability tabs,
Latency's two plots) scrolls inside the tab (`PageScroll`). A tab widget's minimum is its
tallest page's: the Workload form's 470 px made the panel scroll at 1920 x 1050, and there
every tab's page sat below the summary cards (issue 38).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QTabWidget, QVBoxLayout, QWidget

#: the least height a tab page keeps before the whole panel scrolls instead (a taller page
#: scrolls inside its tab): a row of tools and most of a plot, and a Simulation dock laid out
#: before issue 38 (440 x 536 at 1920 x 1050) holds the tiles in three columns above it
PAGE_LEAST = 100


def wrapped_minimum(widget: QWidget, hint: QSize, width: int | None = None) -> QSize:
    """`hint` (a vertical box's minimum) made tall enough for its word-wrapped labels at the
    widget's width (or `width`): the box's own minimum takes one line per wrapped label, and a
    box forced to that height squeezes its other rows below their minimum (values cut in half,
    a spin box's digits clipped at the bottom). Each fixed part counts its height for this
    width; only the stretching parts may shrink to their own minimum."""
    box = widget.layout()
    if box is None:
        return hint
    margins = box.contentsMargins()
    width = max(widget.width() if width is None else width, hint.width())
    width -= margins.left() + margins.right()
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

    That width is the one the content will get: the viewport's whole width when the content
    fits its height there (no scroll bar), else the width the scroll bar leaves. Asked at
    the current width instead, a content that once had the bar (the headline in two columns,
    so taller) kept asking for it, though without it the tiles took three columns and fitted.
    When it scrolls anyway (a laptop screen), the stretching part is as tall as the view: the
    user scrolls once to the tabs, and a page is not squeezed to its least height.
    """

    def heightForWidth(self, width: int) -> int:  # Qt override
        return -1

    def minimumSizeHint(self) -> QSize:  # Qt override
        hint = super().minimumSizeHint()
        scroll = self._scroll_area()
        if scroll is None:
            return wrapped_minimum(self, hint)
        room = scroll.maximumViewportSize()
        whole = wrapped_minimum(self, hint, room.width())
        if whole.height() <= room.height():
            return whole
        narrow = wrapped_minimum(self, hint,
                                 room.width() - scroll.verticalScrollBar().sizeHint().width())
        # scrolling anyway: scrolled to the end, the stretching part (the tabs) fills the view
        extra = max(0, room.height() - self._stretching_minimum())
        return QSize(narrow.width(), narrow.height() + extra)

    def _stretching_minimum(self) -> int:
        box = self.layout()
        if box is None:
            return 0
        return sum(box.itemAt(i).minimumSize().height() for i in range(box.count())
                   if box.stretch(i) > 0 and not box.itemAt(i).isEmpty())

    def _scroll_area(self) -> QScrollArea | None:
        scroll = self.parentWidget().parentWidget() if self.parentWidget() else None
        return scroll if isinstance(scroll, QScrollArea) else None

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._ask_scroll_area()

    def _ask_scroll_area(self) -> None:
        """Make the scroll area size this content again (its minimum height depends on width)."""
        scroll = self._scroll_area()
        if scroll is not None:
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


class PageScroll(FigureScroll):
    """One tab page in its own vertical scroll area: the page fills the tab down to its
    minimum height (never squeezed: a form's fields keep their height), then scrolls."""

    def __init__(self, page: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.page = page
        holder = ScrollContent(self)  # the page's preferred height would always scroll
        box = QVBoxLayout(holder)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(page, 1)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(holder)


class PlotTabs(QTabWidget):
    """The plots' tabs: they take the height left over, so they report no height-for-width.

    A box layout treats a height-for-width item's height as fixed; the tabs (whose pages hold
    wrapped text) would then keep their preferred height and squeeze the headline tiles.

    Each page sits in a `PageScroll`, so the tabs' minimum height is `PAGE_LEAST` under the
    tab bar, not the tallest page's, and it is the same whichever tab is current (a click on
    a tab never changes the panel's layout). The page methods answer with the pages
    themselves (`widget`, `currentWidget`, `indexOf`, `setCurrentWidget`); their scroll areas
    stay inside the tabs.
    """

    def hasHeightForWidth(self) -> bool:  # Qt override
        return False

    def minimumSizeHint(self) -> QSize:  # Qt override
        hint = super().minimumSizeHint()
        return QSize(hint.width(), max(hint.height(),
                                       self.tabBar().sizeHint().height() + PAGE_LEAST))

    def addTab(self, page: QWidget, label: str) -> int:  # type: ignore[override]
        return super().addTab(PageScroll(page, self), label)

    def widget(self, index: int) -> QWidget | None:  # type: ignore[override]
        area = super().widget(index)
        return area.page if isinstance(area, PageScroll) else area

    def currentWidget(self) -> QWidget | None:  # type: ignore[override]
        return self.widget(self.currentIndex())

    def indexOf(self, page: QWidget) -> int:  # type: ignore[override]
        for index in range(self.count()):
            if self.widget(index) is page:
                return index
        return -1

    def setCurrentWidget(self, page: QWidget) -> None:  # type: ignore[override]
        self.setCurrentIndex(self.indexOf(page))


__all__ = ["PAGE_LEAST", "FigureScroll", "PageScroll", "PlotTabs", "ScrollContent",
           "wrapped_minimum"]
