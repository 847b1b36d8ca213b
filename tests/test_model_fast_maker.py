"""`items.fast_maker`: the file reader's quick constructors make the same frozen objects as the
dataclasses' own, with every field (defaults too), for each model value type."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from rackdesigner.model.items import Device, Group, Link, PortRef, fast_maker


@pytest.mark.parametrize(("cls", "args"), [
    (PortRef, ("leaf-1", "ib", 3)),
    (Device, ("gpu-1", "h100-sxm5", "GPU 1", (1.5, -2.0), "rack-1", 7, "node-1",
              (("x-tag", 1),), "failed")),
    (Link, ("l1", PortRef("a", "ib"), PortRef("b", "ib", 0), 2, "fiber", 3.5, "active")),
    (Group, ("g", "Group", "node", None, True, "dgx-h100", "active")),
])
def test_the_same_object_as_the_dataclass_makes(cls, args):
    make = fast_maker(cls)
    made, real = make(*args), cls(*args)
    assert made == real and hash(made) == hash(real) and type(made) is cls
    assert pickle.loads(pickle.dumps(made)) == real
    first = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, first, "other")
    minimal = args[: sum(f.default is dataclasses.MISSING for f in dataclasses.fields(cls))]
    assert make(*minimal) == cls(*minimal)  # every default taken from the dataclass


@dataclasses.dataclass(frozen=True, slots=True)
class _Base:
    x: int


@dataclasses.dataclass(frozen=True, slots=True)
class _Child(_Base):
    y: int = 0


def test_a_class_the_quick_twin_cannot_become_still_gets_its_objects():
    """The maker fills a twin of the class and turns it into one; a class of another layout
    (slots split over a base) cannot be turned into, and still gets the same objects."""
    make = fast_maker(_Child)
    made = make(1, 2)
    assert made == _Child(1, 2) and type(made) is _Child and make(3) == _Child(3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.y = 5  # type: ignore[misc]
