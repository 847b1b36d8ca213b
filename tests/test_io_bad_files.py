"""A corpus of bad layout files: each is refused with a located, explained `LayoutFileError`.

The same files go through `rackdesigner validate`, which must exit 2 with the message on stderr
and never a traceback. Inputs that could crash the process itself (deep nesting overflows
libyaml's C stack) are also loaded in a subprocess, so a segfault fails the test instead of
killing the test run.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rackdesigner.cli import main
from rackdesigner.io import LayoutFileError, dump_layout_text, load_layout, safety
from rackdesigner.model import Layout, check_layout, instantiate

BAD = Path(__file__).parent / "data" / "bad"

#: file -> (line or None where no line applies, fragments the message must contain)
EXPECTED: dict[str, tuple[int | None, tuple[str, ...]]] = {
    "empty.yaml": (None, ("empty", "schema_version: 1")),
    "only-comment.yaml": (None, ("empty", "schema_version: 1")),
    "list-at-top.yaml": (1, ("expected a mapping at the top", "got a list")),
    "scalar-at-top.yaml": (None, ("expected a mapping at the top", "got text")),
    "binary-junk.yaml": (None, ("binary file", "UTF-8")),
    "utf16.yaml": (None, ("UTF-16", "must be UTF-8")),
    "latin1.yaml": (3, ("not UTF-8",)),
    "missing-schema-version.yaml": (2, ("missing 'schema_version'", "schema_version: 1")),
    "schema-version-99.yaml": (2, ("schema_version 99", "newer RackDesigner", "reads up to 1")),
    "schema-version-text.yaml": (1, ("whole number", "got '1'")),
    "schema-version-zero.yaml": (2, ("whole number >= 1", "got 0")),
    "unknown-top-key.yaml": (3, ("unknown key 'devises'", "did you mean 'devices'?")),
    "unknown-device-key.yaml": (4, ("device gpu-2", "unknown key 'modle'",
                                    "did you mean 'model'?")),
    "unknown-link-key.yaml": (6, ("link l-1", "'lenght_m'", "did you mean 'length_m'?")),
    "unknown-group-key.yaml": (3, ("group node-1", "'knd'", "did you mean 'kind'?")),
    "pos-text.yaml": (3, ("device gpu-1", "'pos' must be [x, y]", "got 'a'")),
    "pos-one-number.yaml": (3, ("'pos' must be [x, y]", "got [1]")),
    "pos-three-numbers.yaml": (3, ("'pos' must be [x, y]", "got [1, 2, 3]")),
    "pos-inf.yaml": (3, ("two finite numbers", "inf")),
    "pos-nan.yaml": (3, ("two finite numbers", "nan")),
    "pos-bool.yaml": (3, ("two finite numbers", "True")),
    "pos-block-bad.yaml": (6, ("'pos' must be [x, y]", "got [1, 'x']")),
    "u-negative.yaml": (3, ("'u' must be a whole number of rack units", "got -1")),
    "u-zero.yaml": (3, ("'u' must be a whole number", "got 0")),
    "u-float.yaml": (3, ("'u' must be a whole number", "got 2.5")),
    "u-text.yaml": (3, ("'u' must be a whole number", "got 'top'")),
    "model-missing.yaml": (3, ("'model' must name a catalog model", "got None")),
    "model-number.yaml": (3, ("'model' must name a catalog model", "got 100")),
    "name-number.yaml": (3, ("'name' must be text", "got 42", "quotes")),
    "name-date.yaml": (2, ("'name' must be text", "quotes")),
    "count-zero.yaml": (3, ("link l-1", "'count' must be a whole number >= 1", "got 0")),
    "count-float.yaml": (3, ("'count' must be a whole number >= 1", "got 1.5")),
    "count-text.yaml": (3, ("'count' must be a whole number >= 1", "got 'many'")),
    "count-bool.yaml": (3, ("'count' must be a whole number >= 1", "got True")),
    "length-text.yaml": (3, ("'length_m' must be a number of metres", "got 'x'")),
    "length-negative.yaml": (3, ("'length_m' must be a number of metres", "got -2")),
    "collapsed-text.yaml": (3, ("'collapsed' must be true or false", "got 'yes'")),
    "collapsed-number.yaml": (3, ("'collapsed' must be true or false", "got 1")),
    "group-kind-bad.yaml": (3, ("kind 'nodes' is not one of", "node, tray, rack")),
    "devices-mapping.yaml": (2, ("'devices' must be a list of mappings", "got a mapping")),
    "devices-text.yaml": (2, ("'devices' must be a list of mappings", "got text")),
    "device-entry-text.yaml": (4, ("each entry of 'devices' must be a mapping", "'gpu-2'")),
    "duplicate-ids.yaml": (6, ("id 'gpu-1' is used twice", "first on line 3", "unique")),
    "duplicate-key.yaml": (3, ("key 'model' appears twice", "each key may appear once")),
    "duplicate-top-key.yaml": (4, ("key 'devices' appears twice", "first on line 2")),
    "id-missing.yaml": (3, ("device without 'id'", "id: gpu-1")),
    "id-space.yaml": (3, ("device id 'gpu 1' is invalid", "letters, digits")),
    "id-number.yaml": (3, ("device id 7 is invalid", "letters, digits")),
    "id-slash.yaml": (3, ("group id 'rack/1' is invalid",)),
    "id-newline.yaml": (3, ("device id 'gpu-1\\n' is invalid",)),
    "id-leading-dash.yaml": (3, ("device id '-gpu' is invalid", "starting with a letter")),
    "port-no-group.yaml": (3, ("'a'", "expected 'device:port'", "got 'gpu-1'")),
    "port-empty-group.yaml": (3, ("'a'", "expected 'device:port'", "got 'gpu-1:'")),
    "port-two-colons.yaml": (3, ("'b'", "expected 'device:port'", "got 'a:b:c'")),
    "port-bad-index.yaml": (3, ("'a'", "expected 'device:port'", "'gpu-1:nvlink.x'")),
    "port-missing.yaml": (3, ("'b'", "expected 'device:port'", "got None")),
    "port-newline.yaml": (3, ("'a'", "expected 'device:port'", "nvlink\\n'")),
    "group-cycle.yaml": (3, ("group pod-1 is inside itself", "parent cycle")),
    "group-self-parent.yaml": (4, ("group pod-1 is inside itself",)),
    "group-parent-undefined.yaml": (3, ("parent 'rack-9' is not defined",)),
    "group-undefined.yaml": (5, ("group 'node-2' is not defined", "did you mean 'node-1'?")),
    "python-tag.yaml": (2, ("unsupported YAML tag", "python/object/apply",
                            "plain mappings, lists, strings and numbers")),
    "python-tag-top.yaml": (1, ("unsupported YAML tag", "python/object/apply")),
    "python-name.yaml": (3, ("unsupported YAML tag", "python/name")),
    "custom-tag.yaml": (2, ("unsupported YAML tag", "!secret")),
    "anchor-alias.yaml": (3, ("anchors and aliases", "not allowed")),
    "merge-key.yaml": (3, ("anchors and aliases", "not allowed")),
    "billion-laughs.yaml": (2, ("anchors and aliases", "not allowed")),
    "invalid-flow.yaml": (3, ("invalid YAML", "expected ',' or '}'", "started on line 2")),
    "invalid-indent.yaml": (4, ("invalid YAML", "expected key")),
    "tabs.yaml": (3, ("invalid YAML", "tab", "spaces")),
    "unclosed-quote.yaml": (4, ("invalid YAML", "quoted scalar", "started on line 2")),
    "two-documents.yaml": (2, ("invalid YAML", "single document")),
    "key-not-text.yaml": (3, ("keys must be names", "got 3")),
    "huge-float.yaml": (3, ("two finite numbers", "inf")),
    "huge-float-plain.yaml": (3, ("two finite numbers", "1e99999")),
    # issue 12: a saved file cut short, a wrong end line, tags that are not plain data, a raw
    # control character, groups nested past what any view can draw
    "cut-short.yaml": (7, ("file ends after line 7", "cut short", "delete line 1")),
    "end-count-mismatch.yaml": (8, ("end check failed", "expected 3 links, found 1")),
    "tag-binary.yaml": (2, ("unsupported YAML tag (!!binary)",)),
    "tag-set.yaml": (2, ("unsupported YAML tag (!!set)",)),
    "tag-omap.yaml": (2, ("unsupported YAML tag (!!omap)",)),
    "control-char.yaml": (3, ("control character (U+0007)", "printable text")),
    "groups-nested-too-deep.yaml": (67, ("group g-64 is nested 65 groups deep", "at most 64")),
}


def _assert_located(exc: LayoutFileError, path: Path | str, line: int | None,
                    fragments: tuple[str, ...]) -> None:
    text = str(exc)
    assert str(path) in text
    assert exc.path == str(path)
    assert exc.line == line, text
    prefix = f"{path}:{line}:" if line is not None else f"{path}: "
    assert text.startswith(prefix), text
    for fragment in fragments:
        assert fragment in text, f"{fragment!r} not in {text!r}"


def _assert_cli_refuses(path: Path | str, capsys, line: int | None = None) -> str:
    capsys.readouterr()
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert out == ""
    location = f"{path}:{line}:" if line is not None else f"{path}:"
    assert err.startswith(location), err
    return err


def test_every_corpus_file_has_an_expectation():
    assert sorted(p.name for p in BAD.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_file_is_refused_with_a_located_message(name, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # python-tag files would write ./PWNED if they ran
    line, fragments = EXPECTED[name]
    path = BAD / name
    with pytest.raises(LayoutFileError) as info:
        load_layout(path)
    _assert_located(info.value, path, line, fragments)
    err = _assert_cli_refuses(path, capsys, line)
    assert fragments[0] in err
    assert not (tmp_path / "PWNED").exists()


def test_validate_goes_on_after_a_bad_file(capsys, catalog, tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text("schema_version: 1\ndevices:\n- {id: gpu-1, model: h100-sxm5}\n",
                    encoding="utf-8")
    bad = BAD / "schema-version-99.yaml"
    assert main(["validate", str(bad), str(good)]) == 2
    out, err = capsys.readouterr()
    assert str(bad) in err and "newer" in err
    assert f"{good}: 0 errors" in out


def test_python_tags_never_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "ran"
    payloads = [
        f'schema_version: 1\nname: !!python/object/apply:os.system ["touch {marker}"]\n',
        f"!!python/object/apply:subprocess.call [[touch, {marker}]]\n",
        f"schema_version: 1\nx-a: !!python/object/new:os.system [touch {marker}]\n",
        'schema_version: 1\nx-a: !!python/object/apply:builtins.exec ["import sys; sys.exit(3)"]\n',
    ]
    for k, text in enumerate(payloads):
        path = tmp_path / f"evil-{k}.yaml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(LayoutFileError, match="unsupported YAML tag"):
            load_layout(path)
    assert not marker.exists()


# ---- generated inputs ------------------------------------------------------------------

def _write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def _refused(path: Path, capsys, line: int | None, *fragments: str) -> LayoutFileError:
    with pytest.raises(LayoutFileError) as info:
        load_layout(path)
    _assert_located(info.value, path, line, fragments)
    _assert_cli_refuses(path, capsys, line)
    return info.value


def test_random_bytes_are_refused(tmp_path, capsys):
    rng = random.Random(20261130)
    for k in range(40):
        size = rng.choice([1, 7, 100, 4096, 65536])
        data = bytes(rng.randrange(256) for _ in range(size))
        path = _write(tmp_path, f"random-{k}.yaml", data)
        try:
            load_layout(path)
        except LayoutFileError as exc:
            assert str(exc).startswith(str(path))
        else:  # a 1-byte file can be a harmless YAML scalar, never a layout
            pytest.fail(f"random bytes {data[:20]!r} loaded as a layout")
    assert main(["validate", str(path)]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
def test_twenty_megabytes_of_junk(tmp_path, capsys):
    rng = random.Random(7)
    alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789 :-,[]{}#'\"\n"
    chunk = bytes(rng.choice(alphabet) for _ in range(1 << 16))
    path = _write(tmp_path, "junk.yaml", chunk * 320)  # 20 MiB
    with pytest.raises(LayoutFileError) as info:
        load_layout(path)
    assert str(info.value).startswith(f"{path}:")
    assert main(["validate", str(path)]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
def test_binary_junk_is_refused_at_once(tmp_path, capsys):
    rng = random.Random(3)
    data = bytes(rng.randrange(256) for _ in range(1 << 20)) * 20
    path = _write(tmp_path, "junk.bin.yaml", data)
    _refused(path, capsys, None, "binary file")


@pytest.mark.slow
def test_files_over_the_size_limit_are_refused(tmp_path, capsys):
    path = _write(tmp_path, "big.yaml", b"#" * (safety.MAX_BYTES + 1))
    _refused(path, capsys, None, "MiB", "refused")


@pytest.mark.slow
def test_too_many_values_are_refused_before_composing(tmp_path, capsys):
    text = "schema_version: 1\nx-a: {" + "a," * (safety.MAX_NODES // 2 + 10) + "a}\n"
    path = _write(tmp_path, "many.yaml", text)
    _refused(path, capsys, 2, "more than 4,000,000 values")


@pytest.mark.parametrize("encoding, message", [
    ("utf-16", "UTF-16"), ("utf-16-be", "binary file"), ("utf-32", "UTF-32"),
])
def test_wide_encodings(tmp_path, capsys, encoding, message):
    text = "schema_version: 1\nname: lab\n"
    path = _write(tmp_path, f"{encoding}.yaml", text.encode(encoding))
    _refused(path, capsys, None, message, "UTF-8")


def test_latin1_names_the_line(tmp_path, capsys):
    text = "schema_version: 1\ndevices:\n- {id: a, model: h100-sxm5}\n- {id: b, name: ñ}\n"
    path = _write(tmp_path, "latin1.yaml", text.encode("latin-1"))
    _refused(path, capsys, 4, "not UTF-8")
    with open(path, encoding="utf-8") as handle, pytest.raises(LayoutFileError, match="UTF-8"):
        load_layout(handle)


def test_utf8_bom_is_accepted(tmp_path):
    path = _write(tmp_path, "bom.yaml", "\ufeffschema_version: 1\nname: lab\n")
    assert load_layout(path).meta.name == "lab"


def test_unreadable_paths(tmp_path, capsys):
    missing = tmp_path / "nope.yaml"
    with pytest.raises(LayoutFileError, match="no such file"):
        load_layout(missing)
    _assert_cli_refuses(missing, capsys)
    with pytest.raises(LayoutFileError, match="folder"):
        load_layout(tmp_path)
    _assert_cli_refuses(tmp_path, capsys)


@pytest.mark.parametrize("digits", [4301, 5001, 100_000])
def test_huge_integers(tmp_path, capsys, digits):
    number = "9" * digits
    for k, text in enumerate([
        f"schema_version: {number}\n",
        f"schema_version: 1\ndevices:\n- {{id: a, model: h100-sxm5, u: {number}}}\n",
        f"schema_version: 1\ndevices:\n- {{id: a, model: h100-sxm5, pos: [-{number}, 0]}}\n",
        f"schema_version: 1\nlinks:\n- {{id: l, a: 'a:p', b: 'b:q', count: {number}}}\n",
        f"schema_version: 1\nx-big: [{number}]\n",
    ]):
        path = _write(tmp_path, f"int-{k}.yaml", text)
        line = text.count("\n", 0, text.index(number)) + 1
        _refused(path, capsys, line, f"number with {digits} digits is too large")


def test_integers_just_under_the_digit_limit(tmp_path, capsys):
    number = "9" * 4000
    device = "schema_version: 1\ndevices:\n- {id: a, model: h100-sxm5, "
    link = "schema_version: 1\nlinks:\n- {id: l, a: 'a:p', b: 'b:q', "
    path = _write(tmp_path, "u.yaml", f"{device}u: {number}}}\n")
    _refused(path, capsys, 3, "'u' must be a whole number")
    path = _write(tmp_path, "pos.yaml", f"{device}pos: [{number}, 0]}}\n")
    _refused(path, capsys, 3, "two finite numbers")
    path = _write(tmp_path, "len.yaml", f"{link}length_m: {number}}}\n")
    _refused(path, capsys, 3, "'length_m' must be a number")


def test_huge_floats(tmp_path, capsys):
    for k, value in enumerate(["1.0e+99999", "-1.0e+99999", ".inf", ".NaN"]):
        path = _write(tmp_path, f"f-{k}.yaml", "schema_version: 1\nlinks:\n"
                      f"- {{id: l, a: 'a:p', b: 'b:q', length_m: {value}}}\n")
        _refused(path, capsys, 3, "'length_m' must be a number of metres")


def test_billion_laughs_in_a_device(tmp_path, capsys):
    lines = ["schema_version: 1", "devices:",
             '- {id: a, model: h100-sxm5, x-l0: &l0 ["lol", "lol", "lol", "lol", "lol"]}']
    for k in range(1, 30):
        refs = ", ".join([f"*l{k - 1}"] * 10)
        lines.append(f"- {{id: d{k}, model: h100-sxm5, x-l{k}: &l{k} [{refs}]}}")
    path = _write(tmp_path, "lol.yaml", "\n".join(lines) + "\n")
    _refused(path, capsys, 3, "anchors and aliases")


# ---- deep nesting: must never reach libyaml's recursive composer ----------------------------

DEEP = {
    "flow-lists": "[" * 200_000,
    "flow-lists-closed": "x-a: " + "[" * 200_000 + "]" * 200_000 + "\n",
    "flow-maps": "x-a: " + "{a: " * 100_000 + "}" * 100_000 + "\n",
    "flow-mixed": "x-a: " + "[{a: " * 60_000 + "\n",
    "block-dashes": "- " * 100_000 + "x\n",
    "block-question": "? " * 100_000 + "x\n",
    "block-colon-chain": "schema_version: 1\nx-a:\n" + "".join(
        "  " * k + "- \n" for k in range(1, 2000)),
    "deep-indentation": "schema_version: 1\n" + "".join(" " * k + "k:\n" for k in range(4000)),
    "deep-dash-lines": "".join(" " * k + "-\n" for k in range(4000)),
    "quoted-brackets": ("schema_version: 1\nname: '" + "[" * 200_000 + "'\nx-a: "
                        + "[" * 40 + "]" * 40),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DEEP))
def test_deep_nesting_is_refused(name, tmp_path, capsys):
    path = _write(tmp_path, f"{name}.yaml", DEEP[name])
    with pytest.raises(LayoutFileError) as info:
        load_layout(path)
    text = str(info.value)
    assert text.startswith(f"{path}:")
    assert "nested more than 32 levels" in text
    assert info.value.line is not None
    _assert_cli_refuses(path, capsys, info.value.line)


_CHILD = """
import sys
from rackdesigner.io import LayoutFileError, load_layout
try:
    load_layout(sys.argv[1])
