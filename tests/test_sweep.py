"""Sweeps: the spec (located errors), points evaluated on Dask's local schedulers, failed points
kept, results files, the Pareto front and the `rackdesigner sweep` verb."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from rackdesigner.cli import main
from rackdesigner.sweep import (
    FAILED,
    INVALID,
    OK,
    ResultsError,
    SweepSpecError,
    build_point_layout,
    load_spec,
    pareto_front,
    parse_spec,
    read_results,
    run_sweep,
    write_results,
)

SMALL = """\
schema_version: 1
name: one leaf
generate: single-leaf
fixed: {system: dgx-h100, switch: qm9700}
grid: {nodes: [1, 2, 9]}
"""


def spec_file(tmp_path: Path, text: str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.mark.slow
def test_the_smallest_spec_from_the_issue_runs_and_figures_grow_with_the_design(tmp_path):
    spec = load_spec(spec_file(tmp_path, """\
        schema_version: 1
        generate: superpod                 # any `generate` template
        fixed: {system: dgx-h100}          # its options, as on the command line
        grid: {sus: [1, 2]}                # every combination of these
        """))
    result = run_sweep(spec, "threads", workers=2)
    assert result.columns[:3] == ("point", "system", "sus")
    for column in ("gpus", "switches", "links", "power_max_w", "bisection_GBps",
                   "all_reduce_busbw_GBps", "status", "error"):
        assert column in result.columns
    one, two = result.rows
    assert (one["status"], two["status"]) == (OK, OK)
    assert (one["gpus"], two["gpus"]) == (248, 504)  # the RA: 31 and 63 DGX H100
    assert two["switches"] == 2 * one["switches"]
    assert 1.8 < two["power_max_w"] / one["power_max_w"] < 2.2
    assert two["bisection_GBps"] > one["bisection_GBps"]
    assert one["all_reduce_busbw_GBps"] > 0


@pytest.mark.slow
def test_a_failed_point_is_kept_with_its_error_and_the_others_are_not_lost(tmp_path):
    spec = load_spec(spec_file(tmp_path, SMALL))
    result = run_sweep(spec, "synchronous")
    assert [r["nodes"] for r in result.rows] == [1, 2, 9]
    assert [r["status"] for r in result.rows] == [OK, OK, FAILED]
    failed = result.rows[2]
    assert "at most" in failed["error"] and failed["gpus"] is None
    assert result.rows[1]["gpus"] == 16


def test_progress_reaches_every_point(tmp_path):
    spec = load_spec(spec_file(tmp_path, SMALL))
    seen = []
    run_sweep(spec, "threads", progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 3) and seen[-1] == (3, 3)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_points_list_combines_with_the_grid_and_sizes_and_collectives_are_selectable():
    spec = parse_spec(textwrap.dedent("""\
        schema_version: 1
        generate: single-leaf
        fixed: {switch: qm9700}
        points:
        - {system: dgx-h100}
        - {system: dgx-b200}
        grid: {nodes: [1, 2]}
        outputs: {collectives: [all_reduce, all_gather], sizes: [1GiB, 16MiB]}
        """))
    assert [(p["system"], p["nodes"]) for p in spec.points()] == [
        ("dgx-h100", 1), ("dgx-h100", 2), ("dgx-b200", 1), ("dgx-b200", 2)]
    result = run_sweep(spec, "synchronous")
    for column in ("all_reduce_busbw_GBps", "all_reduce_busbw_GBps_16MiB",
                   "all_gather_busbw_GBps", "all_gather_busbw_GBps_16MiB"):
        assert column in result.columns
    row = result.rows[1]
    # a 16 MiB all_reduce is latency-bound compared with 1 GiB
    assert row["all_reduce_busbw_GBps_16MiB"] < row["all_reduce_busbw_GBps"]


@pytest.mark.parametrize(("text", "line", "expected"), [
    ("schema_version: 1\ngenerate: superpd\ngrid: {sus: [1]}\n", 2, "did you mean 'superpod'"),
    ("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-h100}\ngrid: {suss: [1]}\n",
     4, "has no option 'suss'; did you mean 'sus'"),
    ("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-h100}\ngrid: {sus: 4}\n",
     4, "non-empty list"),
    ("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-h100}\ngrid:\n  sus: [1, x]\n",
     5, "sus expects int, got 'x'"),
    ("schema_version: 1\ngenerate: superpod\ngrid: {sus: [1]}\n", 2, "needs system"),
    ("schema_version: 1\ngenrate: superpod\n", 2, "did you mean 'generate'"),
    ("schema_version: 3\ngenerate: superpod\n", 1, "newer RackDesigner"),
    ("generate: superpod\n", 1, "missing 'schema_version'"),
    ("schema_version: 1\ngenerate: nvl72\ngrid: {a: [1]\n", 4, "invalid YAML"),
    ("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-h100}\ngrid: {sus: [1]}\n"
     "outputs: {sizes: [3MiB]}\n", 5, "powers of two"),
    ("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-h100}\ngrid: {sus: [1]}\n"
     "workload: 7\n", 5, "'workload' must be a mapping"),
    ("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-h100}\ngrid: {sus: [1]}\n"
     "workload: {model: llama3-8b, gbs: 64, tpp: 8}\n", 5, "no option 'tpp'; did you mean 'tp'"),
    ("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-h100}\ngrid: {sus: [1]}\n"
     "workload: {model: llama9-8b, gbs: 64}\n", 5, "no bundled model 'llama9-8b'"),
    ("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-h100}\ngrid: {sus: [1]}\n"
     "workload: {model: llama3-8b, tp: 8}\n", 5, "needs 'gbs'"),
    ("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-h100}\ngrid: {sus: [1]}\n"
     "workload: {model: llama3-8b, gbs: 64, tp: two}\n", 5, "'tp' must be a whole number"),
    ("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-h100}\ngrid: {sus: [1]}\n"
     "workload: {model: llama3-8b, gbs: 64, precision: fp16}\n", 5, "one of bf16, fp8, fp4"),
    ("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-h100}\ngrid: {sus: [1]}\n"
     "workload: {model: llama3-8b, gbs: 64, tokens: lots}\n", 5, 'token count such as 15T'),
])
def test_a_bad_spec_is_refused_with_file_line_and_what_was_expected(text, line, expected):
    with pytest.raises(SweepSpecError) as info:
        parse_spec(text, "s.yaml")
    assert str(info.value).startswith(f"s.yaml:{line}: "), str(info.value)
    assert expected in str(info.value)


def test_base_design_with_parameterised_edits(tmp_path):
    layout = build_point_layout(parse_spec(SMALL), {"system": "dgx-h100", "switch": "qm9700",
                                                    "nodes": 2})
    from rackdesigner.io import save_layout

    save_layout(layout, tmp_path / "two.yaml")
    spec = load_spec(spec_file(tmp_path, """\
        schema_version: 1
        base: two.yaml
        grid: {gone: [none-such-*, dgx-2.nic*, leaf-1]}
        edits:
        - remove: "{gone}"
        """))
    rows = run_sweep(spec, "synchronous").rows
    assert rows[0]["status"] == FAILED and "no device matches none-such-*" in rows[0]["error"]
    # one node without NICs is cut off: the design rules say so (issue 11: Problems, the panel
    # and a sweep row agree that GPUs cannot reach each other); the figures are still there
    assert rows[1]["status"] == INVALID and "cannot reach" in rows[1]["error"]
    assert rows[1]["gpus"] == 16
    assert rows[1]["links"] < layout.link_count()
    assert rows[1]["cables"] == 8  # one node's eight NIC cables are left of sixteen
    # without the leaf nothing leaves a node: no switch, no cable, no scale-out bandwidth
    assert (rows[2]["switches"], rows[2]["cables"]) == (0, 0)
    assert rows[2]["per_gpu_scale_out_GBps"] == 0


def test_edits_must_use_known_parameters(tmp_path):
    (tmp_path / "d.yaml").write_text("schema_version: 1\n", encoding="utf-8")
    with pytest.raises(SweepSpecError, match=r"spec.yaml:4: edit uses \{which\}"):
        load_spec(spec_file(tmp_path, """\
            schema_version: 1
            base: d.yaml
            grid: {gone: [a]}
            edits:
            - remove: "{which}"
            """))


def test_results_round_trip_as_csv_and_json_and_parquet_says_what_to_install(tmp_path):
    result = run_sweep(parse_spec(SMALL), "synchronous")
    for name in ("r.csv", "r.json"):
        write_results(result, tmp_path / name)
        columns, rows, _ = read_results(tmp_path / name)
        assert tuple(columns) == result.columns
        assert rows == list(result.rows)
    assert json.loads((tmp_path / "r.json").read_text())["schema"] == "rackdesigner.sweep/1"
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        with pytest.raises(ResultsError, match="Parquet needs pyarrow"):
            write_results(result, tmp_path / "r.parquet")
        assert not list(tmp_path.glob("*.parquet*"))
    else:
        write_results(result, tmp_path / "r.parquet")
        import pyarrow.parquet as pq

        assert pq.read_table(tmp_path / "r.parquet").column_names == list(result.columns)


def test_a_results_file_is_replaced_atomically(tmp_path, monkeypatch):
    result = run_sweep(parse_spec(SMALL), "synchronous")
    target = tmp_path / "r.csv"
    target.write_text("previous\n")
    import os

    def broken(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(ResultsError, match="No space left"):
        write_results(result, target)
    assert target.read_text() == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["r.csv"]


def test_pareto_front_keeps_only_the_non_dominated_points():
    power = [10, 20, 30, 15, 25, None]
    busbw = [100, 300, 310, 90, 200, 999]
    # lower power and higher busbw are better
    assert pareto_front(power, busbw, maximize_x=False) == [0, 1, 2]
    # with both to maximise only the top right corner is left
    assert pareto_front(power, busbw) == [2]


def test_cli_writes_results_lists_failed_points_and_exits_1(tmp_path, capsys):
    spec = spec_file(tmp_path, SMALL)
    out = tmp_path / "out.json"
    status = main(["sweep", str(spec), "-o", str(out), "--scheduler", "synchronous"])
    captured = capsys.readouterr()
    assert status == 1
    assert "3 points (2 ok, 1 failed)" in captured.out
    assert "point 3 (system=dgx-h100, switch=qm9700, nodes=9): failed:" in captured.err
    assert len(json.loads(out.read_text())["rows"]) == 3


def test_cli_bad_spec_and_bad_output_exit_2_with_the_location(tmp_path, capsys):
    spec = spec_file(tmp_path, "schema_version: 1\ngenerate: superpod\ngrid: {sus: [1]}\n")
    assert main(["sweep", str(spec), "-o", str(tmp_path / "r.csv")]) == 2
    assert f"{spec}:2: template 'superpod' needs system" in capsys.readouterr().err
    good = spec_file(tmp_path, SMALL, "good.yaml")
    assert main(["sweep", str(good), "-o", str(tmp_path / "r.xlsx")]) == 2
    assert "name the file .csv, .json or .parquet" in capsys.readouterr().err
    assert not (tmp_path / "r.csv").exists()


def test_terminal_progress_bar_shows_points_done_and_time_left():
    import io

    from rackdesigner.cli.sweep_cmd import ProgressBar

    out = io.StringIO()
    bar = ProgressBar(out)
    bar.update(0, 4)
    bar.update(2, 4)
    assert out.getvalue().rsplit("\r", 1)[1].startswith(f"[{'#' * 15}{'-' * 15}] 2/4 points")
    assert "left" in out.getvalue().rsplit("\r", 1)[1]
    bar.update(4, 4)
    bar.close()
    last = out.getvalue().rsplit("\r", 1)[1]
    assert last.startswith(f"[{'#' * 30}] 4/4 points") and "left" not in last
    assert last.endswith("\n")


def test_cancel_stops_the_sweep_after_the_points_already_running():
    import threading

    from rackdesigner.sweep import SweepCancelled

    spec = parse_spec(SMALL.replace("nodes: [1, 2, 9]", "nodes: [1, 2, 3, 4, 1, 2, 3, 4]"))
    cancel = threading.Event()
    seen = []

    def progress(done, total):
        seen.append(done)
        if done == 1:
            cancel.set()

    with pytest.raises(SweepCancelled):
        run_sweep(spec, "threads", workers=1, progress=progress, cancel=cancel)
    assert max(seen) < 8


@pytest.mark.slow
def test_workload_estimates_fill_their_columns_and_more_sus_train_faster():
    """A spec with `workload:` runs end to end through the real estimator: every estimate
    column is filled, twice the scalable units give about twice the tokens/s (same job, DP
    doubles) and half the time to train; a point whose GPUs the job does not divide fails
    with the estimator's reason while the others are kept."""
    from rackdesigner.sweep import estimate

    spec = parse_spec("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-a100}\n"
                      "points: [{sus: 1}, {sus: 2}, {sus: 3}]\n"
                      "workload: {model: llama3-8b, tp: 8, gbs: 640, mbs: 1, tokens: 1T}\n")
    result = run_sweep(spec, "synchronous")
    for column in estimate.ESTIMATE_COLUMNS:
        assert column in result.columns
    one, two, three = result.rows
    assert (one["status"], two["status"]) == (OK, OK)
    for row in (one, two):
        assert all(row[c] is not None for c in estimate.ESTIMATE_COLUMNS), row
        assert row["fits"] is True and 0.1 < row["mfu"] < 0.8
    assert 1.7 < two["tokens_per_s"] / one["tokens_per_s"] < 2.1
    assert two["step_time_s"] < one["step_time_s"]
    assert 1.7 < one["time_to_train_days"] / two["time_to_train_days"] < 2.1
    assert three["status"] == FAILED  # 60 nodes: DP 60 does not divide the batch of 640
    assert three["error"].startswith("workload: ") and "640" in three["error"]
    assert three["gpus"] is None and three["step_time_s"] is None
    from rackdesigner.sweep.pareto import lower_is_better

    # the plot's default directions: faster and cheaper to train is better
    assert lower_is_better("time_to_train_days") and lower_is_better("energy_MWh")
    assert not lower_is_better("tokens_per_s") and not lower_is_better("mfu")


