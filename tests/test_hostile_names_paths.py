"""Names are data (issue 31, item 1): an id from a file never names a place to write.

Every writer that names an output file after an id read from a file — `pack --unpack`
(embedded model ids), `export -f netbox` (device-type slugs = catalog model ids), `catalog
import-netbox` and the designer's device-type import (NetBox slugs) — is driven with hostile ids.
Each must refuse with a located error (exit 2 for the CLI, a message box in the designer) and
leave every file outside its folder as it was. A source scan keeps new writers honest: a file
name built from an f-string must go through `rackdesigner.io.names.path_inside`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml
from hostile import switch_model

from rackdesigner.catalog.user import ENV
from rackdesigner.cli import main
from rackdesigner.io.names import MAX_NAME_BYTES, UnsafeNameError, check_file_name, path_inside

SOURCE = Path(__file__).parents[1] / "tests" / "data" / "interop" / "netbox-acme-fabricbox-32.yaml"
SWITCH = switch_model()


def hostile_ids(victim: Path) -> dict[str, str]:
    """Ids that are not plain file names; `victim` is an existing file outside every folder."""
    return {
        "parent": "../../victim",
        "parent-of-folder": "../victim",
        "absolute": str(victim.with_suffix("")),
        "sub-folder": "a/b",
        "dot-dot": "..",
        "dot": ".",
        "backslash": "..\\..\\victim",
        "nul": "vic\x00tim",
        "newline": "a\nb",
        "empty": "",
        "very-long": "x" * 300,
    }


CASES = sorted(hostile_ids(Path("/v.yaml")))


@pytest.fixture
def arena(tmp_path, monkeypatch):
    """tmp_path/work/out is the folder written to; tmp_path/victim.yaml must survive."""
    monkeypatch.setenv(ENV, "")
    from rackdesigner.catalog import reset_default_catalog

    reset_default_catalog()
    victim = tmp_path / "victim.yaml"
    victim.write_text("precious\n")
    (tmp_path / "work").mkdir()
    yield tmp_path
    reset_default_catalog()


def _files(root: Path, skip: Path) -> dict[str, bytes]:
    out = {}
    for folder, _dirs, names in os.walk(root):
        if Path(folder) == skip or skip in Path(folder).parents:
            continue
        for name in names:
            path = Path(folder) / name
            out[str(path)] = path.read_bytes() if not path.is_symlink() else b"link"
    return out


def _packed(path: Path, model_id: str) -> Path:
    model = dict(SWITCH, id=model_id)
    doc = {"schema_version": 1, "name": "hostile ids",
           "devices": [{"id": "sw-1", "model": model_id}, {"id": "sw-2", "model": model_id}],
           "links": [], "x-rackdesigner-models": {model_id: model}}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _device_type(path: Path, slug: str) -> Path:
    data = yaml.safe_load(SOURCE.read_text())
    data["slug"] = slug
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _pack_unpack(root: Path, model_id: str) -> tuple[int, Path, Path]:
    design = _packed(root / "work" / "d.yaml", model_id)
    out = root / "work" / "out"
    return main(["pack", str(design), "--unpack", str(out)]), design, out


def _export_netbox(root: Path, model_id: str) -> tuple[int, Path, Path]:
    design = _packed(root / "work" / "d.yaml", model_id)
    out = root / "work" / "out"
    return main(["export", str(design), "-f", "netbox", "-o", str(out)]), design, out


def _catalog_import(root: Path, slug: str) -> tuple[int, Path, Path]:
    source = _device_type(root / "work" / "type.yaml", slug)
    out = root / "work" / "out"
    code = main(["catalog", "import-netbox", str(source), "--into", str(out), "--kind",
                 "switch", "--port", "other=ethernet:400", "--force"])
    return code, source, out


CLI_WRITERS = {"pack --unpack": _pack_unpack, "export -f netbox": _export_netbox,
               "catalog import-netbox": _catalog_import}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("writer", sorted(CLI_WRITERS))
def test_cli_writer_refuses_an_id_that_is_not_a_plain_name(arena, writer, case, capsys):
    ident = hostile_ids(arena / "victim.yaml")[case]
    before = _files(arena, arena / "work")
    code, source, out = CLI_WRITERS[writer](arena, ident)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert str(source) in err  # located: the file the id came from
    assert _files(arena, arena / "work") == before  # nothing outside was written or replaced
    assert (arena / "victim.yaml").read_text() == "precious\n"
    written = [p for p in out.rglob("*") if p.is_file()] if out.exists() else []
    assert all(out in p.parents for p in written)


@pytest.mark.parametrize("writer", sorted(CLI_WRITERS))
def test_cli_writer_still_writes_a_plain_id(arena, writer, capsys):
    code, _source, out = CLI_WRITERS[writer](arena, "acme-x1")
    assert code == 0, capsys.readouterr().err
    assert any(p.name.startswith("acme-x1") for p in out.rglob("*.yaml"))


def test_unpack_does_not_follow_a_link_out_of_the_folder(arena, capsys):
    out = arena / "work" / "out"
    out.mkdir()
    (out / "acme-x1.yaml").symlink_to(arena / "victim.yaml")
    design = _packed(arena / "work" / "d.yaml", "acme-x1")
    assert main(["pack", str(design), "--unpack", str(out)]) == 2
    assert "leads out of" in capsys.readouterr().err
    assert (arena / "victim.yaml").read_text() == "precious\n"


@pytest.mark.parametrize("case", ["parent", "absolute", "nul", "empty", "very-long"])
def test_designer_device_type_import_refuses_a_hostile_slug(arena, case, qtbot, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

    from rackdesigner.ui.interop_menu import import_device_types_dialog

    mine = arena / "work" / "mine"
    monkeypatch.setenv(ENV, str(mine))
    source = _device_type(arena / "work" / "type.yaml", hostile_ids(arena / "victim.yaml")[case])
    shown: list[str] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(source)], ""))
    monkeypatch.setattr(QMessageBox, "critical", lambda _w, _t, text, *a: shown.append(text))
    monkeypatch.setattr(QMessageBox, "information", lambda *a: None)
    from PySide6.QtWidgets import QInputDialog

    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: ("ethernet", True))
    monkeypatch.setattr(QInputDialog, "getDouble", lambda *a, **k: (400.0, True))

    class Window(QWidget):
        def status_message(self, text: str) -> None:
            pass

    window = Window()
    qtbot.addWidget(window)
    before = _files(arena, arena / "work")
    assert import_device_types_dialog(window) == 0
    assert shown and str(source) in shown[0]
    assert _files(arena, arena / "work") == before
    assert not mine.exists() or not any(mine.iterdir())


@pytest.mark.parametrize("case", CASES)
def test_path_inside_refuses_every_hostile_id(tmp_path, case):
    with pytest.raises(UnsafeNameError):
        path_inside(tmp_path, hostile_ids(tmp_path / "v.yaml")[case], ".yaml")


def test_plain_names_pass_and_the_length_limit_counts_bytes(tmp_path):
    assert path_inside(tmp_path, "acme-x1", ".yaml") == tmp_path / "acme-x1.yaml"
    assert check_file_name("gb200 nvl72 (custom)") == "gb200 nvl72 (custom)"
    check_file_name("é" * ((MAX_NAME_BYTES - 5) // 2), ".yaml")
    with pytest.raises(UnsafeNameError):
        check_file_name("é" * (MAX_NAME_BYTES // 2 + 1))


#: f-strings that build a file name from a value, e.g. `folder / f"{model_id}.yaml"`.
_BUILT_NAME = re.compile(r"""/\s*f["'][^"']*\{""")
#: Files whose built names come from the program itself, not from a file (checked by hand).
_OWN_NAMES = {
    "rackdesigner/catalog/filecache.py",  # a cache name from a digest of the catalog
    "rackdesigner/ui/untitled.py",  # the user's own "Save as" name, in the folder they chose
    "rackdesigner/interop/folders.py",  # the lock beside the export folder the user named
    "rackdesigner/workload/profile.py",  # bundled profile refs, read not written
    "rackdesigner/workload/models.py",  # bundled model ids, read not written
}


def test_no_writer_builds_a_file_name_from_data_without_the_check():
    root = Path(__file__).parents[1]
    offenders = []
    for path in sorted((root / "rackdesigner").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in _OWN_NAMES or rel == "rackdesigner/io/names.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if _BUILT_NAME.search(line) and not line.lstrip().startswith("#"):
                offenders.append(f"{rel}:{number}: {line.strip()}")
    assert not offenders, ("file names built from values must go through "
                           "rackdesigner.io.names.path_inside:\n" + "\n".join(offenders))
