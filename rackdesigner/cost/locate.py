"""Where the price book comes from, first match wins:

1. `--prices FILE` (the CLI) or a book the GUI was told to use;
2. `RACKDESIGNER_PRICES` (a file path);
3. the platform data folder, when the file exists: `$XDG_DATA_HOME/rackdesigner/prices.yaml`
   (default `~/.local/share/rackdesigner/prices.yaml`) on Linux, `~/Library/Application
   Support/RackDesigner/prices.yaml` on macOS, `%APPDATA%\\RackDesigner\\prices.yaml` on Windows;
4. the design itself: a book embedded under `x-rackdesigner-prices` travels with the file, as
   embedded user models do;
5. the bundled example book (`resources/prices/example.yaml`: public figures, each cited and
   labelled; never quotes). Every report names the book it used and where it came from.

The file readers refuse a FIFO or device (never waited on), files over `pricebook.MAX_BYTES`,
and anything that is not UTF-8 YAML, with a located `PriceBookError`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from rackdesigner.cost.pricebook import MAX_BYTES, PriceBook, PriceBookError, parse_price_book
from rackdesigner.io.schema import PRICES_KEY

if TYPE_CHECKING:
    from rackdesigner.catalog import Catalog
    from rackdesigner.model import Layout, Meta

ENV = "RACKDESIGNER_PRICES"
EMBED_KEY = PRICES_KEY


def platform_prices_path() -> Path:
    """The per-user price book of this platform (it may not exist)."""
    home = Path.home()
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") \
            / "RackDesigner" / "prices.yaml"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "RackDesigner" / "prices.yaml"
    base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / "rackdesigner" / "prices.yaml"


def example_book_path() -> Path:
    from rackdesigner._resources import resources_root

    return resources_root() / "prices" / "example.yaml"


def _checks(catalog: Catalog | None) -> dict[str, Any]:
    if catalog is None:
        return {}
    return {"known": catalog.__contains__, "suggest": catalog.ids(),
            "gpus": tuple(s.id for s in catalog.doing("computes"))}


def read_price_book(path: str | os.PathLike, catalog: Catalog | None = None,
                    origin: str = "") -> PriceBook:
    """Read and check the price book file `path`; raises `PriceBookError`."""
    from rackdesigner.io.atomic import NotRegularFileError
    from rackdesigner.io.regular import FileTooLargeError, read_regular

    label = str(path)
    try:
        text = read_regular(path, MAX_BYTES).decode("utf-8")
    except UnicodeDecodeError:
        raise PriceBookError(f"{label}: not UTF-8 text (expected a YAML price book)") from None
    except NotRegularFileError as exc:
        raise PriceBookError(f"{label}: is a {exc.kind}, not a price book (give the path of a "
                             "regular .yaml file)") from None
    except FileTooLargeError:
        raise PriceBookError(f"{label}: too large for a price book (at most "
                             f"{MAX_BYTES // 2**20} MiB)") from None
    except IsADirectoryError:
        raise PriceBookError(f"{label}: is a folder, not a price book") from None
    except FileNotFoundError:
        raise PriceBookError(f"{label}: no such file") from None
    except OSError as exc:
        raise PriceBookError(f"{label}: cannot read the price book: "
                             f"{exc.strerror or exc}") from None
    book = parse_price_book(text, label, **_checks(catalog))
    example = Path(path).resolve() == example_book_path().resolve()
    return dataclasses.replace(book, origin=origin or label, path=label, example=example)


def embedded_data(meta: Meta) -> Any:
    """The plain data of the book a design carries, or None."""
    return dict(meta.extra).get(EMBED_KEY)


def embedded_book(layout: Layout) -> PriceBook | None:
    """The book embedded in `layout` (None when it has none); a bad one raises
    `PriceBookError` located at the layout file's line when the file can be read back."""
    data = embedded_data(layout.meta)
    if data is None:
        return None
    label = layout.source_path or "the design"
    checks = _checks(layout.catalog)
    text = yaml.safe_dump(data, sort_keys=True, allow_unicode=True)
    try:
        book = parse_price_book(text, f"{label} ({EMBED_KEY})", **checks)
    except PriceBookError as exc:
        located = _locate_in_file(layout.source_path, checks)
        raise (located or exc) from None
    if layout.source_path:  # warnings with the file's own lines
        with contextlib.suppress(PriceBookError, OSError, ValueError):
            book = dataclasses.replace(book, warnings=_reparse(layout.source_path,
                                                               checks).warnings)
    return dataclasses.replace(book, origin="embedded in the design", path=label)