def test_a_workload_that_does_not_fit_in_memory_is_refused_not_timed():
    spec = parse_spec(SMALL.replace("nodes: [1, 2, 9]", "nodes: [1]")
                      + "workload: {model: llama3-70b, gbs: 8, recompute: none}\n")
    (row,) = run_sweep(spec, "synchronous").rows
    assert row["status"] == OK and row["fits"] is False
    assert row["step_time_s"] is None and row["tokens_per_s"] is None
    assert row["memory_per_gpu_GB"] > 80  # 70B with plain data parallelism on 80 GB GPUs


def test_a_cluster_address_without_the_cluster_extra_says_which_extra(tmp_path, monkeypatch):
    """dask.distributed is the optional extra [cluster] (issue 26 §19): without it, an address
    is refused with the install command, and local schedulers still run."""
    import sys

    from rackdesigner.sweep import SweepRunError

    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    spec = load_spec(spec_file(tmp_path, SMALL))
    with pytest.raises(SweepRunError, match=r"rackdesigner\[cluster\]"):
        run_sweep(spec, "tcp://127.0.0.1:1")
    assert [r["nodes"] for r in run_sweep(spec, "synchronous").rows] == [1, 2, 9]


def test_parquet_results_of_one_spec_read_as_one_data_set_whatever_failed(tmp_path):
    """Issue 38 item 15: a file whose `error` column is all empty (no point failed) and one in
    which every point failed keep the same Arrow types, so a folder of them is one data set."""
    pytest.importorskip("pyarrow")
    import dataclasses

    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    result = run_sweep(parse_spec(SMALL), "synchronous")
    ok = [r for r in result.rows if r["status"] == OK]
    failed = [r for r in result.rows if r["status"] == FAILED]
    assert ok and failed
    (tmp_path / "runs").mkdir()
    write_results(dataclasses.replace(result, rows=tuple(ok)), tmp_path / "runs" / "a.parquet")
    write_results(dataclasses.replace(result, rows=tuple(failed)), tmp_path / "runs" / "b.parquet")
    first = pq.read_schema(tmp_path / "runs" / "a.parquet")
    assert first == pq.read_schema(tmp_path / "runs" / "b.parquet")
    assert "null" not in {str(t) for t in first.types}
    table = ds.dataset(tmp_path / "runs", format="parquet").to_table()
    assert table.num_rows == len(result.rows)
    assert sorted(v for v in table.column("error").to_pylist() if v) == [failed[0]["error"]]


@pytest.mark.slow
def test_a_search_workload_lays_itself_out_on_every_point():
    """Issue 38 item 1: `layout: search` runs on the point whose GPUs a fixed job does not
    divide (60 nodes and a batch of 640, above), and degrees beside it are refused."""
    spec = parse_spec("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-a100}\n"
                      "points: [{sus: 2}, {sus: 3}]\n"
                      "workload: {model: llama3-8b, layout: search, gbs: 640, tokens: 1T}\n")
    two, three = run_sweep(spec, "synchronous").rows
    assert (two["status"], three["status"]) == (OK, OK), three["error"]
    assert three["tokens_per_s"] > two["tokens_per_s"] > 0
    with pytest.raises(SweepSpecError, match=r"a search workload .* chooses its own degrees"):
        parse_spec("schema_version: 1\ngenerate: superpod\nfixed: {system: dgx-a100}\n"
                   "points: [{sus: 1}]\n"
                   "workload: {model: llama3-8b, layout: search, tp: 8, gbs: 640}\n")
