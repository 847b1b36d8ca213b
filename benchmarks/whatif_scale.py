"""What-if at 32k GPUs in the designer: Fail / Restore / Undo until the panel's figures, the
longest GUI freeze meanwhile, Quit while the workers run, and `whatif --each` (issue 27 §3).

    QT_QPA_PLATFORM=offscreen python benchmarks/whatif_scale.py --sus 128
    QT_QPA_PLATFORM=offscreen python benchmarks/whatif_scale.py --file sp128.yaml --each spine

The design (`--file`, or the generated DGX H100 SuperPOD of `--sus` SUs: 128 are 32,760 GPUs)
is opened in the main window as File ▸ Open does, canvas included (`--no-canvas` leaves it
out). Once the Problems dock and the live panel have shown the intact design, for each target
(`--targets`: an SU, a spine, a rack, a node):

- **fail**: `Fail` pushed on the undo stack until the panel shows figures of the current
  revision against the intact design (the panel's 200 ms debounce included: what a user waits);
- **restore**: the same object restored by a new command (`F` again), until the figures;
- **undo**: failed again, then Edit ▸ Undo, until the figures of the restored design;
- the longest the GUI thread did not get to a 1 ms timer during each (a freeze).

Then **quit**: an SU is failed and, once its run is on the worker, the window is closed;
reported is how long `close()` took to return, and what the status bar said meanwhile.

`--each KIND` also times `rackdesigner whatif FILE --each KIND` as one CLI process (load
included). The machine's load average is printed with the figures: on a busy 2-core box the
wall time is up to 2-3x the CPU time; re-run on a quiet machine for the published figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from stall_meter import StallMeter, load_average, process_until


def _targets(layout, wanted: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    groups = list(layout.groups())
    kind = layout.index().kind
    for what in wanted:
        if what == "su":
            ids = [g.id for g in groups if g.kind == "su"]
        elif what == "rack":
            ids = [g.id for g in groups if g.kind == "rack"]
        elif what == "node":
            ids = [g.id for g in groups if g.kind == "node"]
        elif what == "spine":
            from rackdesigner.simulation.topology import Topology

            tier = Topology.build(layout).tier
            ids = [d.id for d in layout.devices() if kind(d.id) == "switch"
                   and tier.get(d.id, 0) >= 2]
        else:
            raise SystemExit(f"unknown target {what!r}")
        if ids:
            out[what] = ids[min(5, len(ids) - 1)]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", help="a layout file (either form)")
    parser.add_argument("--sus", type=int, default=128, help="SuperPOD SUs when no --file")
    parser.add_argument("--targets", nargs="+", default=["su", "spine", "rack"])
    parser.add_argument("--repeat", type=int, default=1, help="rounds of each target")
    parser.add_argument("--no-canvas", action="store_true", help="leave the canvas out")
    parser.add_argument("--each", metavar="KIND", help="also time `whatif FILE --each KIND`")
    parser.add_argument("--no-quit", action="store_true", help="skip the Quit measurement")
    args = parser.parse_args()

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.commands.failures import toggle_failed
    from rackdesigner.ui import MainWindow

    if args.no_canvas:
        from rackdesigner.ui.canvas.scene import RackScene

        RackScene.set_layout = lambda self, layout: setattr(self, "layout", None)
    folder = tempfile.mkdtemp(prefix="whatif-scale-")
    path = args.file
    if path is None:
        from rackdesigner.generators import generate
        from rackdesigner.io import save_layout

        path = os.path.join(folder, "design.yaml")
        save_layout(generate("superpod", system="dgx-h100", sus=args.sus), path)
    print(f"load average before: {load_average()}")
    settings = QSettings(os.path.join(folder, "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    start = time.perf_counter()
    assert window.open_file(path, ask=False), window.last_error
    doc = window.document
    panel = window.simulation_panel
    problems = window.problems

    def figures_shown(marked: bool | None = None) -> bool:
        live = panel.current
        if live is None or live.revision != doc.layout.revision or panel.live.busy:
            return False
        if marked is None:
            return True
        return (live.impact is not None) == marked

    process_until(lambda: figures_shown() and not problems.busy)
    print(f"open until figures and findings: {time.perf_counter() - start:.1f} s")
    layout = doc.layout
    print(f"{layout.meta.name}: {layout.device_count():,} devices, {layout.link_count():,} "
          f"links; canvas {'left out' if args.no_canvas else 'on'}")
    targets = _targets(layout, args.targets)
    meter = StallMeter()

    def timed(action, marked: bool) -> tuple[float, float, float]:
        meter.start()
        t0, c0 = time.perf_counter(), time.process_time()
        action()
        ok = process_until(lambda: figures_shown(marked))
        took, cpu = time.perf_counter() - t0, time.process_time() - c0
        process_until(lambda: not problems.busy)
        stall = meter.stop()
        if not ok:
            print("  (timed out)")
        return took, stall, cpu

    meter.start()  # the machine's own noise: the longest gap of an idle GUI thread
    process_until(lambda: False, 3.0)
    print(f"idle GUI thread, 3 s: longest gap {meter.stop() * 1000:.0f} ms (load {load_average()})")

    print(f"{'target':<22} {'fail s':>7} {'restore s':>9} {'undo s':>7}   longest GUI freeze"
          "   (process CPU s)")
    for what, oid in targets.items():
        rows: dict[str, list[tuple[float, float, float]]] = {"fail": [], "restore": [],
                                                             "undo": []}
        def toggle(oid: str = oid) -> None:
            doc.push(toggle_failed(doc.layout, [oid]))

        for _ in range(args.repeat):
            rows["fail"].append(timed(toggle, True))
            rows["restore"].append(timed(toggle, False))
            timed(toggle, True)
            rows["undo"].append(timed(doc.undo_stack.undo, False))
        med = {k: statistics.median(r[0] for r in v) for k, v in rows.items()}
        cpu = {k: statistics.median(r[2] for r in v) for k, v in rows.items()}
        worst = {k: max(r[1] for r in v) * 1000 for k, v in rows.items()}
        print(f"{what + ' ' + oid:<22} {med['fail']:7.2f} {med['restore']:9.2f} "
              f"{med['undo']:7.2f}   {worst['fail']:.0f} / {worst['restore']:.0f} / "
              f"{worst['undo']:.0f} ms   ({cpu['fail']:.2f} / {cpu['restore']:.2f} / "
              f"{cpu['undo']:.2f}; load {load_average()})")

    if not args.no_quit:
        su = targets.get("su") or next(iter(targets.values()))
        doc.push(toggle_failed(doc.layout, [su]))
        panel.live.request(immediate=True)  # start the run now, without waiting for it
        process_until(lambda: panel.live.job.in_flight, 5)
        time.sleep(0.3)  # the worker is well inside its run
        said: list[str] = []
        window.statusBar().messageChanged.connect(said.append)
        doc.undo_stack.setClean()
        t0 = time.perf_counter()
        window.close()
        print(f"quit while the worker runs: close() returned after "
              f"{(time.perf_counter() - t0) * 1000:.0f} ms; status bar said: "
              f"{' | '.join(s for s in said if s) or '(nothing)'}")
    else:
        doc.undo_stack.setClean()
        window.close()

    if args.each:
        import resource

        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "rackdesigner", "whatif", path, "--each",
                               args.each], capture_output=True, text=True, timeout=1800)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        lines = proc.stdout.strip().splitlines()
        print(f"rackdesigner whatif FILE --each {args.each}: "
              f"{time.perf_counter() - t0:.1f} s wall, {cpu:.1f} s CPU (exit {proc.returncode}, "
              f"{len(lines)} lines; load {load_average()})")
        if proc.returncode:
            print(proc.stderr[-2000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
