"""One YAML loader (issue 34): PyYAML is called in `rackdesigner/yamlfile.py` only, and every
reader of YAML refuses the same thing in the same words, located at the same line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rackdesigner
from rackdesigner import yamlfile
from rackdesigner.cost.locate import read_price_book
from rackdesigner.interop.netbox_import import read_device_type
from rackdesigner.io import load_layout
from rackdesigner.io.site_read import load_site
from rackdesigner.reliability.library import load_library
from rackdesigner.serving.jobfile import load_serve_job
from rackdesigner.sweep.spec import load_spec
from rackdesigner.workload.jobfile import load_job
from rackdesigner.workload.models import load_model_file

PACKAGE = Path(rackdesigner.__file__).resolve().parent
#: What reads YAML text, builds a loader or walks the parser: allowed in yamlfile.py only
#: (dumping, and naming node classes in isinstance checks, are fine anywhere).
LOADING = frozenset({
    "load", "safe_load", "full_load", "unsafe_load", "load_all", "safe_load_all",
    "full_load_all", "unsafe_load_all", "compose", "compose_all", "parse", "scan",
    "Loader", "SafeLoader", "CSafeLoader", "FullLoader", "UnsafeLoader", "CLoader",
    "BaseLoader", "CBaseLoader", "CFullLoader", "CUnsafeLoader", "CParser",
})


def loading_calls(source: str) -> list[tuple[int, str]]:
    """(line, name) of every use of a PyYAML loading function or loader class in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Attribute) and node.attr in LOADING
                and isinstance(node.value, ast.Name) and node.value.id == "yaml"):
            found.append((node.lineno, f"yaml.{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "yaml":
            found += [(node.lineno, f"from {node.module} import {a.name}")
                      for a in node.names if a.name in LOADING or a.name == "*"]
    return found


def test_pyyaml_loads_only_in_the_one_loader():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "yamlfile.py":
            continue
        for line, what in loading_calls(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {what}")
    assert not offenders, ("read YAML through rackdesigner.yamlfile (load_yaml, compose_yaml, "
                           "load_resource...), not PyYAML directly:\n" + "\n".join(offenders))


def test_the_scan_finds_each_way_of_loading():
    """The check can fail: each form a new reader might write is caught."""
    source = ("import yaml\nfrom yaml import safe_load\nyaml.safe_load(t)\n"
              "yaml.load(t, Loader=yaml.CSafeLoader)\nyaml.compose(t)\nyaml.parse(t)\n"
              "yaml.safe_dump(d)\nisinstance(n, yaml.MappingNode)\n")
    assert sorted(w for _, w in loading_calls(source)) == sorted([
        "from yaml import safe_load", "yaml.safe_load", "yaml.load", "yaml.CSafeLoader",
        "yaml.compose", "yaml.parse"])


def _device_type(path: Path) -> None:
    read_device_type(path)


#: Every reader of a user's YAML file.
READERS = {
    "layout": load_layout,
    "site": load_site,
    "price book": read_price_book,
    "failure library": load_library,
    "sweep spec": load_spec,
    "training job": load_job,
    "serving job": load_serve_job,
    "model file": load_model_file,
    "device type": _device_type,
}
#: The same refusal in every reader: (file text, the line it is on, the one wording).
REFUSALS = {
    "alias": ("schema_version: 1\nname: &a x\nnote: *a\n", 2, yamlfile.M_ALIASES),
    "duplicate key": ("schema_version: 1\nname: x\nname: y\n", 3,
                      yamlfile.m_duplicate("name", 2)),
    "tag": ("schema_version: 1\nname: !!python/object:os.system x\n", 2,
            "unsupported YAML tag (!!python/object:os.system)"),
    "nesting": ("schema_version: 1\nname: " + "[" * 40 + "]" * 40 + "\n", 2,
                yamlfile.M_NESTED),
    "digits": ("schema_version: 1\nname: " + "9" * 5000 + "\n", 2, yamlfile.m_digits(5000)),
    "syntax": ("schema_version: 1\nname: [x\n", 3, f"{yamlfile.M_INVALID}: "),
}


@pytest.mark.parametrize("refusal", sorted(REFUSALS))
@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_reader_refuses_in_the_same_words(reader, refusal, tmp_path):
    text, line, words = REFUSALS[refusal]
    path = tmp_path / "file.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as info:
        READERS[reader](path)
    message = str(info.value)
    assert words in message, (reader, message)
    assert message.startswith(f"{path}:{line}"), (reader, message)


def test_a_bundled_table_is_read_as_strictly():
    with pytest.raises(ValueError, match="appears twice in one mapping"):
        yamlfile.load_resource("a: 1\na: 2\n", "resources/x.yaml")
    assert yamlfile.load_resource("a: [1, 2]\n", "resources/x.yaml") == {"a": [1, 2]}


def test_keys_are_compared_as_the_loader_resolves_them():
    """`1` and `"1"` are different keys (an int and a text); `a` and `"a"` are the same."""
    assert yamlfile.load_yaml('1: x\n"1": y\n', "f.yaml") == {1: "x", "1": "y"}
    with pytest.raises(ValueError, match="appears twice"):
        yamlfile.load_yaml('a: x\n"a": y\n', "f.yaml")
    with pytest.raises(ValueError, match="appears twice"):
        yamlfile.compose_yaml("- {k: 1, k: 2}\n", "f.yaml")
