"""An output over its own input (issue 31 §4): `export d.yaml -f slurm-tree -o d.yaml` replaced
the design with a topology file and exited 0. Every verb that writes something other than a
layout now refuses (exit 2, a message naming the output) when the output is an input — by the
same name, through a symbolic link or a hard link — and a folder export refuses a folder that
holds its input. Layout writers (convert, pack, import, generate) may rewrite their input.

The export cases come from the exporter registry, so a new format is covered by default; a
last test walks every verb's options so a new writing verb must be listed here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rackdesigner.cli import build_parser, main
from rackdesigner.generators import generate
from rackdesigner.interop import EXPORTERS
from rackdesigner.io import load_layout, save_layout

HOW = ("same-name", "symlink", "hardlink")
#: Verbs whose output is a layout: rewriting the input in place is allowed (convert's purpose).
LAYOUT_WRITERS = {"convert", "generate", "pack", "import"}
#: Verbs whose files are named by the data they write, not by an output option the user points
#: at an input: `catalog import-netbox` and `pack --unpack` write one model file per slug or
#: embedded id (issue 31 §1 checks those names); neither writes over its input (tests below).
NAMED_BY_DATA = {"catalog"}


def _design(folder: Path, name: str) -> Path:
    path = folder / name
    save_layout(generate("single-leaf", system="dgx-h100", switch="qm9700", nodes=2), path)
    return path


def _output(design: Path, how: str, suffix: str) -> Path:
    """The output name pointing at `design` the way `how` says."""
    if how == "same-name":
        return design
    out = design.with_name(f"out{suffix}")
    if how == "symlink":
        out.symlink_to(design.name)
    else:
        os.link(design, out)
    return out


def _refused(argv: list[str], design: Path, output: Path, capsys) -> None:
    before = design.read_bytes()
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2, err
    assert str(output) in err and "input" in err, err
    assert "Traceback" not in err
    assert design.read_bytes() == before  # the design is untouched
    load_layout(design)


FILE_EXPORTS = [name for name, e in EXPORTERS.items() if e.suffixes != ("",)]
FOLDER_EXPORTS = [name for name, e in EXPORTERS.items() if e.suffixes == ("",)]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("fmt", FILE_EXPORTS)
def test_a_file_export_over_its_input_is_refused(fmt, how, tmp_path, capsys):
    suffix = EXPORTERS[fmt].suffixes[0]
    design = _design(tmp_path, f"d{suffix}")
    output = _output(design, how, suffix)
    _refused(["export", str(design), "-f", fmt, "-o", str(output)], design, output, capsys)


@pytest.mark.parametrize("fmt", [f for f in FILE_EXPORTS if f.startswith("slurm")])
def test_a_host_map_is_an_input_too(fmt, tmp_path, capsys):
    design = _design(tmp_path, "d.yaml")
    hosts = tmp_path / "hosts.conf"
    hosts.write_text("dgx-1 node001\n")
    before = hosts.read_bytes()
    assert main(["export", str(design), "-f", fmt, "--hosts", str(hosts), "-o",
                 str(hosts)]) == 2
    assert str(hosts) in capsys.readouterr().err
    assert hosts.read_bytes() == before


@pytest.mark.parametrize("how", ("inside", "symlinked-folder", "nested"))
@pytest.mark.parametrize("fmt", FOLDER_EXPORTS)
def test_a_folder_export_over_the_folder_of_its_input_is_refused(fmt, how, tmp_path, capsys):
    folder = tmp_path / "out"
    # an earlier export of the folder (a manifest), then the design saved into it
    assert main(["export", str(_design(tmp_path, "seed.yaml")), "-f", fmt, "-o",
                 str(folder)]) == 0
    capsys.readouterr()
    inner = folder / "keep" if how == "nested" else folder
    inner.mkdir(exist_ok=True)
    design = _design(inner, "d.yaml")
    output = folder
    if how == "symlinked-folder":
        output = tmp_path / "link"
        output.symlink_to(folder.name)
    _refused(["export", str(design), "-f", fmt, "-o", str(output)], design, output, capsys)


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("view,suffix", [("topology", ".svg"), ("topology", ".png"),
                                         ("racks", ".svg"), ("racks", ".pdf")])
def test_a_render_over_its_input_is_refused(view, suffix, how, tmp_path, capsys):
    design = _design(tmp_path, f"d{suffix}")
    output = _output(design, how, suffix)
    _refused(["render", str(design), "--view", view, "-o", str(output)], design, output,
             capsys)


SPEC = ("schema_version: 1\ngenerate: single-leaf\nfixed: {system: dgx-h100, switch: qm9700}\n"
        "grid:\n  nodes: [2]\n")


@pytest.mark.parametrize("how", HOW)
def test_sweep_results_over_the_spec_are_refused(how, tmp_path, capsys):
    spec = tmp_path / "spec.csv"
    spec.write_text(SPEC)
    before = spec.read_bytes()
    output = _output(spec, how, ".csv")
    assert main(["sweep", str(spec), "-o", str(output), "--scheduler", "synchronous",
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert str(output) in err and "input" in err, err
    assert spec.read_bytes() == before


def test_sweep_results_over_the_base_layout_are_refused(tmp_path, capsys):
    base = _design(tmp_path, "base.csv")
    spec = tmp_path / "spec.yaml"
    spec.write_text("schema_version: 1\nbase: base.csv\nfixed: {x: 1}\n")
    before = base.read_bytes()
    assert main(["sweep", str(spec), "-o", str(base), "--scheduler", "synchronous",
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert str(base) in err and "input" in err, err
    assert base.read_bytes() == before


def test_convert_may_rewrite_its_input_in_place(tmp_path, capsys):
    design = _design(tmp_path, "d.yaml")
    devices = load_layout(design).device_count()
    assert main(["convert", str(design), "-o", str(design), "--form", "compact"]) == 0
    assert load_layout(design).device_count() == devices


def test_an_export_to_another_name_still_works(tmp_path, capsys):
    design = _design(tmp_path, "d.yaml")
    assert main(["export", str(design), "-f", "slurm-tree", "-o",
                 str(tmp_path / "topology.conf")]) == 0
    assert "SwitchName" in (tmp_path / "topology.conf").read_text()


def _writing_verbs() -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "verb")
    verbs = set()
    for name, verb_parser in sub.choices.items():
        dests = {a.dest for a in verb_parser._actions}
        if dests & {"output", "into", "unpack"} or name in NAMED_BY_DATA:
            verbs.add(name)
    return verbs


def test_every_verb_that_writes_a_file_is_checked_here():
    checked = {"export", "render", "sweep"}
    assert _writing_verbs() == checked | LAYOUT_WRITERS | NAMED_BY_DATA


def test_unpack_never_writes_a_model_over_the_packed_layout(tmp_path, capsys):
    """`pack --unpack DIR` names its files by the embedded model ids: a layout packed as
    DIR/<id>.yaml would be replaced by that model's file (issue 31 §4)."""
    import yaml
    from hostile import switch_model

    design = tmp_path / "acme-x1.yaml"
    design.write_text(yaml.safe_dump({
        "schema_version": 1, "name": "packed", "devices": [{"id": "sw-1", "model": "acme-x1"}],
        "links": [], "x-rackdesigner-models": {"acme-x1": switch_model("acme-x1")}},
        sort_keys=False))
    before = design.read_bytes()
    assert main(["pack", str(design), "--unpack", str(tmp_path)]) == 2
    assert "the input would be lost" in capsys.readouterr().err
    assert design.read_bytes() == before
    assert main(["pack", str(design), "--unpack", str(tmp_path / "models")]) == 0
    assert (tmp_path / "models" / "acme-x1.yaml").is_file()


def test_import_netbox_with_force_never_replaces_its_own_input(tmp_path, capsys):
    source = tmp_path / "mellanox-mqm8700-hs2f.yaml"
    lines = ["manufacturer: Mellanox", "model: Quantum QM8700",
             "slug: mellanox-mqm8700-hs2f", "u_height: 1", "interfaces:"]
    lines += [f"  - name: swp{i}\n    type: infiniband-hdr" for i in range(1, 41)]
    source.write_text("\n".join(lines) + "\n")
    before = source.read_bytes()
    assert main(["catalog", "import-netbox", str(source), "--into", str(tmp_path),
                 "--force"]) == 2
    assert "the input would be lost" in capsys.readouterr().err
    assert source.read_bytes() == before
