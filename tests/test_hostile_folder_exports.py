"""Folder exports and NetBox imports that lose work (issue 31 §6, §9).

Two exports to one folder at once: one deleted the other's temporary folder, so 3 of 208 pairs
left an incomplete folder behind a consistent manifest, both exiting 0. Now exports of a folder
take turns on a lock beside it, a live export's temporary folder is never removed, and an
export that cannot get the lock in time says what holds it. A folder export to a symlinked
folder swapped the link for a folder and left a temporary behind: now the link's target is
written and the link stays. A NetBox import that keeps no device, or meets an empty
device-type file, exited 0 with an empty design: now it is refused (exit 2) naming the file.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

import pytest
from hostile import assert_clean_refusal, run_cli

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.interop import EXPORTERS, ExportError, export, folders
from rackdesigner.interop.folders import MANIFEST, lock_path, verify_manifest
from rackdesigner.io import save_layout

FOLDER_EXPORTS = [name for name, e in EXPORTERS.items() if e.suffixes == ("",)]


def _small(name: str = "small"):
    layout = generate("single-leaf", system="dgx-h100", switch="qm9700", nodes=2)
    layout.set_meta(name=name)
    return layout


def _leftovers(parent: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name not in keep)


@pytest.mark.parametrize("fmt", FOLDER_EXPORTS)
def test_an_export_waits_for_another_export_of_the_same_folder(fmt, tmp_path, monkeypatch):
    out = tmp_path / "out"
    monkeypatch.setattr(folders, "LOCK_WAIT_S", 30.0)
    holder = os.open(lock_path(out), os.O_RDWR | os.O_CREAT)  # another export is running
    fcntl.flock(holder, fcntl.LOCK_EX)
    done = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            export(_small(), fmt, out)
        except BaseException as exc:
            errors.append(exc)
        done.set()

    worker = threading.Thread(target=run)
    worker.start()
    assert not done.wait(0.5)  # it waits while the other export holds the folder
    assert not out.exists()
    os.unlink(lock_path(out))  # the other export ends as an export ends: file gone, lock let go
    os.close(holder)
    worker.join(30)
    assert not errors, errors
    assert verify_manifest(out) == (None, [])
    assert _leftovers(tmp_path, {"out"}) == []


@pytest.mark.parametrize("fmt", FOLDER_EXPORTS)
def test_a_live_exports_temporary_folder_is_never_removed(fmt, tmp_path, monkeypatch):
    out = tmp_path / "out"
    export(_small(), fmt, out)
    live = tmp_path / f".out.{folders.TEMP_MARK}livewriter.tmp"  # another export, mid-write
    live.mkdir()
    (live / "half-written.csv").write_text("name\n")
    holder = os.open(lock_path(out), os.O_RDWR | os.O_CREAT)
    fcntl.flock(holder, fcntl.LOCK_EX)
    monkeypatch.setattr(folders, "LOCK_WAIT_S", 0.3)
    try:
        with pytest.raises(ExportError, match="another export to this folder") as refusal:
            export(_small("second"), fmt, out)
        assert str(lock_path(out)) in str(refusal.value)
        assert (live / "half-written.csv").exists()  # left alone: its writer is alive
        assert verify_manifest(out) == (None, [])
    finally:
        os.close(holder)
    export(_small("third"), fmt, out)  # its writer is gone now: a crashed export's leftover
    assert not live.exists()
    assert _leftovers(tmp_path, {"out"}) == []


@pytest.mark.parametrize("fmt", FOLDER_EXPORTS)
def test_concurrent_exports_leave_one_whole_export(fmt, tmp_path):
    out = tmp_path / "out"
    layouts = [_small(f"design {i}") for i in range(2)]
    for _ in range(6):
        barrier = threading.Barrier(2)
        errors: list[BaseException] = []

        def run(layout, barrier=barrier, errors=errors) -> None:
            barrier.wait()
            try:
                export(layout, fmt, out)
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(layout,)) for layout in layouts]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert not errors, errors
        assert verify_manifest(out) == (None, [])
        assert _leftovers(tmp_path, {"out"}) == []


@pytest.mark.parametrize("fmt", FOLDER_EXPORTS)
def test_a_symlinked_folder_is_written_through(fmt, tmp_path):
    real = tmp_path / "real"
    link = tmp_path / "link"
    link.symlink_to(real.name)  # dangling at first: the export makes the target
    design = tmp_path / "d.yaml"
    save_layout(_small(), design)
    for _ in range(2):  # a new folder, then a replacement
        result = run_cli(["export", str(design), "-f", fmt, "-o", str(link)])
        assert result.returncode == 0, result.stderr
        assert link.is_symlink() and os.readlink(link) == real.name
        assert (real / MANIFEST).is_file()
        assert verify_manifest(link) == (None, [])
        assert _leftovers(tmp_path, {"real", "link", "d.yaml"}) == []


def test_a_crashed_exports_lock_does_not_block_the_next(tmp_path, monkeypatch):
    out = tmp_path / "out"
    lock_path(out).write_text("")  # left by an export killed with -9 (no process holds it)
    monkeypatch.setattr(folders, "LOCK_WAIT_S", 0.3)
    export(_small(), "netbox", out)
    assert verify_manifest(out) == (None, [])
    assert _leftovers(tmp_path, {"out"}) == []


# ---- a NetBox import that keeps nothing ---------------------------------------------------
@pytest.fixture()
def netbox_folder(tmp_path) -> Path:
    out = tmp_path / "nb"
    export(_small(), "netbox", out)
    (out / MANIFEST).unlink()  # the cases below edit the files by hand
    return out


def _import(folder: Path, tmp_path: Path):
    return run_cli(["import", "netbox", str(folder), "-o", str(tmp_path / "i.yaml")])


@pytest.mark.parametrize("content", [b"", b"# only a comment\n", b"- a list\n",
                                     b"manufacturer: x\n"])
def test_an_empty_or_foreign_device_type_file_is_refused(content, netbox_folder, tmp_path):
    bad = next((netbox_folder / "03-device-types").glob("*.yaml"))
    bad.write_bytes(content)
    result = _import(netbox_folder, tmp_path)
    assert_clean_refusal(result, bad)
    assert not (tmp_path / "i.yaml").exists()


def test_an_import_whose_devices_are_all_unknown_is_refused(netbox_folder, tmp_path):
    devices = netbox_folder / "06-devices.csv"
    lines = devices.read_text().splitlines()
    header = lines[0].split(",")
    column = header.index("device_type")
    rows = []
    for line in lines[1:]:
        fields = line.split(",")
        fields[column] = "Unknown Box"
        rows.append(",".join(fields))
    devices.write_text("\n".join([lines[0], *rows]) + "\n")
    result = _import(netbox_folder, tmp_path)
    assert_clean_refusal(result, devices)
    assert "Unknown Box" in result.stderr
    assert not (tmp_path / "i.yaml").exists()


def test_an_import_with_no_device_row_is_refused(netbox_folder, tmp_path):
    devices = netbox_folder / "06-devices.csv"
    devices.write_text(devices.read_text().splitlines()[0] + "\n")
    result = _import(netbox_folder, tmp_path)
    assert_clean_refusal(result, devices)


def test_an_import_that_keeps_a_device_still_works(netbox_folder, tmp_path, capsys):
    assert main(["import", "netbox", str(netbox_folder), "-o", str(tmp_path / "i.yaml")]) == 0
    assert (tmp_path / "i.yaml").is_file()
