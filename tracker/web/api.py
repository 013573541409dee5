"""The JSON API: the CLI's answers over HTTP, in exactly its `--format json`
contract (tracker/cli/output.py `json_rows`: the listing's columns, Decimals as
strings, times ISO 8601 in UTC), and an Atom feed of changes.

Each endpoint's parameters are the CLI option's names with underscores, listed
in the OpenAPI description at /api/openapi.json. A paged listing says how many
match in `X-Total-Count` and links the next page (RFC 8288 `Link`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from db.kinds import ChangeKind, OfferKind, PriceModel, Qualify, RankBy, RegionGroup, Workload
from db.store.reads.browse import SORTS
from tracker.analytics.bill.spot_risk import PRICE_MODELS as RECOMMEND_MODELS
from tracker.analytics.columns import COMPARE_COLUMNS
from tracker.answers.changes import KINDS as CHANGE_KINDS
from tracker.answers.changes import ChangesRequest
from tracker.answers.columns import CHANGE_COLUMNS, HISTORY_COLUMNS, OFFER_COLUMNS, PRICE_COLUMNS
from tracker.answers.history import HistoryRequest
from tracker.answers.offers import OffersRequest
from tracker.answers.ranked.compare import CompareRequest
from tracker.answers.ranked.recommend import RecommendRequest
from tracker.answers.rows import json_rows
from tracker.answers.sources import COLUMNS as SOURCE_COLUMNS
from tracker.web.answers import Answers, Page
from tracker.web.params import (
    OFFER_KINDS,
    PRICE_MODELS,
    QUALIFY,
    RANK_BY,
    REGION_GROUPS,
    WORKLOADS,
    BadParameter,
    Query,
    query,
)

router = APIRouter(prefix="/api", tags=["answers"])
MAX_LIMIT = 10_000
# The rows /api/compare answers unless told: ranked in SQL, only these are worked out.
COMPARE_LIMIT = 100

# name: (description, JSON schema); a list schema is a repeatable parameter.
S = {"type": "string"}
PRICE_PARAMS: dict[str, tuple[str, dict[str, Any]]] = {
    "gpu": ("GPU model, matched in part: A100, H100", S),
    "provider": ("only this provider", S),
    "region": ("only this region", S),
    "region_group": ("only regions in this group", {"enum": REGION_GROUPS}),
    "price_model": ("only this price model", {"enum": PRICE_MODELS}),
    "instance_type": ("exactly this instance type", S),
    "availability": ("only this stock: available, sold_out, High...", S),
    "currency": ("only prices in this currency (3 letters)", S),
    "sort": ("sort by this column", {"enum": list(SORTS)}),
    "order": ("asc or desc", {"enum": ["asc", "desc"]}),
}
PAGE_PARAMS = {
    "limit": ("at most this many rows", {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT}),
    "offset": ("skip this many rows", {"type": "integer", "minimum": 0}),
}
CHANGE_PARAMS = {
    "since": ("from this date (2026-08-01) or span back (7d, 24h)", S),
    "until": ("before this date or span back", S),
    "provider": ("only this provider", S),
    "kind": ("only this kind (price_drop, new_sku...); repeatable", {"type": "array", "items": S}),
    "region": ("only this region", S),
    "gpu": ("GPU model, matched in part", S),
    "price_model": ("only this price model", {"enum": PRICE_MODELS}),
    "instance_type": ("exactly this instance type", S),
    "order": ("asc (oldest first, as the CLI) or desc", {"enum": ["asc", "desc"]}),
}
OFFER_PARAMS = {
    "provider": ("only this provider", S),
    "kind": ("only this kind of offer", {"enum": OFFER_KINDS}),
    "active": ("only offers valid now", {"type": "boolean"}),
}
COMPARE_PARAMS = {
    "gpu": ("GPU model, matched in part (required)", S),
    "count": ("only instances with exactly this many GPUs", S),
    "price_model": ("only this price model; repeatable", {"type": "array", "items": {"enum": PRICE_MODELS}}),
    "region_group": ("only regions in this group", {"enum": REGION_GROUPS}),
    "currency": ("convert every figure to this currency (default USD)", S),
    "provider": ("only this provider", S),
    "os": ("operating system (default linux)", S),
    "rank_by": ("what to rank by", {"enum": RANK_BY}),
    "limit": ("only the cheapest N rows (default 100, at most 10,000)", {"type": "integer", "minimum": 1}),
}
RECOMMEND_PARAMS = {
    "gpus": ("GPUs at once; below 1, a share of one GPU (default 1)", S),
    "min_gpu_memory": ("GB of usable memory each GPU must have", S),
    "usable_memory_share": ("share of a GPU's memory a job can use (default 0.9)", S),
    "workload": ("training or inference", {"enum": WORKLOADS}),
    "hours_per_month": ("hours of use a month per GPU (default 720)", S),
    "months": ("the horizon in months (default 36)", {"type": "integer", "minimum": 1, "maximum": 240}),
    "currency": ("the currency of the result (default USD)", S),
    "gpu": ("only this GPU model", S),
    "provider": ("only this provider", S),
    "region_group": ("only regions in this group", {"enum": REGION_GROUPS}),
    "spot_overhead": ("factor on spot hours where no interruption rate is stated (default 1.1)", S),
    "checkpoint_minutes": ("minutes of work a spot interruption loses (default 30)", S),
    "max_interruption": ("leave out spot options whose interruption band may exceed this % a month", S),
    "price_model": ("only options of this price model", {"enum": list(RECOMMEND_MODELS)}),
    "storage_gb": ("GB of storage kept every month", S),
    "egress_gb": ("GB sent out every month", S),
    "inter_region_gb": ("GB sent to another region of the same provider every month", S),
    "qualify": (
        "count offers for this kind of customer too; repeatable",
        {"type": "array", "items": {"enum": QUALIFY}},
    ),
    "new_account": ("you are a new customer", {"type": "boolean"}),
    "mix": ("also weigh this mix, e.g. on_demand=0.25,reserved_3yr=0.75; repeatable", {"type": "array", "items": S}),
    "limit": ("the best N options (default 20, at most 10,000)", {"type": "integer", "minimum": 1}),
    "benchmark": ("rank by cost per million of an MLPerf benchmark's work, e.g. llama2-70b-99", S),
    "nodes": ("machines the job spans; above 1, only RDMA-class networks", {"type": "integer", "minimum": 1}),
    "all": ("every option, not one per provider, GPU model and kind of price", {"type": "boolean"}),
}
HISTORY_PARAMS = {
    "provider": ("only this provider", S),
    "region": ("only this region", S),
    "price_model": ("only this price model", {"enum": PRICE_MODELS}),
    "since": ("intervals in force at or after this date (or 7d)", S),
    "until": ("intervals that began before this date", S),
}
FEED_PARAMS = {
    "rule": ("the changes this [[rule]] of the configuration selects", S),
    **{k: v for k, v in CHANGE_PARAMS.items() if k not in ("until", "order")},
}


def documented(spec: Mapping[str, tuple[str, Any]]) -> dict[str, Any]:
    return {
        "parameters": [
            {"name": name, "in": "query", "required": False, "description": text, "schema": schema}
            | ({"style": "form", "explode": True} if schema.get("type") == "array" else {})
            for name, (text, schema) in spec.items()
        ]
    }


def ask(request: Request, *specs: dict[str, Any]) -> Query:
    return query(request.query_params.multi_items(), [name for spec in specs for name in spec])


def answers(request: Request) -> Answers:
    return request.app.state.answers


def as_json(rows: list[dict[str, Any]], columns: list[str], headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(json_rows(rows, columns), ensure_ascii=False, indent=1)
    return Response(body + "\n", media_type="application/json", headers=headers)


def paged(request: Request, page: Page, columns: list[str]) -> Response:
    # Past `db.store.reads.browse.COUNT_CAP` matches the count is a floor: said as such.
    headers = {"X-Total-Count": str(page.total) if page.exact else f"{page.total}+"}
    if page.offset + page.limit < page.total or not page.exact:
        following = request.url.include_query_params(offset=page.offset + page.limit, limit=page.limit)
        headers["Link"] = f'<{following}>; rel="next"'
    return as_json(page.rows, columns, headers)


# --- readers, shared with the pages ---------------------------------------------


def price_filter(q: Query) -> dict[str, Any]:
    return {
        "gpu": q.text("gpu"),
        "provider": q.text("provider"),
        "region": q.text("region"),
        "region_group": q.choice("region_group", REGION_GROUPS),
        "price_model": q.choice("price_model", PRICE_MODELS),
        "instance_type": q.text("instance_type"),
        "availability": q.text("availability"),
        "currency": q.currency(default=None),
    }


def changes_request(q: Query, *, limit: int | None = None, newest_first: bool = True) -> ChangesRequest:
    """The request /api/changes, the changes page and the feed read (newest first unless told)."""
    model = q.choice("price_model", PRICE_MODELS)
    return ChangesRequest(
        since=q.moment("since"),
        until=q.moment("until") if "until" in q.values else None,
        provider=q.text("provider"),
        kinds=tuple(ChangeKind(k) for k in q.many("kind", CHANGE_KINDS)),
        region=q.text("region"),
        gpu=q.text("gpu"),
        price_model=PriceModel(model) if model else None,
        instance_type=q.text("instance_type"),
        limit=limit,
        newest_first=newest_first,
    )


def offers_request(q: Query) -> OffersRequest:
    kind = q.choice("kind", OFFER_KINDS)
    return OffersRequest(provider=q.text("provider"), kind=OfferKind(kind) if kind else None, active=q.flag("active"))


def recommend_request(q: Query, *, most: int = MAX_LIMIT) -> RecommendRequest:
    """The request /api/recommend and the recommend page read: the CLI's
    options by their names, the request's defaults where not given."""
    asked = RecommendRequest()
    return RecommendRequest(
        gpus=q.ranged("gpus", asked.gpus) or asked.gpus,
        min_gpu_memory=q.ranged("min_gpu_memory"),
        usable_memory_share=q.ranged("usable_memory_share", asked.usable_memory_share) or asked.usable_memory_share,
        workload=Workload(q.choice("workload", WORKLOADS) or asked.workload),
        hours_per_month=q.ranged("hours_per_month", asked.hours_per_month) or asked.hours_per_month,
        months=q.integer("months", asked.months, 1, 240),
        currency=q.currency() or asked.currency,
        spot_overhead=q.ranged("spot_overhead", asked.spot_overhead) or asked.spot_overhead,
        checkpoint_minutes=q.decimal("checkpoint_minutes", Decimal(asked.checkpoint_minutes), lo=Decimal(0))
        or Decimal(0),
        max_interruption=q.decimal("max_interruption", lo=Decimal(0)),
        price_model=q.choice("price_model", list(RECOMMEND_MODELS)),
        storage_gb=q.ranged("storage_gb", asked.storage_gb) or Decimal(0),
        egress_gb=q.ranged("egress_gb", asked.egress_gb) or Decimal(0),
        inter_region_gb=q.ranged("inter_region_gb", asked.inter_region_gb) or Decimal(0),
        qualify=tuple(Qualify(v) for v in q.many("qualify", QUALIFY)),
        new_account=q.flag("new_account"),
        mix=tuple(m for m in q.values.get("mix", []) if m.strip()),
        benchmark=q.text("benchmark"),
        nodes=q.integer("nodes", asked.nodes, 1, 10_000),
        region_group=RegionGroup(g) if (g := q.choice("region_group", REGION_GROUPS)) else None,
        all=q.flag("all"),
        gpu=q.text("gpu"),
        provider=q.text("provider"),
        limit=q.integer("limit", asked.limit or 20, 1, most),
    )


