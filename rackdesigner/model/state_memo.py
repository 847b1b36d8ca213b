"""What a `DesignState` remembers of the values derived from it: its index, graph and the
values `derived` builds (weak references in `memo`), the hints to an earlier state they may be
made from (one that differs by positions and statuses, or by the objects edited since), and the
lock that builds each once. A part of `DesignState` (`state.py`)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from rackdesigner.catalog import Catalog
    from rackdesigner.model.index import DesignIndex
    from rackdesigner.model.state import DesignState

#: Derived values a state may take over from one that differs by positions and statuses
#: (the design rules' findings too: no rule reads a position or a status), and those it may
#: take from one that differs by groups as well (no index or topology reads a group).
HINTED = ("index", "topology", "findings", "racks")
GROUP_PROOF = ("index", "topology")
#: Values a later state may be derived from by what changed since (`DesignState._pass_edit`).
EDIT_BASES = ("index", "findings", "racks")
MAX_EDITS = 20_000  # past this many changed objects deriving is no cheaper than computing
_DERIVE_LOCK = threading.RLock()


class StateMemo:
    """The derived-value half of `DesignState`."""

    __slots__ = ()

    memo: dict[str, Any]

    # ---- what changed since a state whose derived values are known -------------------------
    def _pass_edit(self, new: DesignState, edit: Any) -> None:
        """Remember in `new` which objects differ from the nearest earlier state that had
        derived values (its index or findings) when `new` was made: ("edit", (that state,
        touched)), `touched` a linked list of (kind, id) — kind "d" device, "l" link,
        "g" group, "u" unresolved link, "m" meta — so that `new`'s values can be derived
        from that state's by the objects that changed (`model/index_evolve.py`,
        `model/findings.py`) instead of from nothing. A bulk edit is one entry of ids."""
        size = len(edit[1]) if edit[0] == "bulk" else 1
        if any(self.alive_memo(key) is not None for key in EDIT_BASES):
            new.memo["edit"] = (weakref.ref(self), (edit, None, size))
            return
        hint = self.memo.get("edit")
        if hint is not None and hint[1][2] + size <= MAX_EDITS:
            base, touched = hint
            new.memo["edit"] = (base, (edit, touched, touched[2] + size))

    def take_edit_hint(self, other: DesignState, touched: list[tuple[str, Any]]) -> None:
        """This state differs from `other` in the `touched` objects only (an undo or redo ends
        on a recorded state: its missing values may be derived from the state it left)."""
        if all(self.alive_memo(key) is not None for key in EDIT_BASES):
            return
        if any(other.alive_memo(key) is not None for key in EDIT_BASES):
            node: Any = None
            for n, item in enumerate(touched, 1):
                node = (item, node, n)
            if node is not None and node[2] <= MAX_EDITS:
                self.memo["edit"] = (weakref.ref(other), node)

    def edit_base(self, key: str) -> tuple[Any, dict[str, set]] | None:
        """(the alive `key` value of the nearest earlier state that has one, the ids touched
        since, by kind) — see `_pass_edit` — or None. The chain goes from base to base: a
        state whose index was derived on the way (the canvas asks for it) is the base of the
        next edits, and its own base may be the one whose rack index is known."""
        touched: dict[str, set] = {"d": set(), "l": set(), "g": set(), "u": set(), "m": set()}
        state: DesignState = cast("DesignState", self)
        size = 0
        seen = {id(self)}  # an undo's hint points forward: never around in a circle
        while True:
            hint = state.memo.get("edit")
            if hint is None:
                return None
            node = hint[1]
            size += node[2] if node is not None else 0
            if size > MAX_EDITS:
                return None
            while node is not None:
                kind, ids = node[0]
                if kind == "bulk":
                    for k, i in ids:
                        touched[k].add(i)
                else:
                    touched[kind].add(ids)
                node = node[1]
            base: DesignState | None = hint[0]()
            if base is None or id(base) in seen:
                return None
            value = base.alive_memo(key)
            if value is not None:
                return value, touched
            seen.add(id(base))
            state = base

    def index(self, catalog: Catalog) -> DesignIndex:
        """The derived facts of this state (computed on first use, then shared).

        The state keeps only a weak reference: whoever reads the index (the Layout showing
        this state, a worker's snapshot) keeps it alive, while the states kept by the undo
        history do not keep a derived index each (100k+ objects at 4k GPUs)."""
        index = self.alive_memo("index")
        if index is not None and index.catalog is catalog:
            return index
        from rackdesigner.model.index import DesignIndex

        with _DERIVE_LOCK:
            index = self.alive_memo("index")
            if index is not None and index.catalog is catalog:
                return index
            like_ref = self.memo.get("index_like")  # differs by moves and statuses only
            like = like_ref() if like_ref is not None else None
            if like is not None and like.catalog is not catalog:
                like = None
            minus = None  # this state is another with failed objects left out (`degraded`)
            if like is None and "minus" in self.memo:
                source_ref, failed = self.memo["minus"]
                source: DesignState | None = source_ref()
                ref = source.memo_ref("index") if source is not None else None
                of = ref() if ref is not None else None
                if of is not None and of.catalog is catalog:
                    minus = (of, failed)
            evolve = None  # made by edits from a state whose index is known
            if minus is not None:  # the failed objects are what changed, for other facets
                failed = minus[1]
                evolve = (minus[0], {"d": set(failed.devices), "l": set(failed.links),
                                     "g": set(), "u": set(), "m": set()})
            elif like is None:
                found = self.edit_base("index")
                if found is not None and found[0].catalog is catalog:
                    evolve = found
            index = DesignIndex(cast("DesignState", self), catalog, like=like, minus=minus,
                                evolve=evolve)
            self.memo["index"] = weakref.ref(index)
        return index

    def take_index_hint(self, other: DesignState, keys: tuple[str, ...] = HINTED) -> None:
        """`other` differs from this state by device positions and statuses only (or by
        groups, which the values in `GROUP_PROOF` do not read): unless this state has them
        already, its derived index may start from `other`'s and it may share `other`'s
        topology and findings (a cache hint, not a change)."""
        for key in keys:
            if self.alive_memo(key) is not None:
                continue
            ref = other.memo_ref(key)
            if ref is not None:
                self.memo[key + "_like"] = ref

    def memo_ref(self, key: str) -> weakref.ref | None:
        """A live weak reference to this state's `key` value, or to the one it may share."""
        for name in (key, key + "_like"):
            ref = self.memo.get(name)
            if ref is not None and ref() is not None:
                return ref
        return None

    def alive_memo(self, key: str) -> Any:
        ref = self.memo.get(key)
        return ref() if ref is not None else None

    def derived(self, key: str, build: Callable[[DesignState, Any], Any]) -> Any:
        """A value derived from this state (the simulation's topology), built on first use by
        `build(state, hint)` and then shared while someone holds it: the state keeps only a
        weak reference, like the index's. `hint` is what the state may start from: a value
        of a state that differs by positions and statuses only (share it as is) as
        ("like", value), or ("minus", value of the state this one is with failed objects
        left out, that `FailedSet`, that state) — see `model.failures.degraded` — or None."""
        value = self.alive_memo(key)
        if value is not None:
            return value
        with _DERIVE_LOCK:  # two workers asking at once build it once
            value = self.alive_memo(key)
            if value is not None:
                return value
            hint: Any = None
            like = self.memo_ref(key)
            if like is not None:
                hint = ("like", like())
            else:
                minus = self.memo.get("minus")
                source: DesignState | None = minus[0]() if minus is not None else None
                ref = source.memo_ref(key) if source is not None else None
                value_of = ref() if ref is not None else None
                if value_of is not None and minus is not None:
                    hint = ("minus", value_of, minus[1], source)
            value = build(cast("DesignState", self), hint)
            self.memo[key] = weakref.ref(value)
            return value
