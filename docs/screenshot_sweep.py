"""Regenerate docs/screenshot-sweep.png: Analyze ▸ Sweep… on docs/sweep-superpod.yaml.

    QT_QPA_PLATFORM=offscreen python docs/screenshot_sweep.py [OUT.png] [--x COL] [--y COL]

Runs the 12-point SuperPOD sweep in the window (on Dask threads), then grabs the window with
the chosen axes (default: maximum power against 1 GiB all_reduce busbw).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", nargs="?", default=str(HERE / "screenshot-sweep.png"))
    parser.add_argument("--x", default="power_max_w")
    parser.add_argument("--y", default="all_reduce_busbw_GBps")
    args = parser.parse_args()
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.ui.sweep_window import SweepWindow

    window = SweepWindow(spec_path=str(HERE / "sweep-superpod.yaml"))
    window.resize(1000, 680)
    window.scheduler.setCurrentText("threads")
    window.show()
    loop = QEventLoop()
    window.run_finished.connect(loop.quit)
    window.start()
    loop.exec()
    window.x_axis.setCurrentText(args.x)
    window.y_axis.setCurrentText(args.y)
    app.processEvents()
    window.grab().save(args.out)
    print(args.out)
    window.done(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
