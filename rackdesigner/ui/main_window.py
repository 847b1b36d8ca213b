"""The designer's main window: the composition of canvas, palette, inspector, problems,
history and the simulation dock, with the menus and the status bar.

Wiring of signals happens here and nowhere else. There is one change route: the `Document`
re-emits each model event as `changed` and announces a new design with `replaced(layout)`; the
scene, inspector, problems, simulation panel, status bar and heap tuning follow those two
signals and nothing else (opening a file is `document.set_layout`, never a hand-off to each
widget). User intent goes through collaborators that are objects with their own state: the
`Editor` (edits), the `FileController` (files), `WindowActions` (menus and shortcuts).
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QDockWidget,
    QMainWindow,
    QTabWidget,
    QUndoView,
    QWidget,
)

from rackdesigner.catalog import Catalog, default_catalog
from rackdesigner.model import Layout
from rackdesigner.ui import window_layout
from rackdesigner.ui.actions import WindowActions
from rackdesigner.ui.canvas.scene import RackScene
from rackdesigner.ui.canvas.view import OVERVIEW_MIN_DEVICES, RackView
from rackdesigner.ui.document import Document
from rackdesigner.ui.editor import Editor
from rackdesigner.ui.files import FileController
from rackdesigner.ui.heap import HeapSettler
from rackdesigner.ui.inspector import InspectorWidget
from rackdesigner.ui.palette import PaletteWidget
from rackdesigner.ui.panel import SimulationPanel
from rackdesigner.ui.problems import ProblemsWidget
from rackdesigner.ui.settings import Settings
from rackdesigner.ui.wheel_guard import guard_wheel
from rackdesigner.ui.window_events import WindowEvents
from rackdesigner.ui.window_status import APP_NAME as APP_NAME
from rackdesigner.ui.window_status import WindowStatus

log = logging.getLogger(__name__)
HELP_TEXT = """Drag a model from the Palette onto the canvas (a system arrives wired, collapsed).
Wire: drag from a port row of a device to another device (or Wire Mode: W, or Ctrl+Shift+drag;
Alt+drag too where the window manager does not take it).
Green devices accept the wire; red ones refuse it, and the status bar says why.
Type a number while dragging a wire for a link of that many ports.
In bulk: Ctrl+Shift+drag (or Wire Mode) a node onto a switch;
or select nodes and leaves, Edit → Wire Rails….
Select: click, drag a rubber band, Ctrl+A. Move: drag, or the arrow keys (Shift: 1 px).
Delete, Ctrl+D duplicate, Ctrl+C/X/V copy/cut/paste (as YAML), F2 rename.
Groups: click the ▾/▸ button to collapse or expand, Ctrl+G group, Ctrl+Shift+G ungroup.
Zoom: wheel, Ctrl +/-, Ctrl+0 fits. Pan: middle button or Space+drag.
Overview map (Ctrl+M): click it to go there; zoomed far out, a click selects a group."""


class MainWindow(WindowEvents, WindowStatus, QMainWindow):
    """The designer window. `selection_changed` carries (devices, links, groups) id lists, for
    panels that follow the selection (the live simulation panel's scope)."""

    selection_changed = Signal(object)

    def __init__(self, path: str | Path | None = None, *, catalog: Catalog | None = None,
                 settings: QSettings | Settings | None = None,
                 parent: QWidget | None = None) -> None:
        QMainWindow.__init__(self, parent)
        self.catalog = catalog if catalog is not None else default_catalog()
        self.settings = settings if isinstance(settings, Settings) else Settings(settings)
        self.document = Document(Layout(self.catalog), self)
        self.heap = HeapSettler()
        self.scene = RackScene(self)
        self.view = RackView(self.scene, self)
        from rackdesigner.ui.racks.panel import RacksPanel

        self.racks_panel = RacksPanel(self)
        self.views = QTabWidget(self)  # the same document drawn two ways
        self.views.setDocumentMode(True)
        self.views.setMinimumSize(window_layout.CANVAS_MIN)  # the window's minimum follows
        self.views.addTab(self.view, "Topology")
        self.views.addTab(self.racks_panel, "Racks")
        self.setCentralWidget(self.views)
        self.editor = Editor(self.document, self.scene, self.view, self)
        self.files = FileController(self.document, self.catalog, self.settings, self, self.scene)
        self._build_docks()
        self._build_status_bar()
        self.actions_ = WindowActions(self)
        self._connect()
        self.setAcceptDrops(True)
        self._default_docks_pending: bool | None = False  # None: shown, the docks sized
        self._restore_state()
        self.document.set_layout(self.document.layout, None)
        if path is not None:
            self.files.open_file(path, ask=False)

    # ---- files (the FileController's; kept here for scripts and tests) ---------------------
    @property
    def last_error(self) -> str:
        """The last error told to the user by a file or export action (tests read it)."""
        return self.files.last_error

    @last_error.setter
    def last_error(self, text: str) -> None:
        self.files.last_error = text

    @property
    def file_watch(self):
        return self.files.file_watch

    @property
    def file_prompt(self):
        return self.files.file_prompt

    def open_file(self, path: str | Path, ask: bool = True) -> bool:
        return self.files.open_file(path, ask)

    def save_file(self, path: str | Path) -> bool:
        return self.files.save_file(path)

    def save(self) -> bool:
        return self.files.save()

    def revert(self) -> bool:
        return self.files.revert()

    def maybe_save(self) -> bool:
        return self.files.maybe_save()

    def export_bom(self, path: str | Path) -> bool:
        return self.files.export_bom(path)

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
        # in a scroll area: what is selected never changes the dock's size (docks keep
        # their geometry; the panel below must not jump between two clicks)
        self.inspector_dock = self._dock("Inspector", "inspector",
                                         window_layout.scrolled(self.inspector),
                                         Qt.DockWidgetArea.RightDockWidgetArea)
        self._inspector_wheel_guard = guard_wheel(self.inspector)
        self.simulation_panel = SimulationPanel(parent=self)
        self._remember_price_book(self.simulation_panel)
        self.simulation_dock = self._dock("Simulation", "simulation", self.simulation_panel,
                                          Qt.DockWidgetArea.RightDockWidgetArea)
        self.problems_dock = self._dock("Problems", "problems", self.problems,
                                        Qt.DockWidgetArea.BottomDockWidgetArea)
        self.history_dock = self._dock("History", "history", self.history,
                                       Qt.DockWidgetArea.BottomDockWidgetArea)
        self.tabifyDockWidget(self.problems_dock, self.history_dock)
        self.problems_dock.raise_()
        window_layout.set_dock_corners(self)

    def _remember_price_book(self, panel: QWidget) -> None:
        """The Cost tab prices with the book chosen in an earlier session, and remembers a new
        choice (a setting, beside the book a design may embed)."""
        cost = getattr(panel, "cost_tab", None)
        if cost is None:
            return
        book = self.settings.price_book()
        if book is not None:
            cost.use_book(book)
        cost.book_chosen.connect(self.settings.set_price_book)

    def set_simulation_panel(self, widget: QWidget) -> None:
        """Replace the simulation placeholder (the live panel's issue calls this)."""
        old = self.simulation_dock.widget()
        self.simulation_dock.setWidget(widget)
        if old is not None:
            old.deleteLater()

    def show_single_failures(self) -> None:
        """Analyze ▸ Single Failures…: the N-1 table for the open design (non-modal)."""
        from rackdesigner.ui.whatif_dialog import SingleFailuresDialog

        dialog = getattr(self, "single_failures_dialog", None)
        if dialog is None or dialog.layout_ref is not self.document.layout:
            if dialog is not None:
                dialog.close()
            dialog = SingleFailuresDialog(self.document.layout, self,
                                          job_source=lambda: self.simulation_panel.workload
                                          .job_spec(once_estimated=True))
            dialog.objects_activated.connect(self.editor.select_ids)
            self.single_failures_dialog = dialog
        dialog.show()
        dialog.raise_()

    def _connect(self) -> None:
        doc = self.document
        # the window's own reaction first: the scene's level of detail depends on the size
        doc.replaced.connect(self._on_document_replaced)
        doc.changed.connect(self.scene.on_event)
        doc.replaced.connect(lambda layout: self.scene.set_layout(layout))
        doc.changed.connect(self.inspector.on_model_event)
        doc.replaced.connect(self.inspector.set_layout)
        self.problems.follow_document(doc)
        self.simulation_panel.follow_document(doc)
        # the panel's run (seconds at 32k GPUs) lets the Problems check (re-checking what the
        # edit touched: a fraction of a second) go first instead of halving its pace
        self.simulation_panel.live.job.yield_to = lambda: self.problems.busy
        doc.replaced.connect(self._after_document_replaced)
        doc.message.connect(self.status_message)
        doc.failed.connect(self._on_document_failed)
        doc.undo_stack.cleanChanged.connect(self._update_title)
        self.files.message.connect(self.status_message)
        self.files.title_changed.connect(self._update_title)
        self.files.untitled_copy_marked.connect(self.simulation_panel.compare.set_design)
        self.editor.message.connect(self.status_message)
        self.selection_changed.connect(self.simulation_panel.follow_selection)
        self.simulation_panel.message.connect(self.status_message)
        self.simulation_panel.command_sink = doc.push  # the SHARP switch: one undo step
        self.simulation_panel.failure_bar.restore_all_requested.connect(self.editor.restore_all)
        self.simulation_panel.heat_changed.connect(self.scene.set_heat)
        self.simulation_panel.blast_changed.connect(self.scene.set_blast)
        self.simulation_panel.heat_tab.links_activated.connect(self.editor.select_ids)
        self.scene.selectionChanged.connect(self._selection_timer.start)
        self.editor.selection_set.connect(self.flush_selection)
        self.inspector.command_requested.connect(doc.push)
        self.inspector.objects_requested.connect(self.editor.select_ids)
        self.palette.model_activated.connect(self.editor.add_at_center)
        self.problems.objects_activated.connect(self.editor.select_ids)
        self.problems.findings_changed.connect(self._on_problems_findings_changed)
        self.problems.checking.connect(self.problems_label.set_checking)
        self.view.zoom_changed.connect(self._on_view_zoom_changed)
        # the Racks tab: same document, undo stack and selection
        doc.changed.connect(self.racks_panel.on_model_event)
        doc.replaced.connect(self.racks_panel.set_layout)
        self.racks_panel.command_requested.connect(doc.push)
        from rackdesigner.ui.placement import near_rack  # a unit added in the Racks view

        self.racks_panel.placer = lambda command, rack: near_rack(
            self.scene, self.document.layout, command, rack)
        self.racks_panel.message.connect(self.status_message)
        self.racks_panel.selection_requested.connect(self._on_racks_selection)
        self.racks_panel.view.zoom_changed.connect(self._on_view_zoom_changed)
        self.views.currentChanged.connect(lambda _index: self._on_view_zoom_changed(0.0))
        # last: what every view built for the new design is frozen with it (ui/heap.py)
        doc.replaced.connect(self.heap.on_document_replaced)

    # ---- document ----------------------------------------------------------------------------
    def _set_document(self, layout: Layout, path: Path | None) -> None:
        """Open `layout` (kept for scripts and tests: it is `document.set_layout`)."""
        self.document.set_layout(layout, path)

    def _on_document_replaced(self, layout: Layout) -> None:
        # Large designs open fitted, hence zoomed out: start with aggregate blocks so the scene
        # is built small (fit() picks the level of detail of the fitted zoom).
        self.scene.level = "far" if layout.device_count() > OVERVIEW_MIN_DEVICES else "detail"
        self.view.minimap.forget()  # nothing of the previous design under the new title

    def _after_document_replaced(self, layout: Layout) -> None:
        self._update_counts()
        self._update_title()
        self.view.request_fit()

    def _on_document_failed(self, text: str) -> None:
        self.status_message(text)

    def flush_selection(self) -> None:
        if self._selection_timer.isActive():
            self._on_scene_selection_changed()

    def flush(self) -> None:
        """Run every pending deferred update now (tests call this instead of waiting)."""
        self.scene.flush()
        self.flush_selection()
        self.inspector.flush()
        self.problems.flush()
        self.racks_panel.flush()

    def _on_scene_selection_changed(self) -> None:
        self._selection_timer.stop()
        if self.scene.is_wiring:
            return
        selection = self.editor.selection()
        self.racks_panel.select_ids(selection[0], selection[2])
        self.inspector.show_selection(*selection)
        self.selection_changed.emit(selection)

    def _on_racks_selection(self, ids: list) -> None:
        """A selection made in the racks view: the canvas, Inspector and panel follow."""
        self.editor.select_ids(ids)
        self.flush_selection()

    def new_from_template(self) -> bool:
        from rackdesigner.ui.template_dialog import TemplateDialog

        if not self.maybe_save():
            return False
        dialog = TemplateDialog(self.catalog, self, settings=self.settings)
        if dialog.exec() != TemplateDialog.DialogCode.Accepted or dialog.result_layout is None:
            return False
        self.document.set_layout(dialog.result_layout, None)
        self.files.mark_untitled_copy("template",
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
