"""The sweep spec file (`rackdesigner.sweep` spec, `schema_version: 1`) and its points.

A spec names how each design is made — a `generate` template with options, or a `base` layout
plus `edits` — and the parameters that vary: `grid` (every combination) and/or `points` (a list
of option sets; with a grid, every point is combined with every grid combination). Everything
is checked when the spec is read, so a typo fails in a second with `file:line: what was
expected` instead of after a thousand Dask tasks. The parsed `SweepSpec` is a small frozen
value: it is what travels to every Dask worker (with the base layout's text, so workers need
no shared file system).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rackdesigner.units import table_size

SPEC_VERSION = 1
MAX_SPEC_BYTES = 1 << 20
MAX_POINTS = 100_000
TOP_KEYS = ("schema_version", "name", "generate", "base", "fixed", "grid", "points", "edits",
            "outputs", "workload", "cost", "serve")
OUTPUT_KEYS = ("collectives", "sizes", "algorithm")
EDIT_KINDS = ("remove", "set_model")
DEFAULT_SIZE = 1 << 30


class SweepSpecError(ValueError):
    """A spec that cannot be run: names the file, the line and what was expected."""

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path = path
        self.message = message
        self.line = line
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")


@dataclass(frozen=True)
class Edit:
    """One edit applied to the base design of every point; `{name}` in text takes a parameter."""

    kind: str  # "remove" (device id globs, with their links) or "set_model"
    match: tuple[str, ...]
    model: str = ""


@dataclass(frozen=True)
class SweepSpec:
    """A parsed, checked spec; `points()` lists every parameter set in a stable order."""

    path: str
    name: str
    template: str | None
    fixed: tuple[tuple[str, Any], ...]
    grid: tuple[tuple[str, tuple[Any, ...]], ...]
    listed: tuple[tuple[tuple[str, Any], ...], ...]
    collectives: tuple[str, ...] = ("all_reduce",)
    sizes: tuple[int, ...] = (DEFAULT_SIZE,)
    algorithm: str = "auto"
    base_text: str | None = None
    base_label: str = ""
    edits: tuple[Edit, ...] = ()
    workload: Any = None
    lines: dict[str, int] = field(default_factory=dict, compare=False, hash=False)
    #: running-cost assumptions of the cost columns (`cost:` without `prices`), sorted pairs
    cost: tuple[tuple[str, Any], ...] = ()
    #: the price book's text and path when the spec (or `sweep --prices`) names one
    prices_text: str | None = None
    prices_label: str = ""
    #: a serving job (`serve:`, the options of `rackdesigner serve`): serving columns
    serve: Any = None

    def parameter_names(self) -> list[str]:
        """Every parameter, fixed first, in the order the spec writes them."""
        names = [k for k, _ in self.fixed]
        for key, _ in self.grid:
            if key not in names:
                names.append(key)
        for point in self.listed:
            for key, _ in point:
                if key not in names:
                    names.append(key)
        return names

    def points(self) -> Iterator[dict[str, Any]]:
        """Every point's parameters: fixed, then a listed point, then a grid combination."""
        keys = [k for k, _ in self.grid]
        combos = list(itertools.product(*(v for _, v in self.grid))) if self.grid else [()]
        for listed in self.listed or ((),):
            for combo in combos:
                params = dict(self.fixed)
                params.update(listed)
                params.update(zip(keys, combo, strict=True))
                yield params

    def count(self) -> int:
        n = max(1, len(self.listed))
        for _, values in self.grid:
            n *= len(values)
        return n


def load_spec(path: str | os.PathLike) -> SweepSpec:
    """Read and check a spec file; `SweepSpecError` (located) for anything unusable."""
    from rackdesigner.inputs import InputError, read_text

    label = os.fspath(path)
    try:  # a FIFO or device is refused before it is read (rackdesigner/inputs.py)
        text = read_text(label, MAX_SPEC_BYTES, "sweep spec")
    except InputError as exc:
        raise SweepSpecError(label, exc.message, exc.line) from None
    return parse_spec(text, label, Path(label).parent)


def parse_spec(text: str, label: str = "<spec>", folder: str | os.PathLike = ".") -> SweepSpec:
    """Parse spec text; `folder` is where a relative `base:` path is looked up."""
    from rackdesigner.inputs import InputError, compose_yaml

    try:  # aliases, tags, duplicate keys, deep nesting, runaway sizes (rackdesigner/yamlfile.py)
        node = compose_yaml(text, label, max_nodes=100_000)
    except InputError as exc:
        raise SweepSpecError(label, exc.message, exc.line) from None
    if node is None:
        raise SweepSpecError(label, "the file is empty; expected a mapping starting with "
                             f"'schema_version: {SPEC_VERSION}'")
    from rackdesigner.sweep.spec_reader import SpecReader

    return SpecReader(label, Path(folder)).read(node)


def parse_size(value: Any) -> int | None:
    """A size of the busbw tables in the one size grammar (`units.table_size`: `1GiB`, `1G`,
    `16 MiB`, `8B` or a whole number of bytes); None if it is not one."""
    try:
        return table_size(value)
    except ValueError:
        return None
