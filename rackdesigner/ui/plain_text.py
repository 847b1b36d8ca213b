"""Text from a file shown by Qt as text, never as markup (issue 31: names are data).

Qt's tooltips, message boxes and labels left at `Qt.AutoText` guess: text whose first line
looks like HTML (`Qt.mightBeRichText`) is rendered as rich text, so a device named
`<img src="/dev/zero">` makes Qt load that path (a FIFO hangs the GUI thread, /dev/zero
exhausts memory). Widgets that show user text either use `Qt.PlainText` (`setTextFormat`) or get
their text through `plain`, which hands Qt's guess text it cannot misread: unchanged when Qt
would show it as it is, otherwise escaped rich text that renders to the same characters (spaces
and line breaks kept). Text RackDesigner marks up itself (a summary with `<b>`) escapes each
value it inserts with `html.escape` instead; pyqtgraph, which takes HTML for axis labels and
legend entries, gets `html.escape`d names, and `markup` for its hover tooltips.
"""

from __future__ import annotations

import html

from PySide6.QtGui import Qt as GuiQt


def plain(text: str) -> str:
    """`text` as an AutoText widget (tooltip, message box, QLabel) shows it: literally."""
    if not GuiQt.mightBeRichText(text):
        return text
    return markup(text)


def markup(text: str) -> str:
    """`text` as rich text that renders to exactly its characters (spaces and line breaks
    kept): for what always takes HTML (pyqtgraph's axis labels and legends) and for tooltips
    joined from several texts."""
    return "<p style='white-space:pre-wrap'>" + html.escape(text, quote=False) + "</p>"


__all__ = ["markup", "plain"]
