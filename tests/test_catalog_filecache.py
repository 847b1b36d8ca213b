"""The parsed-data cache of the shipped catalog (catalog/filecache.py): a second start reads
no YAML and builds the same catalog; a changed file, a broken cache or a folder that cannot be
written changes nothing but the speed."""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest

from rackdesigner.catalog import catalog as catalog_module
from rackdesigner.catalog import filecache


@pytest.fixture
def shipped_copy(tmp_path, monkeypatch):
    """A copy of the shipped catalog folder standing in for it, and a cache folder."""
    folder = tmp_path / "catalog"
    shutil.copytree(catalog_module.catalog_dir(), folder)
    monkeypatch.setattr(catalog_module, "catalog_dir", lambda: folder)
    monkeypatch.setenv(filecache.CACHE_ENV, str(tmp_path / "cache"))
    return folder


def _yaml_parses(monkeypatch) -> list[str]:
    import rackdesigner.inputs as inputs

    parsed: list[str] = []
    real = inputs.load_yaml

    def counting(text, path, **kw):
        parsed.append(str(path))
        return real(text, path, **kw)

    monkeypatch.setattr(inputs, "load_yaml", counting)
    return parsed


def test_a_second_start_reads_no_yaml_and_builds_the_same_catalog(shipped_copy, monkeypatch):
    parsed = _yaml_parses(monkeypatch)
    first = catalog_module.load_catalog()
    assert len(parsed) == len(list(shipped_copy.rglob("*.yaml")))
    parsed.clear()
    second = catalog_module.load_catalog()
    assert parsed == []
    assert [second.get(s.id) for s in first] == list(first)


def test_a_changed_file_is_read_again(shipped_copy, monkeypatch):
    catalog_module.load_catalog()
    parsed = _yaml_parses(monkeypatch)
    path = shipped_copy / next(p.relative_to(shipped_copy)  # a plain (unquoted) description
                               for p in sorted(shipped_copy.rglob("*.yaml"))
                               if re.search(r"^description: [^\"'>|]", p.read_text(), re.M))
    text = path.read_text().replace("description: ", "description: changed ", 1)
    path.write_text(text)
    os.utime(path, ns=(1, 1))  # even with an older time stamp: the size differs
    spec = next(s for s in catalog_module.load_catalog() if s.id == path.stem)
    assert parsed == [path.name] and spec.description.startswith("changed")


def test_a_broken_or_foreign_cache_is_ignored(shipped_copy, monkeypatch, tmp_path):
    want = list(catalog_module.load_catalog())
    (cache_file,) = (tmp_path / "cache").iterdir()
    for junk in ("{not json", json.dumps({"format": 99, "files": {}}), json.dumps([1, 2])):
        cache_file.write_text(junk)
        assert list(catalog_module.load_catalog()) == want


def test_a_cache_folder_that_cannot_be_written_is_no_error(shipped_copy, monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go")
    monkeypatch.setenv(filecache.CACHE_ENV, str(blocker / "cache"))
    assert len(list(catalog_module.load_catalog())) > 10


def test_caching_can_be_turned_off(shipped_copy, monkeypatch, tmp_path):
    monkeypatch.setenv(filecache.CACHE_ENV, "off")
    parsed = _yaml_parses(monkeypatch)
    catalog_module.load_catalog()
    catalog_module.load_catalog()
    assert len(parsed) == 2 * len(list(shipped_copy.rglob("*.yaml")))
    assert not (tmp_path / "cache").exists()


def test_only_data_json_holds_exactly_is_kept(tmp_path, monkeypatch):
    import datetime

    monkeypatch.setenv(filecache.CACHE_ENV, str(tmp_path / "cache"))
    source = tmp_path / "f.yaml"
    source.write_text("x")
    cache = filecache.ParsedFiles(tmp_path, "t")
    for value in ({1: "int key"}, {"when": datetime.date(2024, 1, 1)}, {"x": float("nan")}):
        cache.put(source, value)
        assert cache.get(source) is filecache.MISSING
    cache.put(source, {"ok": [1, 2.5, True, None, "text"]})
    assert cache.get(source) == {"ok": [1, 2.5, True, None, "text"]}
