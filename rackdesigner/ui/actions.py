"""`WindowActions`: the menus, toolbar and shortcuts of the main window, and the actions
themselves as this object's attributes (not attributes set on the window). Slots are the
collaborators' own methods: the file controller, the editor, the view, the window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QStyle, QToolBar

from rackdesigner.ui.help_menu import build_examples_menu, build_guides_menu
from rackdesigner.ui.plain_text import plain

if TYPE_CHECKING:
    from rackdesigner.ui.main_window import MainWindow

Key = QKeySequence.StandardKey


class WindowActions:
    """Builds the menu bar and toolbar of `window`; holds every QAction it creates."""

    def __init__(self, window: MainWindow) -> None:
        self._build(window)

    def _build(self, window: MainWindow) -> None:
        bar = window.menuBar()
        files = window.files
        editor = window.editor

        def act(menu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
            action = QAction(text, window)
            if shortcut is not None:
                action.setShortcuts(shortcut if isinstance(shortcut, list) else [shortcut])
            if tip:
                action.setStatusTip(tip)
            action.triggered.connect(lambda checked=False: slot())
            menu.addAction(action)
            window.addAction(action)
            return action

        file_menu = bar.addMenu("&File")
        self.new_action = act(file_menu, "&New", files.new_document, QKeySequence(Key.New))
        self.template_action = act(file_menu, "New from &Template…", window.new_from_template,
                                     QKeySequence("Ctrl+Shift+N"))
        self.open_action = act(file_menu, "&Open…", files.open_dialog, QKeySequence(Key.Open))
        self.recent_menu = file_menu.addMenu("Open &Recent")
        files.set_recent_menu(self.recent_menu)
        self.examples_menu = file_menu.addMenu("Open E&xample")
        self.example_actions = build_examples_menu(window, self.examples_menu)
        file_menu.addSeparator()
        self.save_action = act(file_menu, "&Save", files.save, QKeySequence(Key.Save))
        self.save_as_action = act(file_menu, "Save &As…", files.save_as, QKeySequence(Key.SaveAs))
        self.revert_action = act(file_menu, "Re&vert", files.revert)
        file_menu.addSeparator()
        act(file_menu, "&Export Image (PNG, SVG)…", files.export_image_dialog,
            QKeySequence("Ctrl+E"))
        act(file_menu, "Export &Rack Elevations (PDF, SVG, PNG)…", files.export_racks_dialog,
            tip="Front or rear elevations of every rack, as the Racks tab shows them")
        act(file_menu, "Export &Bill of Materials (CSV)…", files.export_bom_dialog)
        self.compare_action = act(file_menu, "&Compare With…", lambda: _open_compare(window),
                                  QKeySequence("Ctrl+Shift+C"),
                                  "The open design side by side with saved ones: bandwidth, "
                                  "power, heat, cost, and time and cost to train")
        from rackdesigner.ui.interop_menu import add_export_menu, add_import_menu

        add_export_menu(window, file_menu)
        add_import_menu(window, file_menu)
        file_menu.addSeparator()
        act(file_menu, "&Quit", window.close, QKeySequence(Key.Quit))

        edit_menu = bar.addMenu("&Edit")
        stack = window.document.undo_stack
        self.undo_action = stack.createUndoAction(window, "&Undo")
        self.undo_action.setShortcuts(QKeySequence.keyBindings(Key.Undo))
        self.redo_action = stack.createRedoAction(window, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(self.redo_action)
        edit_menu.addSeparator()
        self.cut_action = act(edit_menu, "Cu&t", editor.cut, QKeySequence(Key.Cut))
        self.copy_action = act(edit_menu, "&Copy", editor.copy, QKeySequence(Key.Copy))
        self.paste_action = act(edit_menu, "&Paste", editor.paste, QKeySequence(Key.Paste))
        self.duplicate_action = act(edit_menu, "&Duplicate", editor.duplicate,
                                      QKeySequence("Ctrl+D"))
        self.delete_action = act(edit_menu, "&Delete", editor.delete_selection,
                                   [QKeySequence(Key.Delete), QKeySequence("Backspace")])
        self.rename_action = act(edit_menu, "Re&name", window.focus_rename, QKeySequence("F2"))
        edit_menu.addSeparator()
        self.fail_action = act(edit_menu, "&Fail / Restore", editor.toggle_failed,
                               QKeySequence("F"), "Mark the selection failed for a what-if (it "
                               "stays drawn, greyed and hatched, and leaves the figures), or "
                               "restore it")
        self.restore_all_action = act(edit_menu, "Restore All Failures", editor.restore_all,
                                      None, "Bring every failed device, link and group back")
        window.view.context_actions = [self.fail_action, self.restore_all_action, None,
                                       self.delete_action]
        edit_menu.addSeparator()
        act(edit_menu, "Select &All", editor.select_all, QKeySequence(Key.SelectAll))
        act(edit_menu, "&Group", editor.group_selection, QKeySequence("Ctrl+G"))
        act(edit_menu, "&Ungroup", editor.ungroup_selection, QKeySequence("Ctrl+Shift+G"))
        act(edit_menu, "Collapse / E&xpand Group", editor.toggle_group, QKeySequence("Ctrl+K"))
        self.wire_mode_action = QAction("&Wire Mode", window)
        self.wire_mode_action.setCheckable(True)
        self.wire_mode_action.setShortcut(QKeySequence("W"))
        self.wire_mode_action.setStatusTip("Drag from any device to another to wire them "
                                             "(or drag from a port row, or Ctrl+Shift+drag "
                                             "or Alt+drag)")
        self.wire_mode_action.toggled.connect(lambda on: setattr(window.scene, "wire_mode", on))
        edit_menu.addAction(self.wire_mode_action)
        self.wire_rails_action = act(edit_menu, "Wire &Rails…", editor.wire_rails,
                                       QKeySequence("Ctrl+Shift+R"),
                                       "Connect NIC i of every selected node to the i-th selected "
                                       "leaf switch (rail-optimized), after a preview")
        self.give_cdus_action = act(
            edit_menu, "Give Liquid Racks CD&Us", lambda: give_liquid_racks_cdus(window), None,
            "Add a CDU (sized to its liquid heat) for every liquid rack that no CDU serves, as "
            "one undo step")

        view_menu = bar.addMenu("&View")
        # zoom and fit act on the tab shown: the topology canvas or the rack elevations
        def shown():
            return (window.racks_panel.view
                    if window.views.currentWidget() is window.racks_panel else window.view)

        act(view_menu, "Zoom &In", lambda: shown().zoom_in(), [QKeySequence(Key.ZoomIn),
                                                                QKeySequence("Ctrl+=")])
        act(view_menu, "Zoom &Out", lambda: shown().zoom_out(), QKeySequence(Key.ZoomOut))
        act(view_menu, "&Fit Design", lambda: shown().fit(), QKeySequence("Ctrl+0"))
        act(view_menu, "&Racks", lambda: window.views.setCurrentWidget(window.racks_panel),
            QKeySequence("Ctrl+Shift+K"), "Rack elevations and the floor plan")
        act(view_menu, "&Topology", lambda: window.views.setCurrentWidget(window.view),
            QKeySequence("Ctrl+Shift+T"))
        self.minimap_action = QAction("Overview &Map", window)
        self.minimap_action.setCheckable(True)
        self.minimap_action.setChecked(True)
        self.minimap_action.setShortcut(QKeySequence("Ctrl+M"))
        self.minimap_action.setStatusTip("The whole design small in a corner while zoomed in; "
                                           "click it to go there")
        self.minimap_action.toggled.connect(window.view.minimap.set_enabled_by_user)
        view_menu.addAction(self.minimap_action)
        self.heat_action = QAction("&Heat Map", window)
        self.heat_action.setCheckable(True)
        self.heat_action.setShortcut(QKeySequence("Ctrl+Shift+H"))
        self.heat_action.setStatusTip("Colour every network link by its utilisation under the "
                                      "Simulation panel's Heat traffic (all_to_all 1 GiB first)")
        self.heat_action.toggled.connect(window.simulation_panel.set_heat_enabled)
        window.simulation_panel.heat_tab.enabled_check.toggled.connect(
            self.heat_action.setChecked)
        view_menu.addAction(self.heat_action)
        view_menu.addSeparator()
        for dock in (window.palette_dock, window.inspector_dock, window.problems_dock,
                     window.history_dock, window.simulation_dock):
            view_menu.addAction(dock.toggleViewAction())

        analyze_menu = bar.addMenu("&Analyze")
        self.sweep_action = act(analyze_menu, "&Sweep…", lambda: _open_sweep(window))
        self.single_failures_action = act(
            analyze_menu, "&Single Failures…", window.show_single_failures, None,
            "Fail every switch, leaf, spine, NVSwitch, tray, node, rack or link in turn and list "
            "what each costs, worst first")
        self.fit_action = act(
            analyze_menu, "&Fit to Site…", lambda: _open_fit(window), None,
            "The best clusters the site and a budget allow: system mixes, counts and fabrics "
            "within the power, liquid loop, air and floor, as a front of tokens/s against cost")

        help_menu = bar.addMenu("&Help")
        act(help_menu, "&Canvas Basics", window.show_help, QKeySequence(Key.HelpContents))
        self.guides_menu = help_menu.addMenu("&User Guides")
        self.guide_actions = build_guides_menu(window, self.guides_menu)
        self.about_action = act(help_menu, "&About RackDesigner", window.show_about)

        tools = QToolBar("Main", window)
        tools.setObjectName("main-toolbar")
        tools.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        icons = QStyle.StandardPixmap
        for action, icon in ((self.new_action, icons.SP_FileIcon),
                             (self.open_action, icons.SP_DialogOpenButton),
                             (self.save_action, icons.SP_DialogSaveButton),
                             (self.undo_action, icons.SP_ArrowBack),
                             (self.redo_action, icons.SP_ArrowForward),
                             (self.delete_action, icons.SP_TrashIcon)):
            action.setIcon(window.style().standardIcon(icon))
        tools.setMovable(False)
        # The toolbar's Undo/Redo keep a fixed text (the menu's say what they undo), so the
        # buttons do not jump; the tooltip says what and the shortcut.
        self.toolbar_undo = _fixed_undo(window, "Undo", self.undo_action)
        self.toolbar_redo = _fixed_undo(window, "Redo", self.redo_action)
        for action in (self.new_action, self.open_action, self.save_action):
            tools.addAction(action)
        tools.addSeparator()
        tools.addAction(self.toolbar_undo)
        tools.addAction(self.toolbar_redo)
        tools.addSeparator()
        tools.addAction(self.wire_mode_action)
        tools.addAction(self.delete_action)
        for action in (self.new_action, self.open_action, self.save_action,
                       self.wire_mode_action, self.delete_action):
            action.setToolTip(plain(tooltip(action)))
        window.addToolBar(tools)


def tooltip(action: QAction, text: str | None = None) -> str:
    """"Save (Ctrl+S)": the action's text without its mnemonic, then its shortcut."""
    text = (text if text is not None else action.text()).replace("&", "")
    keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    return f"{text} ({keys})" if keys else text


