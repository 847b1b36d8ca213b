"""`fit`: the compositions within a site and a budget and their Pareto front, each front point a
real design that respects the limits; the same answer on local processes and on a Dask
scheduler + worker; bad input located, exit 2."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rackdesigner.fit import search as fit_search
from rackdesigner.fit.search import FitError, fit
from rackdesigner.io import load_layout
from rackdesigner.model import ERROR, Site, check_layout
from rackdesigner.workload.jobfile import parse_job

ROOT = Path(__file__).resolve().parents[1]
SITE = Site(facility_power_kw=600, liquid_kw=250)
JOB = "model: llama3-8b\ngbs: 256\n"


@pytest.fixture(scope="module")
def small(request):
    mp = pytest.MonkeyPatch()
    mp.setattr(fit_search, "COUNTS_PER_TYPE", 3)
    request.addfinalizer(mp.undo)
    return fit(SITE, job=parse_job(JOB), switches=("qm9700",), oversubscriptions=(1.0,),
               scheduler="synchronous")


def test_every_front_point_respects_the_loop_and_the_feed(small):
    assert small.front and small.feasible <= len(small.candidates)
    for point in small.front:
        assert point.verified
        assert point.liquid_w <= SITE.liquid_kw * 1000 * (1 + 1e-9)
        assert point.facility_w <= SITE.facility_power_kw * 1000 * (1 + 1e-9)
        assert point.binding in fit_search.LIMITS
        assert point.facility_w == pytest.approx(point.it_w * point.pue)


def test_the_front_holds_a_hybrid_and_more_money_buys_more_tokens(small):
    assert any(len(p.counts) == 2 for p in small.front)  # NVL72 and DGX B200 together
    capex = [p.capex for p in small.front]
    tokens = [p.tokens_per_s for p in small.front]
    assert capex == sorted(capex) and tokens == sorted(tokens)


def test_a_larger_loop_never_shrinks_what_fits(small, monkeypatch):
    monkeypatch.setattr(fit_search, "COUNTS_PER_TYPE", 3)
    bigger = fit(Site(facility_power_kw=600, liquid_kw=500), job=parse_job(JOB),
                 switches=("qm9700",), oversubscriptions=(1.0,), scheduler="synchronous")
    assert max(p.tokens_per_s for p in bigger.front) >= max(p.tokens_per_s for p in small.front)


def test_the_json_keys_are_stable(small):
    point = small.to_dict()["pareto"][0]
    for key in ("systems", "gpus", "tokens_per_s", "capex", "tco", "liquid_kw",
                "facility_power_kw", "binding", "design"):
        assert key in point


def test_a_budget_binds(monkeypatch):
    monkeypatch.setattr(fit_search, "COUNTS_PER_TYPE", 3)
    result = fit(SITE, budget=6e6, job=parse_job(JOB), systems=("dgx-b200",),
                 switches=("qm9700",), oversubscriptions=(1.0,), scheduler="synchronous")
    assert result.front and all(p.capex <= 6e6 for p in result.front)
    assert result.front[-1].binding == "budget"


@pytest.mark.parametrize("kwargs, words", [
    ({"budget": 0.0}, "positive"),
    ({"budget": float("inf")}, "positive"),
    ({"systems": ("dgx-z9",)}, "is not a system"),
])
def test_bad_fit_arguments_are_refused(kwargs, words):
    with pytest.raises(FitError, match=words):
        fit(SITE, **kwargs)


def _cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "rackdesigner", "fit", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout)


@pytest.mark.parametrize("site, extra, words", [
    ("liquid_kw: -5\n", (), "SITE.yaml:1: site: 'liquid_kw' must be a positive number"),
    ("power:\n- {id: f, level: feed, capacity_kw: 10, parent: f}\n", (), "feeds itself"),
    ("liquid_kw: 100\n", ("--budget", "0"), "--budget must be a positive"),
    ("liquid_kw: 100\n", ("--serve", "x.yaml"), "x.yaml: no such serving job file"),
])
def test_bad_input_is_located_exit_2(tmp_path, site, extra, words):
    path = tmp_path / "SITE.yaml"
    path.write_text(site)
    run = _cli("--site", str(path), *extra)
    assert run.returncode == 2 and words in run.stderr and "Traceback" not in run.stderr


@pytest.mark.slow
def test_the_cli_writes_each_front_point_as_a_design_that_fits(tmp_path):
    site = tmp_path / "SITE.yaml"
    site.write_text("facility_power_kw: 400\nliquid_kw: 150\n")
    job = tmp_path / "job.yaml"
    job.write_text(JOB)
    run = _cli("--site", str(site), "--job", str(job), "--switches", "qm9700",
               "--oversubscription", "1", "--out", str(tmp_path / "out"), "--json",
               "--workers", "2")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["pareto"] and data["candidates"] >= len(data["pareto"])
    for point in data["pareto"]:
        layout = load_layout(point["design"])
        assert layout.meta.site.liquid_kw == 150
        assert not [f for f in check_layout(layout) if f.severity == ERROR
                    and f.code.startswith("site")]


@pytest.mark.slow
def test_a_dask_scheduler_and_worker_give_the_same_front(monkeypatch, tmp_path):
    from test_sweep_dask import _start, _stop  # the sweep tests' bounded 127.0.0.1 cluster

    monkeypatch.setattr(fit_search, "COUNTS_PER_TYPE", 2)
    args = dict(job=parse_job(JOB), switches=("qm9700",), oversubscriptions=(1.0,))
    local = fit(SITE, scheduler="processes", workers=2, **args)
    file = tmp_path / "scheduler.json"
    started = []
    try:
        import time

        started.append(_start(["scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(file)],
                              tmp_path / "scheduler.log"))
        deadline = time.monotonic() + 60
        while not file.exists() or not file.read_text().strip():
            assert started[0].poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        address = json.loads(file.read_text())["address"]
        started.append(_start(["worker", address, "--no-nanny", "--nthreads", "2",
                               "--no-dashboard", "--death-timeout", "60", "--local-directory",
                               str(tmp_path / "worker")], tmp_path / "worker.log"))
        remote = fit(SITE, scheduler=address, **args)
    finally:
        for proc in reversed(started):
            _stop(proc)
    assert remote.to_dict() == local.to_dict()


def test_fit_ranks_by_serving_throughput_with_a_serving_job(monkeypatch, tmp_path, capsys):
    """Issue 36 item 4: `fit --serve SERVE.yaml` ranks the candidates by output tokens/s at
    the serving job's target, each candidate served on its own drawn fabric."""
    from rackdesigner.cli import main
    from rackdesigner.serving.jobfile import parse_serve_job

    monkeypatch.setattr(fit_search, "COUNTS_PER_TYPE", 2)
    job = parse_serve_job("model: llama3-8b\nprecision: fp8\nisl: 1024\nosl: 1024\n",
                          "serve.yaml")
    result = fit(SITE, job=job, systems=("dgx-b200",), switches=("qm9700",),
                 oversubscriptions=(1.0,), scheduler="synchronous")
    assert result.front
    tokens = [p.tokens_per_s for p in result.front]
    assert all(t and t > 0 for t in tokens)
    # a Pareto front against cost: more money never buys fewer tokens/s along it
    by_cost = sorted(result.front, key=lambda p: p.capex)
    assert all(a.tokens_per_s <= b.tokens_per_s + 1e-6 for a, b in itertools.pairwise(by_cost))
    (tmp_path / "site.yaml").write_text("facility_power_kw: 600\nliquid_kw: 250\n")
    (tmp_path / "serve.yaml").write_text("model: llama3-8b\nisl: 0\n")
    assert main(["fit", "--site", str(tmp_path / "site.yaml"), "--serve",
                 str(tmp_path / "serve.yaml")]) == 2
    assert "serve.yaml" in capsys.readouterr().err
