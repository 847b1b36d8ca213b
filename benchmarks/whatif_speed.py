"""Speed of failure analysis and the heat map on a DGX SuperPOD (goals in issue 15).

    QT_QPA_PLATFORM=offscreen python benchmarks/whatif_speed.py [--sus 4] [--repeat 3]

- N-1 from the engine (what `rackdesigner whatif --each` runs): every switch (goal < 20 s)
  and every link (goal < 2 min) of the design, on one core, with the number of simulations;
- the designer's window: Fail / Restore of a spine pushed on the undo stack until the panel has
  redrawn its figures against the intact design (goal < 1 s; `flush()` after the push, so the
  ~200 ms debounce is not counted), and the longest GUI stall meanwhile;
- the heat map: recolouring the canvas from a finished result (`RackScene.set_heat`, goal
  < 300 ms), the computation itself being part of the live run on the worker;
- with a training job (Llama 3 70B, TP 8 PP 4 on the first 992 GPUs; issue 15's workload
  heat map and `whatif --job`): the job's heat map computed from the engine, `whatif --each
  spine --job`, and in the window the Heat tab on "workload" — the worker's run (simulate +
  estimate + routing every exchange) and the canvas recolour from it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scratch_settings import scratch_settings_path
from stall_meter import StallMeter


def recolour_times(app, win, heat, repeat: int) -> list[float]:
    """Seconds to colour the canvas with `heat` from plain, the repaint of the visible part
    included, `repeat` times."""
    times = []
    for _ in range(repeat):
        win.scene.set_heat(None)
        app.processEvents()
        start = time.perf_counter()
        win.scene.set_heat(heat)
        app.processEvents()
        times.append(time.perf_counter() - start)
    return times

def engine(layout) -> None:
    from rackdesigner.analysis.whatif import WhatIf

    for kind in ("switch", "link"):
        start = time.perf_counter()
        cpu = time.process_time()
        whatif = WhatIf(layout)
        runs = []
        orig = whatif.scenario

        def counted(ids, _orig=orig, _runs=runs):
            _runs.append(1)
            return _orig(ids)

        whatif.scenario = counted
        rows = whatif.each(kind)
        print(f"whatif --each {kind:<6}: {time.perf_counter() - start:6.1f} s wall, "
              f"{time.process_time() - cpu:6.1f} s CPU, {sum(r.count for r in rows):,} objects "
              f"in {len(rows)} rows, {len(runs)} simulations")


JOB = "model: llama3-70b\ngpus: 992\ntp: 8\npp: 4\ngbs: 496\n"


def engine_job(layout, repeat: int) -> None:
    from rackdesigner.analysis.jobheat import workload_heat
    from rackdesigner.analysis.whatif import WhatIf
    from rackdesigner.workload.jobfile import parse_job

    spec = parse_job(JOB)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        heat, est = workload_heat(layout, spec)
        times.append(time.perf_counter() - start)
    print(f"workload heat (engine)    : median {statistics.median(times) * 1000:6.0f} ms "
          f"({est.job.label()}, {len(heat.loads):,} links loaded, "
          f"{len(heat.exchanges)} exchanges)")
    for job in (None, spec):
        start = time.perf_counter()
        cpu = time.process_time()
        rows = WhatIf(layout, job=job).each("spine")
        print(f"whatif --each spine{' --job' if job else '      '}: "
              f"{time.perf_counter() - start:6.1f} s wall, {time.process_time() - cpu:6.1f} s "
              f"CPU, {len(rows)} rows")


def window(layout, repeat: int) -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from rackdesigner.commands.failures import toggle_failed
    from rackdesigner.ui import MainWindow

    app = QApplication.instance() or QApplication([])
    settings = QSettings(scratch_settings_path(), QSettings.Format.IniFormat)
    win = MainWindow(settings=settings)
    import tempfile

    from rackdesigner.io import save_layout

    path = os.path.join(tempfile.mkdtemp(prefix="whatif-bench-"), "superpod.yaml")
    save_layout(layout, path)
    win.open_file(path, ask=False)
    layout = win.document.layout
    win.show()
    win.simulation_panel.flush()
    spine = next(d.id for d in layout.devices() if d.id.startswith("spine"))
    meter = StallMeter()
    toggles, stalls = [], []
    for _ in range(repeat * 2):
        meter.start()
        start = time.perf_counter()
        win.document.push(toggle_failed(win.document.layout, [spine]))
        win.scene.flush()
        win.simulation_panel.flush()
        toggles.append(time.perf_counter() - start)
        stalls.append(meter.stop())
    print(f"Fail / Restore -> figures : median {statistics.median(toggles) * 1000:6.0f} ms, "
          f"max {max(toggles) * 1000:6.0f} ms (longest GUI stall "
          f"{max(stalls) * 1000:.0f} ms)")
    win.actions_.heat_action.trigger()
    win.simulation_panel.flush()
    heat = win.simulation_panel.heat_tab.heat
    recolours = recolour_times(app, win, heat, repeat)
    print(f"heat map recolour         : median {statistics.median(recolours) * 1000:6.0f} ms "
          f"({len(heat.loads):,} loaded links, {len(win.scene.bundles):,} bundles)")
    # the training job's traffic: the Workload tab's manual job, the Heat tab on "workload"
    panel = win.simulation_panel
    tab = panel.workload
    tab.model_combo.setCurrentText("llama3-70b")
    tab.layout_combo.setCurrentText("manual")
    tab.tp.setValue(8)
    tab.pp.setValue(4)
    tab.gpus.setValue(992)
    tab.gbs.setValue(496)
    panel.heat_tab.collective_combo.setCurrentText("workload (TP/PP/DP/EP)")
    live = panel.flush()
    heat = panel.heat_tab.heat
    runs = [live.elapsed_s]
    for _ in range(repeat - 1):
        panel.heat_tab.collective_combo.setCurrentText("workload: DP only")
        panel.flush()
        panel.heat_tab.collective_combo.setCurrentText("workload (TP/PP/DP/EP)")
        runs.append(panel.flush().elapsed_s)
    heat = panel.heat_tab.heat
    recolours = recolour_times(app, win, heat, repeat)
    print(f"workload heat, worker run : median {statistics.median(runs) * 1000:6.0f} ms "
          "(simulate + estimate + every exchange routed, off the GUI thread)")
    print(f"workload heat recolour    : median {statistics.median(recolours) * 1000:6.0f} ms "
          f"({len(heat.loads):,} loaded links incl. NVLink, peak {heat.peak:.0%})")
    win.document.undo_stack.setClean()
    win.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sus", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--job-only", action="store_true",
                        help="skip the N-1 runs of every switch and link")
    args = parser.parse_args()
    from rackdesigner.generators import generate

    layout = generate("superpod", system="dgx-h100", sus=args.sus)
    print(f"DGX H100 SuperPOD, {args.sus} SU: {layout.device_count():,} devices, "
          f"{layout.link_count():,} links")
    if not args.job_only:
        engine(layout)
    engine_job(layout, args.repeat)
    window(layout, args.repeat)


if __name__ == "__main__":
    main()
