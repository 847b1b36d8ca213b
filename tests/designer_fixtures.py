"""A small, fixed catalog for the designer's tests (commands and GUI).

The shipped catalog grows while the product is built; these tests need stable models: a GPU,
an NVSwitch, an InfiniBand switch, a NIC, a CPU, a rack and a 4-GPU system.
"""

from __future__ import annotations

from rackdesigner.catalog import Catalog, DeviceSpec, PortGroup, Power, SystemPart, SystemSpec
from rackdesigner.catalog.spec import RackFacts, SwitchFacts, WiringRule
from rackdesigner.model import Device, Layout


def _pg(name: str, protocol: str, count: int, rate: float) -> PortGroup:
    return PortGroup(name, protocol, "gen", count, 1, rate, "conn", "t")


def _spec(id: str, kind: str, model: str, ports=(), watts=100.0, **kw) -> DeviceSpec:
    return DeviceSpec(id=id, kind=kind, manufacturer="Test", model=model, ports=tuple(ports),
                      power=Power(None, watts, watts, "t"), **kw)


def make_catalog() -> Catalog:
    specs = [
        _spec("tgpu", "gpu", "Test GPU", [_pg("nvlink", "nvlink", 18, 200),
                                          _pg("pcie", "pcie", 1, 512)], 700),
        _spec("tnvsw", "nvswitch", "Test NVSwitch", [_pg("nvlink", "nvlink", 64, 200)], 100,
              switch=SwitchFacts(100, ("nvls",), "t")),
        _spec("tib", "switch", "Test IB switch", [_pg("ib", "infiniband", 64, 400)], 1500,
              u_height=1, switch=SwitchFacts(130, ("sharp",), "t")),
        _spec("tnic", "nic", "Test NIC", [_pg("ib", "infiniband", 1, 400),
                                          _pg("pcie", "pcie", 1, 512)], 25),
        _spec("tcpu", "cpu", "Test CPU", [_pg("pcie", "pcie", 4, 512)], 350),
        _spec("track", "rack", "Test rack 42U", [], 0, u_height=42,
              rack=RackFacts(42, 40000, "t")),
        _spec("tchassis", "chassis", "Test chassis", [], 1000, u_height=8),
        _spec("tnode", "system", "Test node", [], 0, u_height=8, system=SystemSpec(
            parts=(SystemPart("gpu", "tgpu", 4), SystemPart("nvsw", "tnvsw", 2),
                   SystemPart("nic", "tnic", 2)),
            wiring=(WiringRule("gpu[*]", "nvlink", "nvsw[*]", "nvlink", "all", 2),
                    WiringRule("nic[*]", "pcie", "gpu[0-1]", "pcie", "zip", 1)),
            chassis="tchassis", source="t")),
    ]
    return Catalog(specs)


def small_layout(catalog: Catalog | None = None) -> Layout:
    """Two GPUs, an NVSwitch, a NIC, an IB switch; GPU 1 wired to the NVSwitch twice."""
    from rackdesigner.model import Link, PortRef

    layout = Layout(catalog or make_catalog())
    layout.add_all(devices=[
        Device("gpu-1", "tgpu", "", (0.0, 0.0)),
        Device("gpu-2", "tgpu", "", (200.0, 0.0)),
        Device("nvsw-1", "tnvsw", "", (100.0, 200.0)),
        Device("nic-1", "tnic", "", (0.0, 400.0)),
        Device("switch-1", "tib", "", (300.0, 400.0)),
        Device("rack-1", "track", "", (600.0, 0.0)),
    ], links=[
        Link("link-1", PortRef("gpu-1", "nvlink"), PortRef("nvsw-1", "nvlink"), 2),
        Link("link-2", PortRef("nic-1", "ib"), PortRef("switch-1", "ib")),
    ])
    layout.update_device("switch-1", rack="rack-1", u=10)
    return layout


