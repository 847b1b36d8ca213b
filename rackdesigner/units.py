"""Quantities written by people: one grammar for message sizes, read by every verb and file.

`parse_size` reads what the CLI's `--size` options (simulate, whatif, compare) and a sweep
spec's `outputs.sizes` take: a whole number of bytes, optionally with a unit — `8`, `8B`,
`64K`, `64 KiB`, `1M`, `1G`, `1GB`, `1 GiB` (case-insensitive, spaces allowed). K, M and G are
binary (1024, 1024², 1024³) with or without `i`/`B`, as nccl-tests reads its `-b`/`-e` sizes
(NVIDIA nccl-tests: a published run of `all_reduce_perf -b 8 -e 8G -f 2` on H100 prints
`minBytes 8 maxBytes 8589934592`, i.e. 8 × 1024³). A sweep spec once read `KB`/`MB`/`GB` as
decimal; no power of two is a decimal multiple, so no spec that was accepted reads differently.
`table_size` adds what the busbw tables hold: a power of two from 8 B to 16 GiB (nccl-tests'
`-b 8 -e 16G -f 2`).

This module imports nothing of the project (it sits beside `inputs.py` in the layers).
"""

from __future__ import annotations

import re

#: the unit letters and their multiples (binary, as nccl-tests)
SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
#: what the busbw tables hold: 8 B .. 16 GiB, powers of two
TABLE_MIN, TABLE_MAX = 8, 16 << 30
SIZE_FORM = "a whole number of bytes with an optional K, M or G (e.g. 8, 64K, 1M, 1G, 1 GiB)"
_SIZE = re.compile(r"(?P<number>[0-9]+)(?P<unit>[KMG]?)(?:I?B)?")


def parse_size(value: object) -> int:
    """Bytes from `value` (an int, or text in the grammar above); ValueError saying what was
    expected when it is not a positive whole number of bytes in that grammar."""
    if isinstance(value, bool):
        raise ValueError(f"expected {SIZE_FORM}, got {value!r}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        m = _SIZE.fullmatch(value.replace(" ", "").upper())
        if m is None:
            raise ValueError(f"expected {SIZE_FORM}, got {value!r}")
        number = int(m["number"]) * SIZE_UNITS[m["unit"]]
    else:
        raise ValueError(f"expected {SIZE_FORM}, got {value!r}")
    if number <= 0:
        raise ValueError(f"expected {SIZE_FORM} above 0, got {value!r}")
    return number


def table_size(value: object) -> int:
    """`parse_size(value)`, which must also be a size of the busbw tables (a power of two from
    8 B to 16 GiB); ValueError saying so otherwise."""
    number = parse_size(value)
    if number < TABLE_MIN or number > TABLE_MAX or number & (number - 1):
        raise ValueError(f"the busbw table has powers of two from 8 B to 16 GiB, got "
                         f"{value!r}")
    return number


def size_label(size: int, sep: str = "") -> str:
    """`1GiB`, `16MiB`, `8B` (`sep` between number and unit: `1 GiB`): a size as the tables,
    the spec and the reports write it."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale}{sep}{unit}"
    return f"{size}{sep}B"
