"""How fast the Racks tab opens and repaints, and how long `render --view racks` takes to PDF.

    QT_QPA_PLATFORM=offscreen python benchmarks/racks_view.py [--sus 4 16] [--repeat 3]

For each DGX H100 SuperPOD size: the design is generated and opened in the main window (on the
Topology tab, as a user opens a file), then the Racks tab is switched to — the "open" figure is
the tab switch until its first frame is drawn (rack index, power per rack, rack rules, scene
build, fit, paint). "repaint" is one full frame of the fitted view (every rack visible). For the
largest size, the elevations are rendered to a multi-page PDF headless, as the CLI does.
Goals (issue 14): 4 SU < 0.5 s open, < 50 ms repaint; 16 SU < 2 s, < 100 ms; PDF < 10 s.
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sus", type=int, nargs="+", default=[4, 16])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.generators import generate
    from rackdesigner.io import save_layout
    from rackdesigner.ui.main_window import MainWindow
    from rackdesigner.ui.racks.export import render_racks

    with tempfile.TemporaryDirectory() as tmp:
        for sus in args.sus:
            layout = generate("superpod", system="dgx-h100", sus=sus)
            path = Path(tmp) / f"superpod-{sus}.yaml"
            save_layout(layout, path)
            settings = QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat)
            window = MainWindow(settings=settings)
            window.resize(1600, 1000)
            window.show()
            app.processEvents()
            opens, repaints = [], []
            for _ in range(args.repeat):
                window.views.setCurrentWidget(window.view)  # opened on the Topology tab
                window.open_file(path, ask=False)
                app.processEvents()
                assert window.racks_panel._dirty  # nothing built yet: measured below
                start = time.perf_counter()
                window.views.setCurrentWidget(window.racks_panel)
                window.racks_panel.flush()
                viewport = window.racks_panel.view.viewport()
                viewport.repaint()
                opens.append(time.perf_counter() - start)
                for _ in range(3):
                    start = time.perf_counter()
                    viewport.repaint()
                    repaints.append(time.perf_counter() - start)
            panel = window.racks_panel
            # one edit in the tab: a DGX to the top of another rack, as a drag does, and undo
            from rackdesigner.commands.racks import mount

            unit = next(u for u in panel.scene.index.units.values() if u.role == "compute")
            target = next(r for r in panel.scene.rack_order
                          if panel.scene.index.first_free(unit.height_u, r) is not None
                          and r != unit.rack)
            slot = panel.scene.index.first_free(unit.height_u, target)
            start = time.perf_counter()
            window.document.push(mount(window.document.layout,
                                       {unit.id: (target, slot, "front")}))
            panel.flush()
            viewport.repaint()
            edit = time.perf_counter() - start
            window.actions_.undo_action.trigger()
            panel.flush()
            print(f"{sus}-SU SuperPOD: {len(panel.scene.rack_order)} racks, "
                  f"{len(panel.scene.item_for_unit)} mounted units")
            print(f"  open the Racks tab:     {statistics.median(opens) * 1000:8.0f} ms "
                  f"(median of {args.repeat})")
            print(f"  repaint the full view:  {statistics.median(repaints) * 1000:8.0f} ms "
                  f"(zoom {panel.view.zoom() * 100:.0f}%)")
            print(f"  move a DGX to another rack (command, cables, rebuild, frame): "
                  f"{edit * 1000:.0f} ms")
            window.document.undo_stack.setClean()
            window.close()
        largest = max(args.sus)
        layout = generate("superpod", system="dgx-h100", sus=largest)
        out = Path(tmp) / "racks.pdf"
        start = time.perf_counter()
        render_racks(layout, out)
        took = time.perf_counter() - start
        print(f"render {largest}-SU elevations to PDF: {took * 1000:8.0f} ms "
              f"({out.stat().st_size / 1e3:.0f} kB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
