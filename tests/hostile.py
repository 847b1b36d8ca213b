"""Hostile inputs shared by the per-reader corpora (issue 24), modelled on the layout reader's
corpus (test_io_bad_files.py): each input is either refused with the reader's own located error
(the message starts with the file's path) or read; nothing else — no other exception, no hang.

`yaml_attacks()` gives the inputs every YAML reader must survive; `special_files()` the files
that are not files (a FIFO, a device, a folder, a file past the size cap); `run_cli` runs the
command line in a subprocess with a time limit, so a hang fails the test instead of stalling it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: The cases a YAML reader must refuse or read, whatever the reader (name -> file bytes).
BILLION_LAUGHS = ("a: &a [x, x, x, x, x, x, x, x, x]\n"
                  + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, "
                            f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
                            f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
                            for i in range(9)))


#: Names an export must not let run, split or inject (OWASP's formula starters, and line breaks
#: that would open a line of their own in a config): tests/test_hostile_exports*.py.
EXPORT_NAMES = (
    "=cmd|' /C calc'!A0",
    "=HYPERLINK(\"http://evil\",\"x\")",
    "+1+2",
    "-2+3",
    "@SUM(1,2)",
    "\t=1+1",
    "\r=1+1",
    "rack\nSwitchName=evil Nodes=ALL",
    "rack\rSwitchName=evil Nodes=ALL",
    "rack\u2028SwitchName=evil Nodes=ALL",
    "x\x85BlockName=evil Nodes=ALL",
    "bell\x07nul\x00esc\x1b[31m",
)


def yaml_attacks() -> dict[str, bytes]:
    deep_block = "".join("  " * i + "- \n" for i in range(200)) + "  " * 200 + "- x\n"
    return {
        "alias-bomb.yaml": BILLION_LAUGHS.encode(),
        "alias-top.yaml": b"a: &x {name: b}\nb: *x\n",
        "merge-key.yaml": b"base: &b {layers: 1}\nmodel:\n  <<: *b\n",
        "deep-flow.yaml": b"a: " + b"[" * 20000 + b"]" * 20000 + b"\n",
        "deep-map.yaml": b"a: " + b"{b: " * 5000 + b"1" + b"}" * 5000 + b"\n",
        "deep-block.yaml": deep_block.encode(),
        "huge-int.yaml": b"layers: " + b"9" * 5000 + b"\nname: " + b"1" * 4400 + b"\n",
        "huge-int-list.yaml": b"a: [" + b"7" * 4301 + b"]\n",
        "huge-float.yaml": b"a: 1e400\nb: -1e400\nc: .nan\nd: .inf\n",
        "python-tag.yaml": b"a: !!python/object/apply:os.system ['touch PWNED']\n",
        "python-name.yaml": b"a: !!python/name:os.system\n",
        "custom-tag.yaml": b"a: !secret x\n",
        "binary-tag.yaml": b"a: !!binary aGVsbG8=\n",
        "set-tag.yaml": b"a: !!set {x: null}\n",
        "binary-junk.yaml": bytes(range(256)) * 4,
        "utf16.yaml": "name: x\n".encode("utf-16"),
        "latin1.yaml": "name: caf\xe9\n".encode("latin-1"),
        "control-char.yaml": b"name: a\x07b\n",
        "nul.yaml": b"name: a\x00b\n",
        "tabs.yaml": b"a:\n\tb: 1\n",
        "duplicate-key.yaml": b"a: 1\na: 2\n",
        "unclosed-quote.yaml": b'a: "abc\n',
        "invalid-flow.yaml": b"a: {b: [1, 2}\n",
        "two-documents.yaml": b"a: 1\n---\nb: 2\n",
        "many-values.yaml": b"a: [" + b"1," * 250_000 + b"1]\n",
        "empty.yaml": b"",
        "only-comment.yaml": b"# nothing here\n",
        "list-top.yaml": b"- 1\n- 2\n",
        "scalar-top.yaml": b"hello\n",
        "null-top.yaml": b"~\n",
        "key-not-text.yaml": b"? [1, 2]\n: x\n",
        "long-line.yaml": b"name: " + b"x" * 200_000 + b"\n",
        "bom-utf8.yaml": b"\xef\xbb\xbfname: x\n",
        "crlf.yaml": b"name: x\r\nlayers: 2\r\n",
        "lone-cr.yaml": b"name: x\rlayers: 2\r",
        "surrogate-escape.yaml": b'name: "\\ud800"\n',
        "line-separator.yaml": "name: a\u2028b\n".encode(),
    }


def special_files(folder: Path, name: str, cap: int) -> dict[str, Path]:
    """Paths that are not regular files (FIFO, character device, folder) and one regular file
    larger than `cap` (sparse: no disk used), named like the reader's input."""
    out: dict[str, Path] = {}
    fifo = folder / f"fifo-{name}"
    os.mkfifo(fifo)
    out["fifo"] = fifo
    device = folder / f"dev-{name}"
    device.symlink_to("/dev/zero")
    out["device"] = device
    sub = folder / f"dir-{name}"
    sub.mkdir()
    out["folder"] = sub
    big = folder / f"big-{name}"
    with open(big, "wb") as handle:
        handle.truncate(cap + 1)
    out["oversize"] = big
    return out


