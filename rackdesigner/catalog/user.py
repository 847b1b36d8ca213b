"""A user's own device models: catalog folders beside the shipped catalog.

Where they come from, first match wins:

1. `RACKDESIGNER_CATALOG` (one folder, or several separated by the platform's path separator;
   the CLI's `--catalog DIR` sets it for the run);
2. the platform data folder, when it exists: `$XDG_DATA_HOME/rackdesigner/catalog` (default
   `~/.local/share/rackdesigner/catalog`) on Linux, `~/Library/Application Support/RackDesigner/
   catalog` on macOS, `%APPDATA%\\RackDesigner\\catalog` on Windows.

A user file has the shipped catalog's format (`docs/interop.md`, "Your own device models") and
passes the same validation, with each problem reported as `folder/file.yaml: key.path: message`.
A user model whose id equals a shipped one *overrides* it (the shipped one is hidden); any other
id extends the catalog. User specs carry `is_user=True`, which the Palette shows.

Kept apart from `loader.py` (which parses fields) so that field changes and folder handling do
not touch each other.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rackdesigner.catalog.loader import (
    CatalogError,
    CatalogProblem,
    _FileReader,
    read_spec_file,
)
from rackdesigner.catalog.spec import DeviceSpec

ENV = "RACKDESIGNER_CATALOG"


def platform_catalog_dir() -> Path:
    """The per-user catalog folder of this platform (it may not exist)."""
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
        return base / "RackDesigner" / "catalog"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "RackDesigner" / "catalog"
    base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / "rackdesigner" / "catalog"


def user_catalog_dirs() -> list[Path]:
    """The user catalog folders in effect (see the module docstring); [] when there are none."""
    value = os.environ.get(ENV)
    if value is not None:
        return [Path(p).expanduser() for p in value.split(os.pathsep) if p.strip()]
    default = platform_catalog_dir()
    return [default] if default.is_dir() else []


def read_user_dir(folder: Path) -> tuple[list[DeviceSpec], list[CatalogProblem]]:
    """Every `*.yaml` under `folder`, validated; problems name the file by its path."""
    specs: list[DeviceSpec] = []
    problems: list[CatalogProblem] = []
    if not folder.exists():
        return [], [CatalogProblem(str(folder), "", "no such folder (a user catalog folder "
                                   "holds one YAML file per device model)")]
    if not folder.is_dir():
        return [], [CatalogProblem(str(folder), "", "is a file, not a catalog folder")]
    from rackdesigner.inputs import InputError, regular_files

    try:
        paths = regular_files(folder, ("*.yaml", "*.yml"))
    except InputError as exc:  # a FIFO or device among the files: reading it would block
        return [], [CatalogProblem(exc.path, "", exc.message)]
    for path in paths:
        spec, file_problems = read_spec_file(path)
        label = str(path)
        problems.extend(dataclasses.replace(p, file=label) for p in file_problems)
        if spec is not None:
            specs.append(dataclasses.replace(spec, file=label, is_user=True))
    return specs, problems


def merge_specs(bundled: Iterable[DeviceSpec], user: Iterable[DeviceSpec]
                ) -> tuple[list[DeviceSpec], list[CatalogProblem]]:
    """Bundled specs with the user's added; a user id equal to a bundled id replaces it. Two
    user files with one id are a problem (which one was meant is unknowable)."""
    merged = {spec.id: spec for spec in bundled}
    seen: dict[str, str] = {}
    problems: list[CatalogProblem] = []
    for spec in user:
        if spec.id in seen:
            problems.append(CatalogProblem(spec.file, "id", f"id {spec.id!r} is also defined "
                                           f"in {seen[spec.id]}"))
            continue
        seen[spec.id] = spec.file
        merged[spec.id] = spec
    return list(merged.values()), problems


def catalog_with_user(dirs: Iterable[Path]):  # -> Catalog (import cycle kept local)
    """The shipped catalog extended/overridden by the user folders; CatalogError lists every
    problem of every user file (and cross-file problems such as unknown part models)."""
    from rackdesigner.catalog.catalog import Catalog

    user: list[DeviceSpec] = []
    problems: list[CatalogProblem] = []
    for folder in dirs:
        specs, folder_problems = read_user_dir(Path(folder))
        user.extend(specs)
        problems.extend(folder_problems)
    from rackdesigner.catalog.catalog import bundled_catalog

    bundled = list(bundled_catalog())  # parsed once per process
    merged, merge_problems = merge_specs(bundled, user)
    problems.extend(merge_problems)
    if problems:
        raise CatalogError(problems)
    catalog = Catalog(merged)
    bundled_ids = {spec.id for spec in bundled}
    catalog.overrides = {spec.id for spec in user if spec.id in bundled_ids}
    return catalog


def check_dirs(dirs: Iterable[Path]) -> tuple[list[CatalogProblem], list[DeviceSpec]]:
    """Validate user folders against the shipped catalog: (problems, the user specs read)."""
    user: list[DeviceSpec] = []
    problems: list[CatalogProblem] = []
    for folder in dirs:
        specs, folder_problems = read_user_dir(Path(folder))
        user.extend(specs)
        problems.extend(folder_problems)
    if not problems:
        try:
            catalog_with_user(dirs)
        except CatalogError as exc:
            problems.extend(exc.problems)
    return problems, user


def spec_from_data(data: Any, label: str) -> tuple[DeviceSpec | None, list[CatalogProblem]]:
    """Validate one model given as parsed YAML (an embedded model in a layout file)."""
    reader = _FileReader(label)
    spec = reader.read(data)
    if spec is not None:
        spec = dataclasses.replace(spec, is_user=True)
    return spec, reader.problems


def raw_user_file(spec: DeviceSpec) -> dict[str, Any] | None:
    """The parsed YAML of a user model's file (to embed it in a layout), or None."""
    from rackdesigner.catalog.loader import MAX_FILE_BYTES
    from rackdesigner.inputs import InputError, load_yaml, read_text

    if not spec.is_user or not spec.file:
        return None
    try:
        data = load_yaml(read_text(spec.file, MAX_FILE_BYTES, "device model file"), spec.file)
    except InputError:
        return None
    return data if isinstance(data, dict) else None


