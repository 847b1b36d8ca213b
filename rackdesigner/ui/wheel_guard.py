"""The mouse wheel scrolls a scroll area; a control inside it takes the wheel only when focused.

Qt gives the wheel to whatever widget is under the pointer: scrolling down the Simulation
dock, the tab bar or a drop-down that passed under the pointer changed (Workload became
Bandwidth, the Heat traffic changed) instead of the panel scrolling (issue 26). `guard_wheel`
installs one event filter on the value-changing controls of a widget tree (drop-downs, spin
boxes, sliders, tab bars): while such a control has no keyboard focus, its wheel events go to
the nearest enclosing scroll area's vertical scroll bar; once the user clicks or tabs into
it, the wheel changes it as usual. The controls' focus policy drops `WheelFocus`, so the
wheel alone never focuses them. Controls outside any scroll area are left alone.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QScrollBar,
    QTabBar,
    QWidget,
)

CONTROLS = (QComboBox, QAbstractSpinBox, QTabBar, QAbstractSlider)


def scroll_area_of(widget: QWidget) -> QAbstractScrollArea | None:
    """The nearest scroll area `widget` sits in (not its own: a combo's list view)."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            return parent
        parent = parent.parentWidget()
    return None


class WheelGuard(QObject):
    """Event filter: an unfocused control passes the wheel to its scroll area (or to
    `fallback`, the area its panel scrolls, for controls that stay put above it)."""

    def __init__(self, parent: QObject | None = None,
                 fallback: QAbstractScrollArea | None = None) -> None:
        super().__init__(parent)
        self.fallback = fallback

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, QWidget):
            return False
        if watched.hasFocus():
            return False
        area = scroll_area_of(watched) or self.fallback
        if area is None:
            return False
        QCoreApplication.sendEvent(area.verticalScrollBar(), event)
        return True  # consumed: the control does not change


def guard_wheel(root: QWidget, fallback: QAbstractScrollArea | None = None) -> WheelGuard:
    """Install the wheel guard on every control under `root` (and `root` itself); controls
    in no scroll area pass the wheel to `fallback` when it is given."""
    guard = WheelGuard(root, fallback)
    for widget in [root, *root.findChildren(QWidget)]:
        if isinstance(widget, CONTROLS) and not isinstance(widget, QScrollBar):
            widget.installEventFilter(guard)
            if widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    return guard


__all__ = ["WheelGuard", "guard_wheel", "scroll_area_of"]
