"""The panel tabs' option forms: label/field pairs two to a row, and the dim status line.

The Workload tab's Training and Serving pages lay out their options the same way; two pairs per
row keep the dock narrow (the panel's two-column mode).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

from rackdesigner.ui.panel.theme import TEXT_DIM

DIM_STYLE = f"color: {TEXT_DIM}; font-size: 8pt;"


def option_grid(owner: QWidget, pairs: Sequence[tuple[str, QWidget]]) -> QGridLayout:
    """A grid of (label, field) pairs, two pairs per row, the labels dim and small."""
    grid = QGridLayout()
    grid.setHorizontalSpacing(4)
    grid.setVerticalSpacing(2)
    for row, items in enumerate(pairs[i:i + 2] for i in range(0, len(pairs), 2)):
        for col, (text, widget) in enumerate(items):
            label = QLabel(text, owner)
            label.setStyleSheet(DIM_STYLE)
            grid.addWidget(label, row, 2 * col)
            grid.addWidget(widget, row, 2 * col + 1)
    return grid


def status_label(owner: QWidget) -> QLabel:
    """The dim, word-wrapped line under a form that says what the figures are of."""
    label = QLabel(" ", owner)
    label.setWordWrap(True)
    label.setStyleSheet(DIM_STYLE)
    return label


__all__ = ["DIM_STYLE", "option_grid", "status_label"]
