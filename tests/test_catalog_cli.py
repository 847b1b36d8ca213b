"""`rackdesigner catalog` verb."""

from __future__ import annotations

import json

import pytest

from rackdesigner.catalog import CatalogError, CatalogProblem
from rackdesigner.cli import catalog_cmd, main


def test_table_lists_products_with_ports_and_power(capsys):
    assert main(["catalog"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "18x NVLink4 200G, 1x PCIe Gen5 x16" in lines["h100-sxm5"]
    assert lines["h100-sxm5"].rstrip().endswith("-/700")
    assert "64x IB NDR 400G" in lines["qm9700"]
    assert "8x h100-sxm5" in lines["dgx-h100"]
    assert lines["mms4x00-ns"].rstrip().endswith("16/17")
    assert lines["dgx-b200"].rstrip().endswith("-/14300")
    assert lines["dac-ndr"].rstrip().endswith("0.1 per end")
    assert "2x 400GbE, 1x PCIe Gen5 x16" in lines["bluefield-3"]


def test_json_with_kind_filter(capsys):
    assert main(["catalog", "--json", "--kind", "gpu"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {d["kind"] for d in data} == {"gpu"}
    h100 = next(d for d in data if d["id"] == "h100-sxm5")
    assert h100["power"]["max_w"] == 700
    assert h100["ports"][0] == {"name": "nvlink", "protocol": "nvlink", "generation": "4",
                                "count": 18, "lanes": 2, "rate_gbps": 200.0, "connector": "sxm5"}


def test_broken_catalog_exits_2_with_message(capsys, monkeypatch):
    def broken():
        problem = CatalogProblem("qm9700.yaml", "ports[0].rate_gbps", "expected a number")
        raise CatalogError([problem])

    monkeypatch.setattr(catalog_cmd, "default_catalog", broken)
    assert main(["catalog"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "qm9700.yaml: ports[0].rate_gbps: expected a number" in captured.err


def test_unknown_kind_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["catalog", "--kind", "toaster"])
    assert info.value.code == 2
