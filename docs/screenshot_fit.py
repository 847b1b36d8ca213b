"""Regenerate docs/screenshot-fit.png: Analyze ▸ Fit to Site… on docs/site-2mw.yaml with the
job docs/jobs/dense-llama3-70b.yaml (docs/site.md).

    QT_QPA_PLATFORM=offscreen python docs/screenshot_fit.py [OUT.png]

Runs the search in the dialog on local processes (about a minute and a half on 2 cores), then
grabs the dialog: every candidate within the site, the front marked by the binding limit."""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parent


def main() -> int:
    out = sys.argv[1] if len(sys.argv) > 1 else str(HERE / "screenshot-fit.png")
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.ui.fit_dialog import FitDialog

    dialog = FitDialog()
    dialog.site_edit.setText(os.path.relpath(HERE / "site-2mw.yaml"))  # as typed from the root
    dialog.job_edit.setText(os.path.relpath(HERE / "jobs" / "dense-llama3-70b.yaml"))
    dialog.resize(1000, 860)
    dialog.show()
    loop = QEventLoop()
    dialog.run_finished.connect(loop.quit)
    if not dialog.start():
        print(dialog.status.text(), file=sys.stderr)
        return 2
    loop.exec()
    app.processEvents()
    dialog.grab().save(out)
    print(out)
    print(dialog.status.text())
    dialog.done(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
