"""Sweeps gain the serving columns (`serve:` in a spec): tokens/s per GPU at the target, $ per
million tokens, tokens/s per MW; a bad `serve:` block is refused at load time, located."""

from __future__ import annotations

import pytest

from rackdesigner.sweep import SweepSpecError, parse_spec
from rackdesigner.sweep.point import evaluate_point, figure_columns
from rackdesigner.sweep.serve import SERVE_COLUMNS

SPEC = """\
schema_version: 1
generate: superpod
fixed: {system: dgx-b200}
points: [{nodes: 4, switch: qm9700}, {nodes: 4, switch: sn5600}]
serve: {model: deepseek-r1, precision: fp4, isl: 1024, osl: 1024, interactivity: 60}
"""


def test_serving_columns_fill_each_point():
    spec = parse_spec(SPEC, "s.yaml")
    assert set(SERVE_COLUMNS) <= set(figure_columns(spec))
    rows = [evaluate_point(spec, i, dict(p)) for i, p in enumerate(spec.points())]
    for row in rows:
        assert row["status"] == "ok", row["error"]
        assert row["serve_tokens_per_s_per_gpu"] > 0
        assert row["serve_tokens_per_s_per_mw"] > 0
        per_hour = row["usd_per_gpu_hour"]
        assert row["serve_usd_per_million_tokens"] == pytest.approx(
            per_hour / (row["serve_tokens_per_s_per_gpu"] * 3600) * 1e6, rel=1e-3)
    ib, roce = rows  # the same GPUs: InfiniBand serves no less than RoCE
    assert ib["serve_tokens_per_s_per_gpu"] >= roce["serve_tokens_per_s_per_gpu"]


@pytest.mark.parametrize(("block", "expected"), [
    ("serve: {model: deepseek-r1, precision: fp4, isl: 1024}", "missing required key osl"),
    ("serve: {model: nope, precision: fp4, isl: 8, osl: 8}", "no bundled model 'nope'"),
    ("serve: {model: llama3-8b, precision: fp2, isl: 8, osl: 8}", "precision must be one of"),
    ("serve: [1, 2]", "'serve' must be a mapping"),
])
def test_a_bad_serve_block_is_refused_at_load_time(block, expected):
    text = SPEC.rsplit("serve:", 1)[0] + block + "\n"
    with pytest.raises(SweepSpecError) as info:
        parse_spec(text, "s.yaml")
    assert expected in str(info.value) and "s.yaml:5" in str(info.value)
