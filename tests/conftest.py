"""Shared test set-up: Qt runs offscreen; the shipped catalog is loaded once."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Hermetic catalog: a developer's own catalog folder (platform data dir) must not change what
# the tests see; tests of user catalogs set RACKDESIGNER_CATALOG themselves (monkeypatch).
os.environ["RACKDESIGNER_CATALOG"] = ""
# Hermetic cache of parsed data files (catalog/filecache.py): one folder per test session, so
# a developer's own cache is neither read nor written; removed when the session ends.
_CACHE = tempfile.mkdtemp(prefix="rackdesigner-test-cache-")
os.environ["RACKDESIGNER_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)


@pytest.fixture(scope="session")
def catalog():
    from rackdesigner.catalog import default_catalog

    return default_catalog()
