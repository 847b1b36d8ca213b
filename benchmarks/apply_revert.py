"""The randomized apply/revert walk at length: 20,000 random edits, undos and redos.

    python benchmarks/apply_revert.py [--steps 20000] [--seeds 1 2 3] [--check-every 500]

The same walk as `tests/test_history_random.py` (the driver is `tests/random_edits.py`): random
commands through the public commands API, refusals included, with undo and redo. Every step
checks that a refused edit leaves the saved bytes and the exact state unchanged and that a
mirror built from the change events equals the document; every `--check-every` steps, undo-all
must give the starting bytes and state and redo-all the checkpoint's bytes, state and order.
Prints per seed the steps, what happened and the time taken; exits 1 on the first violation.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, ".."))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--check-every", type=int, default=500)
    args = parser.parse_args()
    from random_edits import RandomDesigner

    from rackdesigner.catalog import default_catalog

    catalog = default_catalog()
    for seed in args.seeds:
        start = time.perf_counter()
        designer = RandomDesigner(catalog, seed, check_every=args.check_every)
        try:
            stats = designer.run(args.steps)
        except AssertionError as exc:
            print(f"seed {seed}: FAILED: {exc}")
            return 1
        elapsed = time.perf_counter() - start
        print(f"seed {seed}: {args.steps} steps in {elapsed:.1f} s — applied {stats.applied}, "
              f"refused {stats.refused}, unchanged {stats.unchanged}, undos {stats.undos}, "
              f"redos {stats.redos}, checkpoints {stats.checkpoints}; final design "
              f"{designer.layout.device_count()} devices, {designer.layout.link_count()} links")
    return 0


if __name__ == "__main__":
    sys.exit(main())
