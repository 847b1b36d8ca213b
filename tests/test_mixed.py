"""Mixed designs: several system types on one fabric, every leaf under one spine layer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rackdesigner.generators import GeneratorError, generate
from rackdesigner.model import ERROR, check_layout

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def mixed():
    return generate("mixed", systems="gb200-nvl72:2,dgx-b200:8")


def _gpus(layout, prefix):
    return [d.id for d in layout.devices()
            if layout.catalog.get(d.model).kind == "gpu" and d.id.startswith(prefix)]


def test_a_mixed_design_holds_both_system_types_without_errors(mixed):
    assert len(_gpus(mixed, "nvl72-")) == 2 * 72
    assert len(_gpus(mixed, "dgx-")) == 8 * 8
    assert not [f for f in check_layout(mixed) if f.severity == ERROR]


def test_every_spine_reaches_leaves_of_both_types(mixed):
    leaf_of = {}
    for link in mixed.links():
        for end, other in ((link.a, link.b), (link.b, link.a)):
            if end.device.startswith("leaf-") and not other.device.startswith("spine-"):
                kind = "nvl72" if other.device.startswith("nvl72") else "dgx"
                leaf_of.setdefault(end.device, set()).add(kind)
    spines = {}
    for link in mixed.links():
        a, b = link.a.device, link.b.device
        if a.startswith("spine-") or b.startswith("spine-"):
            spine, leaf = (a, b) if a.startswith("spine-") else (b, a)
            spines.setdefault(spine, set()).update(leaf_of.get(leaf, set()))
    assert spines and all(kinds == {"nvl72", "dgx"} for kinds in spines.values())
    # one fabric: a single-type design of the same parts would need its own spines
    nvl = _gpus(mixed, "nvl72-")[0]
    dgx = _gpus(mixed, "dgx-")[0]
    assert not mixed.index().reachability().partitioned and nvl != dgx


def test_oversubscription_thins_the_spine_layer():
    full = generate("mixed", systems="gb200-nvl72:1,dgx-b200:4")
    half = generate("mixed", systems="gb200-nvl72:1,dgx-b200:4", oversubscription=2.0)
    spines = [sum(1 for d in x.devices() if d.id.startswith("spine-")) for x in (full, half)]
    assert spines[1] < spines[0]


@pytest.mark.parametrize("systems, words", [
    ("gb200-nvl72", "system:count pairs"),
    ("gb200-nvl72:2,gb200-nvl72:3", "listed twice"),
    ("dgx-z900:4", "is not a system"),
    ("dgx-b200:0", "at least one system"),
])
def test_bad_system_lists_are_refused(systems, words):
    with pytest.raises(GeneratorError) as err:
        generate("mixed", systems=systems)
    assert words in str(err.value)


def test_the_cli_generates_a_mixed_design(tmp_path):
    out = tmp_path / "m.yaml"
    run = subprocess.run([sys.executable, "-m", "rackdesigner", "generate", "mixed",
                          "--systems", "gb200-nvl72:1,dgx-b200:4", "-o", str(out)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0 and out.exists() and "mixed: 104 GPUs" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "rackdesigner", "generate", "mixed",
                          "--systems", "nope", "-o", str(out)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
