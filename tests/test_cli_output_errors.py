"""Every verb's output under faults (issue 12, item 8): an output that cannot be written is one
message and exit 2 (never a traceback, and never 1, which means "design errors" for validate);
image files are written atomically, so a failed render leaves the previous image intact."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rackdesigner._resources import example_paths

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = str(next(p for p in example_paths() if p.name == "dgx-h100.yaml"))


def _cli(*args: str, stdout=subprocess.PIPE, **env: str) -> subprocess.CompletedProcess[str]:
    # as a user's shell runs it: stdout to a file is block-buffered (PYTHONUNBUFFERED, set on
    # some CI and build machines, hid that `--version > /dev/full` failed only at exit, 120)
    base = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run([sys.executable, "-m", "rackdesigner", *args], cwd=REPO,
                          stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=180,
                          env={**base, "QT_QPA_PLATFORM": "offscreen", **env})


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ["validate", EXAMPLE], ["simulate", "--json", EXAMPLE], ["bom", EXAMPLE], ["catalog"],
    ["examples"], ["generate", "dgx-h100", "-o", "-"], ["--version"],
], ids=lambda a: " ".join(a).replace(EXAMPLE, "EXAMPLE"))
def test_stdout_on_a_full_disk_is_a_message_and_exit_2(args):
    with open("/dev/full", "w") as full:
        result = _cli(*args, stdout=full)
    assert result.returncode == 2, result.stderr
    assert result.stderr == ("rackdesigner: error: cannot write the output: No space left on "
                             "device\n")


@pytest.mark.slow
@pytest.mark.parametrize("args", [["--help"], ["catalog"], ["generate", "dgx-h100", "-o", "-"]],
                         ids=" ".join)
def test_a_reader_that_goes_away_ends_the_output_quietly(args):
    """`rackdesigner catalog | head -1`: the reader has what it wanted; no message, exit 0
    (the pipe is closed before the command writes, as when `head` has already exited)."""
    read, write = os.pipe()
    os.close(read)
    with os.fdopen(write, "w") as closed:
        result = _cli(*args, stdout=closed)
    assert (result.returncode, result.stderr.strip()) == (0, ""), result.stderr


@pytest.mark.slow
def test_output_files_that_are_devices_are_refused(tmp_path):
    for args in (["generate", "dgx-h100", "-o", "/dev/full"],
                 ["render", EXAMPLE, "-o", str(tmp_path / "x.png")]):
        if args[0] == "render":
            os.mkfifo(tmp_path / "x.png")
        result = _cli(*args)
        assert result.returncode == 2
        assert "not a regular file" in result.stderr and "Traceback" not in result.stderr


FULL_DISK = """
import errno, os, sys
real_write = os.write
def write_half(fd, data):
    if len(data) > 1000:  # the image, not the messages
        real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return real_write(fd, data)
os.write = write_half
from rackdesigner.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_render_on_a_full_disk_keeps_the_previous_image(tmp_path, suffix):
    image = tmp_path / f"design{suffix}"
    first = _cli("render", EXAMPLE, "-o", str(image))
    assert first.returncode == 0, first.stderr
    before = image.read_bytes()
    result = subprocess.run([sys.executable, "-c", FULL_DISK, "render", EXAMPLE, "-o",
                             str(image), "--scale", "2"], cwd=REPO, capture_output=True,
                            text=True, timeout=180,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 2
    assert f"cannot write {image}: No space left on device" in result.stderr
    assert "Traceback" not in result.stderr
    assert image.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [image.name]


@pytest.mark.slow
def test_render_refuses_coordinates_too_far_to_draw(tmp_path):
    layout = tmp_path / "far.yaml"
    layout.write_text("schema_version: 1\ndevices:\n"
                      "- {id: gpu-1, model: h100-sxm5, pos: [1.7e+308, -1.7e+308]}\n"
                      "- {id: gpu-2, model: h100-sxm5, pos: [-1.7e+308, 1.7e+308]}\n")
    result = _cli("render", str(layout), "-o", str(tmp_path / "far.png"))
    assert result.returncode == 2
    # refused where it is read now (issue 24: no input reaches the canvas it would crash)
    assert f"{layout}:3: device gpu-1: 'pos' must be [x, y] with two finite numbers within " \
        "±1e+150, got [1.7e+308, -1.7e+308]" in result.stderr
    assert not (tmp_path / "far.png").exists()


@pytest.mark.slow
def test_generate_does_not_replace_a_read_only_file_and_writes_through_symlinks(tmp_path):
    protected = tmp_path / "protected.yaml"
    protected.write_text("mine\n")
    protected.chmod(0o444)
    result = _cli("generate", "dgx-h100", "-o", str(protected))
    assert result.returncode == 2
    assert f"cannot write {protected}: the file is read-only" in result.stderr
    assert protected.read_text() == "mine\n"
    real = tmp_path / "repo" / "design.yaml"
    real.parent.mkdir()
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    assert _cli("generate", "dgx-h100", "-o", str(link)).returncode == 0
    assert link.is_symlink() and real.read_text().startswith("# RackDesigner layout")
