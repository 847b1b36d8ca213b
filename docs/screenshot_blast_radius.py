"""Regenerate docs/screenshot-blast-radius.png: the designer with a GB200 compute tray selected
and "Show blast radius of the selection" checked in the Reliability tab.

    QT_QPA_PLATFORM=offscreen python docs/screenshot_blast_radius.py [OUT.png]

The bundled GB200 NVL72 example: one compute tray selected; the 72 GPUs its GPU fault stops
(the rack's NVLink domain) are marked in orange and the status bar says so.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    import tempfile

    from rackdesigner._resources import example_paths
    from rackdesigner.io import load_layout
    from rackdesigner.ui import MainWindow

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name(
        "screenshot-blast-radius.png")
    layout = load_layout(next(p for p in example_paths() if p.name == "gb200-nvl72.yaml"))
    with tempfile.TemporaryDirectory() as folder:
        settings = QSettings(str(Path(folder) / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(catalog=layout.catalog, settings=settings)
        window._set_document(layout, None)
        window.resize(1500, 950)
        window.show()
        window.view.fit()
        panel = window.simulation_panel
        panel.tabs.setCurrentWidget(panel.reliability_tab)
        panel.reliability_tab.flush()
        panel.reliability_tab.blast_check.setChecked(True)
        window.editor.select_ids(["nvl72-1.tray4"])
        window.flush()
        for _ in range(10):
            app.processEvents()
        window.grab().save(str(out))
        window.document.undo_stack.setClean()
        window.close()
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
