"""Shared test set-up: Qt runs offscreen; the shipped catalog is loaded once."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest


@pytest.fixture(scope="session")
def catalog():
    from rackdesigner.catalog import default_catalog

    return default_catalog()
