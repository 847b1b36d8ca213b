"""The designer window's status bar and title: device, switch and link counts, the zoom, the
Problems counts and partition warning, and messages.

`WindowStatus` is a mixin of `MainWindow` (ui/main_window.py), which keeps the composition.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel

from rackdesigner import vocabulary
from rackdesigner.ui.status_icons import ProblemsStatus

APP_NAME = "RackDesigner"


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


class WindowStatus:
    """The status bar and title of `MainWindow` (a mixin: `self` is the window)."""

    def _build_status_bar(self) -> None:
        self.counts_label = QLabel(self)
        self.zoom_label = QLabel(self)
        self.problems_label = ProblemsStatus(self)
        bar = self.statusBar()
        bar.addPermanentWidget(self.problems_label)
        bar.addPermanentWidget(self.counts_label)
        bar.addPermanentWidget(self.zoom_label)
        # Selecting 3,000 items emits 3,000 selectionChanged signals: handle them once.
        self._selection_timer = QTimer(self)
        self._selection_timer.setSingleShot(True)
        self._selection_timer.setInterval(0)
        self._selection_timer.timeout.connect(self._on_scene_selection_changed)

    def _update_title(self, *args) -> None:
        path = self.document.path
        name = path.name if path else self.document.untitled_title or "Untitled"
        self.setWindowTitle(f"{name}[*] — {APP_NAME}")
        self.setWindowModified(self.document.is_modified())

    def _update_counts(self) -> None:
        """Devices and links in the status bar. After an edit they come with the Problems
        result (derived on its worker from the same snapshot); only opening derives them here."""
        layout = self.document.layout
        checked = self.problems.shown_snapshot
        if checked is not None and checked.state is layout.state:
            layout = checked
        kinds, links = layout.index().counts()

        def doing(trait: str) -> int:  # devices whose kind's traits say `trait`
            return sum(n for k, n in kinds.items() if getattr(vocabulary.traits_of(k), trait))

        parts = [_count(doing("computes"), "GPU")]
        if nvswitches := doing("nvlink_switch"):
            parts.append(_count(nvswitches, "NVSwitch", "NVSwitches"))
        parts += [_count(doing("fabric_switch"), "switch", "switches"), _count(links, "link")]
        self.counts_label.setText(" · ".join(parts))

    def status_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 0 if text.startswith("Cannot") else 8000)

    def _on_problems_findings_changed(self, errors: int, warnings: int) -> None:
        self._update_counts()
        self.problems_label.set_counts(errors, warnings)
        partition = next((f for f in self.problems.findings if f.code == "gpus-unreachable"),
                         None)
        checked = self.problems.shown_snapshot
        if partition is not None and checked is not None:  # a partitioned design looks broken
            reach = checked.index().reachability()  # computed by the worker: free here
            self.problems_label.set_partition(reach.headline(), partition.message)
        else:
            self.problems_label.set_partition("")

    def _on_view_zoom_changed(self, zoom: float) -> None:
        # the zoom of the tab shown (the canvas or the rack elevations)
        shown = (self.racks_panel.view if self.views.currentWidget() is self.racks_panel
                 else self.view)
        self.zoom_label.setText(f"{shown.zoom() * 100:.0f}%")
