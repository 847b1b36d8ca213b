"""Regenerate docs/screenshot-compare.png: File ▸ Compare With… of a 4-rack GB200 NVL72 pod
against a DGX B200 SuperPOD SU for the MoE job of docs/cost.md.

    QT_QPA_PLATFORM=offscreen python docs/screenshot_compare.py [OUT.png]
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from rackdesigner.generators import generate
    from rackdesigner.io import save_layout
    from rackdesigner.ui import MainWindow
    from rackdesigner.ui.compare_dialog import open_compare_dialog
    from rackdesigner.workload.jobfile import load_job

    here = Path.cwd()
    out = (Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).resolve()
           .with_name("screenshot-compare.png"))
    with tempfile.TemporaryDirectory() as folder:
        other = Path(folder) / "dgx-b200-1su.yaml"
        save_layout(generate("superpod", system="dgx-b200", sus=1), other)
        mine = Path(folder) / "nvl72-4racks.yaml"
        save_layout(generate("superpod", system="gb200-nvl72", racks=4), mine)
        settings = QSettings(str(Path(folder) / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings=settings)
        window.files.open_file(str(mine), ask=False)
        window.show()
        job = load_job(Path(__file__).resolve().with_name("jobs") / "moe-deepseek-v3.yaml")
        window.simulation_panel.workload.job_spec = lambda: (job, "")
        os.chdir(folder)  # the list shows the file as a user picks it, not a temp path
        dialog = open_compare_dialog(window, [other.name])
        dialog.job_check.setChecked(True)
        dialog.resize(860, 700)
        dialog.run()
        dialog.flush()
        for _ in range(5):
            app.processEvents()
        dialog.grab().save(str(out))
        dialog.close()
        window.document.undo_stack.setClean()
        window.close()
        os.chdir(here)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
