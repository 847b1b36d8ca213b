"""Names are data in the designer (issue 31, item 2): no text from a file is shown as markup.

A design whose name, groups, devices and embedded price book are called `<b>NAMEDATA</b> <img
src=...>` is opened; every tab, the racks view and a selection are shown; then a file whose
error quotes such a value raises the "Cannot open" box. The test walks every widget Qt may
render as rich text — labels, message boxes, widget/action/item/graphics-item tooltips, graphics
text items — and works out what the user sees (Qt's own AutoText guess, `Qt.mightBeRichText`).
Wherever the user data appears, its markup must appear literally: seeing `NAMEDATA` in bold
(or an image loaded from the path) means the name was interpreted.
"""

from __future__ import annotations

import ast
from pathlib import Path

import yaml
from hostile import named_design, switch_model
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QTextDocument
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QGraphicsTextItem,
    QGraphicsView,
    QLabel,
    QMessageBox,
)

from rackdesigner.catalog import bundled_catalog
from rackdesigner.ui.plain_text import plain

MARKUP = "<b>NAMEDATA</b>"
MARK = f'{MARKUP} <img src="/nonexistent/NAMEDATA">'
PRICES = f"""\
schema_version: 1
name: "{MARK.replace('"', "'")} book"
currency: USD
date: 2026-12-01
sources:
  s1: {{title: "{MARK.replace('"', "'")} source", date: 2026-01-01}}
prices:
  dgx-h100: {{price: 270000, source: s1, date: 2023-05-01, basis: analyst,
              note: "{MARK.replace('"', "'")} note"}}
"""


def _hostile_design(path):
    """Names, groups, an embedded price book and an embedded user model (manufacturer, model
    and port names) all carry markup."""
    model = switch_model(manufacturer=MARK, model=f"{MARK} switch")
    model["ports"][0]["name"] = "eth"
    doc = named_design(MARK, **{"x-rackdesigner-prices": yaml.safe_load(PRICES),
                                "x-rackdesigner-models": {"acme-x1": model}})
    doc["devices"].append({"id": "sw-x", "model": "acme-x1", "name": f"{MARK} user switch"})
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def shown(text: str, fmt: Qt.TextFormat = Qt.TextFormat.AutoText) -> str:
    """What a widget with this text format displays of `text` (markup rendered away)."""
    rich = fmt == Qt.TextFormat.RichText or (fmt == Qt.TextFormat.AutoText
                                              and GuiQt.mightBeRichText(text))
    if not rich:
        return text
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


def _texts(window, boxes):
    """(where, text, format) of every place Qt may render as rich text."""
    auto = Qt.TextFormat.AutoText
    out = [(f"message box {title!r}", text, auto) for title, text in boxes]
    for widget in QApplication.allWidgets():
        where = f"{type(widget).__name__} {widget.objectName()!r}"
        out.append((f"tooltip of {where}", widget.toolTip(), auto))
        if isinstance(widget, QLabel):
            out.append((where, widget.text(), widget.textFormat()))
        if isinstance(widget, QMessageBox):
            out.append((where, widget.text(), widget.textFormat()))
            out.append((f"{where} informative", widget.informativeText(), widget.textFormat()))
        if isinstance(widget, QAbstractItemView) and widget.model() is not None:
            model = widget.model()
            stack = [widget.rootIndex()]
            seen = 0
            while stack and seen < 5000:
                parent = stack.pop()
                try:
                    columns = max(1, model.columnCount(parent))
                except TypeError:  # a list model keeps columnCount private: one column
                    columns = 1
                for r in range(model.rowCount(parent)):
                    for c in range(columns):
                        index = model.index(r, c, parent)
                        seen += 1
                        tip = model.data(index, Qt.ItemDataRole.ToolTipRole)
                        if isinstance(tip, str):
                            out.append((f"item tooltip in {where}", tip, auto))
                        if c == 0:
                            stack.append(index)
        if isinstance(widget, QGraphicsView) and widget.scene() is not None:
            for item in widget.scene().items():
                out.append((f"tooltip of {type(item).__name__}", item.toolTip(), auto))
                if isinstance(item, QGraphicsTextItem):
                    out.append((type(item).__name__, item.toPlainText(),
                                Qt.TextFormat.PlainText))
    for action in window.findChildren(QAction):
        out.append((f"tooltip of action {action.text()!r}", action.toolTip(), auto))
    return out


