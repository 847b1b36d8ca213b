"""Small synthetic catalogs for tests: one YAML file per model written into a folder."""

from __future__ import annotations

from pathlib import Path

from rackdesigner.catalog import Catalog, load_catalog

HEAD = "schema: rackdesigner.device/1\nmanufacturer: Test\n"
SRC = "sources: {s: {title: test figure}}\n"


def build_catalog(folder: Path, specs: dict[str, str]) -> Catalog:
    """Write `model: body` entries (body = the file without schema, id and sources) and load."""
    paths = []
    for model, body in specs.items():
        path = folder / f"{model}.yaml"
        path.write_text(HEAD + f"id: {model}\n" + body + SRC)
        paths.append(path)
    return load_catalog(paths)