# --- the endpoints ---------------------------------------------------------------


@router.get("/prices", openapi_extra=documented(PRICE_PARAMS | PAGE_PARAMS), summary="gpu-tracker prices")
def prices(request: Request) -> Response:
    """The current prices, as `gpu-tracker prices --format json` lists them, one page at a time (default 100)."""
    q = ask(request, PRICE_PARAMS, PAGE_PARAMS)
    f = price_filter(q)
    sort = q.choice("sort", list(SORTS))
    descending = q.choice("order", ["asc", "desc"], "asc") == "desc"
    limit, offset = q.integer("limit", 100, 1, MAX_LIMIT), q.integer("offset", 0, 0, 10**9)
    page = answers(request).prices(f, sort=sort, descending=descending, limit=limit, offset=offset)
    return paged(request, page, PRICE_COLUMNS)


@router.get("/changes", openapi_extra=documented(CHANGE_PARAMS | PAGE_PARAMS), summary="gpu-tracker changes")
def changes(request: Request) -> Response:
    """Recorded changes, as `gpu-tracker changes --format json` lists them (oldest first unless order=desc)."""
    q = ask(request, CHANGE_PARAMS, PAGE_PARAMS)
    newest = q.choice("order", ["asc", "desc"], "asc") == "desc"
    limit, offset = q.integer("limit", 100, 1, MAX_LIMIT), q.integer("offset", 0, 0, 10**9)
    page = answers(request).changes(changes_request(q, limit=limit, newest_first=newest), offset=offset)
    return paged(request, page, CHANGE_COLUMNS)


