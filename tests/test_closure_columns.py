"""A failure's closure takes the incident links of what failed from the link table's columns
when the design's index has made them and the state's device -> links map is not made (issue
38 item 19: a what-if after the intact simulation); it must be the same set as the map's, for
groups, racks, single devices and links, and the what-if built on it the same."""

from __future__ import annotations

import pytest

from rackdesigner.analysis.whatif import WhatIf, scenario_doc
from rackdesigner.generators import generate
from rackdesigner.io import load_layout, save_layout
from rackdesigner.model import index as index_module
from rackdesigner.model.failures import closure

FAILURES = [("su-1",), ("dgx-3",), ("dgx-2.gpu0", "leaf-2"), ("rack-2",), ("link-7", "dgx-5")]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("closure") / "pod.yaml"
    save_layout(generate("superpod", system="dgx-h100", sus=2), path)
    return path


def _fresh(path, columns: bool, monkeypatch):
    """The design read from its file (no device -> links map yet), its link table made or not."""
    monkeypatch.setattr(index_module, "_ARRAY_MIN_LINKS", 0 if columns else 10**12)
    layout = load_layout(path)
    table = layout.index().link_table()
    assert (table is not None) == columns
    assert layout.state._links_by_device is None  # the map is not made: the columns answer
    return layout


@pytest.mark.parametrize("failed", FAILURES, ids=["+".join(f) for f in FAILURES])
def test_the_columns_give_the_same_closure_as_the_map(saved, failed, monkeypatch):
    by_columns = closure(_fresh(saved, True, monkeypatch), failed)
    by_map = closure(_fresh(saved, False, monkeypatch), failed)
    assert by_columns == by_map
    assert by_columns.links  # every case here takes links down


def test_a_whatif_on_the_columns_closure_is_the_same(saved, monkeypatch):
    docs = []
    for columns in (True, False):
        whatif = WhatIf(_fresh(saved, columns, monkeypatch))
        docs.append(scenario_doc(whatif.scenario(["su-2"]), whatif.intact_result))
    assert docs[0] == docs[1]
    assert docs[0]["failed"] == ["su-2"]
