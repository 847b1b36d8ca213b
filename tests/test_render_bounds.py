"""Large renders are bounded (issue 31 §9): `render` of a 100k-GPU design to PNG or SVG grew
past 13 GB and never ended, because every device became a graphics item. Past
`MAX_DRAWN_DEVICES` devices the image is now drawn as the designer's far zoom (one block per
scalable unit and switch tier), and a large design with nothing to draw as blocks is refused
with a message instead of filling the memory."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import save_layout
from rackdesigner.model import Device, Layout

ui_export = pytest.importorskip("rackdesigner.ui.export")


def test_small_designs_are_drawn_in_detail_or_overview():
    layout = generate("single-leaf", system="dgx-h100", switch="qm9700", nodes=2)
    assert ui_export.drawn_level(layout) == "detail"
    assert ui_export.drawn_level(layout, overview=True) == "overview"


def test_a_design_past_the_bound_is_drawn_as_blocks(monkeypatch, tmp_path, capsys):
    layout = generate("superpod", system="dgx-h100", sus=2)
    monkeypatch.setattr(ui_export, "MAX_DRAWN_DEVICES", layout.device_count() - 1)
    assert ui_export.drawn_level(layout) == "far"
    assert ui_export.drawn_level(layout, overview=True) == "far"
    path = tmp_path / "pod.yaml"
    save_layout(layout, path)
    out = tmp_path / "pod.svg"
    assert main(["render", str(path), "-o", str(out)]) == 0
    assert "drawn as blocks" in capsys.readouterr().err
    assert out.read_bytes().startswith(b"<?xml")


def test_a_large_design_without_blocks_is_refused(catalog, monkeypatch, tmp_path, capsys):
    layout = Layout(catalog)
    layout.add_all([], [Device(f"gpu-{i}", "h100-sxm5", pos=(i * 200.0, 0.0))
                        for i in range(1, 31)], [])
    monkeypatch.setattr(ui_export, "MAX_DRAWN_DEVICES", 20)
    with pytest.raises(ValueError, match="no scalable unit, rack or fabric group"):
        ui_export.drawn_level(layout)
    path = tmp_path / "flat.yaml"
    save_layout(layout, path)
    out = tmp_path / "flat.png"
    assert main(["render", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "Traceback" not in err
    assert not out.exists()


_MEASURE = """
import json, os, resource, sys, time
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from rackdesigner.io import load_layout
from rackdesigner.ui.export import render_layout
layout = load_layout(sys.argv[1])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
render_layout(layout, sys.argv[2])
print(json.dumps({"devices": layout.device_count(), "seconds": time.perf_counter() - start,
                  "growth_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before}))
"""
#: What drawing a large design may add to the process, per device: a tenth of a detail
#: drawing's cost (about 17 KB per device, measured at 21,666 devices: 378 MB). A model
#: assumption, a bound on growth, not a figure of any one run.
KB_PER_DEVICE = 2.0


def test_rendering_a_large_design_is_bounded_in_time_and_memory(tmp_path):
    layout = generate("superpod", system="dgx-b200", sus=24)
    assert layout.device_count() > ui_export.MAX_DRAWN_DEVICES
    path = tmp_path / "large.yaml"
    save_layout(layout, path)
    del layout
    out = tmp_path / "large.svg"
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(path), str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.splitlines()[-1])
    assert figures["growth_kb"] < KB_PER_DEVICE * figures["devices"], figures
    assert time.monotonic() - start < 120
    assert out.stat().st_size < 50 * 2**20
