"""The one protocol every facet of the derived index answers to.

A facet is one derived fact of a design state (which links carry a protocol, who is joined to
whom, which devices a NIC reaches, ...). Each has up to four forms, all in the facet's own
module (`model/facets/<facet>.py`) and all equal (tests/test_facets.py compares them on
generated and broken designs):

- `plain`: from the state alone, in Python (every design; the reference);
- `arrays`: from the state's links as NumPy columns (`model/linktable.LinkTable`, made only
  for designs of at least `ARRAY_MIN_LINKS` links);
- `evolved`: from the same facet of the index of an earlier state and the ids touched since
  (`DesignState.edit_base`: an edit, an undo);
- `without`: from the same facet of the index of the design a degraded one was cut from
  (`model.failures.degraded`: failed devices and links left out). At 32k GPUs deriving a
  degraded design's index from nothing took 2-3 s per Fail or Restore in a what-if, yet
  failing an SU or a spine changes a few islands and the network's components, nothing else.

A form a facet does not have returns None (the index then takes the plain one). `DesignIndex`
(`model/index.py`) keeps one value per facet and state and decides which form to ask; the
facets read the index only through its public methods, never each other's privates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex
    from rackdesigner.model.linktable import LinkTable

#: what a facet is derived from: the state's `DesignIndex` (every facet the index keeps), or a
#: layout snapshot of the state (the rack index, `rack_index.py`: a layout-level value)
S = TypeVar("S", contravariant=True)
T = TypeVar("T")


class Facet(Protocol[S, T]):
    """One derived fact of a state, in its plain, NumPy, incremental and degraded forms."""

    #: what the facet is called (the `DesignIndex` method that answers it)
    name: str

    def plain(self, index: S) -> T:
        """The facet of `index`'s state, derived from nothing."""
        ...

    def arrays(self, index: S, table: LinkTable) -> T | None:
        """The facet from the state's link columns (None: no NumPy form)."""
        ...

    def evolved(self, index: S, base: S, touched: dict[str, set]) -> T | None:
        """The facet from `base`'s, `touched` ({"d": device ids, "l": link ids, ...}) having
        changed since (None: no incremental form)."""
        ...

    def without(self, index: S, source: S, failed: Any) -> T | None:
        """The facet of a degraded state (`source`'s without `failed.devices` and
        `failed.links`) from `source`'s (None: no such form)."""
        ...

    def canonical(self, value: T) -> object:
        """`value` as the equivalence test compares it: the forms may name a set by another
        member, or list a map in another order, which no reader depends on."""
        ...


class PlainFacet:
    """A base for facets lacking some forms: each one it does not override returns None."""

    name = ""

    def arrays(self, index: DesignIndex, table: LinkTable) -> Any:
        return None

    def evolved(self, index: DesignIndex, base: DesignIndex, touched: dict[str, set]) -> Any:
        return None

    def without(self, index: DesignIndex, source: DesignIndex, failed: Any) -> Any:
        return None

    def canonical(self, value: Any) -> object:
        return value


def partition(mapping: dict[str, str]) -> frozenset[frozenset[str]]:
    """The sets of a `key -> root` map, whichever member names each."""
    sets: dict[str, set[str]] = {}
    for key, root in mapping.items():
        sets.setdefault(root, set()).add(key)
    return frozenset(frozenset(s) for s in sets.values())
