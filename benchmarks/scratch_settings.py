"""`scratch_settings_path()`: a throw-away settings file for the GUI benchmarks.

Never give QSettings `os.devnull`: Qt saves settings atomically (a temporary file renamed over
the target), which replaces the machine's /dev/null device with a regular file.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path


def scratch_settings_path() -> str:
    """Path of an ini file in a private folder that is removed when the process exits."""
    folder = tempfile.mkdtemp(prefix="rackdesigner-bench-settings-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return str(Path(folder) / "settings.ini")
