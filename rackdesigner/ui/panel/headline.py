"""Headline figures: a grid of small tiles (label, value, detail, delta to the baseline)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QVBoxLayout, QWidget

from rackdesigner.ui.panel.figures import Delta, Figure, delta
from rackdesigner.ui.panel.theme import DOWN, TEXT, TEXT_DIM, UP

COLUMNS = 3


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

    def show_figure(self, figure: Figure, change: Delta | None, comparing: bool) -> None:
        self.label.setText(figure.label)
        self.value.setText(figure.text)
        self.detail.setText(figure.detail)
        self.detail.setVisible(bool(figure.detail))
        self.setToolTip(f"{figure.label}: {figure.text}" + (f" ({figure.detail})"
                                                             if figure.detail else ""))
        if change is None:
            self.delta.setText("")
        else:
            color = TEXT_DIM if change.good is None else (UP if change.good else DOWN)
            self.delta.setText(f"{change.text} vs baseline")
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

    def show_figures(self, figures: list[Figure], baseline: list[Figure] | None) -> None:
        base = {f.key: f for f in baseline} if baseline is not None else {}
        self.deltas = {}
        for i, figure in enumerate(figures):
            tile = self.tiles.get(figure.key)
            if tile is None:
                tile = self.tiles[figure.key] = FigureTile(self)
                self.grid.addWidget(tile, i // COLUMNS, i % COLUMNS)
            change = delta(figure, base[figure.key]) if figure.key in base else None
            if change is not None:
                self.deltas[figure.key] = change.text
            tile.show_figure(figure, change, baseline is not None)

    def text_of(self, key: str) -> str:
        tile = self.tiles.get(key)
        return tile.value.text() if tile is not None else ""
