"""Snapshot the full `simulate` JSON of several designs, and compare two snapshots.

    python3 benchmarks/simulate_snapshot.py dump DIR        # one JSON file per design and option
    python3 benchmarks/simulate_snapshot.py compare OLD NEW # exit 1 and list what differs

For speed work that must not change any figure: dump on the commit before, dump on the commit
after (from each checkout's root), compare. The designs are the bundled examples and DGX H100
SuperPODs of 1k, 4k and 16k GPUs, with the scattered placement, SHARP on and the link loads of
all_to_all at 1 MiB on two of them; every document includes the per-link loads
(`to_dict(link_loads=True)`).

Python randomises string hashing per process; the documents should not depend on it (the
busiest-link name among equally loaded links once did), but to compare like with like on older
commits the script re-runs itself with PYTHONHASHSEED=0 unless it is set.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path.cwd()
if str(ROOT) not in sys.path:  # the checkout the command runs in, not this file's
    sys.path.insert(0, str(ROOT))


def _designs():
    from rackdesigner.catalog import default_catalog
    from rackdesigner.generators import generate
    from rackdesigner.io import load_layout

    catalog = default_catalog()
    examples = ROOT / "resources" / "examples"
    for path in sorted(examples.glob("*.yaml")):
        yield path.stem, load_layout(path, catalog)
    for gpus in (1024, 4096, 16384):
        yield f"superpod-{gpus}", generate("superpod", catalog, system="dgx-h100",
                                           nodes=gpus // 8)


def dump(out: Path) -> int:
    from rackdesigner.simulation import simulate

    out.mkdir(parents=True, exist_ok=True)
    for name, layout in _designs():
        runs = [(name, {})]
        if name in ("superpod-1024", "fat-tree-2tier"):
            runs += [(f"{name}-scattered", {"placement": "scattered"}),
                     (f"{name}-sharp", {"sharp": True}),
                     (f"{name}-a2a-1m", {"loads_for": ("all_to_all", 2**20)})]
        for label, options in runs:
            document = simulate(layout, **options).to_dict(link_loads=True)
            (out / f"{label}.json").write_text(json.dumps(document, indent=1, sort_keys=True),
                                               encoding="utf-8")
            print(f"wrote {label}", flush=True)
    return 0


def compare(old: Path, new: Path) -> int:
    names = sorted({p.name for p in old.glob("*.json")} | {p.name for p in new.glob("*.json")})
    bad = [n for n in names if not (old / n).exists() or not (new / n).exists()
           or (old / n).read_bytes() != (new / n).read_bytes()]
    for n in bad:
        print(f"differs: {n}")
    print(f"{len(names) - len(bad)} of {len(names)} documents identical")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    if os.environ.get("PYTHONHASHSEED") is None:
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        return subprocess.run([sys.executable, __file__, *argv], env=env).returncode
    if len(argv) == 2 and argv[0] == "dump":
        return dump(Path(argv[1]))
    if len(argv) == 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
