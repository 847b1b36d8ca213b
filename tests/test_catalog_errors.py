"""Bad catalog files: each produces a CatalogError naming the file and the key path."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from rackdesigner.catalog import CatalogError, load_catalog

GOOD_GPU = """\
schema: rackdesigner.device/1
id: gpu-x
kind: gpu
manufacturer: ACME
model: GPU X
power: {max_w: 100, source: ds}
ports:
  - {name: nvlink, protocol: nvlink, generation: "4", count: 4, lanes: 2, rate_gbps: 200,
     connector: sxm, source: ds}
gpu: {architecture: test, sm: 90, source: ds}
sources:
  ds: {title: ACME GPU X datasheet}
"""

SYSTEM = """\
schema: rackdesigner.device/1
id: box
kind: system
manufacturer: ACME
model: Box
system:
  parts:
    - {{name: gpu, model: {model}, count: 2}}
  wiring:
    - {{a: "{a}", a_port: nvlink, b: "gpu[1]", b_port: nvlink, count: 1}}
  source: ug
sources:
  ug: {{title: ACME Box user guide}}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def load_error(*paths: Path) -> CatalogError:
    with pytest.raises(CatalogError) as info:
        load_catalog(paths)
    return info.value


def test_good_files_load(tmp_path):
    gpu = write(tmp_path, "gpu-x.yaml", GOOD_GPU)
    box = write(tmp_path, "box.yaml", SYSTEM.format(model="gpu-x", a="gpu[0]"))
    catalog = load_catalog([gpu, box])
    assert catalog.get("gpu-x").port("nvlink").count == 4
    assert catalog.get("box").system.parts[0].count == 2


def test_unknown_key_is_reported_with_a_suggestion(tmp_path):
    path = write(tmp_path, "gpu-x.yaml", GOOD_GPU.replace("power: {max_w", "power: {maxw"))
    err = load_error(path)
    assert [(p.file, p.path) for p in err.problems] == [("gpu-x.yaml", "power.maxw")]
    assert "did you mean 'max_w'" in err.problems[0].message
    assert "gpu-x.yaml: power.maxw: unknown key" in str(err)


def test_wrong_type_is_reported(tmp_path):
    path = write(tmp_path, "gpu-x.yaml", GOOD_GPU.replace("rate_gbps: 200", "rate_gbps: fast"))
    err = load_error(path)
    (problem,) = err.problems
    assert (problem.file, problem.path) == ("gpu-x.yaml", "ports[0].rate_gbps")
    assert "expected a number" in problem.message


def test_missing_source_is_reported(tmp_path):
    path = write(tmp_path, "gpu-x.yaml", GOOD_GPU.replace("power: {max_w: 100, source: ds}",
                                                         "power: {max_w: 100}"))
    (problem,) = load_error(path).problems
    assert (problem.file, problem.path) == ("gpu-x.yaml", "power.source")
    assert "missing" in problem.message


def test_undefined_source_key_is_reported(tmp_path):
    path = write(tmp_path, "gpu-x.yaml", GOOD_GPU.replace("connector: sxm, source: ds}",
                                                         "connector: sxm, source: dss}"))
    (problem,) = load_error(path).problems
    assert (problem.file, problem.path) == ("gpu-x.yaml", "ports[0].source")
    assert "'dss' is not defined" in problem.message
    assert "did you mean 'ds'" in problem.message


def test_bad_wiring_selector_is_reported(tmp_path):
    gpu = write(tmp_path, "gpu-x.yaml", GOOD_GPU)
    box = write(tmp_path, "box.yaml", SYSTEM.format(model="gpu-x", a="gpu[zero]"))
    (problem,) = load_error(gpu, box).problems
    assert (problem.file, problem.path) == ("box.yaml", "system.wiring[0].a")
    assert "bad selector" in problem.message


def test_wiring_naming_an_unknown_part_is_reported(tmp_path):
    gpu = write(tmp_path, "gpu-x.yaml", GOOD_GPU)
    box = write(tmp_path, "box.yaml", SYSTEM.format(model="gpu-x", a="cpu[0]"))
    (problem,) = load_error(gpu, box).problems
    assert (problem.file, problem.path) == ("box.yaml", "system.wiring[0].a")
    assert "no part named 'cpu'" in problem.message


def test_unknown_part_model_is_reported(tmp_path):
    gpu = write(tmp_path, "gpu-x.yaml", GOOD_GPU)
    box = write(tmp_path, "box.yaml", SYSTEM.format(model="gpu-y", a="gpu[0]"))
    problems = load_error(gpu, box).problems
    assert ("box.yaml", "system.parts[0].model") in [(p.file, p.path) for p in problems]
    assert "unknown model 'gpu-y'" in str(load_error(gpu, box))


def test_file_name_must_match_id(tmp_path):
    path = write(tmp_path, "gpu-y.yaml", GOOD_GPU)
    (problem,) = load_error(path).problems
    assert (problem.file, problem.path) == ("gpu-y.yaml", "id")


def test_problems_of_several_files_are_all_reported(tmp_path):
    a = write(tmp_path, "gpu-x.yaml", GOOD_GPU.replace("sm: 90", "sm: ninety"))
    b = write(tmp_path, "gpu-z.yaml", GOOD_GPU.replace("id: gpu-x", "id: gpu-z")
              .replace("kind: gpu", "kind: gpuu"))
    err = load_error(a, b)
    where = {(p.file, p.path) for p in err.problems}
    assert ("gpu-x.yaml", "gpu.sm") in where
    assert ("gpu-z.yaml", "kind") in where
