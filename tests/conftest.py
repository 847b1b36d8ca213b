"""Shared test set-up: Qt runs offscreen; the shipped catalog is loaded once."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Hermetic catalog: a developer's own catalog folder (platform data dir) must not change what
# the tests see; tests of user catalogs set RACKDESIGNER_CATALOG themselves (monkeypatch).
os.environ["RACKDESIGNER_CATALOG"] = ""

import pytest


@pytest.fixture(scope="session")
def catalog():
    from rackdesigner.catalog import default_catalog

    return default_catalog()
