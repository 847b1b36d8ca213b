"""Sweeps on dask.distributed: a LocalCluster, and a real `dask scheduler` + `dask worker` that
the test starts on 127.0.0.1 (bounded in time, and stopping exactly the processes it started).
Every scheduler gives the same rows as Dask's synchronous one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rackdesigner.cli import main
from rackdesigner.sweep import SweepRunError, parse_spec, run_sweep

ROOT = Path(__file__).resolve().parent.parent
SPEC = """\
schema_version: 1
generate: single-leaf
fixed: {switch: qm9700}
grid: {system: [dgx-h100, dgx-a100], nodes: [1, 2, 9]}
"""
START_TIMEOUT_S = 60


@pytest.fixture(scope="module")
def reference():
    return run_sweep(parse_spec(SPEC), "synchronous").rows


def test_local_cluster_gives_the_same_rows_as_the_synchronous_scheduler(reference):
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=":0") as cluster, \
            Client(cluster, set_as_default=False) as client:
        by_address = run_sweep(parse_spec(SPEC), cluster.scheduler_address)
        by_client = run_sweep(parse_spec(SPEC), client)
    assert by_address.rows == reference
    assert by_client.rows == reference
    assert [r["status"] for r in reference].count("failed") == 2  # nine nodes on one leaf


def _start(args: list[str], log: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), DASK_DISTRIBUTED__WORKER__DAEMON="False")
    with open(log, "wb") as out:
        return subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_" + args[0],
                                 *args[1:]], stdout=out, stderr=subprocess.STDOUT, env=env,
                                cwd=ROOT)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


@pytest.fixture
def real_cluster(tmp_path):
    """`dask scheduler` and one `dask worker` (no nanny: one process each) on 127.0.0.1."""
    file = tmp_path / "scheduler.json"
    started: list[subprocess.Popen] = []
    try:
        started.append(_start(["scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(file)],
                              tmp_path / "scheduler.log"))
        deadline = time.monotonic() + START_TIMEOUT_S
        while not file.exists() or not file.read_text().strip():
            if started[0].poll() is not None or time.monotonic() > deadline:
                pytest.fail("dask scheduler did not start:\n"
                            + (tmp_path / "scheduler.log").read_text())
            time.sleep(0.05)
        address = json.loads(file.read_text())["address"]
        started.append(_start(["worker", address, "--no-nanny", "--nthreads", "2",
                               "--no-dashboard", "--death-timeout", "60",
                               "--local-directory", str(tmp_path / "worker")],
                              tmp_path / "worker.log"))
        yield address
    finally:
        for proc in reversed(started):
            _stop(proc)


@pytest.mark.slow
def test_real_scheduler_and_worker_give_the_same_rows(real_cluster, reference, tmp_path,
                                                      capsys):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    out = tmp_path / "results.json"
    status = main(["sweep", str(spec), "-o", str(out), "--scheduler", real_cluster])
    assert status == 1, capsys.readouterr().err  # two points fail, by design of the spec
    assert "6 points (4 ok, 2 failed)" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["scheduler"] == real_cluster
    assert data["rows"] == list(reference)


@pytest.mark.slow
def test_unreachable_scheduler_is_a_clear_error(monkeypatch):
    from rackdesigner.sweep import runner

    monkeypatch.setattr(runner, "CONNECT_TIMEOUT_S", 0.5)
    with pytest.raises(SweepRunError, match=r"cannot reach the Dask scheduler at "
                       r"tcp://127\.0\.0\.1:9"):
        run_sweep(parse_spec(SPEC), "tcp://127.0.0.1:9")


@pytest.mark.slow
def test_local_processes_give_the_same_rows(reference):
    assert run_sweep(parse_spec(SPEC), "processes", workers=2).rows == reference
