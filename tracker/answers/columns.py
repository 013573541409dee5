"""The JSON and CSV column contract of every listing command, in one place.

For each listing, `*_COLUMNS` are the JSON keys and the CSV header, in order:
scripts read them, so a name changes only on purpose, here. `*_TABLE` is the
shorter choice the table format shows. `compare`, `tco` and `history
--summary` print the analytics frames' own columns, which the Python API
defines in tracker/analytics/columns.py; they are named here too. Nothing
heavy is imported here: every command module imports this one."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tracker.analytics.columns import COMPARE_COLUMNS as COMPARE_COLUMNS
from tracker.analytics.columns import SUMMARY_COLUMNS
from tracker.analytics.columns import TCO_COLUMNS as TCO_COLUMNS

if TYPE_CHECKING:
    from db.schema import Change
    from db.tables import ChangeRow

# --- prices, history, changes, runs -------------------------------------

PRICE_COLUMNS = [
    "provider",
    "region",
    "zone",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "gpu_memory_gb",
    "vcpu",
    "memory_gb",
    "gpu_interconnect",
    "network_gbps",
    # The node network's RDMA kind as its provider states it (EFA, InfiniBand, RoCE), or null;
    # where that is said (tracker/data/network.csv).
    "rdma",
    "network_source",
    "os",
    "price_model",
    "term",
    "payment_option",
    "price",
    "currency",
    "unit",
    "list_price",
    "upfront_fee",
    "hourly_price",
    "price_per_gpu_hour",
    "gpu_bf16_tflops",
    "price_per_tflop_hour",
    "price_per_gb_vram_hour",
    "local_ssd_gib",
    "local_ssd_hourly",
    "availability",
    "median_price",
    "offer_count",
    "source_url",
    "observed_at",
    "attrs",
    # Why the price is held as suspect (far from its market), or null.
    "suspect",
]
PRICE_TABLE = [
    "provider",
    "region",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "price_model",
    "term",
    "payment_option",
    "price",
    "currency",
    "unit",
    "upfront_fee",
    "price_per_gpu_hour",
]
HISTORY_COLUMNS = [
    "valid_from",
    "valid_to",
    *[c for c in PRICE_COLUMNS if c not in ("observed_at", "suspect", "rdma", "network_source")],
]
HISTORY_TABLE = [
    "valid_from",
    "valid_to",
    "provider",
    "region",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "price_model",
    "term",
    "payment_option",
    "price",
    "currency",
    "unit",
    "upfront_fee",
    "availability",
]
RESAMPLE_COLUMNS = [
    "step",
    "provider",
    "region",
    "zone",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "os",
    "price_model",
    "term",
    "payment_option",
    "price",
    "currency",
    "unit",
    "hourly_price",
    "price_per_gpu_hour",
    "availability",
    "valid_from",
]
RESAMPLE_TABLE = [
    "step",
    "provider",
    "region",
    "instance_type",
    "price_model",
    "term",
    "payment_option",
    "price",
    "currency",
    "unit",
    "valid_from",
]
SUMMARY_HISTORY_COLUMNS = [c for c in SUMMARY_COLUMNS if c != "key"]
SUMMARY_HISTORY_TABLE = [
    "provider",
    "region",
    "instance_type",
    "price_model",
    "term",
    "intervals",
    "min_price",
    "max_price",
    "current_price",
    "last_change_at",
    "last_change_percent",
]
CHANGE_COLUMNS = [
    "kind",
    "provider",
    "region",
    "zone",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "os",
    "price_model",
    "term",
    "payment_option",
    "old_price",
    "new_price",
    "percent",
    "currency",
    "unit",
    "observed_at",
    "source",
    "detail",
    "source_url",
]
CHANGE_TABLE = [
    "kind",
    "provider",
    "region",
    "instance",
    "gpu_model",
    "gpu_count",
    "price_model",
    "term",
    "payment_option",
    "change",
    "observed_at",
]
RUN_COLUMNS = [
    "id",
    "source",
    "provider",
    "status",
    "mode",
    "started_at",
    "finished_at",
    "observed_at",
    "regions",
    "pages",
    "items",
    "rows_written",
    "changes",
    "error",
    "capture_path",
]
RUN_TABLE = ["id", "source", "status", "mode", "started_at", "observed_at", "items", "rows_written", "changes", "error"]
# --- offers ----------------------------------------------------------------

OFFER_COLUMNS = [
    "offer_id",
    "provider",
    "kind",
    "title",
    "amount",
    "currency",
    "percent_off",
    "min_spend",
    "duration_days",
    "eligibility",
    "products",
    "conditions",
    "valid_from",
    "valid_until",
    "unparsed",
    "text",
    "source",
    "source_url",
    "observed_at",
]
OFFER_TABLE = ["provider", "kind", "title", "terms", "eligibility", "valid_until", "offer_id"]
OFFER_HISTORY_COLUMNS = ["seen_from", "seen_to", *[c for c in OFFER_COLUMNS if c != "observed_at"]]
OFFER_HISTORY_TABLE = ["seen_from", "seen_to", "kind", "title", "terms", "eligibility", "valid_until"]

# --- compare and tco (the table's short names are compare_frame's aliases) ---

COMPARE_TABLE = [
    "rank",
    "provider",
    "region",
    "instance_type",
    "gpus",
    "slice",
    "price_model",
    "term",
    "price",
    "currency",
    "unit",
    "per_gpu_h",
    "fx",
    "3yr_total",
]
TCO_TABLE = [
    "rank",
    "provider",
    "region",
    "instance_type",
    "gpu_model",
    "instances",
    "compute",
    "egress",
    "inter_region",  # side costs' sources are listed under the table (docs/side-costs.md)
    "storage",
    "credits",
    "total",
    "currency",
    "per_gpu_hour",
    "interruption",  # a spot mix's band and source, or "unknown" (docs/spot-risk.md)
    "break_even_1yr_hours",
    "break_even_3yr_hours",
    "fx",
]

# --- alerts, report, status, reprocess, sources -------------------------------------

OUTBOX_COLUMNS = [
    "id",
    "state",
    "channel",
    "kind",
    "provider",
    "summary",
    "rules",
    "attempts",
    "next_attempt_at",
    "created_at",
    "sent_at",
    "digest",
    "last_error",
    "answer",
    "idempotency_key",
]
OUTBOX_TABLE = ["id", "state", "channel", "kind", "summary", "attempts", "next_attempt_at", "sent_at", "last_error"]
CHECK_COLUMNS = [
    "change",
    "kind",
    "provider",
    "region",
    "instance_type",
    "observed_at",
    "rule",
    "fires",
    "reason",
    "channels",
    "delivery",
]
CHECK_TABLE = ["change", "kind", "provider", "instance_type", "rule", "fires", "reason", "delivery"]
SPARK_COLUMNS = ["series", "sparkline", "min", "max", "last", "currency", "steps", "first_step", "last_step"]
STATUS_COLUMNS = [
    "source",
    "schedule",
    "last_status",
    "last_ok_at",
    "last_failure_at",
    "last_failure",
    "next_run",
    "stale",
    "open_prices",
]
REPROCESS_COLUMNS = ["capture", "observed_at", "run_id", "status", "items", "rows_written", "changes", "error"]
# `sources`: the registry, and what verified each source (spiders/evidence.py).
SOURCE_COLUMNS = [
    "source",
    "provider",
    "kind",
    "price_models",
    "needs_api_key",
    "crawled_by_default",
    "evidence",
    "evidence_kind",
    "evidence_date",
    "evidence_ref",
    "fixture",
]
SOURCE_TABLE = [c for c in SOURCE_COLUMNS if c not in ("evidence_kind", "evidence_date")]


# The kinds whose detail quotes a run's error: shown with its secrets masked.
REASON_KINDS = frozenset({"source_broken", "source_recovered", "source_stale", "price_suspect"})


def detail_text(raw: dict[str, str] | str) -> str:
    """A change's detail or a price's attrs as one readable cell."""
    detail = dict(json.loads(raw) if isinstance(raw, str) else raw)
    parts = []
    if "old_availability" in detail or "new_availability" in detail:
        # One reading, old to new: "availability: available -> sold_out".
        old, new = detail.pop("old_availability", ""), detail.pop("new_availability", "")
        parts.append(f"availability: {old or 'unknown'} -> {new or 'unknown'}")
    return "; ".join(parts + [f"{k}: {v}" for k, v in sorted(detail.items())])


def change_dict(change: Change | ChangeRow | dict[str, Any], *, words: bool = True) -> dict[str, Any]:
    """One change as the CHANGE_COLUMNS row, from the pipeline's value, the
    stored row or its fields as read; with `words`, also what moved, in
    words, for the table (which loads the value types)."""
    fields = change if isinstance(change, dict) else change.model_dump()
    row = dict(fields)
    row["kind"] = str(row["kind"])
    for name in ("old_price", "new_price", "percent", "gpu_count"):
        if isinstance(row[name], str):  # a stored row keeps exact numbers as text
            row[name] = Decimal(row[name])
    raw = dict(json.loads(fields["detail"]) if isinstance(fields["detail"], str) else fields["detail"])
    if row["kind"] in REASON_KINDS:  # a run's error, maybe recorded before errors were masked
        from tracker.config.masking import masked_detail

        raw = masked_detail(raw)
    row["detail"] = detail_text(raw)
    if not words:
        return row
    # For the table alone (JSON and CSV list their columns): what moved, in words.
    from alerts.cards import card
    from db.schema import Change

    moved = card(Change.model_validate({**row, "detail": raw}), 80)
    facts = dict(moved.facts)
    # A marketplace group's move is of its lowest price; its stock changes read as the summary.
    lowest = facts.get("Lowest", "")
    row["change"] = facts.get("Availability") or facts.get("Price") or (lowest if "→" in lowest else moved.summary)
    row["instance"] = row.get("instance_type") or raw.get("title") or row.get("source") or ""
    return row
