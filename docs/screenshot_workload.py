"""Regenerate docs/screenshot-workload.png: the Workload tab answering scale-up vs scale-out.

    QT_QPA_PLATFORM=offscreen python docs/screenshot_workload.py [OUT.png]

Mixtral 8x7B with TP 8 and EP 8 on 64 GPUs: first on nine DGX B200 on a rail-optimized
InfiniBand fabric (the expert all-to-all crosses the network), pinned as the baseline; then the
same job on a GB200 NVL72 rack (everything inside one NVLink domain).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> int:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.generators import generate
    from rackdesigner.ui.panel import SimulationPanel

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name(
        "screenshot-workload.png")
    panel = SimulationPanel(generate("rail-optimized", system="dgx-b200", nodes=9,
                                     switch="qm9700"), debounce_ms=20)
    panel.resize(560, 900)
    panel.show()
    panel.show_tab("workload")
    tab = panel.workload
    tab.model_combo.setCurrentText("mixtral-8x7b")
    tab.layout_combo.setCurrentText("manual")
    tab.gpus.setValue(64)
    tab.tp.setValue(8)
    tab.ep.setValue(8)
    tab.gbs.setValue(256)
    tab.tokens.setValue(2.0)
    tab.flush()
    tab.pin_baseline()
    panel.set_layout(generate("nvl72"))
    panel.flush()
    tab.flush()
    for _ in range(5):
        app.processEvents()
    panel.grab().save(str(out))
    panel.close_panel()
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
