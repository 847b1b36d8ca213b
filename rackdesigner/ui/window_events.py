"""The designer window's own events: its saved geometry and docks, showing, closing (stop
what runs in the background, save the state) and files dropped on it.

`WindowEvents` is a mixin of `MainWindow` (ui/main_window.py), which keeps the composition.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QCloseEvent, QShowEvent

from rackdesigner.ui import window_layout


class WindowEvents:
    """Show, close and drop handling of `MainWindow` (a mixin: `self` is the window)."""

    def _restore_state(self) -> None:
        """Saved geometry and dock state win; a first run gets `window_layout`'s defaults."""
        geometry, state = self.settings.window_state()
        if geometry is None or not self.restoreGeometry(geometry):
            window_layout.place_first_run(self)
        if state is None or not self.restoreState(state, window_layout.DOCK_STATE_VERSION):
            self._default_docks_pending = True

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._default_docks_pending is not None:
            pending, self._default_docks_pending = self._default_docks_pending, None
            (window_layout.apply_default_dock_sizes if pending
             else window_layout.clamp_restored_docks)(self)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        state = self.saveState(window_layout.DOCK_STATE_VERSION)
        self.settings.save_window_state(self.saveGeometry(), state)
        self.settings.sync()
        if self.background_busy():  # a run may take seconds at 32k GPUs: stop it, say so
            self.status_message("Quitting: stopping the simulation and the design-rule "
                                "check running in the background…")
            self.statusBar().repaint()
        self.simulation_panel.close_panel()
        dialog = getattr(self, "single_failures_dialog", None)
        if dialog is not None:  # cancel a run in flight and wait for its thread
            dialog.done(0)
            dialog.wait()
        self.problems.close_problems()
        self.racks_panel.close_panel()
        self.document.close()
        self.heap.release()
        event.accept()

    def background_busy(self) -> bool:
        """A simulation, an estimate, a rule check or a single-failure analysis is running."""
        dialog = getattr(self, "single_failures_dialog", None)
        return bool(self.simulation_panel.live.busy or self.problems.busy
                    or self.simulation_panel.workload.live.job.busy
                    or self.simulation_panel.serving.job.busy
                    or (dialog is not None and dialog.running))

    def dragEnterEvent(self, event) -> None:
        # any local file is accepted, so a file that is not a layout gets a reason on drop
        if any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        for url in urls:
            if url.toLocalFile().endswith((".yaml", ".yml")):
                event.acceptProposedAction()
                self.open_file(url.toLocalFile())
                return
        if urls:
            event.acceptProposedAction()
            name = Path(urls[0].toLocalFile()).name
            self.status_message(f"Cannot open {name}: only RackDesigner layouts (.yaml, .yml) "
                                "can be dropped here")
