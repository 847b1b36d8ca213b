"""A local-process sweep whose worker dies (issue 31 §5): `kill -9` or the OOM killer of one
worker used to end the sweep with a BrokenProcessPool traceback, exit 1 and no results file.
Now the dead worker's point is failed with the reason, the points running beside it are run
again, a new pool takes the rest, and the file is written (exit 1: a point failed)."""

from __future__ import annotations

import csv
import signal

import pytest
from hostile import run_cli

from rackdesigner.sweep.local import KILL_POINT_ENV, exit_reason

SPEC = ("schema_version: 1\ngenerate: single-leaf\nfixed: {system: dgx-h100, switch: qm9700}\n"
        "grid:\n  nodes: [1, 2, 3, 4]\n")


@pytest.mark.parametrize("victim", [1, 3])
def test_a_killed_worker_fails_its_point_and_the_rest_are_written(victim, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    out = tmp_path / "out.csv"
    result = run_cli(["sweep", str(spec), "-o", str(out), "--workers", "2", "--quiet"],
                     timeout=180, env={KILL_POINT_ENV: str(victim)})
    text = result.stdout + result.stderr
    assert "Traceback" not in text and "BrokenProcessPool" not in text, text[-3000:]
    assert result.returncode == 1, text[-2000:]  # a failed point, as docs/sweeps.md says
    with open(out, newline="", encoding="utf-8") as handle:
        rows = {int(r["point"]): r for r in csv.DictReader(handle)}
    assert sorted(rows) == [1, 2, 3, 4]
    assert rows[victim]["status"] == "failed"
    assert "died" in rows[victim]["error"] and "signal 9" in rows[victim]["error"]
    assert rows[victim]["gpus"] == ""
    for index, row in rows.items():
        if index != victim:  # bystanders, those before and those after the death
            assert row["status"] == "ok", row
            assert int(row["gpus"]) == 8 * int(row["nodes"])
    assert f"point {victim}" in result.stderr


def test_without_a_death_every_point_is_ok(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    out = tmp_path / "out.csv"
    result = run_cli(["sweep", str(spec), "-o", str(out), "--workers", "2", "--quiet"],
                     timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    with open(out, newline="", encoding="utf-8") as handle:
        assert [r["status"] for r in csv.DictReader(handle)] == ["ok"] * 4


def test_the_exit_reason_names_the_signal():
    assert "kill -9 or the out-of-memory killer" in exit_reason(-signal.SIGKILL)
    assert "SIGSEGV" in exit_reason(-signal.SIGSEGV)
    assert exit_reason(1) == "exit status 1"
