"""`Order`, the design state's persistent insertion order: any mix of appends, bulk extends,
removals and re-adds iterates like a plain list would, in every version kept, whether its
positions were ever mapped or not."""

from __future__ import annotations

import random

import pytest

from rackdesigner.model.order import Order


@pytest.mark.parametrize("seed", range(8))
def test_every_version_iterates_like_a_list(seed):
    rng = random.Random(seed)
    versions = [(Order(), [])]
    made = 0
    for _ in range(600):
        order, model = versions[rng.randrange(len(versions))]  # branch off any older version
        action = rng.random()
        if action < 0.35 or not model:
            made += 1
            order, model = order.append(f"x{made}"), [*model, f"x{made}"]
        elif action < 0.5:
            new = [f"x{made + i + 1}" for i in range(rng.randint(1, 200))]
            made += len(new)
            order, model = order.extend(new), model + new
        elif action < 0.9:
            victim = rng.choice(model)
            order, model = order.remove(victim), [i for i in model if i != victim]
        else:  # an id removed earlier comes back (a redo-like re-add)
            back = f"x{rng.randint(1, made)}"
            if back in model:
                continue
            order, model = order.append(back), [*model, back]
        if rng.random() < 0.1 and model:
            assert order.position(model[0]) < order.position(model[-1]) or len(model) == 1
        versions.append((order, model))
        assert list(order) == model and len(order) == len(model)
    for order, model in versions:
        assert list(order) == model
        some = rng.sample(model, min(5, len(model)))
        assert order.ordered(some) == [i for i in model if i in set(some)]


def test_an_order_made_by_appends_maps_no_positions_until_asked():
    order = Order().extend([f"d{i}" for i in range(1000)]).append("last")
    assert order._pos is None and len(order) == 1001
    assert order.ordered(["last", "d3", "d1"]) == ["d1", "d3", "last"]
    assert order._pos is None  # a few ids sorted by one pass, no map
    assert order.position("d10") == 10 and order._pos is not None
