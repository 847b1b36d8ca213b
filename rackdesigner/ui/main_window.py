"""The designer's main window: the composition of canvas, palette, inspector, problems,
history and the simulation dock, with the menus and the status bar.

Wiring of signals happens here and nowhere else: the document re-emits model events; the scene,
inspector, problems and status bar follow them; user intent goes through the `Editor`.
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QShowEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QMenu,
    QUndoView,
    QWidget,
)

from rackdesigner.catalog import Catalog, default_catalog
from rackdesigner.model import Layout
from rackdesigner.ui import window_layout
from rackdesigner.ui.canvas.scene import RackScene
from rackdesigner.ui.canvas.view import OVERVIEW_MIN_DEVICES, RackView
from rackdesigner.ui.document import Document
from rackdesigner.ui.editor import Editor
from rackdesigner.ui.files import FileActions
from rackdesigner.ui.inspector import InspectorWidget
from rackdesigner.ui.palette import PaletteWidget
from rackdesigner.ui.panel import SimulationPanel
from rackdesigner.ui.problems import ProblemsWidget
from rackdesigner.ui.settings import Settings
from rackdesigner.ui.status_icons import ProblemsStatus

log = logging.getLogger(__name__)
APP_NAME = "RackDesigner"
HELP_TEXT = """Drag a model from the Palette onto the canvas (a system arrives wired).
Wire: drag from a port row of a device to another device (or Alt+drag, or Wire Mode: W).
Green devices accept the wire; red ones refuse it, and the status bar says why.
Type a number while dragging a wire for a link of that many ports.
In bulk: Alt+drag a node onto a switch; or select nodes and leaves, Edit → Wire Rails….
Select: click, drag a rubber band, Ctrl+A. Move: drag, or the arrow keys (Shift: 1 px).
Delete, Ctrl+D duplicate, Ctrl+C/X/V copy/cut/paste (as YAML), F2 rename.
Groups: click the ▾/▸ button to collapse or expand, Ctrl+G group, Ctrl+Shift+G ungroup.
Zoom: wheel, Ctrl +/-, Ctrl+0 fits. Pan: middle button or Space+drag.
Overview map (Ctrl+M): click it to go there; zoomed far out, a click selects a group."""


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


class MainWindow(FileActions, QMainWindow):
    """The designer window. `selection_changed` carries (devices, links, groups) id lists, for
    panels that follow the selection (the live simulation panel's scope)."""

    selection_changed = Signal(object)

    def __init__(self, path: str | Path | None = None, *, catalog: Catalog | None = None,
                 settings: QSettings | Settings | None = None,
                 parent: QWidget | None = None) -> None:
        QMainWindow.__init__(self, parent)
        self.catalog = catalog if catalog is not None else default_catalog()
        self.settings = settings if isinstance(settings, Settings) else Settings(settings)
        self.last_error = ""
        self.document = Document(Layout(self.catalog), self)
        self.scene = RackScene(self)
        self.view = RackView(self.scene, self)
        self.setCentralWidget(self.view)
        self.editor = Editor(self.document, self.scene, self.view, self)
        self._build_docks()
        self._build_status_bar()
        self._build_actions()
        self._connect()
        self._init_file_watch()
        self.setAcceptDrops(True)
        self._default_docks_pending = False
        self._restore_state()
        self._set_document(self.document.layout, None)
        if path is not None:
            self.open_file(path, ask=False)

    # ---- construction ------------------------------------------------------------------------
    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_docks(self) -> None:
        self.palette = PaletteWidget(self.catalog, self)
        self.inspector = InspectorWidget(self)
        self.problems = ProblemsWidget(self)
        self.history = QUndoView(self.document.undo_stack, self)
        self.history.setEmptyLabel("<opened>")
        self.palette_dock = self._dock("Palette", "palette", self.palette,
                                       Qt.DockWidgetArea.LeftDockWidgetArea)
        self.inspector_dock = self._dock("Inspector", "inspector", self.inspector,
                                         Qt.DockWidgetArea.RightDockWidgetArea)
        self.simulation_panel = SimulationPanel(parent=self)
        self.simulation_dock = self._dock("Simulation", "simulation", self.simulation_panel,
                                          Qt.DockWidgetArea.RightDockWidgetArea)
        self.problems_dock = self._dock("Problems", "problems", self.problems,
                                        Qt.DockWidgetArea.BottomDockWidgetArea)
        self.history_dock = self._dock("History", "history", self.history,
                                       Qt.DockWidgetArea.BottomDockWidgetArea)
        self.tabifyDockWidget(self.problems_dock, self.history_dock)
        self.problems_dock.raise_()
        window_layout.set_dock_corners(self)

    def set_simulation_panel(self, widget: QWidget) -> None:
        """Replace the simulation placeholder (the live panel's issue calls this)."""
        old = self.simulation_dock.widget()
        self.simulation_dock.setWidget(widget)
        if old is not None:
            old.deleteLater()

    def _build_status_bar(self) -> None:
        self.counts_label = QLabel(self)
        self.zoom_label = QLabel(self)
        self.problems_label = ProblemsStatus(self)
        bar = self.statusBar()
        bar.addPermanentWidget(self.problems_label)
        bar.addPermanentWidget(self.counts_label)
        bar.addPermanentWidget(self.zoom_label)
        self._counts_timer = QTimer(self)
        self._counts_timer.setSingleShot(True)
        self._counts_timer.setInterval(100)
        self._counts_timer.timeout.connect(self._update_counts)
        # Selecting 3,000 items emits 3,000 selectionChanged signals: handle them once.
        self._selection_timer = QTimer(self)
        self._selection_timer.setSingleShot(True)
        self._selection_timer.setInterval(0)
        self._selection_timer.timeout.connect(self._on_scene_selection_changed)

    def show_single_failures(self) -> None:
        """Analyze ▸ Single Failures…: the N-1 table for the open design (non-modal)."""
        from rackdesigner.ui.whatif_dialog import SingleFailuresDialog

        dialog = getattr(self, "single_failures_dialog", None)
        if dialog is None or dialog.layout_ref is not self.document.layout:
            if dialog is not None:
                dialog.close()
            dialog = SingleFailuresDialog(self.document.layout, self)
            dialog.objects_activated.connect(self.editor.select_ids)
            self.single_failures_dialog = dialog
        dialog.show()
        dialog.raise_()

    def _action(self, menu: QMenu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcuts(shortcut if isinstance(shortcut, list) else [shortcut])
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(lambda checked=False: slot())
        menu.addAction(action)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        from rackdesigner.ui.actions import build_menus

        build_menus(self)

    def _connect(self) -> None:
        doc = self.document
        doc.changed.connect(self.scene.on_event)
        doc.changed.connect(self.problems.schedule)
        doc.changed.connect(self.inspector.on_model_event)
        doc.changed.connect(self._on_document_changed)
        doc.message.connect(self.status_message)
        doc.undo_stack.cleanChanged.connect(self._update_title)
        self.editor.message.connect(self.status_message)
        self.selection_changed.connect(self.simulation_panel.follow_selection)
        self.simulation_panel.message.connect(self.status_message)
        self.simulation_panel.command_sink = doc.push  # the SHARP switch: one undo step
        self.simulation_panel.failure_bar.restore_all_requested.connect(self.editor.restore_all)
        self.simulation_panel.heat_changed.connect(self.scene.set_heat)
        self.simulation_panel.heat_tab.links_activated.connect(self.editor.select_ids)
        self.scene.selectionChanged.connect(self._selection_timer.start)
        self.editor.selection_set.connect(self.flush_selection)
        self.inspector.command_requested.connect(doc.push)
        self.palette.model_activated.connect(self.editor.add_at_center)
        self.problems.objects_activated.connect(self.editor.select_ids)
        self.problems.findings_changed.connect(self._on_problems_findings_changed)
        self.view.zoom_changed.connect(self._on_view_zoom_changed)

    # ---- document ----------------------------------------------------------------------------
    def _set_document(self, layout: Layout, path: Path | None) -> None:
        self.document.set_layout(layout, path)
        # Large designs open fitted, hence zoomed out: start in the overview so the scene is
        # built once (fit() switches it off again when the design turns out to be small).
        self.scene.overview = layout.device_count() > OVERVIEW_MIN_DEVICES
        self.scene.set_layout(layout)
        self.inspector.set_layout(layout)
        self.problems.set_layout(layout)
        self.simulation_panel.set_layout(
            layout, path.name if path is not None else (layout.meta.name or "Untitled"),
            str(path.parent) if path is not None else "")
        self._update_counts()
        self._update_title()
        self.view.request_fit()

    def _update_title(self, *args) -> None:
        path = self.document.path
        name = path.name if path else self.document.untitled_title or "Untitled"
        self.setWindowTitle(f"{name}[*] — {APP_NAME}")
        self.setWindowModified(self.document.is_modified())

    def _on_document_changed(self, event) -> None:
        self._counts_timer.start()

    def _update_counts(self) -> None:
        layout = self.document.layout
        kinds: Counter[str] = Counter()
        for device in layout.devices():
            spec = layout.spec(device.id)
            kinds[spec.kind if spec else "?"] += 1
        links = sum(link.count for link in layout.links())
        parts = [_count(kinds["gpu"], "GPU")]
        if kinds["nvswitch"]:
            parts.append(_count(kinds["nvswitch"], "NVSwitch", "NVSwitches"))
        parts += [_count(kinds["switch"], "switch", "switches"), _count(links, "link")]
        self.counts_label.setText(" · ".join(parts))

    def status_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 0 if text.startswith("Cannot") else 8000)

    def flush_selection(self) -> None:
        if self._selection_timer.isActive():
            self._on_scene_selection_changed()

    def flush(self) -> None:
        """Run every pending deferred update now (tests call this instead of waiting)."""
        self.scene.flush()
        self.flush_selection()
        self.inspector.flush()
        self.problems.flush()
        if self._counts_timer.isActive():
            self._update_counts()

    def _on_scene_selection_changed(self) -> None:
        self._selection_timer.stop()
        if self.scene.is_wiring:
            return
        selection = self.editor.selection()
        self.inspector.show_selection(*selection)
        window_layout.compact_inspector(self, not any(selection))
        self.selection_changed.emit(selection)

    def _on_problems_findings_changed(self, errors: int, warnings: int) -> None:
        self.problems_label.set_counts(errors, warnings)

    def _on_view_zoom_changed(self, zoom: float) -> None:
        self.zoom_label.setText(f"{zoom * 100:.0f}%")

    # ---- window state ------------------------------------------------------------------------
    def _restore_state(self) -> None:
        """Saved geometry and dock state win; a first run gets `window_layout`'s defaults."""
        geometry, state = self.settings.window_state()
        if geometry is None or not self.restoreGeometry(geometry):
            window_layout.place_first_run(self)
        if state is None or not self.restoreState(state, window_layout.DOCK_STATE_VERSION):
            self._default_docks_pending = True

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._default_docks_pending:
            self._default_docks_pending = False
            window_layout.apply_default_dock_sizes(self)
        window_layout.compact_inspector(self, not any(self.editor.selection()))

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        state = self.saveState(window_layout.DOCK_STATE_VERSION)
        self.settings.save_window_state(self.saveGeometry(), state)
        self.settings.sync()
        self.simulation_panel.close_panel()
        dialog = getattr(self, "single_failures_dialog", None)
        if dialog is not None:  # cancel a run in flight and wait for its thread
            dialog.done(0)
            dialog.wait()
        self.problems.close_problems()
        self.document.close()
        event.accept()

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

    def new_from_template(self) -> bool:
        from rackdesigner.ui.template_dialog import TemplateDialog

        if not self.maybe_save():
            return False
        dialog = TemplateDialog(self.catalog, self)
        if dialog.exec() != TemplateDialog.DialogCode.Accepted or dialog.result_layout is None:
            return False
        self._set_document(dialog.result_layout, None)
        self.mark_untitled_copy("template",
                                str(dialog.template.currentData() or "layout"))
        self.status_message(f"New layout from the {dialog.template.currentData()} template")
        return True

    def show_about(self) -> None:
        from rackdesigner.ui.about import show_about

        show_about(self)

    def show_help(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.information(self, "Canvas basics", HELP_TEXT)

    def focus_rename(self) -> None:
        self.inspector_dock.show()
        self.inspector_dock.raise_()
        if not self.inspector.focus_name():
            self.status_message("Select one device or group to rename")
