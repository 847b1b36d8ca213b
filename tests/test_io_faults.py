"""Files under faults (issue 12): cut files, special files, symlinks, read-only targets, saves
killed with -9. What concerns exit codes, signals or other processes runs in a subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rackdesigner._resources import example_paths
from rackdesigner.io import (
    LayoutFileError,
    NotRegularFileError,
    ReadOnlyFileError,
    dump_layout_text,
    load_layout,
    parse_layout_text,
    save_layout,
    write_bytes,
    write_text,
)
from rackdesigner.io.atomic import TEMP_MARK, clean_stale_temps

REPO = Path(__file__).resolve().parent.parent


def _cli(*args: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rackdesigner", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout, **kwargs)


def _example(name: str = "dgx-h100-2node-ib.yaml") -> Path:
    return next(p for p in example_paths() if p.name == name)


# ---- 1. the end check ---------------------------------------------------------------------

@pytest.mark.slow
def test_a_cut_file_is_refused_by_validate_and_simulate(tmp_path):
    lines = _example().read_text(encoding="utf-8").splitlines(keepends=True)
    keep = int(len(lines) * 0.9)
    cut = tmp_path / "cut.yaml"
    cut.write_text("".join(lines[:keep]), encoding="utf-8")
    parse_layout_text("".join(lines[1:keep]))  # without its first line it is valid YAML...
    for verb in ("validate", "simulate"):
        result = _cli(verb, str(cut))
        assert result.returncode == 2, result.stdout + result.stderr
        assert f"{cut}:{keep}: file ends after line {keep}" in result.stderr
        assert "cut short" in result.stderr and "Traceback" not in result.stderr
        assert result.stdout == ""


def test_every_save_ends_with_counts_of_objects_not_keys(catalog, tmp_path):
    layout = load_layout(_example(), catalog)
    text = dump_layout_text(layout)
    groups, devices = len(list(layout.groups())), layout.device_count()
    assert text.endswith(f"# end of layout: {groups} groups, {devices} devices, "
                         f"{layout.link_count()} links\n")
    # keys added to entries (an extension, a future design-level field) change no count
    more_keys = text.replace("\n- {id: dgx-1.", "\n- {x-note: new, id: dgx-1.").replace(
        "schema_version: 1\n", "schema_version: 1\nx-sharp: {enabled: true}\n")
    assert parse_layout_text(more_keys).device_count() == devices
    # one device line removed in the middle: the end line catches it
    lines = text.splitlines(keepends=True)
    middle = next(i for i, line in enumerate(lines) if line.startswith("- {id: dgx-1.gpu"))
    with pytest.raises(LayoutFileError, match=rf"expected {devices} devices, found "
                                              rf"{devices - 1}") as info:
        parse_layout_text("".join(lines[:middle] + lines[middle + 1:]), "x.yaml")
    assert info.value.line == len(lines) - 1


def test_hand_written_and_older_files_load_without_an_end_line(catalog):
    body = "schema_version: 1\ndevices:\n- {id: gpu-1, model: h100-sxm5}\n"
    assert parse_layout_text(body).device_count() == 1
    older = "# RackDesigner layout (format: docs/file-format.md)\n" + body
    assert parse_layout_text(older).device_count() == 1
    # ...and get the end check the next time they are saved
    assert dump_layout_text(parse_layout_text(older)).endswith(
        "# end of layout: 0 groups, 1 device, 0 links\n")


def test_control_character_and_nul_after_8_kib_name_their_line(tmp_path):
    filler = "".join(f"- {{id: gpu-{i}, model: h100-sxm5}}\n" for i in range(400))
    assert len(filler) > 8192
    for char in ("\x00", "\x1b"):
        path = tmp_path / "late.yaml"
        path.write_bytes(f"schema_version: 1\ndevices:\n{filler}- {{id: x, model: a{char}}}\n"
                         .encode())
        with pytest.raises(LayoutFileError, match=f"U\\+{ord(char):04X}") as info:
            load_layout(path)
        assert info.value.line == 403


def test_dates_under_extension_keys_are_kept():
    layout = parse_layout_text("schema_version: 1\nx-reviewed: 2024-05-01\n")
    assert "x-reviewed: 2024-05-01\n" in dump_layout_text(layout)


# ---- 6. special files -----------------------------------------------------------------------

@pytest.mark.slow
def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path):
    fifo = tmp_path / "layout.yaml"
    os.mkfifo(fifo)
    for verb in ("validate", "simulate", "bom"):
        result = _cli(verb, str(fifo), timeout=60)  # hung forever before
        assert result.returncode == 2
        assert f"{fifo}: is a FIFO (named pipe), not a layout file" in result.stderr
    with pytest.raises(LayoutFileError, match="character device"):
        load_layout("/dev/zero")
    with pytest.raises(LayoutFileError, match="folder"):
        load_layout(tmp_path)


def test_baseline_reader_refuses_fifos_and_caps_the_size(tmp_path, monkeypatch):
    from rackdesigner.simulation import readback

    fifo = tmp_path / "base.json"
    os.mkfifo(fifo)
    with pytest.raises(readback.ResultFormatError, match="FIFO"):
        readback.load_result(fifo)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"schema": "rackdesigner.simulation/1", "pad": "x" * 4096}))
    monkeypatch.setattr(readback, "MAX_RESULT_BYTES", 1024)
    with pytest.raises(readback.ResultFormatError, match="at most 1,024 bytes"):
        readback.load_result(big)


# ---- 3. symlinks, modes, owners, read-only files --------------------------------------------

def test_save_writes_through_a_symlink(catalog, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    real = repo / "design.yaml"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "design.yaml"
    link.symlink_to(real)
    layout = load_layout(_example(), catalog)
    assert save_layout(layout, link) == real
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert load_layout(real, catalog) == layout
    assert sorted(p.name for p in repo.iterdir()) == ["design.yaml"]  # no temp left behind


def test_save_keeps_owner_and_refuses_read_only_unless_allowed(catalog, tmp_path):
    layout = load_layout(_example(), catalog)
    path = tmp_path / "design.yaml"
    path.write_text("old", encoding="utf-8")
    if os.geteuid() == 0:
        os.chown(path, 4321, 4321)
    path.chmod(0o444)
    with pytest.raises(ReadOnlyFileError, match="read-only"):
        save_layout(layout, path)
    assert path.read_text(encoding="utf-8") == "old"
    save_layout(layout, path, allow_read_only=True)
    assert path.stat().st_mode & 0o777 == 0o444
    if os.geteuid() == 0:
        assert (path.stat().st_uid, path.stat().st_gid) == (4321, 4321)
    assert load_layout(path, catalog) == layout


def test_special_targets_are_refused(tmp_path):
    fifo = tmp_path / "out.png"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError, match="FIFO"):
        write_bytes(fifo, b"x")
    with pytest.raises(NotRegularFileError, match="folder"):
        write_text(tmp_path, "x")


# ---- 4. kill -9 during a save -----------------------------------------------------------------

SAVER = textwrap.dedent("""
    import os, sys
    from rackdesigner.io import load_layout, save_layout

    layout = load_layout(sys.argv[1])
    real_fsync = os.fsync

    def stop_in_fsync(fd):
        print("in fsync", flush=True)  # the temp file is written and locked: kill me here
        sys.stdin.read()
        real_fsync(fd)

    os.fsync = stop_in_fsync
    save_layout(layout, sys.argv[2])