def _hover_tooltips(window, qtbot, count: int = 3):
    """What Qt's tooltip shows when the pointer rests on the first canvas devices (a real
    help event on the view, as a hover sends)."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QToolTip

    from rackdesigner.ui.canvas.items import DeviceItem

    window.views.setCurrentIndex(0)
    out = []
    items = [i for i in window.scene.items() if isinstance(i, DeviceItem)][:count]
    for item in items:
        window.view.centerOn(item)
        pos = window.view.mapFromScene(item.sceneBoundingRect().center())
        viewport = window.view.viewport()
        QApplication.sendEvent(viewport, QHelpEvent(QEvent.Type.ToolTip, pos,
                                                     viewport.mapToGlobal(pos)))
        qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
        out.append((f"hovered {item.device_id}", QToolTip.text(), Qt.TextFormat.AutoText))
        QToolTip.hideText()
    return out


def _interpreted(window, boxes):
    bad = []
    for where, text, fmt in _texts(window, boxes):
        if not text or "NAMEDATA" not in text:
            continue
        seen = shown(text, fmt)
        if "NAMEDATA" in seen and MARKUP not in seen:
            bad.append(f"{where}: {text[:120]!r} shows as {seen[:80]!r}")
    return sorted(set(bad))


def test_plain_keeps_every_character_and_renders_nothing(qapp):
    for text in (MARK, f"{MARK}\n  two  spaces & more", "a < b", "x\n<b>y</b>", ""):
        assert shown(plain(text)) == text


def test_no_widget_shows_a_name_from_a_file_as_markup(qtbot, tmp_path, monkeypatch):
    from rackdesigner.ui import MainWindow

    boxes: list[tuple[str, str]] = []
    for name in ("critical", "warning", "information", "question"):
        monkeypatch.setattr(QMessageBox, name, lambda _p, title, text, *a, **k:
                            boxes.append((title, text)) or QMessageBox.StandardButton.Ok)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(catalog=bundled_catalog(), settings=settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window.show()
    qtbot.waitExposed(window)
    assert window.files.open_file(_hostile_design(tmp_path / "hostile.yaml"), ask=False)
    window.flush()
    panel = window.simulation_panel
    for index in range(panel.tabs.count()):
        panel.tabs.setCurrentIndex(index)
        panel.flush()
        panel.workload.flush()
    for index in range(window.views.count()):
        window.views.setCurrentIndex(index)
        window.flush()
    for ids in (["dgx-1.gpu0"], ["sw-x"], ["dgx-1"], ["rack-1"], ["dgx-1.gpu0", "dgx-1.gpu1"]):
        window.editor.select_ids(ids)
        window.flush()
        panel.flush()
        seen_now = _interpreted(window, [])
        assert seen_now == [], "\n".join(seen_now)
    hovered = _hover_tooltips(window, qtbot)
    assert any("NAMEDATA" in text for _w, text, _f in hovered)
    assert [w for w, text, fmt in hovered if MARKUP not in shown(text, fmt)] == []
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"schema_version: '{MARK}'\nname: x\ndevices: []\n")
    assert not window.files.open_file(bad, ask=False)
    assert any("NAMEDATA" in text for _title, text in boxes), boxes
    found = _texts(window, boxes)
    assert sum("NAMEDATA" in text for _w, text, _f in found) > 20  # the walk saw the names
    problems = _interpreted(window, boxes)
    assert problems == [], "\n".join(problems)



#: Calls that hand Qt text it renders as AutoText: (function name, index of the text argument).
_AUTO_TEXT_CALLS = {"setToolTip": -1, "setInformativeText": 0, "setLabelText": 0,
                    "critical": 2, "warning": 2, "information": 2, "question": 2,
                    "getItem": 2, "getDouble": 2, "getInt": 2, "getText": 2}


#: Call sites whose text is RackDesigner's own markup with no user text in it (checked by hand).
_OWN_MARKUP = {"rackdesigner/ui/about.py"}  # version, licence, counts of catalog kinds


def _safe_text_argument(node) -> bool:
    """A literal, a module constant, `plain(...)` or another widget's tooltip."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name) and node.id.isupper():
        return True
    if isinstance(node, ast.Call):
        func = node.func
        return (isinstance(func, ast.Name) and func.id == "plain") or (
            isinstance(func, ast.Attribute) and func.attr == "toolTip")
    return False


