"""The program's entry (`python -m rackdesigner`, the `rackdesigner` script): a verb that keeps
its design until the process ends (`estimate`) ends without the interpreter's teardown, and
prints, to a file or a pipe, the same bytes with the same exit status as `main` run in a
process that goes on (issue 38 item 19)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rackdesigner._resources import example_paths
from rackdesigner.cli import main

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = str(next(p for p in example_paths() if p.name == "dgx-h100.yaml"))


def _program(args: list[str], stdout_path: Path) -> tuple[int, str]:
    base = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with open(stdout_path, "w") as out:  # a file: block-buffered, as a user's `> FILE`
        result = subprocess.run([sys.executable, "-m", "rackdesigner", *args], cwd=REPO,
                                stdout=out, stderr=subprocess.PIPE, text=True, timeout=180,
                                env={**base, "QT_QPA_PLATFORM": "offscreen"})
    return result.returncode, result.stderr


def _in_process(args: list[str], capsys) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.slow
@pytest.mark.parametrize(("args", "status"), [
    (["--model", "llama3-8b", "--tp", "8", "--gbs", "64"], 0),
    (["--model", "llama3-8b", "--tp", "8", "--gbs", "64", "--json"], 0),
    (["--model", "llama3-8b", "--tp", "8", "--gbs", "64", "--tokens", "1T"], 0),
    (["--model", "llama3.1-405b", "--tp", "8", "--gbs", "8"], 1),  # does not fit
    (["--model", "llama3-8b", "--tp", "3", "--gbs", "64"], 2),  # TP does not divide 8 GPUs
], ids=lambda a: " ".join(a) if isinstance(a, list) else str(a))
def test_estimate_as_a_program_prints_what_main_prints(args, status, tmp_path, capsys):
    want = _in_process(["estimate", EXAMPLE, *args], capsys)
    got_status, got_err = _program(["estimate", EXAMPLE, *args], tmp_path / "out.txt")
    assert want[0] == status
    assert (got_status, (tmp_path / "out.txt").read_text(), got_err) == want


@pytest.mark.slow
def test_a_bad_file_is_still_a_located_error_and_exit_2(tmp_path, capsys):
    broken = tmp_path / "broken.yaml"
    text = Path(EXAMPLE).read_text()
    broken.write_text(text[:text.rindex("\n", 0, len(text) - 1) + 1])  # no end check line
    args = ["estimate", str(broken), "--model", "llama3-8b", "--gbs", "8"]
    status, err = _program(args, tmp_path / "out.txt")
    assert (status, err) == _in_process(args, capsys)[::2]
    assert status == 2 and str(broken) in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize("verb", [
    ["validate"], ["validate", "--json"], ["validate", "--all"], ["simulate"],
    ["simulate", "--json"], ["whatif", "--each", "switch", "--top", "3"],
    ["whatif", "--each", "link", "--json"],
], ids=" ".join)
def test_other_verbs_that_keep_their_design_print_what_main_prints(verb, tmp_path, capsys):
    # a design with findings (exit 1: a port used twice) and a clean one, as a user runs them
    broken = tmp_path / "reused.yaml"
    text = Path(EXAMPLE).read_text().splitlines(keepends=True)
    links = [i for i, line in enumerate(text) if line.startswith("- {id: ") and ", a: " in line]
    first, second = text[links[0]], text[links[1]]
    a_of = first.split(", a: ")[1].split(",")[0]
    b_of = second.split(", a: ")[1].split(",")[0]
    text[links[1]] = second.replace(f", a: {b_of},", f", a: {a_of},")
    broken.write_text("".join(text))
    for path in (EXAMPLE, str(broken)):
        want = _in_process([*verb[:1], path, *verb[1:]], capsys)
        got_status, got_err = _program([*verb[:1], path, *verb[1:]], tmp_path / "out.txt")
        assert (got_status, (tmp_path / "out.txt").read_text(), got_err) == want
    if verb[0] == "validate":
        assert want[0] == 1  # the broken one: the reused port is an error
