"""A user's own device models: folders, overrides, --check, every verb, missing models, pack."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from rackdesigner.catalog import default_catalog, reset_default_catalog
from rackdesigner.catalog.user import ENV, platform_catalog_dir
from rackdesigner.cli import main
from rackdesigner.io import LayoutFileError, load_layout
from rackdesigner.model import check_layout

SWITCH = textwrap.dedent("""\
    schema: rackdesigner.device/1
    id: acme-x1
    kind: switch
    manufacturer: Acme
    model: X1 800G switch
    u_height: 2
    power: {max_w: 1500, source: ds}
    ports:
      - {name: eth, protocol: ethernet, generation: 800GbE, count: 64, lanes: 8,
         rate_gbps: 800, connector: osfp, source: ds}
    switch: {latency_ns: 700, source: ds}
    sources:
      ds: {title: Acme X1 datasheet}
    """)
DESIGN = textwrap.dedent("""\
    schema_version: 1
    name: two Acme switches
    devices:
    - {id: sw-1, model: acme-x1}
    - {id: sw-2, model: acme-x1}
    links:
    - {id: link-1, a: sw-1:eth.0, b: sw-2:eth.0, count: 2}
    """)


@pytest.fixture
def user_env(monkeypatch):
    """RACKDESIGNER_CATALOG restored and the catalog cache reset after each test."""
    monkeypatch.setenv(ENV, "")
    reset_default_catalog()
    yield monkeypatch
    monkeypatch.setenv(ENV, "")
    reset_default_catalog()


@pytest.fixture
def folder(tmp_path) -> Path:
    path = tmp_path / "my-catalog"
    path.mkdir()
    (path / "acme-x1.yaml").write_text(SWITCH)
    return path


@pytest.fixture
def design(tmp_path) -> Path:
    path = tmp_path / "design.yaml"
    path.write_text(DESIGN)
    return path


def test_catalog_option_adds_models_marked_as_user(user_env, folder, capsys):
    assert main(["--catalog", str(folder), "catalog", "--kind", "switch"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("acme-x1"))
    assert "[user]" in row and "64x 800GbE" in row
    assert "qm9700" in out  # the shipped ones are still there


def test_environment_variable_and_override_of_a_shipped_model(user_env, folder, tmp_path):
    shipped = default_catalog().get("qm9700")
    text = (Path(__file__).parents[1] / "resources" / "catalog" / "switch" / "qm9700.yaml"
            ).read_text()
    (folder / "qm9700.yaml").write_text(text.replace("u_height: 1", "u_height: 2"))
    user_env.setenv(ENV, str(folder))
    reset_default_catalog()
    catalog = default_catalog()
    assert catalog.get("acme-x1").is_user
    override = catalog.get("qm9700")
    assert override.is_user and override.u_height == 2 and shipped.u_height == 1
    assert catalog.overrides == {"qm9700"}


def test_check_reports_every_problem_with_file_and_key(user_env, folder, capsys):
    (folder / "broken.yaml").write_text(SWITCH.replace("id: acme-x1", "id: broken")
                                        .replace("rate_gbps: 800", "rate_gbps: fast")
                                        .replace("max_w: 1500, source: ds", "max_w: 1500, "
                                                 "source: dss"))
    assert main(["catalog", "--check", str(folder)]) == 2
    err = capsys.readouterr().err
    assert f"{folder / 'broken.yaml'}: ports[0].rate_gbps: expected a number, got 'fast'" in err
    assert "power.source: source 'dss' is not defined" in err
    (folder / "broken.yaml").unlink()
    assert main(["catalog", "--check", str(folder)]) == 0
    assert "ok: adds acme-x1" in capsys.readouterr().out
    # a broken folder given to a verb: a clear error, exit 2, no traceback
    (folder / "acme-x1.yaml").write_text(SWITCH.replace("kind: switch", "kind: swtich"))
    assert main(["--catalog", str(folder), "catalog"]) == 2
    assert "kind: expected one of" in capsys.readouterr().err
    assert main(["--catalog", str(folder / "missing"), "catalog"]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_every_verb_uses_the_user_models(user_env, folder, design, tmp_path, capsys):
    base = ["--catalog", str(folder)]
    assert main([*base, "validate", str(design)]) == 0
    assert main([*base, "bom", str(design), "--format", "csv"]) == 0
    assert "item,acme-x1,switch,,2,0" in capsys.readouterr().out
    assert main([*base, "simulate", str(design), "--json"]) == 0
    power = json.loads(capsys.readouterr().out)["power"]
    assert power["total_max_w"] == 2 * 1500  # the user model's power figure is used
    assert main([*base, "export", str(design), "-f", "dot", "-o", str(tmp_path / "d.dot")]) == 0


def test_missing_user_model_loads_marked_unknown(user_env, design, capsys):
    layout = load_layout(design)  # no catalog folder: the model is unknown
    assert layout.device_count() == 2 and layout.spec("sw-1") is None
    assert main(["validate", str(design)]) == 1
    out = capsys.readouterr().out
    assert "unknown device model 'acme-x1'" in out and "--catalog DIR" in out
    # the rule itself (what the Problems dock shows) speaks of the design, not of options
    told = [f.message for f in check_layout(layout) if f.code == "unknown-model"]
    assert any("catalog folder" in m for m in told) and not any("--" in m for m in told)
    assert main(["simulate", str(design)]) == 0
    assert main(["bom", str(design)]) == 0


def test_pack_makes_the_design_travel_with_its_models(user_env, folder, design, tmp_path,
                                                      capsys):
    packed = tmp_path / "packed.yaml"
    assert main(["--catalog", str(folder), "pack", str(design), "-o", str(packed)]) == 0
    assert "packed with 1 user model: acme-x1" in capsys.readouterr().out
    reset_default_catalog()
    user_env.setenv(ENV, "")  # elsewhere: no catalog folder
    layout = load_layout(packed)
    assert layout.spec("sw-1").port("eth").rate_gbps == 800
    assert main(["validate", str(packed)]) == 0
    # the models can be installed from the packed file
    unpacked = tmp_path / "unpacked"
    assert main(["pack", str(packed), "--unpack", str(unpacked)]) == 0
    assert main(["catalog", "--check", str(unpacked)]) == 0
    # saving a packed design keeps its models
    from rackdesigner.io import save_layout

    save_layout(layout, tmp_path / "resaved.yaml")
    assert load_layout(tmp_path / "resaved.yaml").spec("sw-1") is not None


def test_broken_embedded_model_is_a_located_error(user_env, folder, design, tmp_path):
    packed = tmp_path / "packed.yaml"
    assert main(["--catalog", str(folder), "pack", str(design), "-o", str(packed)]) == 0
    reset_default_catalog()
    user_env.setenv(ENV, "")
    text = packed.read_text().replace("rate_gbps: 800", "rate_gbps: fast")
    packed.write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "rate_gbps: fast" in t)
    with pytest.raises(LayoutFileError) as info:
        load_layout(packed)
    message = str(info.value)
    assert message.startswith(f"{packed}:{line}: embedded model:")
    assert "ports[0].rate_gbps: expected a number" in message


def test_platform_folder_is_used_when_present(user_env, tmp_path, folder):
    user_env.delenv(ENV)
    user_env.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    user_env.setenv("HOME", str(tmp_path))
    target = platform_catalog_dir()
    reset_default_catalog()
    assert "acme-x1" not in default_catalog()
    target.mkdir(parents=True)
    (target / "acme-x1.yaml").write_text(SWITCH)
    reset_default_catalog()
    assert default_catalog().get("acme-x1").is_user
