"""Regenerate docs/screenshot-panel.png: the live panel next to the canvas, comparing two designs.

    QT_QPA_PLATFORM=offscreen python docs/screenshot_panel.py [OUT.png]

Opens the two-node DGX H100 example, pins it as the baseline, then removes four of the first
node's InfiniBand cables (through the undo stack, as a user would) so the panel shows the
current figures against the baseline: dashed curves and the headline deltas.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> int:
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner._resources import example_paths
    from rackdesigner.commands import RemoveItems
    from rackdesigner.ui import MainWindow

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name(
        "screenshot-panel.png")
    settings = QSettings(os.path.join(tempfile.mkdtemp(), "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.open_file(next(p for p in example_paths() if p.name == "dgx-h100-2node-ib.yaml"),
                     ask=False)
    window.resize(1600, 1020)
    window.show()
    window.problems_dock.hide()
    window.history_dock.hide()
    app.processEvents()
    window.resizeDocks([window.inspector_dock, window.simulation_dock], [90, 900],
                       Qt.Orientation.Vertical)
    window.resizeDocks([window.simulation_dock], [520], Qt.Orientation.Horizontal)
    app.processEvents()
    window.view.fit()
    panel = window.simulation_panel
    panel.flush()
    panel.pin_baseline()
    window.document.push(RemoveItems(links=["link-1", "link-2", "link-3", "link-4"]))
    panel.flush()
    panel.bandwidth.hover_at(30)
    for _ in range(5):
        app.processEvents()
    window.grab().save(str(out))
    panel.close_panel()
    window.document.undo_stack.setClean()
    window.close()
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
