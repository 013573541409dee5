"""The numbers an answer takes, and the range of each that the cost model
can compute: one place for both faces. `gpu-tracker recommend`, `tco` and
`compare` read their options through `parse`, the web's `/api/recommend`,
`/recommend` and `/api/compare` their query parameters, so that a value
out of range is one sentence on either (a 400 on the web), never an
arithmetic error. A message quotes at most the first `HEAD` characters of
the value it refuses.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

HEAD = 40


class OutOfRange(ValueError):
    """A number an answer cannot use; the message is the one sentence to show."""


def head(text: str) -> str:
    """`text` quoted, or its first HEAD characters when it is longer."""
    if len(text) <= HEAD:
        return repr(text)
    return f"{text[:HEAD]!r}... ({len(text):,} characters)"


@dataclass(frozen=True)
class Span:
    """lo <= x <= hi (lo < x when `above_lo`); `whole` above 1: no fractions."""

    lo: Decimal
    hi: Decimal
    above_lo: bool = False
    whole_above_one: bool = False
    why: str = ""

    @property
    def said(self) -> str:
        span = f"above {self.lo:f} and at most {self.hi:f}" if self.above_lo else f"from {self.lo:f} to {self.hi:f}"
        return f"a number {span}{f' ({self.why})' if self.why else ''}"

    def check(self, name: str, value: Decimal, text: str | None = None) -> Decimal:
        shown = head(text if text is not None else format(value, "f"))
        if not value.is_finite() or value < self.lo or value > self.hi or (self.above_lo and value <= self.lo):
            raise OutOfRange(f"{name}={shown} must be {self.said}")
        if self.whole_above_one and value > 1 and value != value.to_integral_value():
            raise OutOfRange(f"{name}={shown} must be a whole number of GPUs, or a share of one GPU below 1 (0.5)")
        return value

    def parse(self, name: str, text: str) -> Decimal:
        """`text` as a number within the span, or OutOfRange in one sentence."""
        value = text.strip()
        try:
            if len(value) > HEAD:  # no number an answer takes is written this long
                raise InvalidOperation
            number = Decimal(value)
        except (InvalidOperation, ValueError):
            raise OutOfRange(f"{name}={head(text)} is not a number; it must be {self.said}") from None
        return self.check(name, number, text)


_ZERO, _ONE = Decimal(0), Decimal(1)
HOURS_PER_MONTH = Span(Decimal("0.1"), Decimal(744), why="a month has at most 744 hours")
GPUS = Span(Decimal("0.001"), Decimal(1024), whole_above_one=True)
GPU_COUNT = Span(Decimal("0.001"), Decimal(1024))  # compare's count: instances with this many GPUs
FLEET = Span(_ONE, Decimal(1024))  # tco's count
MONTHS = Span(_ONE, Decimal(240))
GPU_MEMORY_GB = Span(_ZERO, Decimal(100_000))
MEMORY_SHARE = Span(_ZERO, _ONE, above_lo=True)
SPOT_OVERHEAD = Span(_ONE, Decimal(10))
GB_PER_MONTH = Span(_ZERO, Decimal(10) ** 9)
MONEY = Span(_ZERO, Decimal(10) ** 12)

# Each number by the name both faces give it (the CLI's --hours-per-month is hours_per_month).
RANGES: dict[str, Span] = {
    "hours_per_month": HOURS_PER_MONTH,
    "gpus": GPUS,
    "count": GPU_COUNT,
    "fleet": FLEET,  # tco --count
    "months": MONTHS,
    "min_gpu_memory": GPU_MEMORY_GB,
    "usable_memory_share": MEMORY_SHARE,
    "spot_overhead": SPOT_OVERHEAD,
    "storage_gb": GB_PER_MONTH,
    "egress_gb": GB_PER_MONTH,
    "inter_region_gb": GB_PER_MONTH,
    "credit": MONEY,
    "credit_min_spend": MONEY,
}


def parse(name: str, text: str, span: Span | None = None) -> Decimal:
    """The number `name` (as RANGES names it) from `text`."""
    return (span or RANGES[name]).parse(name, text)
