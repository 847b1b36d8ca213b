"""Menus, toolbar and shortcuts of the main window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QStyle, QToolBar

if TYPE_CHECKING:
    from rackdesigner.ui.main_window import MainWindow

Key = QKeySequence.StandardKey


def build_menus(window: MainWindow) -> None:
    bar = window.menuBar()
    editor = window.editor
    act = window._action

    file_menu = bar.addMenu("&File")
    window.new_action = act(file_menu, "&New", window.new_document, QKeySequence(Key.New))
    window.template_action = act(file_menu, "New from &Template…", window.new_from_template,
                                 QKeySequence("Ctrl+Shift+N"))
    window.open_action = act(file_menu, "&Open…", window.open_dialog, QKeySequence(Key.Open))
    window.recent_menu = file_menu.addMenu("Open &Recent")
    window._refresh_recent_menu = lambda: _refresh_recent(window)
    window._refresh_recent_menu()
    file_menu.addSeparator()
    window.save_action = act(file_menu, "&Save", window.save, QKeySequence(Key.Save))
    window.save_as_action = act(file_menu, "Save &As…", window.save_as, QKeySequence(Key.SaveAs))
    window.revert_action = act(file_menu, "Re&vert", window.revert)
    file_menu.addSeparator()
    act(file_menu, "&Export Image (PNG, SVG)…", window.export_image_dialog,
        QKeySequence("Ctrl+E"))
    act(file_menu, "Export &Bill of Materials (CSV)…", window.export_bom_dialog)
    from rackdesigner.ui.interop_menu import add_export_menu, add_import_menu

    add_export_menu(window, file_menu)
    add_import_menu(window, file_menu)
    file_menu.addSeparator()
    act(file_menu, "&Quit", window.close, QKeySequence(Key.Quit))

    edit_menu = bar.addMenu("&Edit")
    stack = window.document.undo_stack
    window.undo_action = stack.createUndoAction(window, "&Undo")
    window.undo_action.setShortcuts(QKeySequence.keyBindings(Key.Undo))
    window.redo_action = stack.createRedoAction(window, "&Redo")
    window.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    edit_menu.addAction(window.undo_action)
    edit_menu.addAction(window.redo_action)
    edit_menu.addSeparator()
    window.cut_action = act(edit_menu, "Cu&t", editor.cut, QKeySequence(Key.Cut))
    window.copy_action = act(edit_menu, "&Copy", editor.copy, QKeySequence(Key.Copy))
    window.paste_action = act(edit_menu, "&Paste", editor.paste, QKeySequence(Key.Paste))
    window.duplicate_action = act(edit_menu, "&Duplicate", editor.duplicate,
                                  QKeySequence("Ctrl+D"))
    window.delete_action = act(edit_menu, "&Delete", editor.delete_selection,
                               [QKeySequence(Key.Delete), QKeySequence("Backspace")])
    window.rename_action = act(edit_menu, "Re&name", window.focus_rename, QKeySequence("F2"))
    edit_menu.addSeparator()
    window.fail_action = act(edit_menu, "&Fail / Restore", editor.toggle_failed,
                             QKeySequence("F"), "Mark the selection failed for a what-if (it "
                             "stays drawn, greyed and hatched, and leaves the figures), or "
                             "restore it")
    window.restore_all_action = act(edit_menu, "Restore All Failures", editor.restore_all,
                                    None, "Bring every failed device, link and group back")
    window.view.context_actions = [window.fail_action, window.restore_all_action, None,
                                   window.delete_action]
    edit_menu.addSeparator()
    act(edit_menu, "Select &All", editor.select_all, QKeySequence(Key.SelectAll))
    act(edit_menu, "&Group", editor.group_selection, QKeySequence("Ctrl+G"))
    act(edit_menu, "&Ungroup", editor.ungroup_selection, QKeySequence("Ctrl+Shift+G"))
    act(edit_menu, "Collapse / E&xpand Group", editor.toggle_group, QKeySequence("Ctrl+K"))
    window.wire_mode_action = QAction("&Wire Mode", window)
    window.wire_mode_action.setCheckable(True)
    window.wire_mode_action.setShortcut(QKeySequence("W"))
    window.wire_mode_action.setStatusTip("Drag from any device to another to wire them "
                                         "(or drag from a port row, or Alt+drag)")
    window.wire_mode_action.toggled.connect(lambda on: setattr(window.scene, "wire_mode", on))
    edit_menu.addAction(window.wire_mode_action)
    window.wire_rails_action = act(edit_menu, "Wire &Rails…", editor.wire_rails,
                                   QKeySequence("Ctrl+Shift+R"),
                                   "Connect NIC i of every selected node to the i-th selected "
                                   "leaf switch (rail-optimized), after a preview")

    view_menu = bar.addMenu("&View")
    act(view_menu, "Zoom &In", window.view.zoom_in, [QKeySequence(Key.ZoomIn),
                                                      QKeySequence("Ctrl+=")])
    act(view_menu, "Zoom &Out", window.view.zoom_out, QKeySequence(Key.ZoomOut))
    act(view_menu, "&Fit Design", window.view.fit, QKeySequence("Ctrl+0"))
    window.minimap_action = QAction("Overview &Map", window)
    window.minimap_action.setCheckable(True)
    window.minimap_action.setChecked(True)
    window.minimap_action.setShortcut(QKeySequence("Ctrl+M"))
    window.minimap_action.setStatusTip("The whole design small in a corner while zoomed in; "
                                       "click it to go there")
    window.minimap_action.toggled.connect(window.view.minimap.set_enabled_by_user)
    view_menu.addAction(window.minimap_action)
    window.heat_action = QAction("&Heat Map", window)
    window.heat_action.setCheckable(True)
    window.heat_action.setShortcut(QKeySequence("Ctrl+Shift+H"))
    window.heat_action.setStatusTip("Colour every network link by its utilisation under the "
                                    "Simulation panel's Heat traffic (all_to_all 1 GiB first)")
    window.heat_action.toggled.connect(window.simulation_panel.set_heat_enabled)
    window.simulation_panel.heat_tab.enabled_check.toggled.connect(window.heat_action.setChecked)
    view_menu.addAction(window.heat_action)
    view_menu.addSeparator()
    for dock in (window.palette_dock, window.inspector_dock, window.problems_dock,
                 window.history_dock, window.simulation_dock):
        view_menu.addAction(dock.toggleViewAction())

    analyze_menu = bar.addMenu("&Analyze")
    window.sweep_action = act(analyze_menu, "&Sweep…", lambda: _open_sweep(window))
    window.single_failures_action = act(
        analyze_menu, "&Single Failures…", window.show_single_failures, None,
        "Fail every switch, leaf, spine, NVSwitch, tray, node, rack or link in turn and list "
        "what each costs, worst first")

    help_menu = bar.addMenu("&Help")
    act(help_menu, "&Canvas Basics", window.show_help)
    window.about_action = act(help_menu, "&About RackDesigner", window.show_about)

    tools = QToolBar("Main", window)
    tools.setObjectName("main-toolbar")
    tools.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    icons = QStyle.StandardPixmap
    for action, icon in ((window.new_action, icons.SP_FileIcon),
                         (window.open_action, icons.SP_DialogOpenButton),
                         (window.save_action, icons.SP_DialogSaveButton),
                         (window.undo_action, icons.SP_ArrowBack),
                         (window.redo_action, icons.SP_ArrowForward),
                         (window.delete_action, icons.SP_TrashIcon)):
        action.setIcon(window.style().standardIcon(icon))
    tools.setMovable(False)
    # The toolbar's Undo/Redo keep a fixed text (the menu's say what they undo), so the
    # buttons do not jump; the tooltip says what and the shortcut.
    window.toolbar_undo = _fixed_undo(window, "Undo", window.undo_action)
    window.toolbar_redo = _fixed_undo(window, "Redo", window.redo_action)
    for action in (window.new_action, window.open_action, window.save_action):
        tools.addAction(action)
    tools.addSeparator()
    tools.addAction(window.toolbar_undo)
    tools.addAction(window.toolbar_redo)
    tools.addSeparator()
    tools.addAction(window.wire_mode_action)
    tools.addAction(window.delete_action)
    for action in (window.new_action, window.open_action, window.save_action,
                   window.wire_mode_action, window.delete_action):
        action.setToolTip(tooltip(action))
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
        self.setToolTip(f"{text} ({self.keys})" if self.keys else text)


def _fixed_undo(window: MainWindow, text: str, source: QAction) -> QAction:
    return UndoToolAction(text, source, window.document.undo_stack, text == "Redo", window)


def _open_sweep(window: MainWindow) -> None:
    from rackdesigner.ui.sweep_menu import open_sweep_window

    open_sweep_window(window)


def _refresh_recent(window: MainWindow) -> None:
    menu = window.recent_menu
    menu.clear()
    recent = window.settings.recent_files()
    for path in recent:
        action = menu.addAction(path)
        action.triggered.connect(lambda checked=False, p=path: window.open_file(p))
    menu.setEnabled(bool(recent))