def run_cli(args: list[str], *, timeout: float = 60.0, env: dict | None = None,
            cwd: str | Path | None = None) -> subprocess.CompletedProcess:
    """`rackdesigner ARGS` in a subprocess, bounded in time (a hang fails, never stalls)."""
    full_env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", **(env or {})}
    return subprocess.run([sys.executable, "-c", "import sys; from rackdesigner.cli import main; "
                           "sys.exit(main(sys.argv[1:]))", *args],
                          capture_output=True, text=True, timeout=timeout, env=full_env,
                          cwd=cwd, stdin=subprocess.DEVNULL)


def assert_clean_refusal(result: subprocess.CompletedProcess, where: str | Path) -> None:
    """Exit 2, a message naming `where`, no traceback."""
    text = result.stdout + result.stderr
    assert "Traceback" not in text, text[-3000:]
    assert result.returncode == 2, (result.returncode, text[-2000:])
    assert str(where) in result.stderr, result.stderr[-2000:]


def assert_located(message: str, path: Path | str) -> None:
    """A reader's message starts with the file's path (and so says which file)."""
    assert message.startswith(str(path)) or str(path) in message.split(": ", 1)[0], message


# ---- names are data (issue 31): shared by tests/test_hostile_names_*.py and the GUI's ----------

def switch_model(model_id: str = "acme-x1", **fields: object) -> dict:
    """A valid user switch model (catalog file content) with `fields` replaced: hostile ids,
    manufacturers and model names go here."""
    model = {
        "schema": "rackdesigner.device/1", "id": model_id, "kind": "switch",
        "manufacturer": "Acme", "model": "X1 800G switch", "u_height": 2,
        "power": {"max_w": 1500, "source": "ds"},
        "ports": [{"name": "eth", "protocol": "ethernet", "generation": "800GbE", "count": 64,
                   "lanes": 8, "rate_gbps": 800, "connector": "osfp", "source": "ds"}],
        "switch": {"latency_ns": 700, "source": "ds"},
        "sources": {"ds": {"title": "Acme X1 datasheet"}},
    }
    model.update(fields)
    return model


def named_design(name: str, **extra: object) -> dict:
    """A one-leaf DGX H100 design (layout document) whose design, group and device names all
    carry `name`; `extra` adds top-level keys (an embedded price book...)."""
    import yaml

    from rackdesigner.generators import generate
    from rackdesigner.io import dump_layout_text

    layout = generate("single-leaf", system="dgx-h100", nodes=1, switch="qm9700")
    doc = yaml.safe_load(dump_layout_text(layout))
    doc["name"] = f"{name} design"
    for group in doc["groups"]:
        group["name"] = f"{name} {group['id']}"
    for device in doc["devices"]:
        device["name"] = f"{name} {device['id']}"
    doc.update(extra)
    return doc