_EMBED_LINE = re.compile(rf"^{re.escape(EMBED_KEY)}:", re.MULTILINE)
_TOP_KEY = re.compile(r"^[^\s#]", re.MULTILINE)


def _chunk(path: str) -> tuple[str, int] | None:
    """The block of `path` holding the embedded book (its text, the line it starts on)."""
    from rackdesigner.io import safety
    from rackdesigner.io.regular import read_regular

    text = read_regular(path, safety.MAX_CANONICAL_BYTES).decode("utf-8")
    match = _EMBED_LINE.search(text)
    if match is None:
        return None
    start = match.end()
    end_match = _TOP_KEY.search(text, start)
    end = end_match.start() if end_match else len(text)
    line = text.count("\n", 0, match.start())
    return text[match.start():end], line


def _reparse(path: str, checks: dict[str, Any]) -> PriceBook:
    found = _chunk(path)
    if found is None:
        raise ValueError("no embedded book in the file")
    chunk, line = found
    return parse_price_book(chunk, path, line_offset=line, inside=EMBED_KEY, **checks)


def _locate_in_file(path: str | None, checks: dict[str, Any]) -> PriceBookError | None:
    if not path:
        return None
    try:
        _reparse(path, checks)
    except PriceBookError as exc:
        return exc
    except (OSError, ValueError):
        return None
    return None


def find_price_book(layout: Layout | None = None, explicit: str | os.PathLike | None = None,
                    catalog: Catalog | None = None, *, chosen_as: str | None = None
                    ) -> PriceBook:
    """The price book in effect for `layout` (see the module docstring). `chosen_as` is how a
    surface names the `explicit` book's origin (the CLI: `--prices FILE`); by default the
    design's words, `file FILE` (what the Cost tab shows of a book the user picked)."""
    if catalog is None and layout is not None:
        catalog = layout.catalog
    if explicit is not None:
        return read_price_book(explicit, catalog, chosen_as or f"file {explicit}")
    env = os.environ.get(ENV)
    if env:
        return read_price_book(env, catalog, f"{ENV}={env}")
    user = platform_prices_path()
    if user.is_file():
        return read_price_book(user, catalog, f"data folder {user}")
    if layout is not None:
        book = embedded_book(layout)
        if book is not None:
            return book
    return read_price_book(example_book_path(), catalog, "bundled example book")


def with_embedded(meta: Meta, book_path: str | os.PathLike | None,
                  catalog: Catalog | None = None) -> Meta:
    """`meta` carrying the book in `book_path` (checked first), or none when None."""
    extra = [(k, v) for k, v in meta.extra if k != EMBED_KEY]
    if book_path is not None:
        read_price_book(book_path, catalog)  # refuse a bad book before anything changes
        from rackdesigner.inputs import load_yaml, read_text

        data = load_yaml(read_text(book_path, MAX_BYTES, "price book"), book_path)
        extra.append((EMBED_KEY, _plain(data)))
    return dataclasses.replace(meta, extra=tuple(sorted(extra, key=lambda kv: kv[0])))


def _plain(value: Any) -> Any:
    """YAML data as plain, JSON-like values (dates as ISO text) to embed in a layout."""
    import datetime as _dt

    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, _dt.date):
        return value.isoformat()[:10]
    return value


__all__ = ["EMBED_KEY", "ENV", "embedded_book", "embedded_data", "example_book_path",
           "find_price_book", "platform_prices_path", "read_price_book", "with_embedded"]