""")


def _saver_stopped_mid_save(target: Path) -> subprocess.Popen[str]:
    saver = subprocess.Popen([sys.executable, "-c", SAVER, str(_example()), str(target)],
                             cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert saver.stdout.readline() == "in fsync\n"
    return saver


def _temps(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if TEMP_MARK in p.name]


@pytest.mark.slow
def test_a_save_killed_with_sigkill_leaves_a_temp_the_next_save_removes(catalog, tmp_path):
    target = tmp_path / "design.yaml"
    saver = _saver_stopped_mid_save(target)
    saver.send_signal(signal.SIGKILL)
    saver.wait(timeout=60)
    saver.stdin.close()
    saver.stdout.close()
    leftovers = _temps(tmp_path)
    assert len(leftovers) == 1 and leftovers[0].name.startswith(".design.yaml.")
    assert not target.exists()
    layout = load_layout(_example(), catalog)
    save_layout(layout, target)
    assert _temps(tmp_path) == []
    assert load_layout(target, catalog) == layout


@pytest.mark.slow
def test_opening_in_the_designer_removes_a_crashed_saves_temp(qtbot, catalog, tmp_path):
    from PySide6.QtCore import QSettings

    from rackdesigner.ui import MainWindow

    target = tmp_path / "design.yaml"
    save_layout(load_layout(_example(), catalog), target)
    saver = _saver_stopped_mid_save(target)
    saver.kill()
    saver.wait(timeout=60)
    saver.stdin.close()
    saver.stdout.close()
    assert len(_temps(tmp_path)) == 1
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(target, settings=settings)
    qtbot.addWidget(window)
    assert _temps(tmp_path) == []


@pytest.mark.slow
def test_a_temp_held_by_a_live_save_is_left_alone(catalog, tmp_path):
    target = tmp_path / "design.yaml"
    saver = _saver_stopped_mid_save(target)
    try:
        held = _temps(tmp_path)
        assert clean_stale_temps(target) == []
        save_layout(load_layout(_example(), catalog), target)
        assert set(held) <= set(_temps(tmp_path))
    finally:
        saver.communicate("", timeout=60)  # let it finish its own save
        saver.stdout.close()
    assert saver.returncode == 0
    assert _temps(tmp_path) == []


def test_unrelated_hidden_files_are_never_removed(tmp_path):
    target = tmp_path / "design.yaml"
    others = [tmp_path / ".design.yaml.swp", tmp_path / ".design.yaml.mine.tmp",
              tmp_path / ".other.yaml.rackdesigner-abc.tmp"]
    for path in others:
        path.write_text("# RackDesigner layout\n", encoding="utf-8")
    write_text(target, "x")
    assert all(path.exists() for path in others)