class UndoToolAction(QAction):
    """A toolbar Undo or Redo with a fixed text, following the undo stack; the tooltip says
    what would be undone (or redone) and the shortcut."""

    def __init__(self, text: str, source: QAction, stack, redo: bool, parent) -> None:
        super().__init__(source.icon(), text, parent)
        self.stack, self.redo, self.verb = stack, redo, text
        self.keys = source.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        self.triggered.connect(stack.redo if redo else stack.undo)
        # state from the signals' arguments: the stack emits them while it is destroyed too
        self._able = stack.canRedo() if redo else stack.canUndo()
        self._what = stack.redoText() if redo else stack.undoText()
        (stack.canRedoChanged if redo else stack.canUndoChanged).connect(self._on_able_changed)
        (stack.redoTextChanged if redo else stack.undoTextChanged).connect(self._on_text_changed)
        self._show()

    def _on_able_changed(self, able: bool) -> None:
        self._able = able
        self._show()

    def _on_text_changed(self, text: str) -> None:
        self._what = text
        self._show()

    def _show(self) -> None:
        self.setEnabled(self._able)
        text = f"{self.verb} {self._what}" if self._able and self._what else self.verb
        self.setToolTip(plain(f"{text} ({self.keys})" if self.keys else text))


def _open_compare(window: MainWindow) -> None:
    from rackdesigner.ui.compare_dialog import open_compare_dialog

    open_compare_dialog(window)


def _open_sweep(window: MainWindow) -> None:
    from rackdesigner.ui.sweep_menu import open_sweep_window

    open_sweep_window(window)


def give_liquid_racks_cdus(window: MainWindow) -> bool:
    """Edit > Give Liquid Racks CDUs: one command, or a status message saying why not."""
    from rackdesigner.commands.cooling import give_cdus

    command = give_cdus(window.document.layout)
    if command is None:
        window.status_message("Every liquid rack already has a CDU (or the catalog has no CDU "
                              "with a stated capacity)")
        return False
    return window.document.push(command)


def _open_fit(window: MainWindow) -> None:
    from rackdesigner.ui.fit_dialog import open_fit_dialog

    open_fit_dialog(window)


def _fixed_undo(window: MainWindow, text: str, source: QAction) -> QAction:
    return UndoToolAction(text, source, window.document.undo_stack, text == "Redo", window)
