"""Opening a large design in the designer and editing it, with the canvas left out: what the
document, the commands and every other view (Racks, Inspector, Problems, live panel, status
bar) cost on the GUI thread.

    QT_QPA_PLATFORM=offscreen python benchmarks/core_edit.py --file DESIGN.yaml [--repeat 3]
    QT_QPA_PLATFORM=offscreen python benchmarks/core_edit.py --system dgx-h100 --sus 16

The canvas (`ui/canvas`, measured by `gui_open.py` and the canvas benchmarks) is replaced by an
empty scene that ignores the document (`--with-canvas` keeps it), so the figures are the rest of
the designer's share of a 100 ms (4k GPUs) / 300 ms (32k) edit and a 10 s open (issue 18).

- open: `MainWindow.open_file` as File ▸ Open runs it (read on a worker with the progress
  dialog, then every view follows the new document); the longest GUI-thread stall meanwhile
  (a 1 ms timer's longest gap: the dialog and window froze that long at most);
- per edit (move a switch, delete a cable, fail a node, each undone): `Document.push` (or
  undo) with every synchronous slot; the longest GUI-thread stall from the edit until the
  Problems dock and the live panel have shown their worker's results (the debounced work on
  the GUI thread: Racks view, Inspector, starting the runs, showing results; and the GIL the
  workers hold meanwhile); and how long until the findings were shown.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from stall_meter import StallMeter


def _without_canvas() -> None:
    """The scene stays empty and ignores the document (the canvas is measured elsewhere)."""
    from rackdesigner.ui.canvas.scene import RackScene

    def set_layout(self, layout) -> None:
        self.layout = None  # on_event returns at once without a layout

    RackScene.set_layout = set_layout


def _wait(ms: int) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def _until(signal, timeout_ms: int = 120_000) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    signal.connect(loop.quit)
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()
    signal.disconnect(loop.quit)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", help="a layout file (either form)")
    parser.add_argument("--system", default="dgx-h100")
    parser.add_argument("--sus", type=int, default=16, help="SuperPOD SUs when no --file")
    parser.add_argument("--repeat", type=int, default=3, help="edits of each kind (each undone)")
    parser.add_argument("--with-canvas", action="store_true", help="keep the canvas")
    parser.add_argument("--racks", action="store_true",
                        help="edit with the Racks tab shown and a device in the Inspector")
    args = parser.parse_args()
    if not args.with_canvas:
        _without_canvas()

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.commands import MoveDevices, RemoveItems
    from rackdesigner.commands.failures import set_status
    from rackdesigner.ui import MainWindow

    folder = tempfile.mkdtemp(prefix="core-edit-")
    path = args.file
    if path is None:
        from rackdesigner.generators import generate
        from rackdesigner.io import save_layout

        path = os.path.join(folder, "design.yaml")
        save_layout(generate("superpod", system=args.system, sus=args.sus), path)
    settings = QSettings(os.path.join(folder, "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    meter = StallMeter()
    meter.start()
    start = time.perf_counter()
    assert window.open_file(path, ask=False), window.last_error
    t_open = time.perf_counter() - start
    app.processEvents()
    open_stall = meter.stop()
    layout = window.document.layout
    gpus = sum(1 for d in layout.devices() if layout.index().kind(d.id) == "gpu")
    print(f"{layout.meta.name}: {gpus:,} GPUs, {layout.device_count():,} devices, "
          f"{layout.link_count():,} links ({os.path.getsize(path) / 1e6:.1f} MB, "
          f"canvas {'on' if args.with_canvas else 'left out'}"
          f"{', Racks tab shown' if args.racks else ''})")
    print(f"open (read on a worker + views follow): {t_open:7.2f} s; longest GUI stall "
          f"{open_stall * 1000:.0f} ms; stages: {', '.join(window.files.open_progress.stages)}")
    _until(window.problems.findings_changed)
    window.simulation_panel.flush()

    kind = layout.index().kind
    switch = next(d for d in layout.devices() if kind(d.id) == "switch")
    cable = next(lk.id for lk in layout.links()
                 if {kind(e.device) for e in (lk.a, lk.b)} == {"nic", "switch"})
    node = next(g.id for g in layout.groups() if g.kind == "node")
    old, new = switch.pos, (switch.pos[0] + 40.0, switch.pos[1])
    doc = window.document
    if args.racks:  # the Racks tab follows every edit; the Inspector shows the switch
        window.views.setCurrentWidget(window.racks_panel)
        window.racks_panel.flush()
        window.inspector.show_selection([switch.id], [], [])
        app.processEvents()
    edits = {
        "move a switch": lambda: doc.push(MoveDevices({switch.id: (old, new)})),
        "delete a cable": lambda: doc.push(RemoveItems(links=[cable])),
        "fail a node": lambda: doc.push(set_status(doc.layout, [node], "failed")),
    }
    print(f"{'edit':<16} {'push ms':>8} {'undo ms':>8} {'stall ms':>9} {'findings ms':>12}")
    for name, edit in edits.items():
        pushes, undos, stalls, shown = [], [], [], []
        for _ in range(args.repeat):
            for action, into in ((edit, pushes), (doc.undo_stack.undo, undos)):
                meter.start()
                start = time.perf_counter()
                action()
                into.append(time.perf_counter() - start)
                _until(window.problems.findings_changed, 60_000)
                shown.append(time.perf_counter() - start)
                window.simulation_panel.flush()  # the live run, if the edit started one
                _wait(50)
                stalls.append(meter.stop())
        med = {k: statistics.median(v) * 1000 for k, v in
               (("push", pushes), ("undo", undos), ("stall", stalls), ("shown", shown))}
        print(f"{name:<16} {med['push']:8.1f} {med['undo']:8.1f} {med['stall']:9.1f} "
              f"{med['shown']:12.0f}   (medians of {args.repeat}; worst stall "
              f"{max(stalls) * 1000:.0f} ms)")
    doc.undo_stack.setClean()
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
