"""An output that is one of its command's inputs (issue 31 §4).

`export d.yaml -f slurm-tree -o d.yaml` used to replace the design with a topology file. A
command that writes something other than a layout (an export, an image, sweep results) must
never write over what it reads: the output is refused when it *is* an input — the same file
under the same name, through a symbolic link (the atomic writer writes through links), or
through a hard link (the same inode: `os.path.samestat`, which compares device and inode) — and
a folder output (NetBox and ASTRA-sim exports replace their whole folder) is refused when an
input lies inside it.

Commands that write a layout (convert, generate, pack, import) may write over their input:
rewriting a design in place is what `convert` is for, and the layout writer is atomic.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["input_under_output", "output_over_input_message"]


def _stat(path: str | os.PathLike) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def input_under_output(output: str | os.PathLike, inputs: Iterable[str | os.PathLike | None],
                       *, folder: bool = False) -> Path | None:
    """The first of `inputs` that writing `output` would replace, or None.

    A file output replaces an input when both name the same file (same device and inode, so
    symlinks and hard links count). A `folder` output replaces its whole folder, so an input
    inside it (at any depth, links followed) counts too. Inputs that do not exist are skipped.
    """
    out = _stat(output)
    if out is None:
        return None
    for name in inputs:
        if name is None:
            continue
        info = _stat(name)
        if info is None:
            continue
        if os.path.samestat(out, info):
            return Path(name)
        if folder and _inside(Path(os.path.realpath(os.fspath(name))), out):
            return Path(name)
    return None


def _inside(path: Path, folder: os.stat_result) -> bool:
    for parent in path.parents:
        info = _stat(parent)
        if info is not None and os.path.samestat(info, folder):
            return True
    return False


def output_over_input_message(output: str | os.PathLike, source: str | os.PathLike,
                              what: str) -> str:
    """The refusal's text: which output, which input, and what to do instead."""
    out, src = os.fspath(output), os.fspath(source)
    if os.path.isdir(out) and not os.path.samefile(out, src):
        how = f"{src} is inside that folder, which the export replaces"
    elif os.path.abspath(out) == os.path.abspath(src):
        how = "it is the input file"
    else:
        how = f"it is the input file {src} (the same file through a link)"
    return (f"{out}: will not write the {what} there: {how}, so the input would be lost; "
            "choose another output")
