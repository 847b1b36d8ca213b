"""How long the live panel takes from an edit to new figures on screen, and how long it blocks.

    QT_QPA_PLATFORM=offscreen python benchmarks/panel_latency.py [--sus 4] [--repeat 5] [--window]

For a DGX SuperPOD (`generate("superpod", system=..., sus=N)`, 1,016 GPUs at 4 SUs) and a single
8-GPU DGX node, an edit (an InfiniBand link removed, then put back) is made on the layout the
panel follows, and the script waits for the panel's `shown` signal (figures redrawn):

- edit → figures: wall time from the edit to the redraw, with the real ~200 ms debounce;
- without debounce: the same with `flush()` (snapshot + worker run + delivery + redraw);
- snapshot / worker / redraw: what `layout.copy()` costs (taken on the worker), the worker's
  copy + simulate, the GUI-thread redraw;
- longest GUI stall: the largest gap between ticks of a 1 ms timer on the GUI thread while the
  edit is processed — what a user would feel as a dropped frame (goal: under ~50 ms) — next to
  the same meter over 250 ms with nothing happening (the machine's own noise).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stall_meter import StallMeter


def link_to_edit(layout) -> str:
    """A NIC-to-switch link (scale-out), or else a GPU-to-NVSwitch one (a single node)."""
    kinds: dict[str, str] = {}
    for link in layout.links():
        specs = [layout.spec(end.device) for end in (link.a, link.b)]
        if all(s is not None for s in specs):
            kinds.setdefault("|".join(sorted(s.kind for s in specs)), link.id)
    for wanted in ("nic|switch", "gpu|nvswitch"):
        if wanted in kinds:
            return kinds[wanted]
    raise SystemExit("the design has no NIC-to-switch or GPU-to-NVSwitch link to edit")


def measure(name: str, layout, repeat: int) -> dict[str, float]:
    from PySide6.QtCore import QEventLoop, QTimer

    from rackdesigner.ui.panel import SimulationPanel

    panel = SimulationPanel(layout)
    panel.resize(520, 900)
    panel.show()
    panel.flush()
    redraws: list[float] = []
    original = panel._redraw

    def timed_redraw() -> None:
        start = time.perf_counter()
        original()
        redraws.append(time.perf_counter() - start)

    panel._redraw = timed_redraw
    link_id = link_to_edit(layout)
    meter = StallMeter()
    rows: dict[str, list[float]] = {k: [] for k in (
        "debounced", "flush", "stall_debounced", "stall_flush", "snapshot", "simulate", "redraw")}
    removed = None
    for _ in range(repeat):
        for mode in ("debounced", "flush"):
            loop = QEventLoop()
            guard = QTimer()
            guard.setSingleShot(True)
            guard.timeout.connect(loop.quit)
            panel.shown.connect(loop.quit)
            meter.start()
            start = time.perf_counter()
            if removed is None:  # alternate: remove the link, then put it back
                removed = layout.remove_link(link_id)
            else:
                layout.add_link(removed)
                removed = None
            if mode == "flush":
                panel.flush()
            else:
                guard.start(30_000)
                loop.exec()
            rows[mode].append(time.perf_counter() - start)
            panel.shown.disconnect(loop.quit)
            QTimer.singleShot(30, loop.quit)  # let the meter see the frames after the redraw
            loop.exec()
            rows[f"stall_{mode}"].append(meter.stop())
            rows["simulate"].append(panel.current.elapsed_s)
            rows["redraw"].append(redraws[-1])
        start = time.perf_counter()
        layout.copy()
        rows["snapshot"].append(time.perf_counter() - start)
    for _ in range(repeat):  # control: the same meter with nothing happening
        meter.start()
        QTimer.singleShot(250, loop.quit)
        loop.exec()
        rows.setdefault("stall_idle", []).append(meter.stop())
    panel.close_panel()
    panel.deleteLater()
    gpus = panel.current.result.scope.gpus
    out = {k: statistics.median(v) for k, v in rows.items()}
    out["stall_max"] = max(rows["stall_debounced"] + rows["stall_flush"])
    print(f"{name}: {gpus:,} GPUs, {layout.device_count():,} devices, "
          f"{layout.link_count():,} links (median of {len(rows['flush'])} edits)")
    print(f"  edit -> figures shown (200 ms debounce): {out['debounced'] * 1000:7.1f} ms")
    print(f"  edit -> figures shown (flush, no wait):  {out['flush'] * 1000:7.1f} ms")
    print(f"    of which snapshot (layout.copy):       {out['snapshot'] * 1000:7.1f} ms")
    print(f"    copy + simulate (worker thread):       {out['simulate'] * 1000:7.1f} ms")
    print(f"    redraw (GUI thread):                   {out['redraw'] * 1000:7.1f} ms")
    print(f"  longest GUI stall during an edit:        {out['stall_debounced'] * 1000:7.1f} ms "
          f"(with flush {out['stall_flush'] * 1000:.1f} ms; worst of all "
          f"{out['stall_max'] * 1000:.1f} ms)")
    print(f"  longest GUI stall when idle (control):   {out['stall_idle'] * 1000:7.1f} ms")
    return out


def measure_window(name: str, layout, repeat: int) -> None:
    """The same edit in the designer window: a command on the undo stack, then undo."""
    import tempfile

    from PySide6.QtCore import QEventLoop, QSettings, QTimer

    from rackdesigner.commands import RemoveItems
    from rackdesigner.ui import MainWindow

    settings = QSettings(os.path.join(tempfile.mkdtemp(), "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window._set_document(layout, None)
    window.resize(1600, 1000)
    window.show()
    panel = window.simulation_panel
    panel.flush()
    link_id = link_to_edit(layout)
    meter = StallMeter()
    times, stalls = [], []
    for i in range(2 * repeat):
        loop = QEventLoop()
        panel.shown.connect(loop.quit)
        meter.start()
        start = time.perf_counter()
        if i % 2 == 0:
            window.document.push(RemoveItems(links=[link_id]))
        else:
            window.document.undo_stack.undo()
        loop.exec()
        times.append(time.perf_counter() - start)
        panel.shown.disconnect(loop.quit)
        QTimer.singleShot(30, loop.quit)
        loop.exec()
        stalls.append(meter.stop())
    print(f"{name} in the designer window (delete a cable, undo; median of {len(times)}):")
    print(f"  edit -> figures shown (200 ms debounce): {statistics.median(times) * 1000:7.1f} ms")
    print(f"  longest GUI stall during an edit:        {statistics.median(stalls) * 1000:7.1f} ms "
          f"(worst {max(stalls) * 1000:.1f} ms; the designer's own updates included)")
    window.document.undo_stack.setClean()
    window.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="dgx-h100")
    parser.add_argument("--sus", type=int, default=4, help="scalable units (4 → 127 nodes)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--window", action="store_true",
                        help="also measure inside the designer window (canvas included)")
    args = parser.parse_args()

    from PySide6.QtWidgets import QApplication

    from rackdesigner.generators import generate

    app = QApplication.instance() or QApplication(sys.argv[:1])
    superpod = generate("superpod", system=args.system, sus=args.sus)
    measure(f"SuperPOD {args.system} x {args.sus} SU", superpod, args.repeat)
    node = generate(args.system)
    measure(f"one {args.system} node", node, args.repeat)
    if args.window:
        measure_window(f"SuperPOD {args.system} x {args.sus} SU",
                       generate("superpod", system=args.system, sus=args.sus), args.repeat)
        measure_window(f"one {args.system} node", generate(args.system), args.repeat)
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
