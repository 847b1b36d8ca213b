"""Regenerate docs/screenshot-designer.png: the designer as a first run shows it.

    QT_QPA_PLATFORM=offscreen python docs/screenshot_designer.py [LAYOUT.yaml] [-o OUT.png]
        [--size 1600x1000] [--select DEVICE_ID ...]

Without a layout it opens the bundled example the app starts with. The window gets the
first-run dock layout (fresh settings in a temporary directory), is shown at `--size`, and is
grabbed once the canvas has been fitted to its real size and the live panel has its figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("layout", nargs="?", help="a layout file (default: the start example)")
    parser.add_argument("-o", "--out", default=str(Path(__file__).with_name(
        "screenshot-designer.png")))
    parser.add_argument("--size", default="1600x1000", help="window size, WxH")
    parser.add_argument("--select", nargs="*", default=[], help="device ids to select")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.app import default_example
    from rackdesigner.ui import MainWindow

    path = Path(args.layout) if args.layout else default_example()
    settings = QSettings(os.path.join(tempfile.mkdtemp(), "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.resize(width, height)
    if path is not None:
        window.open_file(path, ask=False)
    window.show()
    for _ in range(5):  # show, dock layout, the deferred fit
        app.processEvents()
    if args.select:
        window.editor.select_ids(args.select)
    window.flush()
    window.simulation_panel.flush()
    for _ in range(5):
        app.processEvents()
    window.grab().save(args.out)
    window.simulation_panel.close_panel()
    window.document.undo_stack.setClean()
    window.close()
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