except LayoutFileError as exc:
    print("refused:", str(exc)[:200])
else:
    print("loaded")
"""

_CLI = "import sys; from rackdesigner.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.mark.slow
def test_deep_nesting_does_not_crash_the_process(tmp_path):
    """Unguarded, `[` x 200000 segfaults libyaml's composer; these children must exit 0."""
    for name in ("flow-lists", "flow-maps", "block-dashes", "deep-indentation",
                 "block-colon-chain"):
        path = _write(tmp_path, f"{name}.yaml", DEEP[name])
        done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, (name, done.returncode, done.stderr[-2000:])
        assert done.stdout.startswith("refused: ") and "nested more than" in done.stdout
        cli = subprocess.run([sys.executable, "-c", _CLI, "validate", str(path)],
                             capture_output=True, text=True, timeout=120)
        assert cli.returncode == 2, (name, cli.returncode, cli.stderr[-2000:])
        assert "Traceback" not in cli.stderr and str(path) in cli.stderr


def test_moderate_nesting_in_extensions_still_loads(tmp_path):
    text = "schema_version: 1\nx-tree: " + "[" * 20 + "]" * 20 + "\n"
    path = _write(tmp_path, "ok.yaml", text)
    tree = dict(load_layout(path).meta.extra)["x-tree"]
    for _ in range(19):
        assert isinstance(tree, list) and len(tree) == 1
        tree = tree[0]
    assert tree == []


