"""`rackdesigner VERB` and the garbage collector (issue 38 item 19): a verb holds it off while
it runs and turns it back on after; after a verb that made a large design the objects are
frozen first, so the first collection does not walk the whole design to find nothing (0.8 s
after `validate` of a 32k-GPU SuperPOD, 1.7 s at 100k); after a small one nothing is
frozen."""

from __future__ import annotations

import gc

import pytest

import rackdesigner.cli as cli
from rackdesigner._resources import example_paths

EXAMPLE = str(next(p for p in example_paths() if p.name == "dgx-h100.yaml"))


@pytest.fixture
def unfrozen():
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_a_small_verb_turns_the_collector_back_on_and_freezes_nothing(unfrozen, capsys):
    assert gc.isenabled()
    assert cli.main(["validate", EXAMPLE]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_large_verb_freezes_what_it_made_before_turning_the_collector_on(
        unfrozen, capsys, monkeypatch):
    # the same path as a 32k design's, reached with a small one: the threshold lowered
    monkeypatch.setattr(cli, "FREEZE_FROM", 1)
    assert cli.main(["validate", EXAMPLE]) == 0
    assert gc.isenabled() and gc.get_freeze_count() > 0
    frozen = gc.get_freeze_count()
    gc.collect()  # a collection now leaves what the verb made alone
    assert gc.get_freeze_count() == frozen


@pytest.mark.slow
def test_a_16k_design_is_frozen_and_a_1k_one_is_not(unfrozen, tmp_path, capsys, monkeypatch):
    # serial: with its rack rules read beside (a forked child, on an idle two-core machine)
    # `validate` frees its design before it ends, and the collector's count then also
    # subtracts the design `generate` left in this process; the freeze is the serial path's
    monkeypatch.setenv("RACKDESIGNER_WORKERS", "1")
    for nodes, frozen in ((128, False), (2048, True)):
        path = tmp_path / f"pod-{nodes}.yaml"
        assert cli.main(["generate", "superpod", "--system", "dgx-h100", "--nodes", str(nodes),
                         "-o", str(path)]) == 0
        gc.unfreeze()
        assert cli.main(["validate", str(path)]) == 0
        assert (gc.get_freeze_count() > 0) is frozen, nodes
