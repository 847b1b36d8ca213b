"""The Cost tab's design edits: use, embed or remove a price book, set the site's limits.

`CostEdits` is a mixin of `CostTab` (ui/panel/cost_tab.py). Each edit is one plain-Python
command handed to the tab's `command_sink` (the document's undo stack): one undo step each;
a tab on its own applies the command to its layout directly.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from rackdesigner.commands import Command
from rackdesigner.commands.settings import ChangeMeta


class CostEdits:
    """The document edits of `CostTab` (a mixin: `self` is the tab)."""

    def _push(self, command: Command) -> None:
        layout = self.live.layout
        if layout is None:
            return
        if self.command_sink is not None:
            self.command_sink(command)
        else:
            command.apply(layout)
        self.live.request(immediate=True)

    def _on_use_file_triggered(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Use a price book", self.folder,
                                              "Price books (*.yaml *.yml);;All files (*)")
        if path:
            self.use_book(path)

    def embed_book(self, path: str | Path) -> bool:
        """Embed the book in `path` in the design (one undo step); a bad book is said and the
        design is left unchanged."""
        from rackdesigner.cost import PriceBookError
        from rackdesigner.cost.locate import with_embedded

        layout = self.live.layout
        if layout is None:
            return False
        try:
            meta = with_embedded(layout.meta, path, layout.catalog)
        except PriceBookError as exc:
            self.message.emit(f"Cannot embed the price book: {exc}")
            return False
        self._push(ChangeMeta({"extra": meta.extra}, "Embed the price book in the design"))
        self.message.emit(f"Embedded {Path(path).name} in the design")
        return True

    def _on_embed_triggered(self) -> None:
        report = self.report()
        book = report.book if report is not None else None
        path = book.path if book is not None and book.origin != "embedded in the design" \
            else ""
        if not path:  # the book in use is the design's own: ask which file to embed
            path, _ = QFileDialog.getOpenFileName(self, "Embed a price book", self.folder,
                                                  "Price books (*.yaml *.yml)")
        if path:
            self.embed_book(path)

    def remove_embedded(self) -> None:
        from rackdesigner.cost.locate import EMBED_KEY

        layout = self.live.layout
        if layout is None or EMBED_KEY not in dict(layout.meta.extra):
            return
        extra = tuple(kv for kv in layout.meta.extra if kv[0] != EMBED_KEY)
        self._push(ChangeMeta({"extra": extra}, "Remove the embedded price book"))

    def _on_unembed_triggered(self) -> None:
        self.remove_embedded()

    def set_site(self, power_kw: float | None, cooling_kw: float | None,
                 **more: float | int | None) -> None:
        """The site's limits as given (others, and the power hierarchy, kept): one command."""
        from dataclasses import replace

        layout = self.live.layout
        if layout is None:
            return
        changes = {key: value or None for key, value in more.items()}
        site = replace(layout.meta.site, power_kw=power_kw or None,
                       cooling_kw=cooling_kw or None, **changes)
        if site != layout.meta.site:
            self._push(ChangeMeta({"site": site}, "Set the site's power and cooling limits"))

    def _on_site_button_clicked(self) -> None:
        from rackdesigner.ui.panel.site_dialog import ask_site

        layout = self.live.layout
        if layout is None:
            return
        answer = ask_site(self, layout.meta.site)
        if answer is not None:
            self.set_site(**answer)
