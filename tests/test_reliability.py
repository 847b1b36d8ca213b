"""The failure model of a drawn design (rackdesigner/reliability, docs/reliability.md): the
library's located errors, the blast radius read from the structure, scaling with the parts,
and the goodput formulas' directions."""

from __future__ import annotations

import math

import pytest

from rackdesigner.generators import generate
from rackdesigner.reliability import LibraryError, ReliabilityError, assess, load_library
from rackdesigner.reliability.goodput import ettr, optimum_interval, p_job_runs
from rackdesigner.reliability.library import bundled_path, parse_library
from rackdesigner.reliability.report import Job


@pytest.fixture(scope="module")
def library():
    return load_library()


@pytest.fixture(scope="module")
def dgx():
    return generate("dgx-h100")


@pytest.fixture(scope="module")
def nvl72():
    return generate("nvl72")


# ---- the library ---------------------------------------------------------------------------
def test_every_bundled_cause_names_its_source_and_derivation(library):
    assert {c.name for c in library.causes} >= {"gpu", "hbm", "nvswitch", "nic", "switch",
                                                 "cable", "transceiver", "psu", "cpu", "dram",
                                                 "ssd", "board", "software"}
    for cause in library.causes:
        assert cause.source in library.sources
        assert cause.derived.strip()
        assert cause.rate >= 0


def _user(tmp_path, text):
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    return path


def test_a_users_file_overrides_one_cause_and_keeps_the_rest(tmp_path, library):
    path = _user(tmp_path, "schema_version: 1\ncauses:\n  gpu:\n    per: gpu\n    rate: 1.0\n"
                 "    stops: nvlink_domain\n    source: llama3\n    derived: our fleet, 2026\n")
    mine = load_library(path)
    assert mine.cause("gpu").rate == 1.0
    assert mine.cause("hbm") == library.cause("hbm")
    assert str(path) in mine.origin


@pytest.mark.parametrize("body, line, words", [
    ("    per: gpu\n    rate: -0.5\n    stops: node\n    source: llama3\n    derived: x\n",
     5, "must be 0 or more"),
    ("    per: gpus\n    rate: 0.5\n    stops: node\n    source: llama3\n    derived: x\n",
     4, "unknown unit 'gpus' (did you mean 'gpu'?)"),
    ("    per: gpu\n    rate: 0.5\n    stops: rack\n    source: llama3\n    derived: x\n",
     6, "stops: expected one of"),
    ("    per: gpu\n    rate: 0.5\n    stops: node\n    source: nowhere\n    derived: x\n",
     7, "'nowhere' is not in 'sources'"),
    ("    per: gpu\n    rate: 0.5\n    stops: node\n    source: llama3\n", 4, "missing 'derived'"),
])
def test_bad_rates_are_refused_with_file_and_line(tmp_path, body, line, words):
    path = _user(tmp_path, "schema_version: 1\ncauses:\n  mine:\n" + body)
    with pytest.raises(LibraryError) as err:
        load_library(path)
    assert f"{path}:{line}:" in str(err.value)
    assert words in str(err.value)


def test_the_bundled_file_needs_every_block():
    text = bundled_path().read_text()
    with pytest.raises(LibraryError, match="missing 'restart'"):
        parse_library(text.split("\nrestart:")[0], "lib.yaml")


# ---- the structure: what one fault stops ---------------------------------------------------
def test_a_gpu_fault_stops_the_node_on_8_gpu_systems(library, dgx):
    a = assess(dgx, library)
    gpu = next(r for r in a.causes if r.name == "gpu")
    assert gpu.blast_max == 8
    assert a.blast_radius_gpus == 8


def test_a_gpu_fault_stops_the_nvlink_domain_on_an_nvl72_rack(library, nvl72):
    a = assess(nvl72, library)
    by = {r.name: r for r in a.causes}
    assert by["gpu"].blast_max == 72 == a.structure.nvlink_domain_max
    assert a.blast_radius_gpus == 72
    # a host fault takes one compute tray (4 GPUs), not the NVLink domain
    assert by["board"].blast_max == 4


def test_a_leaf_stops_its_nodes_and_a_spine_only_bandwidth(library):
    layout = generate("superpod", system="dgx-h100", nodes=64)
    a = assess(layout, library)
    switch = next(r for r in a.causes if r.name == "switch")
    assert switch.blast_max >= 8 * 2  # a leaf serves several nodes
    assert switch.degradations_per_day > 0  # the spines: faults that stop no GPU
    assert a.degradations_per_day >= switch.degradations_per_day


