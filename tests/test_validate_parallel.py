"""`validate` with the rack and cooling rules checked by a child that reads the design file
too (cli/validate_parallel.py).

RACKDESIGNER_PARALLEL_FROM_GPUS=1 and RACKDESIGNER_WORKERS=2 make a small generated design take
the parallel path; RACKDESIGNER_WORKERS=1 forces the serial one. Both must print the same bytes
and exit the same way, on clean designs and on designs broken in the ways the rack, cooling and
link rules know (bad racks, racks over their budget, unknown models, reused ports, failed
parts, a stated site PUE), also when the child dies; and leave no process behind.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fresh_process import fresh_process_test, one_thread_fixture, set_workers

from rackdesigner.cli import main, validate_parallel
from rackdesigner.generators import generate
from rackdesigner.io import dump_layout_text
from rackdesigner.model import Device, Link, PortRef, check_layout
from rackdesigner.simulation import two_cores

pytestmark = [
    pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                       reason="the parallel path forks"),
    pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: always serial")]

_one_thread = one_thread_fixture("test_small_files_do_not_fork")
test_every_case_in_a_fresh_process = fresh_process_test(__file__, timeout=900)


def _broken():
    """A 2-SU SuperPOD broken in the ways the rack, cooling and link rules know."""
    layout = generate("superpod", system="dgx-h100", sus=2)
    devices = list(layout.devices())
    racks = [d for d in devices if d.model.startswith("rack-")]
    layout.update_device(racks[0].id, props=(("power_budget_w", 5000),))  # over its budget
    layout.update_device(racks[1].id, props=(("power_budget_w", 9000),))
    placed = [d for d in devices if d.rack is not None and d.rack != racks[0].id]
    layout.update_device(placed[3].id, rack="no-such-rack")  # a rack that is not there
    layout.add_device(Device("mystery-1", "no-such-model", rack=racks[2].id))  # unknown model
    links = [lk for lk in layout.links() if lk.a.index is not None]
    taken = links[5]
    layout.add_link(Link("bad-1", taken.a, PortRef(devices[7].id, "ib", 0)))  # a reused port
    for device in devices[40:43]:
        layout.update_device(device.id, status="failed")
    return layout


@pytest.fixture(scope="module")
def designs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("two-cores")
    clean = generate("superpod", system="dgx-h100", sus=2)
    sited = generate("rail-optimized", system="dgx-b200", nodes=24, switch="q3400")
    out = {}
    for name, layout in (("clean", clean), ("broken", _broken()), ("rail", sited)):
        path = folder / f"{name}.yaml"
        path.write_text(dump_layout_text(layout))
        out[name] = path
    return out


def _run(monkeypatch, capsys, argv, *, parallel):
    set_workers(monkeypatch, parallel=parallel)
    calls = []
    real = two_cores.Forked.__init__

    def spy(self, *args, **kwargs):
        calls.append(args[0].__name__)
        real(self, *args, **kwargs)

    monkeypatch.setattr(two_cores.Forked, "__init__", spy)
    status = main(argv)
    out = capsys.readouterr()
    assert bool(calls) == parallel  # the path asked for was the one taken
    assert multiprocessing.active_children() == []  # nothing left running
    return status, out.out, out.err


@pytest.mark.parametrize("name", ["clean", "broken", "rail"])
@pytest.mark.parametrize("verb", [["validate"], ["validate", "--json"], ["validate", "--all"],
                                  ["validate", "-q"]])
def test_two_cores_print_what_one_prints(designs, monkeypatch, capsys, name, verb):
    argv = [*verb, str(designs[name])]
    serial = _run(monkeypatch, capsys, argv, parallel=False)
    parallel = _run(monkeypatch, capsys, argv, parallel=True)
    assert parallel == serial
    if name == "broken" and verb[0] == "validate":
        assert serial[0] == 1
        for said in ("above its 5.0 kW budget", "is no such device", "unknown device model",
                     "is used by links"):  # rack and link findings: both halves
            assert said in serial[1], said


def test_the_broken_design_has_findings_of_both_halves(designs):
    from rackdesigner.io import load_layout

    layout = load_layout(designs["broken"])
    racks, _cooling = validate_parallel.rack_part(layout)
    assert {f.code for f in racks} >= {"rack-power", "bad-rack"}
    assert {f.code for f in check_layout(layout)} - {f.code for f in racks} >= {
        "unknown-model", "port-reused"}


def test_a_file_changed_while_read_is_checked_here(designs, monkeypatch, capsys, tmp_path):
    """The child read the file before it changed: its findings are not taken, the command
    checks the file as it read it."""
    path = tmp_path / "changing.yaml"
    path.write_text(designs["broken"].read_text())
    argv = ["validate", str(path)]
    from rackdesigner.io import load_layout

    real = load_layout
    parent = os.getpid()

    def clean_in_parent(source, *args, **kwargs):
        if os.getpid() == parent:  # the child has read the broken file by now, or will
            path.write_text(designs["clean"].read_text())
        return real(source, *args, **kwargs)

    want = _run(monkeypatch, capsys, ["validate", str(designs["clean"])], parallel=False)
    monkeypatch.setattr("rackdesigner.io.load_layout", clean_in_parent)
    monkeypatch.setattr("rackdesigner.cli.validate_cmd.load_layout", clean_in_parent)
    got = _run(monkeypatch, capsys, argv, parallel=True)
    assert got[0] == want[0] == 0
    assert got[1] == want[1].replace(str(designs["clean"]), str(path))


def test_a_child_that_dies_changes_nothing(designs, monkeypatch, capsys):
    """The child raises (as one killed or out of memory gives nothing): the command asks the
    questions itself and prints what the serial path prints."""
    parent = os.getpid()

    def dying(real):
        def part(*args):
            if os.getpid() != parent:
                raise MemoryError("the child ran out of memory")
            return real(*args)
        return part

    argv = ["validate", str(designs["broken"])]
    serial = _run(monkeypatch, capsys, argv, parallel=False)
    monkeypatch.setattr(validate_parallel, "rack_part", dying(validate_parallel.rack_part))
    assert _run(monkeypatch, capsys, argv, parallel=True) == serial


def test_small_files_do_not_fork(designs, monkeypatch):
    """Below `FORK_FROM_BYTES` no fork, and `validate` of a small file does not even import the
    fork's module (the simulation package)."""
    monkeypatch.delenv(two_cores.THRESHOLD_ENV, raising=False)
    monkeypatch.setenv(two_cores.WORKERS_ENV, "2")
    small = str(designs["clean"])  # 504 GPUs, 0.5 MB
    assert os.path.getsize(small) < validate_parallel.FORK_FROM_BYTES
    assert validate_parallel.beside(small, validate_parallel.rack_part) is None
    assert validate_parallel.THRESHOLD_ENV == two_cores.THRESHOLD_ENV
    code = ("import sys; from rackdesigner.cli import main; main(['validate', '-q', "
            f"{small!r}]); print('rackdesigner.simulation' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != two_cores.THRESHOLD_ENV}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=Path(__file__).resolve().parents[1], timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "False", done.stdout + done.stderr


def test_a_core_idle_now_takes_the_second_read_whatever_the_last_minute_was(monkeypatch):
    """The second read is taken when a core is idle now: no other task runnable beside this
    process (the least of a few looks at /proc/loadavg), even when the load average still
    counts the user's previous large command; a task busy at every look keeps it serial, and
    where the count cannot be read the load average decides, as before."""
    import io

    monkeypatch.setattr(validate_parallel.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(validate_parallel.os, "getloadavg", lambda: (1.4, 1.2, 0.9))
    looks = iter(["1.40 1.20 0.90 2/120 999\n", "1.40 1.20 0.90 1/120 999\n",
                  "1.40 1.20 0.90 3/120 999\n"])
    monkeypatch.setattr(validate_parallel, "open",
                        lambda *a, **k: io.StringIO(next(looks)), raising=False)
    assert validate_parallel._others_running() == 0  # runnable once: only this process
    for others, load, busy in ((0, 1.4, False), (1, 0.2, True), (None, 1.4, True),
                               (None, 0.5, False)):
        monkeypatch.setattr(validate_parallel, "_others_running", lambda o=others: o)
        monkeypatch.setattr(validate_parallel.os, "getloadavg", lambda x=load: (x, x, x))
        assert validate_parallel._no_idle_core() is busy, (others, load)
