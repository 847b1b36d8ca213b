"""The example layouts shipped in `resources/examples/`, produced by the generators.

`python -m rackdesigner.generators.examples [FOLDER]` rewrites them (default: the shipped
examples folder); a test checks that the shipped files equal what the generators make now.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

EXAMPLES: dict[str, tuple[str, dict[str, Any]]] = {
    "dgx-h100.yaml": ("dgx-h100", {}),
    "dgx-h100-2node-ib.yaml": ("single-leaf", {"system": "dgx-h100", "nodes": 2,
                                               "switch": "qm9700"}),
    # A two-tier (leaf/spine) fat tree of GPU nodes, rail-optimized as in the SuperPOD RAs.
    "fat-tree-2tier.yaml": ("rail-optimized", {"system": "dgx-h100", "nodes": 8,
                                               "switch": "qm9700"}),
    # with the CDU its liquid heat needs: a liquid rack without one is a finding (issue 36)
    "gb200-nvl72.yaml": ("nvl72", {"cdus": 1}),
    # 1,024 GPUs: the size planners compare NVL72 racks at; written in the compact form
    "dgx-b200-superpod-4su.yaml": ("superpod", {"system": "dgx-b200", "sus": 4}),
}
#: examples written in the compact form (each node once as a template)
COMPACT = frozenset({"dgx-b200-superpod-4su.yaml"})


def example_text(name: str) -> str:
    from rackdesigner.generators import generate
    from rackdesigner.io import dump_layout_text
    from rackdesigner.io.compact import dump_compact_text

    template, options = EXAMPLES[name]
    dump = dump_compact_text if name in COMPACT else dump_layout_text
    return dump(generate(template, **options))


def write_examples(folder: Path) -> list[Path]:
    from rackdesigner.io import atomic

    written = []
    for name in EXAMPLES:
        path = folder / name
        atomic.write_text(path, example_text(name))
        written.append(path)
    return written


if __name__ == "__main__":
    from rackdesigner._resources import examples_dir

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else examples_dir()
    for written in write_examples(target):
        print(written)
