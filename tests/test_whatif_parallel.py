"""`whatif --fail` with the degraded design simulated in a forked worker (whatif_parallel.py).

The threshold is moved down with RACKDESIGNER_PARALLEL_FROM_GPUS so that a small generated
design takes the parallel path; RACKDESIGNER_WORKERS=1 forces the serial one. Both must print
the same bytes, fail the same way, and leave no process behind.
"""

from __future__ import annotations

import multiprocessing
import os
import signal

import pytest
from fresh_process import fresh_process_test, one_thread_fixture, set_workers

from rackdesigner.analysis import whatif as whatif_mod
from rackdesigner.analysis import whatif_parallel
from rackdesigner.catalog.loader import CatalogError
from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import dump_layout_text, parse_layout_text
from rackdesigner.simulation import two_cores

pytestmark = [
    pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                       reason="the parallel path forks"),
    pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: always serial")]


_one_thread = one_thread_fixture()
test_every_case_in_a_fresh_process = fresh_process_test(__file__, timeout=600)


@pytest.fixture(scope="module")
def design(tmp_path_factory):
    path = tmp_path_factory.mktemp("whatif-parallel") / "sp2.yaml"
    path.write_text(dump_layout_text(generate("superpod", system="dgx-h100", sus=2)))
    return path


def _run(monkeypatch, capsys, argv, *, parallel):
    set_workers(monkeypatch, parallel=parallel)
    calls = []
    real = whatif_parallel.scenario_in_two

    def spy(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(whatif_parallel, "scenario_in_two", spy)
    status = main(argv)
    out = capsys.readouterr()
    assert bool(calls) == parallel  # the path asked for was the one taken
    assert multiprocessing.active_children() == []  # nothing left running
    return status, out.out, out.err


def test_threshold_and_the_serial_switch(design, monkeypatch):
    layout = parse_layout_text(design.read_text())
    monkeypatch.setenv(two_cores.WORKERS_ENV, "2")
    monkeypatch.setenv(two_cores.THRESHOLD_ENV, "1")
    assert two_cores.wanted(layout)
    monkeypatch.setenv(two_cores.WORKERS_ENV, "1")
    assert not two_cores.wanted(layout)
    monkeypatch.delenv(two_cores.WORKERS_ENV)
    cores = os.cpu_count() or 1
    for load, forks in ((cores + 0.5, False), (cores - 1.0, True)):  # busy cores: serial
        monkeypatch.setattr(two_cores.os, "getloadavg", lambda load=load: (load, 0.0, 0.0))
        assert two_cores.wanted(layout) == forks
    monkeypatch.delenv(two_cores.THRESHOLD_ENV)
    assert not two_cores.wanted(layout)  # 256 GPUs: below the default


@pytest.mark.parametrize("argv", [["--fail", "su-2", "--json"], ["--fail", "spine-1"],
                                  ["--fail", "spine-1,leaf-3", "--json"]])
def test_parallel_and_serial_print_the_same_bytes(design, monkeypatch, capsys, argv):
    serial = _run(monkeypatch, capsys, ["whatif", str(design), *argv], parallel=False)
    parallel = _run(monkeypatch, capsys, ["whatif", str(design), *argv], parallel=True)
    assert serial[0] == 0 and serial[1]
    assert parallel == serial


def test_an_unknown_id_is_the_same_located_error(design, monkeypatch, capsys):
    argv = ["whatif", str(design), "--fail", "spine-99", "--json"]
    serial = _run(monkeypatch, capsys, argv, parallel=False)
    parallel = _run(monkeypatch, capsys, argv, parallel=True)
    assert serial[0] == 2 and "spine-99" in serial[2] and "Traceback" not in serial[2]
    assert parallel == serial


def test_a_worker_that_raises_gives_the_serial_error_and_exit_status(design, monkeypatch,
                                                                       capsys):
    full = len(list(parse_layout_text(design.read_text()).devices()))
    real = whatif_mod.simulate

    def simulate(layout, *args, **kwargs):
        if len(list(layout.devices())) < full:
            raise CatalogError(["model dgx-h100: a bad user model (test)"])
        return real(layout, *args, **kwargs)

    monkeypatch.setattr(whatif_mod, "simulate", simulate)
    monkeypatch.setattr(whatif_parallel, "simulate", simulate)
    argv = ["whatif", str(design), "--fail", "su-1", "--json"]
    serial = _run(monkeypatch, capsys, argv, parallel=False)
    parallel = _run(monkeypatch, capsys, argv, parallel=True)
    assert serial[0] == 2 and "a bad user model" in serial[2] and not serial[1]
    assert parallel == serial


def test_a_worker_that_dies_still_gives_the_serial_output(design, monkeypatch, capsys):
    full = len(list(parse_layout_text(design.read_text()).devices()))
    real = whatif_mod.simulate
    killed = []

    def simulate(layout, *args, **kwargs):
        if len(list(layout.devices())) < full and multiprocessing.parent_process() is not None:
            os.kill(os.getpid(), signal.SIGKILL)  # as `kill -9` or the OOM killer would
        if len(list(layout.devices())) < full:
            killed.append(True)  # asked again here, after the child died
        return real(layout, *args, **kwargs)

    argv = ["whatif", str(design), "--fail", "su-1", "--json"]
    serial = _run(monkeypatch, capsys, argv, parallel=False)
    monkeypatch.setattr(whatif_parallel, "simulate", simulate)
    parallel = _run(monkeypatch, capsys, argv, parallel=True)
    assert killed  # the child did die, and the parent simulated the degraded design
    assert serial[0] == 0 and parallel == serial