def test_interruptions_scale_with_the_parts(library):
    small = assess(generate("superpod", system="dgx-h100", nodes=128), library)
    large = assess(generate("superpod", system="dgx-h100", nodes=512), library)
    ratio = large.interruptions_per_day / small.interruptions_per_day
    assert 3.6 < ratio < 4.4  # four times the GPUs, nodes and links
    assert large.mtbf_hours < small.mtbf_hours


def test_a_job_on_part_of_the_design_sees_its_share(library):
    layout = generate("superpod", system="dgx-h100", nodes=128)
    whole = assess(layout, library)
    half = assess(layout, library, job=Job(512, 1e5))
    assert half.interruptions_per_day == pytest.approx(whole.interruptions_per_day / 2)
    assert half.spares == 512  # the GPUs the job leaves free


# ---- goodput -------------------------------------------------------------------------------
def test_daly_interval_is_the_ettr_optimum():
    write, restart, mtbf = 30.0, 600.0, 3 * 3600.0
    best = optimum_interval(write, mtbf)
    around = [ettr(best * k, write, restart, mtbf) for k in (0.5, 0.8, 1.25, 2.0)]
    assert all(e <= ettr(best, write, restart, mtbf) + 1e-9 for e in around)


def test_goodput_directions():
    # more failures, longer restarts or slower checkpoints never help
    assert ettr(600, 10, 600, 7200) < ettr(600, 10, 600, 14400)
    assert ettr(600, 10, 900, 7200) < ettr(600, 10, 600, 7200)
    assert ettr(600, 60, 600, 7200) < ettr(600, 10, 600, 7200)
    # more spares never lower the share of time the job has its GPUs
    runs = [p_job_runs(s, 5.0, 8.0) for s in (0, 8, 16, 40, 120)]
    assert runs == sorted(runs) and runs[-1] > 0.99 and runs[0] < 0.01


def test_the_users_interval_is_used_and_zero_refused(library, dgx):
    a = assess(dgx, library, interval_s=1800)
    assert a.checkpoint.interval_s == 1800 and a.checkpoint.chosen
    with pytest.raises(ReliabilityError, match="greater than 0"):
        assess(dgx, library, interval_s=0)


def test_drawn_storage_sets_the_checkpoint_write_time(library):
    from rackdesigner.model import Device, Link, PortRef

    layout = generate("superpod", system="dgx-h100", nodes=32)
    before = assess(layout, library)
    assert before.structure.storage.write_GBps is None
    assert "assumed" in before.checkpoint.basis
    leaf = next(d for d in layout.devices()
                if layout.index().kind(d.id) == "switch" and layout.links_of(d.id))
    layout.add_device(Device("stor-1", "ai400x2", (0.0, 0.0)))
    port = layout.index().spec(leaf.id).ports[0].name
    layout.add_link(Link("stor-l1", PortRef("stor-1", "ib"), PortRef(leaf.id, port), count=2))
    after = assess(layout, library)
    storage = after.structure.storage
    assert storage.reachable == 1
    # two HDR ports (2 x 25 GB/s) limit the appliance below its 65 GB/s write rating
    assert storage.write_GBps == pytest.approx(50.0)
    assert after.checkpoint.write_GBps == pytest.approx(50.0)
    assert "reachable over the fabric" in after.checkpoint.basis
    assert math.isclose(after.checkpoint.write_s, after.checkpoint.bytes / 50e9)



def test_a_selected_part_knows_what_its_fault_stops(library, dgx):
    a = assess(dgx, library)
    kind = dgx.index().kind
    gpu = next(d.id for d in dgx.devices() if kind(d.id) == "gpu")
    assert a.part_blast(gpu)[0] == 8 and len(a.part_blast(gpu)[1]) == 2  # GPU and HBM
    rack = next(d.id for d in dgx.devices() if kind(d.id) == "rack")
    assert a.part_blast(rack) == (0, ())
    pod = generate("superpod", system="dgx-h100", nodes=64)
    b = assess(pod, library)
    stops = {b.part_blast(d.id)[0] for d in pod.devices() if pod.index().kind(d.id) == "switch"}
    assert 0 in stops  # spines: bandwidth only
    assert max(stops) == next(r.blast_max for r in b.causes if r.name == "switch")
