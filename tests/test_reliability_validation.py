"""The failure model against published field data (benchmarks/reliability_runs.yaml and
benchmarks/reliability_validation.py, docs/reliability.md): a 16k-GPU H100 SuperPOD lands in
the published ranges, interruptions scale with the parts, and the validation rows stay close."""

from __future__ import annotations

import pytest
from script_module import script_module

from rackdesigner.generators import generate
from rackdesigner.reliability import assess, load_library

#: Published ranges for a 16,384-GPU H100 job (docs/reliability.md, "Published ranges"):
#: interruptions per day from Llama 3's 7.8 (419 in 54 days) to RSC-1's projected 13.3 (a
#: 1.8-hour MTTF; every job failure counted), less a fifth for a fabric with fewer leaf
#: switches per GPU than Llama 3's one ToR per 16 GPUs;
INTERRUPTIONS_PER_DAY = (6.0, 13.5)
#: GPU and HBM: Llama 3's Faulty GPU + HBM3 (52.5 %) to all its GPU rows (64.0 %), plus two
#: points for the same design difference;
GPU_HBM_SHARE = (0.50, 0.67)
#: switch, cable and optics: Llama 3's 8.4 %, within a factor of two either way (the only
#: published split of a 16k-GPU run; a fabric's make-up moves it);
NETWORK_SHARE = (0.042, 0.168)
#: ETTR: Llama 3's "higher than 90 %".
ETTR_AT_LEAST = 0.90
#: The gate: the |error| of the verified rows when it was set (2026-12-02,
#: `python benchmarks/reliability_validation.py`): validation mean 25.9 %, worst 76.7 % (OPT-175B's
#: machines down per day: an older cloud A100 fleet fails four times as often as Llama 3's
#: rates say); calibration mean 6.7 %, worst 23.3 % (Llama 3's network share on a SuperPOD
#: fabric). A change of the rates, the structure or the formulas that takes the model further
#: from the other fleets fails here; one that brings it closer should lower these. The
#: unverified rows (RSC-1's recalled projection, Crusoe's talk read second-hand) are reported,
#: not gated.
VALIDATION_MEAN_AT_MOST = 0.265
VALIDATION_WORST_AT_MOST = 0.775
CALIBRATION_MEAN_AT_MOST = 0.07
CALIBRATION_WORST_AT_MOST = 0.24

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def library():
    return load_library()


@pytest.fixture(scope="module")
def h100_16k(library):
    return assess(generate("superpod", system="dgx-h100", nodes=2048), library)


def test_a_16k_h100_design_lands_in_the_published_ranges(h100_16k):
    a = h100_16k
    assert a.gpus == 16384
    assert INTERRUPTIONS_PER_DAY[0] <= a.interruptions_per_day <= INTERRUPTIONS_PER_DAY[1]
    assert GPU_HBM_SHARE[0] <= a.share("gpu", "hbm") <= GPU_HBM_SHARE[1]
    assert NETWORK_SHARE[0] <= a.share("switch", "cable", "transceiver") <= NETWORK_SHARE[1]
    assert ETTR_AT_LEAST <= a.ettr < 1.0
    assert a.mtbf_hours == pytest.approx(24 / a.interruptions_per_day)


def test_a_1k_design_has_a_sixteenth_of_the_interruptions(library, h100_16k):
    small = assess(generate("superpod", system="dgx-h100", nodes=128), library)
    assert small.gpus * 16 == h100_16k.gpus
    ratio = small.interruptions_per_day / h100_16k.interruptions_per_day
    assert ratio == pytest.approx(1 / 16, rel=0.1)
    # fewer interruptions: a longer optimum interval and a better ETTR
    assert small.checkpoint.interval_s > h100_16k.checkpoint.interval_s
    assert small.ettr > h100_16k.ettr


@pytest.fixture(scope="module")
def validation():
    with script_module("reliability_validation") as module:
        yield module


def test_the_table_has_calibration_and_validation_rows_with_sources(validation, library):
    runs, sources = validation.load_runs()
    assert {r.set for r in runs} == {"calibration", "validation"}
    assert all(r.source in sources for r in runs)
    validating = {r.source for r in runs if r.set == "validation" and r.verified}
    assert len(validating) >= 3  # other fleets than the calibration run, read in public texts
    # the rates come from the calibration rows' sources only: no validation row fed a rate
    rated = {c.source for c in library.causes}
    assert rated <= {r.source for r in runs if r.set == "calibration"}
    assert not rated & {r.source for r in runs if r.set == "validation"}


@pytest.fixture(scope="module")
def results(validation):
    runs, _ = validation.load_runs()
    return validation.evaluate(runs)


def test_the_validation_error_does_not_rise(validation, results):
    v = validation.summarize(results, "validation")
    assert v.rows >= 4
    assert v.mean <= VALIDATION_MEAN_AT_MOST, (v.mean, v.worst_run)
    assert v.worst <= VALIDATION_WORST_AT_MOST, (v.worst, v.worst_run)
    c = validation.summarize(results, "calibration")
    assert c.mean <= CALIBRATION_MEAN_AT_MOST and c.worst <= CALIBRATION_WORST_AT_MOST
    text = validation.summary_lines(results)
    assert "calibration (verified" in text and "validation (verified" in text


def test_the_gate_catches_rates_that_move_away_from_the_other_fleets(validation, results,
                                                                   tmp_path):
    """Halving every bundled rate (a plausible slip: per 2,000 unit-days) keeps the calibration
    arithmetic running but takes the model away from the B200 and OPT fleets: the gate's
    figures rise past their bounds."""
    runs, _ = validation.load_runs()
    small = [r for r in runs if r.set == "validation" and r.verified and r.gpus <= 1024]
    library = load_library()
    lines = ["schema_version: 1", "causes:"]
    for c in library.causes:
        lines.append(f"  {c.name}: {{per: {c.per}, rate: {c.rate / 2!r}, stops: {c.stops}, "
                     f"source: {c.source}, derived: halved for the test}}")
    path = tmp_path / "halved.yaml"
    path.write_text("\n".join(lines) + "\n")
    before = {r.run.name: abs(r.error) for r in results}
    after = validation.evaluate(small, str(path))
    assert after and all(abs(r.error) > before[r.run.name] for r in after
                         if r.run.metric != "restart_minutes")
    worse = validation.summarize(after, "validation")
    assert worse.worst > VALIDATION_WORST_AT_MOST or worse.mean > VALIDATION_MEAN_AT_MOST