#: Top-level layout key holding the user models a design carries with it (`rackdesigner pack`):
#: a mapping of model id to the model file's content. Starts with `x-`, so older RackDesigner
#: versions keep it when they save the file.
EMBED_KEY = "x-rackdesigner-models"


def catalog_with_embedded(base, embedded: Any, label: str
                          ) -> tuple[Any, list[CatalogProblem]]:
    """`base` plus the models embedded in a layout that `base` lacks (an installed model of the
    same id wins: the local catalog is the one the user maintains). Returns (catalog, problems);
    with problems the catalog is `base` unchanged."""
    from rackdesigner.catalog.catalog import Catalog

    if not isinstance(embedded, dict):
        return base, [CatalogProblem(label, EMBED_KEY, "expected a mapping of model id to "
                                     "model (as 'rackdesigner pack' writes it)")]
    specs: list[DeviceSpec] = []
    problems: list[CatalogProblem] = []
    for model_id, data in embedded.items():
        if model_id in base:
            continue
        spec, spec_problems = spec_from_data(data, f"{EMBED_KEY}.{model_id}")
        problems.extend(spec_problems)
        if spec is not None:
            if spec.id != model_id:
                problems.append(CatalogProblem(f"{EMBED_KEY}.{model_id}", "id",
                                               f"id {spec.id!r} differs from its key"))
                continue
            specs.append(dataclasses.replace(spec, file=f"{label} (embedded)"))
    if problems:
        return base, problems
    if not specs:
        return base, []
    try:
        catalog = Catalog([*base, *specs])
    except CatalogError as exc:
        return base, exc.problems
    catalog.overrides = set(getattr(base, "overrides", set()))
    return catalog, []


def models_to_embed(layout) -> dict[str, dict[str, Any]]:
    """The user models a layout uses (devices, system templates, cables, and the parts,
    chassis and transceivers they name), as file content to embed under EMBED_KEY."""
    catalog = layout.catalog
    wanted = {d.model for d in layout.devices()}
    wanted |= {g.template for g in layout.groups() if g.template}
    wanted |= {k.cable for k in layout.links() if k.cable}
    previous = dict(layout.meta.extra).get(EMBED_KEY) or {}
    out: dict[str, dict[str, Any]] = {}
    todo = [m for m in wanted if m in catalog]
    seen: set[str] = set()
    while todo:
        spec = catalog.get(todo.pop())
        if spec.id in seen:
            continue
        seen.add(spec.id)
        if spec.system is not None:
            todo += [p.model for p in spec.system.parts if p.model in catalog]
            if spec.system.chassis and spec.system.chassis in catalog:
                todo.append(spec.system.chassis)
        if spec.cable is not None and spec.cable.transceiver in catalog:
            todo.append(spec.cable.transceiver)
        if not spec.is_user:
            continue
        data = raw_user_file(spec)
        if data is None and isinstance(previous, dict) and isinstance(previous.get(spec.id),
                                                                      dict):
            data = previous[spec.id]
        if data is not None:
            out[spec.id] = data
    return dict(sorted(out.items()))
