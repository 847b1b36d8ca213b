"""The comparison's facility rows (issue 38 item 10): racks against the floor's positions, the
share of the site's power and cooling, design-rule problems and capex per GPU — the same rows
in `rackdesigner compare` and the designer's Compare With…"""

from __future__ import annotations

import json

import pytest

from rackdesigner.cli import main
from rackdesigner.cost import Assumptions
from rackdesigner.cost.compare import compare, figures
from rackdesigner.generators import generate
from rackdesigner.io import save_layout
from rackdesigner.model import ERROR, check_layout
from rackdesigner.model.cooling import cooling_report
from rackdesigner.model.items import Site
from tests.test_compare import BOOK


def _row(table, key):
    return next(r for r in table.rows if r.key == key)


def _sited(nodes: int, site: Site):
    layout = generate("rail-optimized", system="dgx-b200", nodes=nodes, switch="qm9700")
    layout.set_meta(site=site)
    return layout


@pytest.fixture(scope="module")
def pair():
    """8 and 16 DGX B200 on the same 400 kW, 20-position site."""
    site = Site(power_kw=400, cooling_kw=450, rack_positions=20)
    small, big = _sited(8, site), _sited(16, site)
    a = Assumptions()
    return small, big, compare([figures("small", small, BOOK, a), figures("big", big, BOOK, a)])


def test_racks_and_site_shares_are_the_site_checks_figures(pair):
    small, big, table = pair
    for i, layout in enumerate((small, big)):
        use = cooling_report(layout).site
        assert _row(table, "racks").values[i] == use.racks > 0
        assert _row(table, "floor_positions_percent").values[i] == pytest.approx(
            100 * use.racks / 20)
        assert _row(table, "site_power_percent").values[i] == pytest.approx(
            100 * use.power_share)
        assert _row(table, "site_cooling_percent").values[i] == pytest.approx(
            100 * use.cooling_share)
    # more of the same nodes on the same site: never a smaller share of it
    for key in ("racks", "floor_positions_percent", "site_power_percent",
                "site_cooling_percent"):
        small_v, big_v = _row(table, key).values
        assert big_v >= small_v, key
    assert _row(table, "site_power_percent").values[1] > _row(
        table, "site_power_percent").values[0]
    # a share of a site describes, it does not rank
    assert _row(table, "site_power_percent").winner is None
    # what the site does not state has no row
    assert "site_liquid_percent" not in {r.key for r in table.rows}


def test_capex_per_gpu_and_problems_win_low(pair):
    small, big, table = pair
    capex, gpus = _row(table, "capex"), _row(table, "gpus")
    per_gpu = _row(table, "capex_per_gpu")
    for i in range(2):
        assert per_gpu.values[i] == pytest.approx(capex.values[i] / gpus.values[i])
    assert per_gpu.money and per_gpu.better == "low"
    for i, layout in enumerate((small, big)):
        findings = check_layout(layout)
        errors = sum(1 for f in findings if f.severity == ERROR)
        assert _row(table, "problem_errors").values[i] == errors
        assert _row(table, "problem_warnings").values[i] == len(findings) - errors


def test_a_design_over_its_floor_loses_the_problems_row():
    a = Assumptions()
    fits = _sited(8, Site(rack_positions=50))
    racks = cooling_report(fits).site.racks
    over = _sited(8, Site(rack_positions=max(1, racks - 1)))
    table = compare([figures("fits", fits, BOOK, a), figures("over", over, BOOK, a)])
    errors = _row(table, "problem_errors")
    assert errors.values[1] > errors.values[0]
    assert errors.winner == 0
    assert _row(table, "floor_positions_percent").values[1] > 100


def test_the_cli_prints_the_same_rows(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("RACKDESIGNER_PRICES", raising=False)
    site = Site(power_kw=400, cooling_kw=450, rack_positions=20)
    files = []
    for nodes in (8, 16):
        path = tmp_path / f"n{nodes}.yaml"
        save_layout(_sited(nodes, site), path)
        files.append(str(path))
    assert main(["compare", *files, "--json"]) == 0
    keys = {r["key"] for r in json.loads(capsys.readouterr().out)["rows"]}
    assert {"racks", "floor_positions_percent", "site_power_percent", "site_cooling_percent",
            "capex_per_gpu", "problem_errors", "problem_warnings"} <= keys
