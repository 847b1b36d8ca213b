"""The end check: a saved layout's last line counts its entries, so a cut file cannot pass.

A file cut at a line boundary (a crash mid-copy, a full disk, a truncated download) is still
valid YAML and would load with part of the design silently missing. Every save therefore writes

    # RackDesigner layout (format: docs/file-format.md); its last line is the end check
    ...
    # end of layout: 3 groups, 7 devices, 6 links

Both are YAML comments, so other tools read the file as before. On load:

* a first line announcing the end check makes the end line required: a file without it ends
  "after line N" and is refused as cut short;
* an end line, wherever the file came from, must match the entries the file holds (groups,
  devices and links are counted as objects, whatever keys they carry); a mismatch is refused at
  the end line's number;
* files without either (hand-written ones, and files saved before the check existed, whose first
  line lacks the announcement) load as before, and get both lines the next time they are saved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rackdesigner.vocabulary.wording import counted

HEADER = "# RackDesigner layout (format: docs/file-format.md); its last line is the end check\n"
_ANNOUNCEMENT = "its last line is the end check"
#: Counts of at most 15 digits: a longer one is no count RackDesigner wrote (and Python refuses
#: to convert 4,300+ digits), so the line is not taken as an end line.
_END = re.compile(r"# end of layout: (\d{1,15}) groups?, (\d{1,15}) devices?, (\d{1,15}) "
                  r"links?[ \t\r]*")
SECTIONS = ("groups", "devices", "links")


@dataclass(frozen=True)
class EndMark:
    """What a file's text says about its end: the counts its end line states, where it is."""

    required: bool  # the first line announces the end check
    counts: tuple[int, int, int] | None  # groups, devices, links on the end line (None: none)
    start: int  # where the end line (or the last line when there is none) starts; -1: blank
    text: str = field(default="", repr=False, compare=False)  # the file (for `line`)

    @property
    def line(self) -> int:
        """The end line's number, or the file's last line's (0: nothing but blanks). Counted
        when asked: only a message needs it, and counting a 100 MB file's lines takes 20 ms."""
        return self.text.count("\n", 0, self.start) + 1 if self.start >= 0 else 0


def end_line(groups: int, devices: int, links: int) -> str:
    counts = (counted(groups, "group", grouped=False), counted(devices, "device", grouped=False),
              counted(links, "link", grouped=False))
    return f"# end of layout: {', '.join(counts)}\n"


def read_end(text: str) -> EndMark:
    """Find the announcement (first line) and the end line (last non-blank line) of `text`."""
    first = text[: text.find("\n")] if "\n" in text else text
    required = first.startswith("# RackDesigner layout") and _ANNOUNCEMENT in first
    end = len(text)
    while end and text[end - 1] in " \t\r\n":  # no copy of a file of 100 MiB
        end -= 1
    last_start = text.rfind("\n", 0, end) + 1
    match = _END.fullmatch(text, last_start, end)
    counts = None
    if match is not None:
        counts = (int(match.group(1)), int(match.group(2)), int(match.group(3)))
    return EndMark(required, counts, last_start if end else -1, text)


def missing_end_message(mark: EndMark) -> str:
    return (f"file ends after line {mark.line} without the end line ('# end of layout: ...') "
            "that RackDesigner writes last, so it was cut short (an interrupted copy or "
            "download, a full disk): part of the design is missing. Restore it from a backup "
            "or version control; to open what is left anyway, delete line 1")


def mismatch_message(mark: EndMark, found: tuple[int, int, int]) -> str | None:
    """None when the end line's counts match `found`, else what differs."""
    if mark.counts is None or mark.counts == found:
        return None
    diffs = [f"expected {counted(want, name[:-1])}, found {got}"
             for name, want, got in zip(SECTIONS, mark.counts, found, strict=True)
             if want != got]
    return ("end check failed: " + "; ".join(diffs) + ". Lines are missing from the file, or "
            "entries were added or removed by hand: if you edited it, correct the numbers on "
            "this line (or delete it and line 1)")