@router.get("/offers", openapi_extra=documented(OFFER_PARAMS), summary="gpu-tracker offers")
def offers(request: Request) -> Response:
    """The current offers, as `gpu-tracker offers --format json` lists them."""
    return as_json(answers(request).offers(offers_request(ask(request, OFFER_PARAMS))), OFFER_COLUMNS)


@router.get("/compare", openapi_extra=documented(COMPARE_PARAMS), summary="gpu-tracker compare")
def compare(request: Request) -> Response:
    """One GPU model's current prices ranked, as `gpu-tracker compare --format json` ranks them."""
    q = ask(request, COMPARE_PARAMS)
    gpu = q.text("gpu")
    if not gpu:
        raise BadParameter("gpu is required: the GPU model to compare, e.g. gpu=H100")
    asked = CompareRequest(
        gpu=gpu,
        count=q.ranged("count"),
        price_models=tuple(PriceModel(m) for m in q.many("price_model", PRICE_MODELS)),
        region_group=RegionGroup(g) if (g := q.choice("region_group", REGION_GROUPS)) else None,
        currency=q.currency() or "USD",
        provider=q.text("provider"),
        os=q.text("os") or "linux",
        rank_by=RankBy(q.choice("rank_by", RANK_BY) or RankBy.price_per_gpu_hour),
        limit=q.integer("limit", COMPARE_LIMIT, 1, MAX_LIMIT),
    )
    return as_json(answers(request).compare(asked), COMPARE_COLUMNS)


