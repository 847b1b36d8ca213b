"""The panel's numbers without widgets: units, headline figures and deltas."""

from __future__ import annotations

from rackdesigner.ui.panel.figures import (
    Figure,
    delta,
    format_bw,
    format_bytes,
    format_us,
    format_watts,
    headline,
    rack_power_by_category,
)


def test_units():
    assert [format_bytes(2 ** e) for e in (3, 10, 20, 30, 34)] == [
        "8 B", "1 KiB", "1 MiB", "1 GiB", "16 GiB"]
    assert format_bw(450.0) == "450.0 GB/s" and format_bw(25_600) == "25.6 TB/s"
    assert format_us(2.71) == "2.71 µs" and format_us(65_452) == "65.45 ms"
    assert format_watts(10_200) == "10.2 kW" and format_watts(700) == "700 W"


def test_deltas_are_signed_and_judged():
    up = delta(Figure("busbw", "b", 138.0, ""), Figure("busbw", "b", 100.0, ""))
    assert up.text == "+38%" and up.good is True
    kw = delta(Figure("power", "p", 8000.0, "", higher_is_better=False),
               Figure("power", "p", 20_000.0, "", higher_is_better=False))
    assert kw.text == "−12.0 kW" and kw.good is True
    assert delta(Figure("gpus", "g", 8.0, "", higher_is_better=None),
                 Figure("gpus", "g", 16.0, "", higher_is_better=None)).text == "−8"
    assert delta(Figure("busbw", "b", 1.0, ""), Figure("busbw", "b", 1.0, "")) is None


def test_headline_and_rack_split_of_an_example():
    from rackdesigner import simulate
    from rackdesigner._resources import example_paths
    from rackdesigner.io import load_layout

    layout = load_layout(next(p for p in example_paths() if p.name == "dgx-h100.yaml"))
    result = simulate(layout)
    figures = {f.key: f for f in headline(result)}
    assert figures["gpus"].text == "8"
    assert figures["busbw"].detail.startswith(("nvls", "ring", "tree"))
    split = rack_power_by_category(layout, result, None)
    for rack, info in result.power.by_rack.items():
        assert sum(split[rack].values()) == __import__("pytest").approx(info.max_w, abs=0.1)