def test_every_auto_text_call_in_the_designer_goes_through_plain():
    """Tooltips, message boxes (static and built), informative texts, progress and input
    dialog labels: a text argument that is not a literal passes through `plain`, so a new
    call site is covered by default."""
    root = Path(__file__).parents[1]
    offenders = []
    for path in sorted([*(root / "rackdesigner" / "ui").rglob("*.py"),
                        root / "rackdesigner" / "app.py"]):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name == "QMessageBox" and len(node.args) >= 3:
                arg = node.args[2]
            elif name in _AUTO_TEXT_CALLS and node.args:
                owner = func.value if isinstance(func, ast.Attribute) else None
                if name in ("critical", "warning", "information", "question") and not (
                        isinstance(owner, ast.Name) and owner.id == "QMessageBox"):
                    continue
                if name.startswith("get") and not (isinstance(owner, ast.Name)
                                                   and owner.id == "QInputDialog"):
                    continue
                index = _AUTO_TEXT_CALLS[name]
                if len(node.args) <= (index if index >= 0 else -index - 1):
                    continue
                arg = node.args[index]
            else:
                continue
            if not _safe_text_argument(arg) and path.relative_to(root).as_posix() \
                    not in _OWN_MARKUP:
                offenders.append(f"{path.relative_to(root)}:{node.lineno}: {name}")
    assert not offenders, "text shown as AutoText without plain():\n" + "\n".join(offenders)


def test_a_results_file_with_markup_names_plots_them_as_text(qtbot, tmp_path):
    """A sweep results file is someone else's too: its column names become axis labels and
    legend entries (pyqtgraph renders those as HTML) and its values hover tooltips."""
    from rackdesigner.io.sanitize import csv_text
    from rackdesigner.ui.sweep_window import SweepWindow

    results = tmp_path / "r.csv"
    results.write_text(csv_text(
        [["point", MARKUP, "gpus", "power_max_w", "status", "error"],
         *([i, f"{MARKUP} {i % 2}", 8 * (i + 1), 1000.0 * (i + 1), "ok", ""]
           for i in range(4))]))
    sweep = SweepWindow()
    qtbot.addWidget(sweep)
    sweep.show()
    qtbot.waitExposed(sweep)
    assert sweep.open_results(str(results))
    sweep.colour_by.setCurrentText(MARKUP)
    sweep.redraw()
    tips = [(f"hover tip of point {i}", item.opts["tip"](x=1.0, y=2.0, data=i),
             Qt.TextFormat.AutoText)
            for item in sweep.scatters for i in range(4)]
    joined = [("joined tips", "\n\n".join(t for _w, t, _f in tips[:3]), Qt.TextFormat.AutoText)]
    found = _texts(sweep, []) + tips + joined
    assert sum("NAMEDATA" in text for _w, text, _f in found) >= 4  # legend, tips
    bad = [f"{where}: {shown(text, fmt)[:80]!r}" for where, text, fmt in found
           if "NAMEDATA" in shown(text, fmt) and MARKUP not in shown(text, fmt)]
    assert bad == [], "\n".join(bad)
