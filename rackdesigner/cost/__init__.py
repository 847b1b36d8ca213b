"""Cost, energy and cooling of a design: the price book, capital and running cost, TCO, cost to
train, and designs compared side by side.

Reads the bill of materials (`bom.py`), the power model (`model/power.py`,
`simulation/power.py`), the cooling split (`model/cooling.py`) and the training estimator
(`workload.api`); nothing here imports Qt.
"""

from __future__ import annotations

from rackdesigner.cost.assumptions import Assumptions
from rackdesigner.cost.locate import find_price_book, read_price_book
from rackdesigner.cost.pricebook import PriceBook, PriceBookError, parse_price_book
from rackdesigner.cost.report import CostReport, design_cost, format_money

__all__ = ["Assumptions", "CostReport", "PriceBook", "PriceBookError", "design_cost",
           "find_price_book", "format_money", "parse_price_book", "read_price_book"]
