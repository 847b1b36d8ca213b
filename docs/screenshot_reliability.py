"""Regenerate docs/screenshot-reliability.png: the Reliability tab of a 4-rack GB200 NVL72 pod.

    QT_QPA_PLATFORM=offscreen python docs/screenshot_reliability.py [OUT.png]

The pod (288 GPUs) is opened with 16 spare GPUs held back: the tab shows its interruptions per
day, what one fault stops (the 72-GPU NVLink domain), the causes as bars (GPU-side in green) and
the ETTR against the checkpoint interval, the optimum marked.
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
        "screenshot-reliability.png")
    panel = SimulationPanel(generate("superpod", system="gb200-nvl72", racks=4), debounce_ms=20)
    panel.resize(600, 980)
    panel.show()
    panel.tabs.setCurrentWidget(panel.reliability_tab)
    panel.reliability_tab.spares_spin.setValue(16)
    panel.flush()
    panel.reliability_tab.flush()
    for _ in range(5):
        app.processEvents()
    panel.grab().save(str(out))
    panel.close_panel()
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
