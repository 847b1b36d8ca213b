"""Screenshots of the Racks tab for the docs: a DGX H100 rack, a GB200 NVL72 rack and a 4-SU
DGX SuperPOD.

    QT_QPA_PLATFORM=offscreen python docs/screenshot_racks.py [-o DIR] [--size 1500x950]

Each is the main window's Racks tab on a generated design (a 1-SU SuperPOD's first racks
of DGX H100 with one system selected, the NVL72 example, a 4-SU SuperPOD fitted), grabbed to PNG.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SHOTS = (  # file, template, options, zoom (None: fitted), unit to select
    ("screenshot-racks-dgx-h100.png", "superpod", {"system": "dgx-h100", "sus": 1}, 0.8,
     "dgx-2"),
    ("screenshot-racks-gb200-nvl72.png", "nvl72", {}, None, None),
    ("screenshot-racks-superpod.png", "superpod", {"system": "dgx-h100", "sus": 4}, None,
     None),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", default=str(Path(__file__).parent))
    parser.add_argument("--size", default="1500x950")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.generators import generate
    from rackdesigner.ui.main_window import MainWindow

    with tempfile.TemporaryDirectory() as tmp:
        for name, template, options, zoom, select in SHOTS:
            settings = QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat)
            window = MainWindow(settings=settings)
            window.resize(width, height)
            window.show()
            window.simulation_dock.hide()  # room for the racks
            window._set_document(generate(template, **options), None)
            window.views.setCurrentWidget(window.racks_panel)
            app.processEvents()
            panel = window.racks_panel
            panel.fit()
            if zoom is not None:
                panel.view.resetTransform()
                panel.view.set_zoom(zoom)
                first = panel.scene.item_for_rack[panel.scene.rack_order[0]].sceneBoundingRect()
                half = panel.view.viewport().height() / 2 / zoom
                panel.view.centerOn(first.center().x() + 150, first.top() + half - 10)
            if select:
                window.editor.select_ids([select])
                window.flush()
            app.processEvents()
            path = Path(args.out) / name
            window.grab().save(str(path))
            print(path)
            window.document.undo_stack.setClean()
            window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
