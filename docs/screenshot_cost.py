"""Regenerate docs/screenshot-cost.png: the Cost tab of a 4-rack GB200 NVL72 pod against a
pinned DGX B200 SuperPOD SU.

    QT_QPA_PLATFORM=offscreen python docs/screenshot_cost.py [OUT.png]

The DGX B200 SU (256 GPUs) is pinned as the baseline with its cost; then the NVL72 pod (288
GPUs, a 1 MW site) is opened: the Cost tab shows its capex and TCO against the baseline, where
the facility, PUE and renting line, the heat to liquid and air, and the sensitivity tornado
(the panel scrolled down to it).
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
    from rackdesigner.model import Site
    from rackdesigner.ui.panel import SimulationPanel

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name(
        "screenshot-cost.png")
    panel = SimulationPanel(generate("superpod", system="dgx-b200", sus=1), debounce_ms=20)
    panel.resize(600, 980)
    panel.show()
    panel.show_tab("cost")
    panel.flush()
    panel.pin_baseline()
    pod = generate("superpod", system="gb200-nvl72", racks=4)
    pod.set_meta(site=Site(power_kw=1000, cooling_kw=1000))
    panel.set_layout(pod, "nvl72-4racks.yaml")
    panel.flush()
    panel.cost_tab.flush()
    panel.cost_tab.views.setCurrentIndex(1)  # the sensitivity tornado
    for _ in range(5):
        app.processEvents()
    bar = panel.scroll.verticalScrollBar()
    bar.setValue(bar.maximum())
    for _ in range(5):
        app.processEvents()
    panel.grab().save(str(out))
    panel.close_panel()
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
