"""How long the designer takes to open a 1,016-GPU DGX SuperPOD and draw it zoomed out.

    QT_QPA_PLATFORM=offscreen python benchmarks/gui_open.py [--sus 4] [--repeat 3] [--file F]

Reports: building the layout (generator), saving it, opening the file in the main window (read
+ scene build + fit), drawing one frame of the viewport at full zoom-out (the overview level of
detail), one frame at 100% zoom, and a small edit (move one device; undo) to show that edits do
not rebuild the scene.
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


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="dgx-h100")
    parser.add_argument("--sus", type=int, default=4, help="scalable units (4 → 127 nodes)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--file", help="open this layout (either form) instead of generating "
                        "a SuperPOD, e.g. one written by benchmarks/scale.py at 16k/32k GPUs")
    args = parser.parse_args()

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.commands import MoveDevices, RemoveItems
    from rackdesigner.generators import generate
    from rackdesigner.io import save_layout
    from rackdesigner.ui.main_window import MainWindow

    if args.file:
        from rackdesigner.io import load_layout

        t_gen, layout = timed(lambda: load_layout(args.file))
    else:
        t_gen, layout = timed(lambda: generate("superpod", system=args.system, sus=args.sus))
    gpus = sum(1 for d in layout.devices() if (s := layout.spec(d.id)) and s.kind == "gpu")
    print(f"design: {layout.meta.name}")
    print(f"  {gpus} GPUs, {layout.device_count()} devices, {layout.link_count()} links, "
          f"{len(list(layout.groups()))} groups")
    print(f"{'read --file:' if args.file else 'generate:':<26}{t_gen * 1000:8.0f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.file) if args.file else Path(tmp) / "superpod.yaml"
        t_save, _ = timed(lambda: None if args.file else save_layout(layout, path))
        print(f"save YAML:                {t_save * 1000:8.0f} ms "
              f"({path.stat().st_size / 1e6:.1f} MB)")
        settings = QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings=settings)
        window.resize(1600, 1000)
        window.show()
        app.processEvents()

        def open_it():
            window.open_file(path, ask=False)
            app.processEvents()
            return window

        from rackdesigner.io import load_layout

        t_read, _ = timed(lambda: load_layout(path), args.repeat)
        print(f"read YAML (io only):      {t_read * 1000:8.0f} ms")
        t_open, _ = timed(open_it, args.repeat)
        scene, view = window.scene, window.view
        print(f"open file in the window:  {t_open * 1000:8.0f} ms  (read + scene + fit; "
              f"median of {args.repeat})")
        print(f"  items: {len(scene.items())}, bundles: {len(scene.bundles)}, "
              f"zoom after fit: {view.zoom() * 100:.1f}%, overview: {scene.overview}")
        viewport = view.viewport()

        def frame():
            viewport.repaint()  # a synchronous paint event, as on screen


        frame()  # warm the item caches once, as the first paint on screen would
        t_frame, _ = timed(frame, args.repeat)
        print(f"frame at full zoom-out:   {t_frame * 1000:8.0f} ms  "
              f"({viewport.width()}x{viewport.height()} px, median of {args.repeat})")
        view.set_zoom(1.0)
        frame()
        t_frame_100, _ = timed(frame, args.repeat)
        print(f"frame at 100% zoom:       {t_frame_100 * 1000:8.0f} ms  (overview: "
              f"{scene.overview})")
        device = next(iter(window.document.layout.devices()))
        old = device.pos
        new = (old[0] + 20.0, old[1])
        t_edit, _ = timed(lambda: (window.document.push(MoveDevices({device.id: (old, new)})),
                                   scene.flush(), window.document.undo_stack.undo(),
                                   scene.flush()), args.repeat)
        print(f"move one device + undo:   {t_edit * 1000:8.1f} ms")
        layout = window.document.layout
        visible = next(d for d, i in scene.item_for_device.items() if i.isVisible())
        window.editor.select_ids([visible])  # the inspector shows one device meanwhile
        su = layout.group_devices("su-1")
        moves = {d: (layout.device(d).pos, (layout.device(d).pos[0] + 100,
                                            layout.device(d).pos[1])) for d in su}

        def bulk(fn):
            def run():
                fn()
                window.flush()
                app.processEvents()
            return timed(run)[0]

        stack = window.document.undo_stack
        print(f"move a whole SU ({len(su)} devices): "
              f"{bulk(lambda: window.document.push(MoveDevices(moves))) * 1000:6.0f} ms, "
              f"undo {bulk(stack.undo) * 1000:.0f} ms")
        print(f"delete an SU (cascade):   {bulk(lambda: window.document.push(RemoveItems(groups=['su-2']))) * 1000:8.0f} ms, "  # noqa: E501
              f"undo {bulk(stack.undo) * 1000:.0f} ms")
        print(f"drop a GB200 NVL72 rack:  "
              f"{bulk(lambda: window.editor.drop_model('gb200-nvl72', (30000.0, 0.0))) * 1000:8.0f} ms")  # noqa: E501
        print(f"select all:               {bulk(window.editor.select_all) * 1000:8.0f} ms "
              f"({len(scene.selectedItems())} items)")
        window.document.undo_stack.setClean()
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
