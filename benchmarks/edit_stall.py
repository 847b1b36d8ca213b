"""How long an edit freezes the designer window on a 1,016-GPU DGX SuperPOD.

    QT_QPA_PLATFORM=offscreen python benchmarks/edit_stall.py [--sus 4] [--repeat 6]

The SuperPOD (`generate("superpod", system=..., sus=N)`) is opened in the main window, then
edits are made through the undo stack as a user would: move one device (a pure move: the live
simulation ignores it) and undo; delete a cable and undo (the live simulation reruns too). For
each edit the script waits until the Problems dock has new findings (`findings_changed`, with
its real debounce) plus 300 ms, and meanwhile records the longest gap between ticks of a 1 ms
timer on the GUI thread — a frozen frame as the user feels it (goal: under ~50 ms), which
includes the canvas repainting the zoomed-out design (about 40 ms here) — and, to tell what the
Problems dock itself costs, the longest single call into `ProblemsWidget` on the GUI thread per
edit (its debounced recompute, or receiving a worker's result and filling the list), and the
longest stall from 150 ms after the edit (the repaint is over, the 200 ms debounce is not) until
the findings are shown: the frames during the recompute itself. The same meter over idle time
is the control. Also printed: what `check_layout` costs on this design
(before the Problems dock moved it to a worker, that ran on the GUI thread after every edit).
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
from stall_meter import StallMeter


class CallMeter:
    """Longest outermost call into the Problems dock's methods on the GUI thread."""

    NAMES = ("schedule", "set_layout", "refresh", "flush", "_start_pending",
             "_on_worker_finished")

    def __init__(self) -> None:
        self.depth = 0
        self.worst = 0.0

    def install(self, cls: type) -> None:
        for name in self.NAMES:
            if name in cls.__dict__:
                setattr(cls, name, self._wrap(cls.__dict__[name]))

    def _wrap(self, fn):
        def timed(*args, **kwargs):
            self.depth += 1
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth -= 1
                if self.depth == 0:
                    self.worst = max(self.worst, time.perf_counter() - start)
        timed.__name__ = fn.__name__
        return timed

    def take(self) -> float:
        worst, self.worst = self.worst, 0.0
        return worst


def wait(ms: int) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="dgx-h100")
    parser.add_argument("--sus", type=int, default=4, help="scalable units (4 → 1,016 GPUs)")
    parser.add_argument("--repeat", type=int, default=6, help="edits of each kind")
    args = parser.parse_args()

    from PySide6.QtCore import QEventLoop, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.commands import MoveDevices, RemoveItems
    from rackdesigner.generators import generate
    from rackdesigner.model import check_layout
    from rackdesigner.ui import MainWindow
    from rackdesigner.ui.problems import ProblemsWidget

    calls = CallMeter()
    calls.install(ProblemsWidget)  # before the window connects its signals
    layout = generate("superpod", system=args.system, sus=args.sus)
    start = time.perf_counter()
    findings = check_layout(layout)
    t_check = time.perf_counter() - start
    settings = QSettings(os.path.join(tempfile.mkdtemp(), "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.resize(1600, 1000)
    window.show()
    window._set_document(layout, None)
    app.processEvents()
    window.flush()
    window.simulation_panel.flush()
    wait(300)
    problems = window.problems
    device = next(d for d in layout.devices() if layout.spec(d.id).kind == "switch")
    cable = next(lk.id for lk in layout.links()
                 if {layout.spec(e.device).kind for e in (lk.a, lk.b)} == {"nic", "switch"})
    old, new = device.pos, (device.pos[0] + 40.0, device.pos[1])
    edits = {
        "move a switch": lambda: window.document.push(MoveDevices({device.id: (old, new)})),
        "delete a cable": lambda: window.document.push(RemoveItems(links=[cable])),
    }
    meter, late = StallMeter(), StallMeter()
    print(f"{layout.meta.name}: {layout.device_count():,} devices, {layout.link_count():,} "
          f"links, {len(findings)} findings")
    print(f"check_layout (once):                     {t_check * 1000:7.1f} ms")
    for name, edit in edits.items():
        stalls, waits, own, recompute = [], [], [], []
        for i in range(2 * args.repeat):
            loop = QEventLoop()
            problems.findings_changed.connect(loop.quit)
            guard = QTimer()
            guard.setSingleShot(True)
            guard.timeout.connect(loop.quit)
            guard.start(20_000)
            meter.start()
            calls.take()
            QTimer.singleShot(150, late.start)
            start = time.perf_counter()
            if i % 2 == 0:
                edit()
            else:
                window.document.undo_stack.undo()
            loop.exec()
            waits.append(time.perf_counter() - start)
            recompute.append(late.stop())
            problems.findings_changed.disconnect(loop.quit)
            wait(300)  # the canvas, the status bar and the live simulation settle meanwhile
            stalls.append(meter.stop())
            own.append(calls.take())
        print(f"{name} / undo (median of {len(stalls)}):")
        ms = {k: (statistics.median(v) * 1000, max(v) * 1000)
              for k, v in (("wait", waits), ("stall", stalls), ("own", own),
                           ("recompute", recompute))}
        print(f"  edit -> findings shown (debounced):    {ms['wait'][0]:7.1f} ms")
        print(f"  longest GUI stall per edit:            {ms['stall'][0]:7.1f} ms "
              f"(worst {ms['stall'][1]:.1f} ms)")
        print(f"  longest GUI stall during the recompute: {ms['recompute'][0]:6.1f} ms "
              f"(worst {ms['recompute'][1]:.1f} ms)")
        print(f"  longest Problems dock call (GUI):      {ms['own'][0]:7.1f} ms "
              f"(worst {ms['own'][1]:.1f} ms)")
    idle = []
    for _ in range(args.repeat):
        meter.start()
        wait(500)
        idle.append(meter.stop())
    print(f"longest GUI stall when idle (control):   {statistics.median(idle) * 1000:7.1f} ms")
    window.document.undo_stack.setClean()
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
