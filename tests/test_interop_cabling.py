"""The cabling plan, read as a site team's spreadsheet would read it (csv module, openpyxl)."""

from __future__ import annotations

import csv

import pytest
from openpyxl import load_workbook

from rackdesigner.bom import bill_of_materials
from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.interop import ExportError, export
from rackdesigner.io import save_layout
from rackdesigner.model import natural_key


@pytest.fixture(scope="module")
def superpod():
    return generate("superpod", system="dgx-h100", sus=1)


def test_csv_has_one_row_per_cable_sorted_by_rack(superpod, tmp_path):
    out = tmp_path / "cabling.csv"
    export(superpod, "cabling", out)
    with out.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    # the same cable count the bill of materials orders
    assert len(rows) == bill_of_materials(superpod).cable_count()
    # walkable: each from-rack's rows are contiguous, in floor order, U ascending inside
    racks_seen = [r["from_rack"] for r in rows]
    order = list(dict.fromkeys(racks_seen))
    assert racks_seen == sorted(racks_seen, key=order.index)
    rack_ids = {d.name: d.id for d in superpod.devices() if d.model.startswith("rack-")}
    assert order == sorted(order, key=lambda name: natural_key(rack_ids[name]))
    by_rack: dict[str, list[int]] = {}
    for r in rows:
        by_rack.setdefault(r["from_rack"], []).append(int(r["from_u"]))
    assert all(us == sorted(us) for us in by_rack.values())
    # no port is used twice
    ends = [(r["from_device"], r["from_port"]) for r in rows] + [
        (r["to_device"], r["to_port"]) for r in rows]
    assert len(ends) == len(set(ends))
    # every row names rack, U, device and port on both ends, and the cable's part and length
    for r in rows[:50]:
        for side in ("from", "to"):
            assert r[f"{side}_rack"] and r[f"{side}_u"] and r[f"{side}_device"]
            assert r[f"{side}_port"]
        assert r["cable_type"] != "unspecified" and r["part"] and float(r["length_m"]) > 0
    # a node's compute NIC is cabled to a leaf; fibre runs carry optics at both ends
    first = rows[0]
    assert first["from_device"] == "dgx-1" and first["from_port"].startswith("nic0/")
    fibre = [r for r in rows if r["media"] == "fiber"]
    assert fibre and all(r["from_optic"] and r["to_optic"] for r in fibre)
    labels = [r["cable"] for r in rows]
    assert len(set(labels)) == len(labels)


@pytest.mark.slow
def test_xlsx_holds_the_same_rows_and_a_summary(superpod, tmp_path):
    csv_out, xlsx_out = tmp_path / "c.csv", tmp_path / "c.xlsx"
    export(superpod, "cabling", csv_out)
    export(superpod, "cabling", xlsx_out)
    with csv_out.open(newline="") as handle:
        rows = list(csv.reader(handle))
    book = load_workbook(xlsx_out, read_only=True)
    assert book.sheetnames == ["Cables", "Summary"]
    sheet_rows = [["" if v is None else str(v) for v in row]
                  for row in book["Cables"].iter_rows(values_only=True)]
    assert sheet_rows[0] == rows[0]
    assert len(sheet_rows) == len(rows)
    assert [r[0] for r in sheet_rows] == [r[0] for r in rows]
    summary = list(book["Summary"].iter_rows(values_only=True))
    assert summary[-1][0] == "total" and summary[-1][3] == len(rows) - 1


def test_design_without_inter_system_cables_is_refused(tmp_path, capsys):
    layout = generate("nvl72")  # NVLink spine is factory-wired: nothing for a site team
    with pytest.raises(ExportError, match="no cables"):
        export(layout, "cabling", tmp_path / "c.csv")
    design = tmp_path / "d.yaml"
    save_layout(layout, design)
    assert main(["export", str(design), "-f", "cabling", "-o", str(tmp_path / "c.txt")]) == 2
    assert "ending in .csv or .xlsx" in capsys.readouterr().err
