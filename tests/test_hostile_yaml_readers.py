"""Hostile corpora for the YAML readers beside the layout reader (issue 24): user catalog files,
model files, job files, sweep specs and NetBox device types.

Every reader gets the same attacks (tests/hostile.py: alias bombs, deep nesting, 5,000-digit
numbers, tags that would run code, binary and UTF-16 text, control characters...) and the files
that are not files (FIFO, /dev/zero, a folder, a file past the size cap). Each must be refused
with the reader's own located error — or read, where the text is harmless — never another
exception, never a hang (the time limit of each case is far below what a hang would take).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hostile import assert_clean_refusal, run_cli, special_files, yaml_attacks

from rackdesigner.catalog.loader import MAX_FILE_BYTES, read_spec_file
from rackdesigner.cost import PriceBookError
from rackdesigner.cost.locate import MAX_BYTES as BOOK_BYTES
from rackdesigner.cost.locate import read_price_book
from rackdesigner.interop.netbox_import import MAX_BYTES as TYPE_BYTES
from rackdesigner.interop.netbox_import import NetboxTypeError, read_device_type, to_catalog_data
from rackdesigner.sweep.spec import MAX_SPEC_BYTES, SweepSpecError, load_spec
from rackdesigner.workload.jobfile import MAX_BYTES as JOB_BYTES
from rackdesigner.workload.jobfile import JobFileError, load_job
from rackdesigner.workload.models import MAX_FILE_BYTES as MODEL_BYTES
from rackdesigner.workload.models import ModelFileError, load_model_file

ATTACKS = yaml_attacks()
#: How long one hostile file may take to be refused: the slowest attack (250,000 values) is
#: parsed once; an alias bomb walked or a FIFO waited on would take minutes.
SECONDS = 20.0


def _catalog(path: Path) -> None:
    spec, problems = read_spec_file(path)
    assert spec is None or not problems
    if spec is None:
        assert problems and all(p.file == path.name for p in problems), problems


def _device_type(path: Path) -> None:
    data = read_device_type(path)
    to_catalog_data(path, data, {}, "switch")


READERS = {
    # name: (file name, reader, its error, size cap)
    "catalog": ("model-x.yaml", _catalog, (), MAX_FILE_BYTES),
    "model": ("model-x.yaml", load_model_file, ModelFileError, MODEL_BYTES),
    "job": ("job.yaml", load_job, JobFileError, JOB_BYTES),
    "sweep": ("sweep.yaml", load_spec, SweepSpecError, MAX_SPEC_BYTES),
    "device-type": ("type.yaml", _device_type, NetboxTypeError, TYPE_BYTES),
    "price-book": ("prices.yaml", read_price_book, PriceBookError, BOOK_BYTES),
}


def _read(reader: str, path: Path) -> None:
    _, read, error, _ = READERS[reader]
    start = time.monotonic()
    try:
        read(path)
    except error as exc:  # the reader's own refusal: it names the file
        assert str(path) in str(exc) or path.name in str(exc), str(exc)
        assert "Traceback" not in str(exc)
    assert time.monotonic() - start < SECONDS


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_yaml_reader_refuses_or_reads_hostile_text(reader, attack, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a tag that ran code would leave ./PWNED
    path = tmp_path / READERS[reader][0]
    path.write_bytes(ATTACKS[attack])
    _read(reader, path)
    assert not (tmp_path / "PWNED").exists()


def test_every_yaml_reader_refuses_an_alias_bomb_and_deep_nesting_by_name(tmp_path):
    """Not just survived: refused, with the reason and the line."""
    for reader, (name, read, error, _) in READERS.items():
        if not error:
            continue
        for attack, words in (("alias-bomb.yaml", "aliases"), ("deep-flow.yaml", "nested"),
                              ("huge-int.yaml", "digits"), ("python-tag.yaml", "tag")):
            path = tmp_path / reader / name
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(ATTACKS[attack])
            with pytest.raises(error) as info:
                read(path)
            assert words in str(info.value), (reader, attack, str(info.value))
            assert str(info.value).startswith(str(path)), str(info.value)


@pytest.mark.parametrize("reader", sorted(READERS))
def test_yaml_reader_refuses_files_that_are_not_files(reader, tmp_path):
    name, read, error, cap = READERS[reader]
    for kind, path in special_files(tmp_path, name, cap).items():
        start = time.monotonic()
        if not error:  # the catalog reader reports problems instead of raising
            spec, problems = read_spec_file(path)
            assert spec is None and problems, kind
            assert any(w in str(problems[0]) for w in ("FIFO", "device", "folder", "MiB")), \
                problems
        else:
            with pytest.raises(error) as info:
                read(path)
            assert str(path) in str(info.value), str(info.value)
            assert any(w in str(info.value) for w in ("FIFO", "device", "folder", "MiB",
                                                       "bytes", "KiB")), str(info.value)
        assert time.monotonic() - start < 5, kind


# ---- the command line: exit 2, a located message, never a traceback or a hang --------------
@pytest.fixture(scope="module")
def design(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("design")
    result = run_cli(["generate", "dgx-h100", "-o", str(folder / "d.yaml")])
    assert result.returncode == 0, result.stderr
    return folder / "d.yaml"


@pytest.mark.slow
def test_cli_never_waits_on_a_fifo_or_reads_a_device(design, tmp_path):
    """Each door's FIFO (issue 24 §6): a user catalog folder, a model file, a job file, a
    sweep spec, a NetBox device type, a host map. Every verb answers at once with exit 2."""
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    import os

    os.mkfifo(catalog / "qm9700.yaml")
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    cases = [
        (["--catalog", str(catalog), "validate", str(design)], catalog / "qm9700.yaml"),
        (["--catalog", str(catalog), "catalog"], catalog / "qm9700.yaml"),
        (["catalog", "--check", str(catalog)], catalog / "qm9700.yaml"),
        (["estimate", str(design), "--gbs", "64", "--model", str(fifo)], fifo),
        (["estimate", str(design), "--gbs", "64", "--model", "/dev/zero"], "/dev/zero"),
        (["simulate", str(design), "--link-loads", "--job", str(fifo)], fifo),
        (["sweep", str(fifo), "-o", str(tmp_path / "out.csv")], fifo),
        (["catalog", "import-netbox", str(fifo), "--into", str(tmp_path / "into"),
          "--kind", "switch"], fifo),
        (["export", str(design), "-f", "slurm-tree", "-o", str(tmp_path / "t.conf"),
          "--hosts", str(fifo)], fifo),
    ]
    for args, where in cases:
        result = run_cli(args, timeout=60)
        assert_clean_refusal(result, where)


@pytest.mark.slow
def test_cli_refuses_a_5000_digit_number_in_every_yaml_door(design, tmp_path):
    digits = "9" * 5000
    model = tmp_path / "big.yaml"
    model.write_text(f"schema_version: 1\nname: x\nlayers: {digits}\n")
    job = tmp_path / "job.yaml"
    job.write_text(f"model: llama3-8b\ngbs: {digits}\n")
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"schema_version: 1\ngenerate: dgx-h100\ngrid: {{sus: [{digits}]}}\n")
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "big.yaml").write_text(f"schema: rackdesigner.device/1\nid: big\nu_height: "
                                      f"{digits}\n")
    cases = [
        (["estimate", str(design), "--gbs", "64", "--model", str(model)], model),
        (["simulate", str(design), "--link-loads", "--job", str(job)], job),
        (["sweep", str(spec), "-o", str(tmp_path / "o.csv")], spec),
        (["catalog", "--check", str(catalog)], "big.yaml"),
    ]
    for args, where in cases:
        result = run_cli(args)
        assert_clean_refusal(result, where)
        assert "digits" in result.stderr, result.stderr


@pytest.mark.slow
def test_model_with_an_absurd_layer_count_is_refused_not_estimated(design, tmp_path):
    """`layers: 1e21` (here as the integer) made `estimate` loop for ever."""
    model = tmp_path / "m.yaml"
    model.write_text("schema_version: 1\nname: x\nlayers: 1000000000000000000000\nhidden: 4096\n"
                     "heads: 32\nffn: swiglu\nvocab: 32000\nseq_len: 4096\nsource: test\n")
    result = run_cli(["estimate", str(design), "--gbs", "64", "--model", str(model)],
                     timeout=60)
    assert_clean_refusal(result, model)
    assert "layers must be at most" in result.stderr


def test_job_tokens_must_be_finite(tmp_path):
    job = tmp_path / "job.yaml"
    for tokens in (".inf", ".nan", "1e400", "inf", "-5T", "9" * 400):
        job.write_text(f"model: llama3-8b\ngbs: 512\ntokens: {tokens}\n")
        with pytest.raises(JobFileError, match="tokens"):
            load_job(job)


def test_catalog_refuses_a_billion_ports_and_racks_a_billion_units_tall(tmp_path):
    """A port count of 10^9 made the NetBox export allocate for 19 s; a u_height of 1e11
    drew racks a billion units tall. Both are refused where they are read."""
    base = ("schema: rackdesigner.device/1\nid: big\nkind: switch\nmanufacturer: X\nmodel: X\n"
            "sources: {s: {title: t}}\n")
    (tmp_path / "big.yaml").write_text(
        base + "u_height: 100000000000\nports:\n  - {name: ib, protocol: infiniband, "
        "generation: NDR, count: 1000000000, lanes: 4, rate_gbps: 400, connector: osfp, "
        "source: s}\n")
    spec, problems = read_spec_file(tmp_path / "big.yaml")
    assert spec is None
    text = "\n".join(str(p) for p in problems)
    assert "u_height" in text and "ports[0].count" in text, text


def test_layout_end_line_with_a_4300_digit_count_is_no_end_line(tmp_path, capsys):
    """A 4,300+-digit integer in the end line raised ValueError (Python's digit limit): such a
    line is no end line RackDesigner wrote, so a file that announces the check is cut short,
    and any other file loads as if the comment were not there."""
    from rackdesigner.cli import main
    from rackdesigner.generators import generate
    from rackdesigner.io import save_layout

    path = tmp_path / "d.yaml"
    save_layout(generate("dgx-h100"), path)
    lines = path.read_text().splitlines()
    assert lines[-1].startswith("# end of layout:")
    lines[-1] = f"# end of layout: {'9' * 4400} groups, 1 device, 1 link"
    path.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "cut short" in err and err.startswith(f"{path}:")
    path.write_text("\n".join(lines[1:]) + "\n")  # no announcement: the comment is a comment
    assert main(["validate", str(path)]) in (0, 1)
    assert "Traceback" not in capsys.readouterr().err