def make_window(qtbot, tmp_path, layout: Layout | None = None, show: bool = True):
    """A MainWindow on the test catalog with settings in `tmp_path`, optionally with `layout`."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(catalog=make_catalog(), settings=settings)
    # teardown closes the window: never let the unsaved-changes prompt block a test run
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    if layout is not None:
        window._set_document(layout, None)
    if show:
        window.show()
        qtbot.waitExposed(window)
        window.windowHandle().requestActivate()  # offscreen: shortcuts need an active window
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        window.view.set_zoom(1.0)
        window.view.centerOn(300, 200)
    return window


def large_design_window(qtbot, tmp_path, layout: Layout, activate: bool = False):
    """A 1600 x 1000 MainWindow on a copy of a generated design (its own catalog), shown and
    fitted, settings in `tmp_path`; `activate` makes it the active window (shortcuts)."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(catalog=layout.catalog, settings=settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window._set_document(layout.copy(), None)
    window.resize(1600, 1000)
    window.show()
    qtbot.waitExposed(window)
    if activate:
        window.windowHandle().requestActivate()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.view.fit()
    window.flush()
    return window


def viewport_point(view, x: float, y: float):
    """The viewport pixel showing scene point (x, y)."""
    from PySide6.QtCore import QPointF

    return view.mapFromScene(QPointF(x, y))


def drag(view, start, end, modifier=None, steps: int = 5):
    """A real left-button drag on the view's viewport between scene points."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    mods = modifier or Qt.KeyboardModifier.NoModifier
    a = viewport_point(view, *start)
    b = viewport_point(view, *end)
    viewport = view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, mods, a)
    for i in range(1, steps + 1):
        p = QPoint(a.x() + (b.x() - a.x()) * i // steps, a.y() + (b.y() - a.y()) * i // steps)
        QTest.mouseMove(viewport, p)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, mods, b)


def two_node_window(qtbot, tmp_path):
    """A shown, active main window on the bundled two-node DGX H100 example, figures computed."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from rackdesigner._resources import example_paths
    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings=settings)
    qtbot.addWidget(win, before_close_func=lambda w: w.document.undo_stack.setClean())
    path = next(p for p in example_paths() if p.name == "dgx-h100-2node-ib.yaml")
    assert win.open_file(path, ask=False)
    win.show()
    qtbot.waitExposed(win)
    win.windowHandle().requestActivate()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)
    win.simulation_panel.flush()
    return win


def example_layout(name: str) -> Layout:
    """A bundled example design (resources/examples/NAME), loaded."""
    from rackdesigner._resources import example_paths
    from rackdesigner.io import load_layout

    return load_layout(next(p for p in example_paths() if p.name == name))


def cost_panel(qtbot, monkeypatch, tmp_path, example: str):
    """A 560 x 900 SimulationPanel on a bundled example, its Cost tab shown and priced with the
    default book (no RACKDESIGNER_PRICES, no data-folder book)."""
    from rackdesigner.ui.panel import SimulationPanel

    monkeypatch.delenv("RACKDESIGNER_PRICES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "nodata"))
    panel = SimulationPanel(example_layout(example), debounce_ms=0)
    qtbot.addWidget(panel, before_close_func=lambda w: w.close_panel())
    panel.resize(560, 900)
    panel.show()
    panel.show_tab("cost")
    panel.flush()
    panel.cost_tab.flush()
    return panel


def drag_events(pos, mime) -> tuple:
    """A copy drag with the left button at `pos` (a QPointF, widget coordinates): its enter,
    move and drop events. PySide6 6.12 deprecates the QPoint constructors of the enter and move
    events (warnings are errors here) and older releases lack their QPointF ones: the QPointF
    form first, the QPoint form where it is missing."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent

    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier)
    events = []
    for cls in (QDragEnterEvent, QDragMoveEvent):
        try:
            events.append(cls(pos, *args))
        except TypeError:
            events.append(cls(pos.toPoint(), *args))
    return (*events, QDropEvent(pos, *args))


def send_drop(widget, mime, pos) -> None:
    """Drag `mime` onto `widget` at `pos` (QPointF) and drop it: enter, move, drop."""
    from PySide6.QtWidgets import QApplication

    for event in drag_events(pos, mime):
        QApplication.sendEvent(widget, event)