# ---- seeded fuzzing ----------------------------------------------------------------------

def _seed_file(catalog) -> bytes:
    parts = instantiate(catalog, "dgx-h100", "dgx-1")
    layout = Layout(catalog)
    layout.add_all(parts.groups, parts.devices, parts.links)
    text = dump_layout_text(layout)
    text = text.replace("devices:\n", "name: \"seed: 'fuzz'\"\nx-tool: {v: [1, 2.5]}\ndevices:\n")
    return text.encode("utf-8")


_TOKENS = [b"[", b"]", b"{", b"}", b":", b": ", b"- ", b"\n", b"\t", b"'", b'"', b"&a ", b"*a",
           b"!!python/object/apply:os.system [x] ", b"\x00", b"\xff", b"#", b",", b"999999",
           b".inf", b"yes", b"null", b"~", b"-1", b"1.5", b"x-", b"\xc3", b"\xe2\x80\xa8",
           b"gpu-1:nvlink.3", b"dgx-1.gpu0", b"---\n", b"? ", b"<<: ", b"  "]


def _mutate(data: bytes, rng: random.Random, gentle: bool = False) -> bytes:
    """1-2 random edits; `gentle` ones only swap words, so the YAML mostly stays valid."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 2)):
        op = 6 if gentle else rng.randrange(8)
        at = rng.randrange(len(buf) + 1)
        if op >= 6:  # replace a word (an id, key, number...) with a token or another word
            words = list(re.finditer(rb"[\w.:-]+", bytes(buf)))
            if words:
                word = rng.choice(words)
                other = rng.choice(words).group()
                if not gentle and rng.random() < 0.5:
                    other = rng.choice(_TOKENS)
                buf[word.start(): word.end()] = other
        elif op == 0 and buf:  # flip a byte
            buf[min(at, len(buf) - 1)] = rng.randrange(256)
        elif op == 1:  # insert a token
            buf[at:at] = rng.choice(_TOKENS)
        elif op == 2:  # delete a span
            del buf[at: at + rng.randint(1, 40)]
        elif op == 3:  # duplicate a line
            start = buf.rfind(b"\n", 0, at) + 1
            end = buf.find(b"\n", at)
            end = len(buf) if end < 0 else end + 1
            buf[end:end] = buf[start:end]
        elif op == 4:  # swap two spans
            other = rng.randrange(len(buf) + 1)
            lo, hi = sorted((at, other))
            buf[lo:hi] = buf[lo:hi][::-1]
        else:  # truncate
            del buf[at:]
    return bytes(buf)


@pytest.mark.slow
def test_fuzzed_files_load_or_raise_layout_file_error(catalog, tmp_path):
    seed = _seed_file(catalog)
    rng = random.Random(1130)
    outcomes = {"loaded": 0, "refused": 0}
    path = tmp_path / "fuzz.yaml"
    for k in range(300):
        data = _mutate(seed, rng, gentle=k % 3 == 0)
        path.write_bytes(data)
        try:
            layout = load_layout(path)
        except LayoutFileError as exc:
            assert str(exc).startswith(str(path)), exc
            assert exc.message
            outcomes["refused"] += 1
        else:
            check_layout(layout)  # design rules take whatever loads, without crashing
            text = dump_layout_text(layout)  # and whatever loads can be saved and reloaded
            from rackdesigner.io import parse_layout_text

            assert parse_layout_text(text) == layout
            outcomes["loaded"] += 1
    assert outcomes["loaded"] > 10 and outcomes["refused"] > 100, outcomes


@pytest.mark.slow
def test_fuzzed_files_through_the_cli(catalog, tmp_path, capsys):
    seed = _seed_file(catalog)
    rng = random.Random(42)
    for k in range(40):
        path = _write(tmp_path, f"cli-{k}.yaml", _mutate(seed, rng))
        status = main(["validate", str(path)])
        out, err = capsys.readouterr()
        assert status in (0, 1, 2)
        assert "Traceback" not in out + err
        if status == 2:
            assert err.startswith(f"{path}")
