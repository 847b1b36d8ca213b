"""Names in the forms a zoomed-out canvas writes them (ui/canvas/names.py places them): the
label fonts by group kind, short forms of a numbered name ("Scalable unit 12" -> "SU 12"), and
a name whole, wrapped over lines or short in a given width. Never a cut name ("Spine an…").
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetrics

from rackdesigner.ui import style

KIND_SIZES = {"pod": 11.0, "fabric": 10.0, "su": 10.0, "rack": 9.0, "bundle": 8.0,
              "small": 7.5}  # others 8.5; "small": a short name inside a small block

_FONTS: dict[str, tuple[QFont, QFontMetrics]] = {}


def label_font(kind: str) -> tuple[QFont, QFontMetrics]:
    """The label font of a group kind and its metrics (made once: a QFontMetrics per group
    per frame was most of the overlay's cost)."""
    found = _FONTS.get(kind)
    if found is None:
        font = style.font(KIND_SIZES.get(kind, 8.5), True)
        found = _FONTS[kind] = (font, QFontMetrics(font))
    return found


def short_name(label: str) -> str:
    """A label too long for its box, by its initials and its number ("Scalable unit 12" ->
    "SU 12"), or the label itself when it does not end in a number."""
    words = label.split()
    if len(words) < 2 or not any(c.isdigit() for c in words[-1]):
        return label
    return "".join(w[0].upper() for w in words[:-1]) + " " + words[-1]


def short_forms(label: str) -> list[str]:
    """Shorter names for a numbered label, most telling first: its last words ("SU1 DGX H100
    20" -> "DGX H100 20"), its initials ("Scalable unit 12" -> "SU 12"), its last two words.
    A label that does not end in a number has none: it is never cut ("Spine an…")."""
    words = label.split()
    if len(words) < 2 or not any(c.isdigit() for c in words[-1]):
        return []
    out = [" ".join(words[i:]) for i in range(1, len(words) - 2)]
    out.append(short_name(label))
    out.append(" ".join(words[-2:]))
    return list(dict.fromkeys(f for f in out if f != label))


def _pack(parts: list[str], metrics: QFontMetrics, width: int) -> list[str]:
    """`parts` joined with " · " into lines no wider than `width`; a part that fits no line
    ends the list (it is left out with the rest, never cut)."""
    lines: list[str] = []
    for part in parts:
        if metrics.horizontalAdvance(part) > width:
            break
        if lines and metrics.horizontalAdvance(lines[-1] + " · " + part) <= width:
            lines[-1] += " · " + part
        else:
            lines.append(part)
    return lines


def _wrap(label: str, metrics: QFontMetrics, width: int, max_lines: int) -> list[str] | None:
    """The label's words in lines no wider than `width`, or None (a word too wide, too many
    lines)."""
    lines: list[str] = []
    for word in label.split():
        if metrics.horizontalAdvance(word) > width:
            return None
        if lines and metrics.horizontalAdvance(lines[-1] + " " + word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines if 0 < len(lines) <= max_lines else None


def _name_lines(label: str, metrics: QFontMetrics, width: int, max_lines: int
                ) -> list[str] | None:
    """The name in `width`: whole, word-wrapped (up to `max_lines`), or a short form."""
    if width <= 0 or max_lines < 1:
        return None
    if metrics.horizontalAdvance(label) <= width:
        return [label]
    wrapped = _wrap(label, metrics, width, max_lines) if max_lines > 1 else None
    if wrapped is not None and not wrapped[-1].isdigit():  # "Scalable unit / 12": "SU 12"
        return wrapped
    return next(([f] for f in short_forms(label) if metrics.horizontalAdvance(f) <= width), None)
