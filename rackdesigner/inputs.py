"""One input discipline for every reader that is not the layout reader.

The layout reader (`reader.py`) is the model: regular files only, a size cap checked before
anything is read, YAML without tags, anchors or runaway nesting, numbers of sensible size, and
every refusal located (`file:line: what was expected`). The other doors — GraphML and
ibnetdiscover imports, NetBox folders and device types, user catalogs, model and job files,
sweep specs, host maps — read through the functions here so that they refuse the same things
the same way:

* `read_bytes` / `read_text`: a FIFO, socket or device is refused before it is read (opening
  one blocks or never ends), the size is checked on the open descriptor before reading, and the
  text must be UTF-8 (a UTF-16 or binary file is named as such, a bad byte is located);
* `load_yaml` / `compose_yaml` / `scalar_value`: the one YAML loader (`yamlfile.py`, re-exported
  here): no aliases, runaway nesting or sizes, 4,300-digit numbers, tags beyond plain data or
  duplicate keys, each refused in one wording;
* `finite_number` / `whole_number`: the bounded values every reader hands to the model.

Every refusal is an `InputError` (a ValueError) whose text is `path:line:column: message`;
readers re-raise it as their own error type (their callers already catch those) or report it.
"""

from __future__ import annotations

import errno
import math
import os
import re
import stat
from typing import Any

from rackdesigner.yamlfile import (  # noqa: F401 - the reader-facing YAML functions
    MAX_DEPTH,
    MAX_DIGITS,
    MAX_NODES,
    PLAIN_TAGS,
    check_yaml,
    compose_yaml,
    load_yaml,
    scalar_value,
    yaml_error,
)

