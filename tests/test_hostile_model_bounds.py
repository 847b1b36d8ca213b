"""Bounds the model keeps (issue 31 §9): a rack mounted in itself, two (or more) racks mounted
in each other, and a port or cable rate of 0 Gb/s in a user catalog were accepted. The model's
mutators refuse the mounting cycles with the same message the file readers locate at the line,
and the catalog loader refuses a rate that is not > 0 at its file and key."""

from __future__ import annotations

import pytest
from catalog_builder import HEAD, SRC

from rackdesigner.cli import main
from rackdesigner.io import LayoutFileError, dump_layout_text, load_layout, parse_layout_text
from rackdesigner.model import Device, Layout, LayoutError


def _racks(catalog, n: int) -> Layout:
    layout = Layout(catalog)
    for i in range(1, n + 1):
        layout.add_device(Device(f"rack-{i}", "rack-42u"))
    return layout


# ---- the mutators ------------------------------------------------------------------------
def test_a_rack_cannot_be_mounted_in_itself(catalog):
    layout = _racks(catalog, 1)
    with pytest.raises(LayoutError, match="mounted in itself"):
        layout.update_device("rack-1", rack="rack-1", u=1)
    assert layout.device("rack-1").rack is None
    with pytest.raises(LayoutError, match="mounted in itself"):
        layout.add_device(Device("rack-9", "rack-42u", rack="rack-9", u=1))
    assert not layout.has_device("rack-9")


@pytest.mark.parametrize("n", [2, 3, 5])
def test_racks_cannot_be_mounted_in_each_other(catalog, n):
    layout = _racks(catalog, n)
    for i in range(1, n):  # rack-1 in rack-2 in ... in rack-n: allowed, a chain
        layout.update_device(f"rack-{i}", rack=f"rack-{i + 1}", u=1)
    with pytest.raises(LayoutError, match="mounted in each other") as refusal:
        layout.update_device(f"rack-{n}", rack="rack-1", u=1)  # closing it is not
    for i in range(1, n + 1):
        assert f"rack-{i}" in str(refusal.value)
    assert layout.device(f"rack-{n}").rack is None


def test_adding_a_rack_that_closes_a_chain_is_refused(catalog):
    layout = _racks(catalog, 1)
    layout.update_device("rack-1", rack="rack-2", u=1)  # rack-2 does not exist yet: allowed
    with pytest.raises(LayoutError, match="mounted in each other"):
        layout.add_device(Device("rack-2", "rack-42u", rack="rack-1", u=1))
    with pytest.raises(LayoutError, match="mounted in each other"):
        layout.add_all([], [Device("rack-2", "rack-42u", rack="rack-1", u=1)], [])
    assert not layout.has_device("rack-2")


def test_a_batch_of_racks_in_each_other_is_refused_whole(catalog):
    layout = Layout(catalog)
    batch = [Device("rack-1", "rack-42u", rack="rack-2", u=1),
             Device("rack-2", "rack-42u", rack="rack-1", u=1),
             Device("gpu-1", "h100-sxm5")]
    with pytest.raises(LayoutError, match="mounted in each other"):
        layout.add_all([], batch, [])
    assert layout.device_count() == 0


def test_ordinary_mounting_is_untouched(catalog):
    layout = _racks(catalog, 1)
    layout.add_device(Device("leaf-1", "qm9700", rack="rack-1", u=10))
    layout.update_device("leaf-1", u=12)
    layout.add_all([], [Device("leaf-2", "qm9700", rack="rack-1", u=20)], [])
    assert layout.device("leaf-2").rack == "rack-1"


# ---- the readers -------------------------------------------------------------------------
SELF = "schema_version: 1\ndevices:\n  - {id: rack-1, model: rack-42u, rack: rack-1, u: 1}\n"
EACH = ("schema_version: 1\ndevices:\n  - {id: gpu-1, model: h100-sxm5}\n"
        "  - {id: rack-1, model: rack-42u, rack: rack-2, u: 1}\n"
        "  - {id: rack-2, model: rack-42u, rack: rack-1, u: 1}\n")


@pytest.mark.parametrize("text,line,what", [(SELF, 3, "mounted in itself"),
                                            (EACH, 4, "mounted in each other")])
def test_the_reader_locates_a_mounting_cycle(catalog, tmp_path, text, line, what):
    path = tmp_path / "d.yaml"
    path.write_text(text)
    with pytest.raises(LayoutFileError, match=what) as refusal:
        load_layout(path)
    assert str(refusal.value).startswith(f"{path}:{line}:")
    with pytest.raises(LayoutFileError, match=what):
        parse_layout_text(text, "d.yaml", catalog)
    assert main(["validate", str(path)]) == 2


def test_a_chain_of_racks_still_loads_and_saves(catalog):
    layout = _racks(catalog, 2)
    layout.update_device("rack-1", rack="rack-2", u=1)
    again = parse_layout_text(dump_layout_text(layout), "d.yaml", catalog)
    assert again.device("rack-1").rack == "rack-2"


# ---- a user catalog's rates ---------------------------------------------------------------
def _switch(rate: str) -> str:
    """A user model file (catalog_builder's head and sources) whose ports run at `rate`."""
    return (HEAD + "id: acme-x1\nkind: switch\nmodel: X1\nu_height: 2\n"
            "power: {max_w: 1500, source: s}\nports:\n"
            "  - {name: eth, protocol: ethernet, generation: 800GbE, count: 64, lanes: 8, "
            f"rate_gbps: {rate}, connector: osfp, source: s}}\n" + SRC)


@pytest.mark.parametrize("rate", ["0", "0.0", "-0.0"])
def test_a_port_rate_of_zero_is_refused_at_its_key(rate, tmp_path, capsys):
    folder = tmp_path / "cat"
    folder.mkdir()
    (folder / "acme-x1.yaml").write_text(_switch(rate))
    assert main(["catalog", "--check", str(folder)]) != 0
    err = capsys.readouterr()
    text = err.out + err.err
    assert "ports[0].rate_gbps" in text and "> 0" in text, text


def test_a_positive_rate_is_accepted(tmp_path, capsys):
    folder = tmp_path / "cat"
    folder.mkdir()
    (folder / "acme-x1.yaml").write_text(_switch("800"))
    assert main(["catalog", "--check", str(folder)]) == 0

