"""The columns of the frames the analytics API returns: `history_summary`,
`compare_frame` and `tco_frame`, in order. They are also the JSON and CSV
columns of `history --summary`, `compare` and `tco`; pandas-free here so
that the CLI's column contract (tracker/answers/columns.py) can name them
without loading the frame code."""

from __future__ import annotations

from db.kinds import PRICE_KINDS

SERIES_FIELDS = [
    "provider",
    "region",
    "zone",
    "instance_type",
    "os",
    "price_model",
    "term",
    "payment_option",
    "currency",
    "unit",
]
SUMMARY_COLUMNS = [
    "key",
    *SERIES_FIELDS,
    "gpu_model",
    "gpu_count",
    "intervals",
    "first_seen",
    "min_price",
    "min_from",
    "max_price",
    "max_from",
    "current_price",
    "last_change_at",
    "last_change_from",
    "last_change_to",
    "last_change_percent",
]
COMPARE_COLUMNS = [
    "rank",
    "provider",
    "region",
    "region_group",
    "zone",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "fractional",
    "gpu_memory_gb",
    "gpu_interconnect",
    "network_gbps",
    "os",
    "price_model",
    "term",
    "payment_option",
    "price",
    "currency",
    "unit",
    "upfront_fee",
    "hourly_price",
    "price_per_gpu_hour",
    "gpu_bf16_tflops",
    "price_per_tflop_hour",
    "price_per_gb_vram_hour",
    "target_currency",
    "hourly_converted",
    "per_gpu_hour_converted",
    "per_tflop_hour_converted",
    "per_gb_vram_hour_converted",
    "fx_rate",
    "fx_date",
    "fx_source",
    "spot_saving_percent",
    "monthly_discount_percent",
    "three_year_total",
    "availability",
    "offer_count",
    "source",
]
TCO_COLUMNS = [
    "rank",
    "provider",
    "region",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "instances",
    "compute",
    "egress",
    # Data sent to another region a month (--inter-region-gb), over the horizon (docs/side-costs.md).
    "inter_region",
    "storage",
    "credits",
    "total",
    "currency",
    "per_gpu_hour",
    "on_demand_hourly",
    "break_even_1yr_hours",
    "break_even_3yr_hours",
    # A spot option's interruption band and source ("unknown" where none is stated), and the
    # expected cost of its interruptions included in compute (docs/spot-risk.md).
    "interruption",
    "interruption_cost",
    "egress_per_gb",
    "storage_per_gb_month",
    "rates_date",
    "rates_source",
    # Where each side cost came from: "tracked: <source> <date> (...)" or "reference table <date>".
    "egress_source",
    "inter_region_source",
    "storage_source",
    "fx",
]

# The kinds of price the report and the dashboard compare: a price model to its kind.
MODEL_CLASSES = PRICE_KINDS