_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
         (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


class InputError(ValueError):
    """An input file (or a value in it) that cannot be read: located, explained."""

    def __init__(self, path: str | os.PathLike, message: str, line: int | None = None,
                 column: int | None = None) -> None:
        self.path = os.fspath(path)
        self.message = message
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"


# ---- files ---------------------------------------------------------------------------------
class NotRegularFileError(OSError):
    """The path names a folder, FIFO, socket or device, not a file that can be read or saved."""

    def __init__(self, path: str | os.PathLike, kind: str) -> None:
        super().__init__(errno.EINVAL, f"is a {kind}, not a regular file", os.fspath(path))
        self.kind = kind


def file_kind(mode: int) -> str:
    """A readable name for the type of file `mode` (from `os.stat`) describes."""
    for test, name in ((stat.S_ISREG, "regular file"), (stat.S_ISDIR, "folder"),
                       (stat.S_ISFIFO, "FIFO (named pipe)"), (stat.S_ISSOCK, "socket"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device")):
        if test(mode):
            return name
    return "special file"


class FileTooLargeError(OSError):
    """The file is larger than the reader accepts."""

    def __init__(self, path: str | os.PathLike, size: int, limit: int) -> None:
        super().__init__(f"is {_mib(size)}; at most {_mib(limit)} is read")
        self.filename = os.fspath(path)
        self.strerror = f"is {_mib(size)}; at most {_mib(limit)} is read"
        self.size = size
        self.limit = limit


def _mib(n: int) -> str:
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n:,} bytes"


def read_regular(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """The bytes of the regular file `path`, at most `limit + 1` of them when `limit` is given.

    Raises `NotRegularFileError` for a folder, FIFO, socket or device, `FileTooLargeError` when
    the file is larger than `limit`, and `OSError` for anything else the system refuses.
    """
    fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(path, file_kind(info.st_mode))
        if limit is not None and info.st_size > limit:
            raise FileTooLargeError(path, info.st_size, limit)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read() if limit is None else handle.read(limit + 1)
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:  # grew while being read
        raise FileTooLargeError(path, len(data), limit)
    return data


def read_bytes(path: str | os.PathLike, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file `path` (at most `limit`); InputError otherwise."""
    try:
        return read_regular(path, limit)
    except FileNotFoundError:
        raise InputError(path, f"no such {what}") from None
    except NotRegularFileError as exc:
        raise InputError(path, f"is a {exc.kind}, not a regular file (expected a {what})"
                         ) from None
    except FileTooLargeError as exc:
        raise InputError(path, f"{exc.strerror}; a {what} is never that large") from None
    except IsADirectoryError:
        raise InputError(path, f"is a folder, not a regular file (expected a {what})") from None
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None


def decode_text(data: bytes, path: str | os.PathLike, what: str = "text file") -> str:
    """UTF-8 text of `data` (a BOM is dropped); a UTF-16/32 or binary file, or a byte that is
    not UTF-8, is an InputError naming the line."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            raise InputError(path, f"the file is {encoding} text; a {what} must be UTF-8 (save "
                             "it again as UTF-8)")
    if b"\x00" in data[:65536]:
        raise InputError(path, f"this is a binary file, not a {what} (expected UTF-8 text)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(path, f"byte 0x{data[exc.start]:02x} is not UTF-8 (a {what} must be "
                         "UTF-8 text; save it again as UTF-8)", line, column) from None


def read_text(path: str | os.PathLike, limit: int, what: str = "text file") -> str:
    """`read_bytes` then `decode_text`."""
    return decode_text(read_bytes(path, limit, what), path, what)


def regular_files(folder: str | os.PathLike, patterns: tuple[str, ...] = ("*.yaml", "*.yml"),
                  recursive: bool = True, limit: int = 100_000) -> list[Any]:
    """The files under `folder` matching `patterns`, sorted; a FIFO, socket or device among
    them is an InputError (it would block or never end when read). Symlinks are followed to
    decide; folders whose names match are skipped."""
    from pathlib import Path

    root = Path(folder)
    found: set[Path] = set()
    for pattern in patterns:
        for path in (root.rglob(pattern) if recursive else root.glob(pattern)):
            found.add(path)
            if len(found) > limit:
                raise InputError(folder, f"holds more than {limit:,} files matching "
                                 f"{', '.join(patterns)}; is this the right folder?")
    out = []
    for path in sorted(found):
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
        if stat.S_ISDIR(mode):
            continue
        if not stat.S_ISREG(mode):
            raise InputError(path, f"is a {file_kind(mode)}, not a regular file")
        out.append(path)
    return out


# ---- values --------------------------------------------------------------------------------
def finite_number(value: Any, what: str, *, low: float | None = None,
                  high: float | None = None) -> float:
    """`value` as a finite float within [low, high]; ValueError saying what was expected.
    Text is accepted when it is a plain decimal number (CSV and XML carry only text)."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise ValueError(f"{what} must be a finite number, got {_shown(value)}")
        if len(text) > MAX_DIGITS or not re.fullmatch(
                r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d{1,4})?", text):
            raise ValueError(f"{what} must be a number, got {_shown(value)}")
        value = float(text)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} must be a number, got {_shown(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"{what} must be a finite number, got a number too large") from None
    if not math.isfinite(number):
        raise ValueError(f"{what} must be a finite number, got {_shown(value)}")
    if (low is not None and number < low) or (high is not None and number > high):
        raise ValueError(f"{what} must be {_range(low, high)}, got {_shown(value)}")
    return number


def whole_number(value: Any, what: str, *, low: int = 0, high: int = 10**9) -> int:
    """`value` as an int within [low, high]: 1.7 is refused, not truncated; "12" is taken
    (text carries numbers in CSV and XML), "1.0" and 1.0 are taken as 1."""
    original = value
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"[-+]?\d{1,18}", text):
            value = int(text)
        elif re.fullmatch(r"[-+]?\d{1,18}\.0*", text):
            value = int(text.split(".")[0])
        else:
            raise ValueError(f"{what} must be a whole number, got {_shown(original)}")
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() \
            and abs(value) < 2**62:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be a whole number, got {_shown(original)}")
    if not low <= value <= high:
        raise ValueError(f"{what} must be a whole number from {low:,} to {high:,}, got "
                         f"{_shown(original)}")
    return value


def _range(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"between {low:g} and {high:g}"
    if low is not None:
        return f">= {low:g}"
    return f"<= {high:g}"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
