"""Fuzzing every reader a little (issue 24): mutated valid inputs — bytes flipped, cut, spliced,
hostile tokens inserted — must each be read or refused with the reader's own error. Any other
exception (a traceback for the user) fails. The examples are derandomised, so CI sees the same
inputs each run; the corpora of test_hostile_*.py hold the named cases.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from rackdesigner.catalog.loader import read_spec_file  # noqa: E402
from rackdesigner.generators import generate  # noqa: E402
from rackdesigner.interop import export  # noqa: E402
from rackdesigner.interop.graphml import GraphmlImportError  # noqa: E402
from rackdesigner.interop.graphml import read as read_graphml  # noqa: E402
from rackdesigner.interop.hostlist import HostMapError, read_host_map  # noqa: E402
from rackdesigner.interop.ibnetdiscover import IbnetdiscoverError, import_file  # noqa: E402
from rackdesigner.interop.netbox_design import NetboxImportError, read_folder  # noqa: E402
from rackdesigner.interop.netbox_import import (  # noqa: E402
    NetboxTypeError,
    read_device_type,
    to_catalog_data,
)
from rackdesigner.io import LayoutFileError, load_layout  # noqa: E402
from rackdesigner.sweep.spec import SweepSpecError, load_spec  # noqa: E402
from rackdesigner.workload.jobfile import JobFileError, load_job  # noqa: E402
from rackdesigner.workload.models import ModelFileError, load_model_file  # noqa: E402

#: Hypothesis warns when it prints a large input (the GraphML seed is 48 kB): not a failure.
pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
DATA = Path(__file__).parent / "data" / "interop"
ROOT = Path(__file__).parent.parent
#: 60 examples per reader in CI (~15 s in all); RACKDESIGNER_FUZZ_EXAMPLES=2000 (and
#: RACKDESIGNER_FUZZ_RANDOM=1 for fresh inputs) for a longer local run.
FUZZ = settings(max_examples=int(os.environ.get("RACKDESIGNER_FUZZ_EXAMPLES", "60")),
                deadline=None, derandomize=not os.environ.get("RACKDESIGNER_FUZZ_RANDOM"),
                database=None, suppress_health_check=list(HealthCheck))
#: Tokens that broke readers before (issue 24) or break parsers in general.
TOKENS = [b"nan", b"inf", b"-1e309", b"1.7", b"9" * 4400, b"&a", b"*a", b"!!python/name:os.system",
          b"\x00", b"\xff\xfe", b"\xe9", b"\t", b"\r", b"\n", b"\x85", "\u2028".encode(), b'"',
          b"'", b"[", b"{", b"}", b"]", b":", b"- ", b"<!DOCTYPE a [<!ENTITY x 'y'>]>", b"&x;",
          b"=cmd|' /C calc'!A0", b"0x", b"-", b",", b"#", b"/", b"../", b"\\", b"%", b"?"]


@st.composite
def mutated(draw, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        action = draw(st.sampled_from(["flip", "cut", "insert", "delete", "splice"]))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        if action == "flip" and data:
            data[at] = draw(st.integers(0, 255))
        elif action == "cut":
            del data[at:]
        elif action == "insert":
            data[at:at] = draw(st.sampled_from(TOKENS))
        elif action == "delete":
            del data[at:at + draw(st.integers(1, 64))]
        else:
            other = draw(st.integers(0, max(0, len(seed) - 1)))
            data[at:at] = seed[other:other + draw(st.integers(1, 200))]
    return bytes(data)


def _fuzz(seed: bytes, read, errors, tmp_path: Path, name: str):
    @FUZZ
    @given(mutated(seed))
    def run(data: bytes) -> None:
        path = tmp_path / name
        path.write_bytes(data)
        try:
            read(path)
        except errors as exc:
            assert str(path) in str(exc) or path.name in str(exc), str(exc)

    run()


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("seeds")
    layout = generate("single-leaf", system="dgx-h100", nodes=2, switch="qm9700")
    export(layout, "graphml", folder / "d.graphml")
    from rackdesigner.io import save_layout

    save_layout(layout, folder / "d.yaml")
    return {"graphml": (folder / "d.graphml").read_bytes(),
            "layout": (folder / "d.yaml").read_bytes()}


def test_fuzz_graphml(seeds, tmp_path):
    _fuzz(seeds["graphml"], read_graphml, GraphmlImportError, tmp_path, "f.graphml")


def test_fuzz_ibnetdiscover(tmp_path):
    _fuzz((DATA / "ibnetdiscover-2tier.txt").read_bytes(), import_file, IbnetdiscoverError,
          tmp_path, "f.txt")


def test_fuzz_layout(seeds, tmp_path):
    _fuzz(seeds["layout"], load_layout, LayoutFileError, tmp_path, "f.yaml")


def test_fuzz_catalog_file(tmp_path):
    seed = (ROOT / "resources" / "catalog" / "switch" / "qm9700.yaml").read_bytes()

    def read(path: Path) -> None:
        spec, problems = read_spec_file(path)
        assert spec is not None or problems

    _fuzz(seed, read, (), tmp_path, "qm9700.yaml")


def test_fuzz_model_file(tmp_path):
    seed = next((ROOT / "resources" / "models").glob("*.yaml")).read_bytes()
    _fuzz(seed, load_model_file, ModelFileError, tmp_path, "m.yaml")


def test_fuzz_job_file(tmp_path):
    seed = b"model: llama3-8b\ntp: 8\npp: 2\ngbs: 512\ntokens: 15T\npue: 1.2\ngpus: 64\n"
    _fuzz(seed, load_job, JobFileError, tmp_path, "job.yaml")


def test_fuzz_sweep_spec(tmp_path):
    seed = (b"schema_version: 1\ngenerate: single-leaf\nfixed: {system: dgx-h100, switch: "
            b"qm9700}\ngrid:\n  nodes: [2, 4]\noutputs:\n  collectives: [all_reduce]\n")
    _fuzz(seed, load_spec, SweepSpecError, tmp_path, "spec.yaml")


def test_fuzz_device_type(tmp_path):
    seed = (DATA / "netbox-nvidia-mqm9790-ns2f.yaml").read_bytes()

    def read(path: Path) -> None:
        to_catalog_data(path, read_device_type(path), {}, "switch")

    _fuzz(seed, read, NetboxTypeError, tmp_path, "t.yaml")


def test_fuzz_host_map(tmp_path):
    _fuzz(b"dgx-1 node001\ndgx-2 node002 # two\ndgx-3=node003\n", read_host_map, HostMapError,
          tmp_path, "hosts.txt")


@pytest.mark.parametrize("name", ["05-racks.csv", "06-devices.csv", "07-cables.csv"])
def test_fuzz_netbox_folder(name, tmp_path):
    import shutil

    source = tmp_path / "source"
    export(generate("single-leaf", system="dgx-h100", nodes=2, switch="qm9700"), "netbox",
           source)
    seed = (source / name).read_bytes()
    folder = tmp_path / "nb"

    @FUZZ
    @given(mutated(seed))
    def run(data: bytes) -> None:
        if folder.exists():
            shutil.rmtree(folder)
        shutil.copytree(source, folder)
        (folder / ".rackdesigner-export.json").unlink()
        (folder / name).write_bytes(data)
        try:
            read_folder(folder)
        except NetboxImportError as exc:
            assert str(folder) in str(exc), str(exc)

    run()
