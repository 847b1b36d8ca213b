"""One way to each fact: one grammar for message sizes (`rackdesigner.units`) — every verb and
the sweep spec read a size the same way, and refuse the same way — and one located-error class.

Before, the CLI read "1GB" as 1 GiB and a sweep spec refused it; `compare --size` and
`simulate --size` had their own parsers. Now each route hands the text to `units.parse_size`
(or `table_size`, where the busbw tables' sizes are asked for).
"""

from __future__ import annotations

import textwrap

import pytest

from rackdesigner.cli import UsageError
from rackdesigner.cli.compare_cmd import parse_size as compare_size
from rackdesigner.cli.simulate_cmd import _size as cli_size
from rackdesigner.sweep.spec import SweepSpecError, parse_spec
from rackdesigner.sweep.spec import parse_size as spec_size
from rackdesigner.units import parse_size, size_label, table_size

#: ways people write one size: (text, bytes)
WRITTEN = [("8", 8), ("8B", 8), ("8 b", 8), ("64K", 64 << 10), ("64 KiB", 64 << 10),
           ("64KB", 64 << 10), ("1M", 1 << 20), ("16MiB", 16 << 20), ("1G", 1 << 30),
           ("1GB", 1 << 30), ("1 GiB", 1 << 30), ("1gib", 1 << 30), ("16G", 16 << 30)]


@pytest.mark.parametrize(("text", "size"), WRITTEN)
def test_every_route_reads_a_written_size_alike(text, size):
    assert parse_size(text) == size
    assert cli_size(text) == size
    assert compare_size(text) == size
    assert spec_size(text) == size


def test_every_table_size_reads_back_from_its_label():
    for e in range(3, 35):
        size = 1 << e
        label = size_label(size)
        assert parse_size(label) == table_size(label) == spec_size(label) == size


@pytest.mark.parametrize("text", ["", "G", "1.5G", "-8", "0", "1T", "8 bytes", "0x10", "1e9"])
def test_a_size_outside_the_grammar_is_refused_by_every_route_with_the_form(text):
    with pytest.raises(ValueError, match="whole number of bytes"):
        parse_size(text)
    with pytest.raises(UsageError, match="--size: expected a whole number"):
        cli_size(text)
    with pytest.raises(UsageError, match="--size: expected a whole number"):
        compare_size(text)
    assert spec_size(text) is None


@pytest.mark.parametrize("text", ["3M", "1000", "32G", "4"])
def test_a_size_the_tables_do_not_hold_is_refused_where_tables_are_read(text):
    assert parse_size(text) > 0  # a size, but not one of the busbw tables
    with pytest.raises(UsageError, match="powers of two from 8 B to 16 GiB"):
        compare_size(text)
    assert spec_size(text) is None


def test_a_sweep_spec_takes_the_clis_words_for_sizes():
    spec = parse_spec(textwrap.dedent("""\
        schema_version: 1
        generate: single-leaf
        fixed: {switch: qm9700, system: dgx-h100}
        grid: {nodes: [1]}
        outputs: {sizes: [1G, 16MB, 8192]}
        """))
    assert spec.sizes == (1 << 30, 16 << 20, 8192)
    with pytest.raises(SweepSpecError, match="powers of two"):
        parse_spec("schema_version: 1\ngenerate: single-leaf\nfixed: {switch: qm9700, "
                   "system: dgx-h100}\ngrid: {nodes: [1]}\noutputs: {sizes: [1.5G]}\n")


def test_a_layout_file_error_is_the_one_located_input_error(tmp_path):
    """`InputError` and `LayoutFileError` were the same class written twice; now one class,
    so a caller handling bad input files handles a bad layout file too (file and line)."""
    from rackdesigner.inputs import InputError
    from rackdesigner.io import LayoutFileError, load_layout

    assert LayoutFileError is InputError
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema_version: 1\ndevices:\n- {id: gpu-1, model: h100-sxm5, pos: [0]}\n")
    with pytest.raises(InputError) as caught:
        load_layout(bad)
    assert caught.value.path == str(bad) and caught.value.line == 3
    assert str(caught.value).startswith(f"{bad}:3")


@pytest.mark.parametrize("design", ["fat-tree-2tier", "gb200-nvl72"])
def test_cost_and_simulate_read_power_through_one_route(design):
    """`cost`/`compare` power is `simulate`'s, from the same function over the same specs (no
    stand-in object pretending to be a topology)."""
    from pathlib import Path

    import rackdesigner
    from rackdesigner.cost.report import design_power
    from rackdesigner.io import load_layout
    from rackdesigner.simulation import simulate

    path = Path(rackdesigner.__file__).resolve().parent.parent / "resources" / "examples"
    layout = load_layout(path / f"{design}.yaml")
    assert design_power(layout, 1.25).to_dict() == simulate(layout, pue=1.25).power.to_dict()
    package = Path(rackdesigner.__file__).resolve().parent
    assert not [p for p in package.rglob("*.py") if "SimpleNamespace" in p.read_text()]
