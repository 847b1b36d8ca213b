"""The canvas at scale: frames, zoom, pan and edit pauses on DGX SuperPODs of 1k to 32k GPUs.

    QT_QPA_PLATFORM=offscreen python benchmarks/gui_scale.py [--sus 4 16 128] [--repeat 5]

For each size, the generated SuperPOD (`generate("superpod", system="dgx-h100", sus=N)`: 4 SUs
are 1,016 GPUs, 16 are 4,088, 128 are 32,760) is opened in a 1600x1000 main window and the
script reports, on the GUI thread:

- the document set in the window until the first fitted frame is painted (every dock follows
  the new document meanwhile), the canvas's own share (`RackScene.set_layout`) and how many
  items the scene holds;
- one frame (a synchronous repaint of the canvas viewport) fitted, i.e. fully zoomed out (the
  aggregate blocks), at 10 % (overview: nodes collapsed) and at 100 % (every device);
- a wheel-zoom step: one wheel notch on the viewport until one frame is painted, every step
  from the fitted zoom in to 100 % (median and worst); then the aggregate blocks that came on
  screen open one per turn of the event loop (each turn with its frame): the longest turn is
  the GUI pause they cost, and the sum how long until every block on screen is open;
- a pan at 100 %: the view scrolled by half a viewport until one frame is painted (median and
  worst over 8 pans in a row), and the longest turn opening the blocks that came on screen;
- the GUI pause of an edit: from `document.push` (or `undo`) until the scene is up to date and
  one frame is painted — move a switch, delete a cable, fail a node, and the undo of each —
  zoomed out (fitted) and at 100 % on the edited object, with no simulation or rule check
  running. Also the canvas's own share (time inside `RackScene.on_event`, `flush` and the
  paint); the rest is the command and the other docks following the edit on the GUI thread.
  Then the same edit made 300 ms after the previous one, while its simulation and checks run
  on their worker threads: those hold Python's GIL, so the GUI thread's work takes longer.

The simulation and rule checks run on workers afterwards and are not part of the pause.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


class CanvasClock:
    """Time spent in the scene's event handler and flush (outermost calls)."""

    def __init__(self, scene) -> None:
        self.total = 0.0
        self.depth = 0
        for name in ("on_event", "flush"):
            setattr(scene, name, self._wrap(getattr(scene, name)))

    def _wrap(self, fn):
        def timed(*args, **kwargs):
            self.depth += 1
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth -= 1
                if self.depth == 0:
                    self.total += time.perf_counter() - start
        return timed

    def take(self) -> float:
        total, self.total = self.total, 0.0
        return total


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def measure(sus: int, repeat: int) -> None:
    from PySide6.QtCore import QPoint, QPointF, QSettings, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.commands import MoveDevices, RemoveItems
    from rackdesigner.commands.failures import toggle_failed
    from rackdesigner.generators import generate
    from rackdesigner.ui.main_window import MainWindow

    start = time.perf_counter()
    layout = generate("superpod", system="dgx-h100", sus=sus)
    t_gen = time.perf_counter() - start
    gpus = sum(1 for d in layout.devices() if (s := layout.spec(d.id)) and s.kind == "gpu")
    print(f"\n== {sus} SU: {gpus:,} GPUs, {layout.device_count():,} devices, "
          f"{layout.link_count():,} links, {sum(1 for _ in layout.groups()):,} groups "
          f"(generated in {t_gen:.1f} s)")
    tmp = tempfile.mkdtemp(prefix="gui_scale")
    settings = QSettings(os.path.join(tmp, "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    scene, view = window.scene, window.view
    viewport = view.viewport()

    def frame() -> None:
        viewport.repaint()  # a synchronous paint event, as on screen

    def median_frame() -> tuple[float, float]:
        frame()  # warm the item caches once, as the first paint on screen would
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            frame()
            times.append(time.perf_counter() - start)
        return statistics.median(times), max(times)

    built = []
    set_layout = scene.set_layout

    def timed_set_layout(new_layout) -> None:
        start = time.perf_counter()
        set_layout(new_layout)
        built.append(time.perf_counter() - start)

    scene.set_layout = timed_set_layout
    start = time.perf_counter()
    window._set_document(layout, None)
    view.fit()
    scene.flush()
    frame()
    t_open = time.perf_counter() - start
    scene.set_layout = set_layout
    print(f"document set in the window (every dock) + fit + first frame: {ms(t_open)}; the "
          f"canvas's scene build {ms(sum(built))} ({len(scene.items()):,} items, "
          f"{len(scene.bundles):,} bundles, {len(scene.item_for_device):,} device items, "
          f"level {scene.level})")
    fitted = view.zoom()
    med, worst = median_frame()
    print(f"frame fitted ({fitted * 100:.2f} %, {scene.level}):   {ms(med)} (worst {ms(worst)})")
    centre = view.design_rect().center()
    for zoom in (0.1, 1.0):
        view.set_zoom(zoom)
        view.centerOn(centre)
        scene.flush()
        med, worst = median_frame()
        print(f"frame at {zoom * 100:.0f} % ({scene.level}, {len(scene.item_for_device):,} "
              f"device items): {ms(med)} (worst {ms(worst)})")

    def settle() -> tuple[float, float]:
        """Run the scene's deferred work as the event loop would (one cell opened per turn),
        one frame after each turn: (longest turn, total)."""
        worst = total = 0.0
        while scene._flush_timer.isActive():
            start = time.perf_counter()
            scene._flush_timer.stop()
            scene._on_flush_timer()
            frame()
            took = time.perf_counter() - start
            worst, total = max(worst, took), total + took
        return worst, total

    # wheel zoom from fitted in to 100 %
    view.fit()
    view.centerOn(centre)
    scene.flush()
    frame()
    steps, turns, totals = [], [], []
    at = QPointF(viewport.width() / 2, viewport.height() / 2)
    while view.zoom() < 1.0 and len(steps) < 80:
        event = QWheelEvent(at, view.mapToGlobal(at.toPoint()), QPoint(0, 0), QPoint(0, 120),
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                            Qt.ScrollPhase.NoScrollPhase, False)
        start = time.perf_counter()
        view.wheelEvent(event)
        scene.flush(cells=False)
        frame()
        steps.append(time.perf_counter() - start)
        worst, total = settle()
        turns.append(worst)
        totals.append(steps[-1] + total)
    print(f"wheel-zoom step, fitted -> 100 % ({len(steps)} notches): notch to frame median "
          f"{ms(statistics.median(steps))}, worst {ms(max(steps))}; then blocks opening one "
          f"per turn: longest turn {ms(max(turns))}, all open after at worst "
          f"{ms(max(totals))}")

    # pans at 100 %
    view.set_zoom(1.0)
    view.centerOn(centre)
    scene.flush()
    frame()
    pans, turns = [], []
    bar = view.horizontalScrollBar()
    for _ in range(8):
        start = time.perf_counter()
        bar.setValue(bar.value() + viewport.width() // 2)
        scene.flush(cells=False)
        frame()
        pans.append(time.perf_counter() - start)
        turns.append(settle()[0])
    print(f"pan by half a view at 100 % (8 in a row): to frame median "
          f"{ms(statistics.median(pans))}, worst {ms(max(pans))}; longest turn opening a "
          f"block {ms(max(turns))}")

    def quiet() -> None:
        """No simulation or rule check pending or running (they hold the GIL on their
        threads): the pause measured is the GUI thread's own work."""
        window.flush()
        window.simulation_panel.flush()
        app.processEvents()

    def wait(ms_: int) -> None:
        from PySide6.QtCore import QEventLoop, QTimer

        loop = QEventLoop()
        QTimer.singleShot(ms_, loop.quit)
        loop.exec()

    # edits
    profiler = None
    if os.environ.get("GUI_SCALE_PROFILE"):  # where an edit's pause goes (cProfile)
        import cProfile

        profiler = cProfile.Profile()
    clock = CanvasClock(scene)
    doc = window.document
    lay = doc.layout
    switch = next(d for d in lay.devices() if lay.spec(d.id).kind == "switch")
    cable = next(lk.id for lk in lay.links()
                 if {lay.spec(e.device).kind for e in (lk.a, lk.b)} == {"nic", "switch"})
    node = next(g.id for g in lay.groups() if g.kind == "node")
    old = switch.pos
    edits = {
        "move a switch": lambda: doc.push(MoveDevices({switch.id: (old, (old[0] + 40, old[1]))})),
        "delete a cable": lambda: doc.push(RemoveItems(links=[cable])),
        "fail a node": lambda: doc.push(toggle_failed(doc.layout, [node])),
    }
    for where in ("fitted", "100 %"):
        if where == "fitted":
            view.fit()
        else:
            view.set_zoom(1.0)
            view.centerOn(QPointF(old[0] + 75, old[1] + 40))
        scene.flush()
        frame()
        for name, edit in edits.items():
            pauses, canvas, undo_pauses, undo_canvas, busy = [], [], [], [], []
            for _ in range(repeat):
                quiet()
                for fn, out, own in ((edit, pauses, canvas),
                                     (doc.undo_stack.undo, undo_pauses, undo_canvas)):
                    clock.take()
                    if profiler is not None and os.environ["GUI_SCALE_PROFILE"] in ("1", where):
                        profiler.enable()
                    start = time.perf_counter()
                    fn()
                    scene.flush()
                    paint = time.perf_counter()
                    frame()
                    end = time.perf_counter()
                    if profiler is not None:
                        profiler.disable()
                    out.append(end - start)
                    own.append(clock.take() + end - paint)
                # the same edit again while the previous one's simulation and checks run
                wait(300)
                start = time.perf_counter()
                edit()
                scene.flush()
                frame()
                busy.append(time.perf_counter() - start)
                doc.undo_stack.undo()
            print(f"{where:>6} {name + ':':<16} pause {ms(statistics.median(pauses))} "
                  f"(canvas {ms(statistics.median(canvas))}); undo {ms(statistics.median(undo_pauses))} "  # noqa: E501
                  f"(canvas {ms(statistics.median(undo_canvas))}); with the workers busy "
                  f"{ms(statistics.median(busy))}")
    if profiler is not None:
        import pstats

        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
    doc.undo_stack.setClean()
    window.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sus", type=int, nargs="+", default=[4, 16, 128],
                        help="SuperPOD sizes in scalable units (4: 1k, 16: 4k, 128: 32k GPUs)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for sus in args.sus:
        measure(sus, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
