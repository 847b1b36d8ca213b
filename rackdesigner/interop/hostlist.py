"""Slurm hostlist expressions (`dgx-[01-31]`, `nvl72-1.tray[0-17]`) and host-name maps.

Slurm's parser reads `prefix[ranges]` with an optional suffix, ranges being `a-b` or `a`
separated by commas; zero-padded numbers keep their width. Names whose trailing number cannot
be bracketed are listed as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from rackdesigner.model import natural_key

_TAIL = re.compile(r"^(?P<prefix>.*?)(?P<num>\d+)$")
_HOSTNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


def compress(names: Iterable[str]) -> str:
    """A hostlist expression that expands to exactly `names` (order: natural)."""
    groups: dict[tuple[str, int], list[int]] = {}
    plain: list[str] = []
    for name in sorted(set(names), key=natural_key):
        m = _TAIL.match(name)
        if m is None or "[" in name or "," in name:
            plain.append(name)
            continue
        digits = m["num"]
        width = len(digits) if digits.startswith("0") and len(digits) > 1 else 0
        groups.setdefault((m["prefix"], width), []).append(int(digits))
    parts: list[str] = []
    for (prefix, width), numbers in groups.items():
        if len(numbers) == 1:
            parts.append(f"{prefix}{numbers[0]:0{width}d}" if width else f"{prefix}{numbers[0]}")
            continue
        numbers.sort()
        ranges: list[str] = []
        start = prev = numbers[0]
        for n in [*numbers[1:], None]:
            if n is not None and n == prev + 1:
                prev = n
                continue
            first, last = _num(start, width), _num(prev, width)
            ranges.append(first if start == prev else f"{first}-{last}")
            if n is not None:
                start = prev = n
        parts.append(f"{prefix}[{','.join(ranges)}]")
    return ",".join([*parts, *plain])


def _num(value: int, width: int) -> str:
    return f"{value:0{width}d}" if width else str(value)


class HostMapError(ValueError):
    pass


def read_host_map(path: str | Path) -> dict[str, str]:
    """Read `design-name host-name` pairs (whitespace, comma or `=` separated; `#` comments).

    Raises HostMapError naming file:line for a malformed line, a bad host name or a name
    given twice.
    """
    from rackdesigner.inputs import InputError, read_text

    path = Path(path)
    try:  # a FIFO or device refused before it is read; at most 16 MiB
        text = read_text(path, 16 * 2**20, "host map")
    except InputError as exc:
        raise HostMapError(str(exc)) from None
    mapping: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = [f for f in re.split(r"[\s,=]+", line) if f]
        if len(fields) != 2:
            raise HostMapError(f"{path}:{number}: expected 'design-name host-name', got "
                               f"{raw.strip()!r}")
        design, host = fields
        if not _HOSTNAME.fullmatch(host) or len(host) > 253:
            raise HostMapError(f"{path}:{number}: {host!r} is not a valid host name "
                               "(letters, digits, . _ -)")
        if design in mapping:
            raise HostMapError(f"{path}:{number}: {design!r} is mapped twice")
        mapping[design] = host
    return mapping


def apply_host_map(names: list[str], mapping: dict[str, str] | None, source: str = "") -> dict[
        str, str]:
    """design name -> host name; every name must be mapped when a map is given."""
    if not mapping:
        return {n: n for n in names}
    missing = [n for n in names if n not in mapping]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5
                                          else "")
        raise HostMapError(f"{source or 'host map'}: no host name for {shown} (add a line "
                           "'design-name host-name' for each)")
    hosts = [mapping[n] for n in names]
    dupes = sorted({h for h in hosts if hosts.count(h) > 1})
    if dupes:
        names_word = "host name" if len(dupes) == 1 else "host names"
        raise HostMapError(f"{source or 'host map'}: {names_word} {', '.join(dupes)} given to "
                           "more than one design node")
    return {n: mapping[n] for n in names}
