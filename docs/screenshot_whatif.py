"""Regenerate docs/screenshot-whatif.png, docs/screenshot-heatmap.png and
docs/screenshot-heatmap-workload.png on the 4-SU SuperPOD.

    QT_QPA_PLATFORM=offscreen python docs/screenshot_whatif.py [OUT_DIR]

What-if: a leaf of SU 2 and one spine are failed through the undo stack (key F's command), the
view zoomed onto the failed leaf (greyed and hatched, its cables dashed), the panel comparing
with the intact design by itself. Heat map: View ▸ Heat Map under all_to_all at 1 GiB, the
whole design fitted, the Heat tab listing the hottest links. Workload heat map: the Workload
tab's job (Llama 3 70B, TP 8 PP 4 on the first 992 GPUs, manual layout) and the Heat tab on
"workload (TP/PP/DP/EP)".
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.commands.failures import toggle_failed
    from rackdesigner.generators import generate
    from rackdesigner.io import save_layout
    from rackdesigner.ui import MainWindow

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "superpod-4su.yaml")
    save_layout(generate("superpod", system="dgx-h100", sus=4), path)
    settings = QSettings(os.path.join(tmp, "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.open_file(path, ask=False)
    window.resize(1600, 1020)
    window.show()
    window.problems_dock.hide()
    window.history_dock.hide()
    app.processEvents()
    window.resizeDocks([window.inspector_dock, window.simulation_dock], [90, 900],
                       Qt.Orientation.Vertical)
    window.resizeDocks([window.simulation_dock], [560], Qt.Orientation.Horizontal)
    app.processEvents()
    panel = window.simulation_panel
    panel.flush()
    layout = window.document.layout
    window.document.push(toggle_failed(layout, ["leaf-9", "spine-3"]))
    window.scene.flush()
    panel.flush()
    window.editor.select_ids(["leaf-9"])
    window.scene.clearSelection()
    item = window.scene.item_for_device["leaf-9"]
    window.view.set_zoom(0.3)
    window.view.centerOn(item)
    for _ in range(5):
        app.processEvents()
    window.grab().save(str(out / "screenshot-whatif.png"))
    window.editor.restore_all()
    window.scene.flush()
    window.actions_.heat_action.trigger()
    panel.flush()
    window.view.fit()
    for _ in range(5):
        app.processEvents()
    window.grab().save(str(out / "screenshot-heatmap.png"))
    tab = panel.workload
    tab.model_combo.setCurrentText("llama3-70b")
    tab.layout_combo.setCurrentText("manual")
    tab.tp.setValue(8)
    tab.pp.setValue(4)
    tab.gpus.setValue(992)
    tab.gbs.setValue(496)
    panel.heat_tab.collective_combo.setCurrentText("workload (TP/PP/DP/EP)")
    panel.flush()
    window.view.fit()
    for _ in range(5):
        app.processEvents()
    window.grab().save(str(out / "screenshot-heatmap-workload.png"))
    panel.close_panel()
    window.document.undo_stack.setClean()
    window.close()
    print(out / "screenshot-whatif.png", out / "screenshot-heatmap.png",
          out / "screenshot-heatmap-workload.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
