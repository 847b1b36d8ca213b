"""What reading a big design zoomed out costs: screen-size names, outlines, map, rail wiring.

    QT_QPA_PLATFORM=offscreen python benchmarks/overview_cost.py [--sus 4] [--repeat 20]

On the generated DGX SuperPOD (4 SUs: 1,016 GPUs) in a 1904x1032 window, reports the median
time per frame of the view's overlay (group names at screen size and selection outlines) at the
fitted zoom, 12 % and 30 %, and with everything selected; one redraw of the overview map; and
planning + applying rail-optimized wiring of 32 DGX H100 onto 8 leaves (256 links with their
cables).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from scratch_settings import scratch_settings_path


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sus", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QPainter, QPixmap
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.commands import add_model
    from rackdesigner.commands.bulk import plan_rails
    from rackdesigner.generators import generate
    from rackdesigner.model import Layout
    from rackdesigner.ui import MainWindow
    from rackdesigner.ui.canvas.overlay import group_labels, paint_overlay

    layout = generate("superpod", system="dgx-h100", sus=args.sus)
    settings = QSettings(scratch_settings_path(), QSettings.Format.IniFormat)
    window = MainWindow(catalog=layout.catalog, settings=settings)
    window._set_document(layout, None)
    window.setGeometry(0, 0, 1904, 1032)
    window.show()
    for _ in range(5):
        app.processEvents()
    window.flush()
    view = window.view
    view.fit()
    target = QPixmap(view.viewport().size())

    def overlay() -> None:
        painter = QPainter(target)
        paint_overlay(view, painter)
        painter.end()

    print(f"SuperPOD {args.sus} SU: {layout.device_count():,} devices, "
          f"{sum(1 for _ in layout.groups())} groups")
    for zoom in (None, 0.12, 0.3):
        if zoom is not None:
            view.set_zoom(zoom)
        app.processEvents()
        print(f"overlay at {view.zoom() * 100:.0f} %: {len(group_labels(view))} names, "
              f"{median_ms(overlay, args.repeat):.1f} ms/frame")
    view.fit()
    window.editor.select_all()
    app.processEvents()
    print(f"overlay at fit, everything selected: {median_ms(overlay, 5):.1f} ms/frame")
    window.scene.clearSelection()
    print(f"overview map redraw: {median_ms(view.minimap.refresh, 5):.0f} ms")
    window.document.undo_stack.setClean()
    window.close()

    rails = Layout(layout.catalog)
    nodes, leaves = [], []
    for i in range(32):
        cmd = add_model(rails, "dgx-h100", (0.0, i * 1000.0))
        cmd.apply(rails)
        nodes.append(cmd.groups[0].id)
    for i in range(8):
        cmd = add_model(rails, "qm9700", (i * 200.0, -400.0))
        cmd.apply(rails)
        leaves.append(cmd.devices[0].id)
    start = time.perf_counter()
    plan = plan_rails(rails, nodes, leaves)
    planned = time.perf_counter() - start
    start = time.perf_counter()
    plan.command("Wire rails").apply(rails)
    applied = time.perf_counter() - start
    print(f"wire rails, 32 nodes x 8 rails: {len(plan.links)} links, plan {planned * 1000:.0f} ms,"
          f" apply {applied * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
