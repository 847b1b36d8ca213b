"""The designer at 32k GPUs: open to a usable canvas, Problems after an edit, a Racks-tab move
(issue 27 §4).

    QT_QPA_PLATFORM=offscreen python benchmarks/designer_scale.py --sus 128
    QT_QPA_PLATFORM=offscreen python benchmarks/designer_scale.py --file sp128.yaml --repeat 3

The design (`--file`, or the generated DGX H100 SuperPOD of `--sus` SUs) is opened in a
1600x1000 main window as File ▸ Open does, canvas included:

- **open**: `open_file` until it returns with the canvas drawn (the file read on a worker
  behind the progress dialog, the scene built, one frame painted: the window is usable), then
  until the live panel's figures and the Problems findings follow (their workers);
  the longest GUI-thread freeze meanwhile;
- **Problems after an edit** — delete a NIC cable, mount a switch in another rack (from the
  Racks tab), move a switch on the canvas, fail a node, and the undo of each: from
  `Document.push` (or undo) until the Problems dock shows the findings of that revision (the
  dock's 200 ms debounce included), with the rule check's own time on its worker;
- **Racks tab**: the mount's GUI-thread time, from the push until the elevations show it
  (the Racks panel's pass over the edit's events, without its 120 ms debounce), and the
  longest freeze until the rack marks (checked on a worker) follow.

Figures are medians of `--repeat` rounds; the machine's load average is printed with them.
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
from stall_meter import StallMeter, load_average, process_until


def _until(predicate, timeout_s: float = 180.0) -> bool:
    return process_until(predicate, timeout_s, tick_ms=2)  # a 2 ms tick: the edits are short


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", help="a layout file (either form)")
    parser.add_argument("--sus", type=int, default=128, help="SuperPOD SUs when no --file")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of each edit")
    args = parser.parse_args()

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.commands import MoveDevices, RemoveItems
    from rackdesigner.commands.failures import set_status
    from rackdesigner.commands.racks import mount
    from rackdesigner.ui import MainWindow

    folder = tempfile.mkdtemp(prefix="designer-scale-")
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
    doc, panel, problems = window.document, window.simulation_panel, window.problems

    meter = StallMeter()
    meter.start()
    start, cpu0 = time.perf_counter(), time.process_time()
    assert window.open_file(path, ask=False), window.last_error
    window.view.viewport().repaint()
    usable, usable_cpu = time.perf_counter() - start, time.process_time() - cpu0
    _until(lambda: panel.current is not None and panel.current.revision == doc.layout.revision
           and not panel.live.busy)
    figures = time.perf_counter() - start
    _until(lambda: not problems.busy and problems.shown_revision == doc.layout.revision)
    findings = time.perf_counter() - start
    stall = meter.stop()
    layout = doc.layout
    print(f"{layout.meta.name}: {layout.device_count():,} devices, {layout.link_count():,} "
          f"links ({os.path.getsize(path) / 1e6:.1f} MB)")
    print(f"open: canvas usable {usable:.2f} s ({usable_cpu:.2f} s CPU), figures {figures:.2f} s, "
          f"findings {findings:.2f} s ({time.process_time() - cpu0:.2f} s CPU); longest GUI "
          f"freeze {stall * 1000:.0f} ms (load {load_average()})")

    kind = layout.index().kind
    cable = next(lk.id for lk in layout.links()
                 if {kind(e.device) for e in (lk.a, lk.b)} == {"nic", "switch"})
    node = next(g.id for g in layout.groups() if g.kind == "node")
    switch = next(d for d in layout.devices() if kind(d.id) == "switch" and d.rack)
    racks = window.racks_panel
    window.views.setCurrentWidget(racks)
    racks.flush()
    rack_index = racks.scene.index
    unit = rack_index.unit_of[switch.id]
    target = next(r for r in sorted(rack_index.racks) if r != switch.rack
                  and rack_index.first_free(1, r) is not None)
    slot = (target, rack_index.first_free(1, target), "front")

    def mount_switch() -> None:
        doc.push(mount(doc.layout, {unit: slot}, racks.scene.index))

    edits = {
        "delete a cable": lambda: doc.push(RemoveItems(links=[cable])),
        "Racks-tab mount": mount_switch,
        "move a switch": lambda: doc.push(MoveDevices(
            {switch.id: (switch.pos, (switch.pos[0] + 40.0, switch.pos[1]))})),
        "fail a node": lambda: doc.push(set_status(doc.layout, [node], "failed")),
    }
    print(f"{'edit':<16} {'findings s':>10} {'undo s':>7} {'check s':>8}   "
          f"{'racks GUI ms':>12} {'freeze ms':>9}")
    for name, edit in edits.items():
        shown, undone, checks, racks_ms, stalls = [], [], [], [], []
        for _ in range(args.repeat):
            for action, into in ((edit, shown), (doc.undo_stack.undo, undone)):
                meter.start()
                t0 = time.perf_counter()
                action()
                if name == "Racks-tab mount" and into is shown:
                    if racks._timer.isActive():  # the elevations follow: the GUI thread's part
                        racks._on_timer()
                    racks_ms.append((time.perf_counter() - t0) * 1000)
                _until(lambda: not problems.busy
                       and problems.shown_revision == doc.layout.revision)
                into.append(time.perf_counter() - t0)
                latest = problems.job.latest
                checks.append(latest.elapsed_s if latest is not None else 0.0)
                _until(lambda: not racks._marks.busy and not panel.live.busy)
                stalls.append(meter.stop())
        print(f"{name:<16} {statistics.median(shown):10.2f} {statistics.median(undone):7.2f} "
              f"{statistics.median(checks):8.2f}   "
              f"{(statistics.median(racks_ms) if racks_ms else 0):12.0f} "
              f"{max(stalls) * 1000:9.0f}   (load {load_average()})")
    doc.undo_stack.setClean()
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