@router.get("/recommend", openapi_extra=documented(RECOMMEND_PARAMS), summary="gpu-tracker recommend")
def recommend(request: Request) -> Response:
    """Options for a GPU job ranked by total cost, each with why, as `gpu-tracker recommend --format json`."""
    from tracker.analytics.recommend import RECOMMEND_COLUMNS

    asked = recommend_request(ask(request, RECOMMEND_PARAMS))
    rows, _ = answers(request).recommend(asked, asked.needs())
    return as_json(rows, RECOMMEND_COLUMNS)


@router.get("/history/{instance_type:path}", openapi_extra=documented(HISTORY_PARAMS), summary="gpu-tracker history")
def history(request: Request, instance_type: str) -> Response:
    """The intervals each price of one instance type held, as `gpu-tracker history TYPE --format json`."""
    q = ask(request, HISTORY_PARAMS)
    asked = HistoryRequest(
        instance_type=instance_type,
        provider=q.text("provider"),
        region=q.text("region"),
        price_model=PriceModel(m) if (m := q.choice("price_model", PRICE_MODELS)) else None,
        since=q.moment("since"),
        until=q.moment("until"),
    )
    return as_json(answers(request).history(asked), HISTORY_COLUMNS)


@router.get("/sources", summary="source health")
def sources(request: Request) -> Response:
    """Per source: its last run, status, last good data, staleness and last error in one sentence."""
    ask(request, {})
    return as_json(answers(request).sources(), SOURCE_COLUMNS)


