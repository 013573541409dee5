"""What the diff takes for plausible (`[diff]` of the configuration)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from tracker.run.diff import market


@dataclass(frozen=True)
class DiffPolicy:
    removal_confirmations: int = 2
    min_row_ratio: Decimal = Decimal("0.5")
    max_price_factor: Decimal = Decimal(100)
    # A run in which more than `common_share` of the prices it matched moved
    # by one factor of `common_factor` or more (either way: x10, /10, x3600)
    # is a slip of a decimal point or a unit, never a repricing: quarantined
    # whatever `max_price_factor` says. At least COMMON_MIN prices must share it.
    common_factor: Decimal = Decimal(5)
    common_share: Decimal = Decimal("0.5")
    # Fewer, but `page_count` of them or `page_share` of the matched (one
    # page of an answer, one region): only those prices are held, at their
    # last good value (tracker/run/diff/slips.py).
    page_count: int = 20
    page_share: Decimal = Decimal("0.1")
    # A new price per GPU-hour this many times away from its market is held
    # as suspect (tracker/normalize/suspect.py).
    suspect_factor: Decimal = Decimal(4)
    # A marketplace row moves when its lowest price moves by more than this
    # fraction of the stored one; its median and offer count are rewritten
    # quietly past these (tracker/run/diff/market.py).
    market_tolerance: Decimal = market.PRICE_TOLERANCE
    market_count_tolerance: Decimal = market.COUNT_TOLERANCE
