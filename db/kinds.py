"""The enumerations of the value types, apart from them so that the command
line can offer their values without loading pydantic and SQLAlchemy.
`db/schema.py` re-exports them."""

from __future__ import annotations

from enum import StrEnum


class PriceModel(StrEnum):
    on_demand = "on_demand"
    spot = "spot"
    low_priority = "low_priority"
    reserved = "reserved"
    savings_plan = "savings_plan"
    monthly = "monthly"
    yearly = "yearly"


# The kinds of price the report and the dashboard compare: a price model to
# its kind (`db.store.writes.summary` keeps the open prices' rates per kind).
PRICE_KINDS = {
    "on_demand": "on demand",
    "spot": "spot",
    "low_priority": "spot",
    "reserved": "committed",
    "savings_plan": "committed",
    "monthly": "committed",
    "yearly": "committed",
}


class Unit(StrEnum):
    """What one `price` buys. `term` means the whole of `PriceQuote.term`
    ('1yr', '3yr', '3mo'...); `gb` and `gb_month` are side costs' units
    (data sent, storage kept), which have no hourly rate."""

    hour = "hour"
    month = "month"
    year = "year"
    term = "term"
    # Side costs (tracker/normalize/side_costs/): a GB sent, a GB kept a month.
    gb = "gb"
    gb_month = "gb_month"


# The sources of side costs (egress, disks, addresses: tracker/normalize/side_costs/)
# are named `<provider>-side-costs`; the GPU answers leave their rows out unless asked.
SIDE_COST_SUFFIX = "-side-costs"


def is_side_cost(source: str) -> bool:
    return source.endswith(SIDE_COST_SUFFIX)


class ChangeKind(StrEnum):
    price_drop = "price_drop"
    price_increase = "price_increase"
    new_sku = "new_sku"
    sku_removed = "sku_removed"
    availability_changed = "availability_changed"
    offer_added = "offer_added"
    offer_removed = "offer_removed"
    offer_changed = "offer_changed"
    credit_changed = "credit_changed"
    discount_changed = "discount_changed"
    source_broken = "source_broken"
    source_recovered = "source_recovered"
    source_stale = "source_stale"
    # A run's prices held as suspect by the market check: stored and marked,
    # left out of the rankings; one change per run names them.
    price_suspect = "price_suspect"
    # A spot pool's interruption band got worse (AWS's Spot Instance Advisor:
    # "<5%" -> "10-15%"); db/spot_risk.py keeps the bands.
    spot_risk_worse = "spot_risk_worse"


class RunStatus(StrEnum):
    running = "running"
    ok = "ok"
    failed = "failed"
    quarantined = "quarantined"
    aborted = "aborted"
    # The input was refused (a capture older than the store), not a source fault.
    rejected = "rejected"
    # Replaced by a reprocess of its capture (`gpu-tracker reprocess`).
    superseded = "superseded"
    # Our store refused the run's writes (a full disk, a lost connection): says
    # nothing of the source, so neither source_broken nor source_recovered.
    store_error = "store_error"


class OfferKind(StrEnum):
    free_credit = "free_credit"
    voucher = "voucher"
    free_trial = "free_trial"
    discount = "discount"
    renewal_discount = "renewal_discount"
    spot_discount = "spot_discount"
    startup_credit = "startup_credit"


class Eligibility(StrEnum):
    new_users = "new_users"
    all = "all"
    startups = "startups"
    students = "students"
    enterprise = "enterprise"
    # A referral program's two parties: the friend who signs up with a
    # referral link, and the one who shares it.
    referred = "referred"
    referrers = "referrers"


# The choices the answers take (tracker/answers/): the command line's options
# and the web's parameters offer these values, written here once.


class RegionGroup(StrEnum):
    """The region groups an answer can keep (`[analytics.region_groups]` maps
    a provider's regions to them; a region in none is 'other')."""

    us = "us"
    eu = "eu"
    asia = "asia"
    cn = "cn"


class Workload(StrEnum):
    """What a recommended job does: training counts spot, inference does not."""

    training = "training"
    inference = "inference"


class Qualify(StrEnum):
    """The customers an answer counts offers for, beyond those open to all
    (the `Eligibility` values a customer can say of himself)."""

    new_users = "new_users"
    startups = "startups"
    students = "students"
    enterprise = "enterprise"


class RankBy(StrEnum):
    """What compare ranks by: a GPU-hour, a dense TFLOP-hour, a GB of GPU memory per hour."""

    price_per_gpu_hour = "price_per_gpu_hour"
    price_per_tflop_hour = "price_per_tflop_hour"
    price_per_gb_vram_hour = "price_per_gb_vram_hour"