# --- the Atom feed (RFC 4287) of changes -------------------------------------------

feeds = APIRouter(prefix="/feeds", tags=["feeds"])
ATOM = "http://www.w3.org/2005/Atom"
FEED_ENTRIES = 50
FEED_SCAN = 2000


@feeds.get("/changes.atom", openapi_extra=documented(FEED_PARAMS), summary="changes as an Atom feed")
def changes_feed(request: Request) -> Response:
    """The newest changes matching the filters, or one [[rule]]'s selection, as an Atom feed."""
    import xml.etree.ElementTree as ET
    from dataclasses import replace
    from datetime import UTC, datetime

    from tracker.answers.changes import row as change_row

    q = ask(request, FEED_PARAMS)
    rule = _rule(request, q.text("rule"))
    asked = changes_request(q, limit=FEED_SCAN if rule else FEED_ENTRIES)
    if rule is not None and rule.settings.when and not asked.kinds:
        asked = replace(asked, kinds=tuple(ChangeKind(k) for k in rule.settings.when))
    stored = answers(request).feed(asked)
    if rule is not None:
        stored = [c for c in stored if rule.mismatch(_change_value(c)) is None][:FEED_ENTRIES]
    rows = [change_row(c) for c in stored]
    base = str(request.base_url).rstrip("/")
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    what = f"rule {rule.name}" if rule else "changes"
    ET.SubElement(feed, f"{{{ATOM}}}title").text = f"gpu-tracker: {what}"
    ET.SubElement(feed, f"{{{ATOM}}}id").text = str(request.url)
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="self", href=str(request.url))
    alternate = request.url.replace(path="/changes").remove_query_params("rule")
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="alternate", type="text/html", href=str(alternate))
    newest = rows[0]["observed_at"] if rows else datetime(2000, 1, 1, tzinfo=UTC)
    ET.SubElement(feed, f"{{{ATOM}}}updated").text = newest.isoformat()
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    ET.SubElement(author, f"{{{ATOM}}}name").text = "gpu-tracker"
    ET.SubElement(feed, f"{{{ATOM}}}generator").text = "gpu-tracker"
    for row in rows:
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        subject = row.get("instance") or row.get("provider")
        ET.SubElement(entry, f"{{{ATOM}}}title").text = f"{row['kind']}: {row['provider']} {subject}: {row['change']}"
        ET.SubElement(entry, f"{{{ATOM}}}id").text = f"{base}/changes#change-{row['id']}"
        ET.SubElement(entry, f"{{{ATOM}}}updated").text = row["observed_at"].isoformat()
        if row.get("instance_type"):
            page = f"{base}/instances/{row['provider']}/{row['instance_type']}"
            ET.SubElement(entry, f"{{{ATOM}}}link", rel="alternate", type="text/html", href=page)
        parts = [row.get("region"), row.get("price_model"), row.get("term"), row.get("detail")]
        ET.SubElement(entry, f"{{{ATOM}}}summary").text = "; ".join(str(p) for p in parts if p)
    body = ET.tostring(feed, encoding="unicode", xml_declaration=True)
    return Response(body, media_type="application/atom+xml; charset=utf-8")


def _rule(request: Request, name: str | None) -> Any:
    if not name:
        return None
    from alerts.rules import Rule

    config = answers(request).config
    config.need("alerts")
    for settings in config.rule:
        if settings.name == name:
            return Rule(settings)
    known = ", ".join(r.name for r in config.rule) or "none are configured"
    raise BadParameter(f"no [[rule]] named {name!r}; the rules: {known}")


def _change_value(stored: dict[str, Any]) -> Any:
    from decimal import Decimal

    from db.schema import Change

    values = {k: v for k, v in stored.items() if k in Change.model_fields}
    for name in ("old_price", "new_price", "percent", "gpu_count"):
        if isinstance(values.get(name), str):
            values[name] = Decimal(values[name])
    values["detail"] = json.loads(stored.get("detail") or "{}")
    return Change.model_validate(values)
