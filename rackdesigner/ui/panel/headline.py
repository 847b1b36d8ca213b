"""Headline figures: a grid of small tiles (label, value, detail, delta to the baseline).

Three columns where they fit, two below that (`HeadlineWidget` reflows on resize): the panel's
minimum width is the two-column one, so on a small screen the user can narrow the dock and
give the canvas the room, and the figures stay readable instead of clipped.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QVBoxLayout, QWidget

from rackdesigner.ui.panel.figures import Delta, Figure, delta
from rackdesigner.ui.panel.theme import DOWN, TEXT, TEXT_DIM, UP
from rackdesigner.ui.plain_text import plain

COLUMNS = 3  # when they fit
NARROW_COLUMNS = 2


class FigureTile(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tile")
        self.setStyleSheet("#tile { background: #f7f9fb; border: 1px solid #e4e7eb;"
                           " border-radius: 4px; }")
        self.label = QLabel(self)
        self.value = QLabel(self)
        self.detail = QLabel(self)
        self.delta = QLabel(self)
        self.label.setStyleSheet(f"color: {TEXT_DIM}; font-size: 7.5pt;")
        self.value.setStyleSheet(f"color: {TEXT}; font-size: 11pt; font-weight: 600;")
        self.detail.setStyleSheet(f"color: {TEXT_DIM}; font-size: 7.5pt;")
        self.delta.setStyleSheet("font-size: 8pt; font-weight: 600;")
        self.value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box = QVBoxLayout(self)
        box.setContentsMargins(6, 3, 6, 3)
        box.setSpacing(0)
        for w in (self.label, self.value, self.detail, self.delta):
            box.addWidget(w)

    def show_figure(self, figure: Figure, change: Delta | None, comparing: bool,
                    against: str = "baseline") -> None:
        self.label.setText(plain(figure.label))
        self.value.setText(plain(figure.text))
        self.detail.setText(plain(figure.detail))
        self.detail.setVisible(bool(figure.detail))
        self.setToolTip(plain(f"{figure.label}: {figure.text}" + (f" ({figure.detail})"
                                                             if figure.detail else "")
                              + (f"\n{figure.explain}" if figure.explain else "")))
        if change is None:
            self.delta.setText("")
        else:
            color = TEXT_DIM if change.good is None else (UP if change.good else DOWN)
            self.delta.setText(plain(f"{change.text} vs {against}"))
            self.delta.setStyleSheet(f"color: {color}; font-size: 8pt; font-weight: 600;")
        self.delta.setVisible(comparing and change is not None)


class HeadlineWidget(QWidget):
    """Shows `Figure`s; with a baseline, each tile also shows its delta."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(4)
        self.tiles: dict[str, FigureTile] = {}
        self.deltas: dict[str, str] = {}
        self.columns = COLUMNS
        for col in range(COLUMNS):
            self.grid.setColumnStretch(col, 1)

    def show_figures(self, figures: list[Figure], baseline: list[Figure] | None,
                     against: str = "baseline") -> None:
        """`against` names the baseline in the deltas ("baseline", or another design's file
        when the baseline was pinned on another design)."""
        base = {f.key: f for f in baseline} if baseline is not None else {}
        self.deltas = {}
        for i, figure in enumerate(figures):
            tile = self.tiles.get(figure.key)
            if tile is None:
                tile = self.tiles[figure.key] = FigureTile(self)
                self.grid.addWidget(tile, i // self.columns, i % self.columns)
            change = delta(figure, base[figure.key]) if figure.key in base else None
            if change is not None:
                self.deltas[figure.key] = change.text
            tile.show_figure(figure, change, baseline is not None, against)
        self._reflow(self.width())

    def width_for(self, columns: int) -> int:
        """The narrowest width at which the tiles fit in `columns` columns."""
        widths = [0] * columns
        for i, tile in enumerate(self.tiles.values()):
            widths[i % columns] = max(widths[i % columns], tile.minimumSizeHint().width())
        margins = self.grid.contentsMargins()
        return (sum(widths) + self.grid.horizontalSpacing() * (columns - 1) + margins.left()
                + margins.right())

    def minimumSizeHint(self) -> QSize:  # Qt override: the narrow arrangement is the minimum
        hint = super().minimumSizeHint()
        return QSize(self.width_for(NARROW_COLUMNS), hint.height()) if self.tiles else hint

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self._reflow(event.size().width())

    def _reflow(self, width: int) -> None:
        columns = COLUMNS if width >= self.width_for(COLUMNS) else NARROW_COLUMNS
        if columns == self.columns:
            return
        self.columns = columns
        for i, tile in enumerate(self.tiles.values()):
            self.grid.removeWidget(tile)
            self.grid.addWidget(tile, i // columns, i % columns)
        for col in range(COLUMNS):  # a column left empty must not keep its width
            self.grid.setColumnMinimumWidth(col, 0)
            self.grid.setColumnStretch(col, 1 if col < columns else 0)
        self.updateGeometry()

    def text_of(self, key: str) -> str:
        tile = self.tiles.get(key)
        return tile.value.text() if tile is not None else ""
