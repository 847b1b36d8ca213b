"""Randomized apply/revert: hundreds of random edits, undos and redos per seed, through the
public commands API (`tests/random_edits.py`; 20,000 steps in `benchmarks/apply_revert.py`)."""

from __future__ import annotations

import pytest
from random_edits import RandomDesigner


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_edits_undo_to_the_start_and_redo_to_the_end(catalog, seed):
    designer = RandomDesigner(catalog, seed, check_every=60)
    stats = designer.run(300)
    # the walk really exercised the history: edits applied, refused, undone and redone
    assert stats.applied > 50
    assert stats.refused > 5
    assert stats.undos > 10 and stats.redos > 5
    assert stats.checkpoints >= 5
