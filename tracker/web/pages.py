"""The dashboard's pages, rendered on the server (templates/). Every filter
is in the URL, so a page is its own permalink; forms submit with GET."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from db.kinds import ChangeKind, PriceModel
from db.money import readable
from db.store.reads.browse import SORTS
from tracker.analytics.bill.spot_risk import PRICE_MODELS as RECOMMEND_MODELS
from tracker.analytics.facts.network import network_fields
from tracker.answers.changes import ChangesRequest
from tracker.answers.history import HistoryRequest
from tracker.answers.offers import OffersRequest
from tracker.errors import UserError
from tracker.web import chart
from tracker.web.answers import Answers
from tracker.web.api import (
    CHANGE_KINDS,
    CHANGE_PARAMS,
    OFFER_PARAMS,
    PRICE_PARAMS,
    RECOMMEND_PARAMS,
    ask,
    changes_request,
    offers_request,
    price_filter,
    recommend_request,
)
from tracker.web.labels import Words, choose
from tracker.web.params import OFFER_KINDS, PRICE_MODELS, QUALIFY, REGION_GROUPS, WORKLOADS, BadParameter

router = APIRouter(include_in_schema=False)
PAGE: dict[str, tuple[str, dict[str, Any]]] = {"page": ("", {})}
KINDS = ("on demand", "spot", "committed")


def render(request: Request, template: str, **context: Any) -> HTMLResponse:
    t = Words(choose(request.headers.get("accept-language")))
    context |= {"t": t, "lang": "zh-Hans" if t.lang == "zh" else "en", "path": request.url.path}
    return request.app.state.templates.TemplateResponse(request, template, context)


def answers(request: Request) -> Answers:
    return request.app.state.answers


def money(value: Any) -> str:
    return readable(value) if value is not None else ""


def relative(url: Any) -> str:
    """A link on this site as a path and query: right behind any proxy or scheme."""
    return url.path + (f"?{url.query}" if url.query else "")


def pager(request: Request, total: int, page: int, size: int, exact: bool = True) -> dict[str, Any]:
    """Links to the pages around this one. Not `exact`: more than `total`
    match, and the next page is there as long as this one reaches past it."""
    last = max(1, -(-total // size))
    if page > last and total:
        raise BadParameter(f"page={page} is past the last page, {last}")
    link = lambda n: relative(request.url.include_query_params(page=n))
    return {
        "first": (page - 1) * size + 1 if total else 0,
        "last": min(page * size, total),
        "total": total,
        "exact": exact,
        "prev": link(page - 1) if page > 1 else None,
        "next": link(page + 1) if page < last or not exact else None,
    }


@router.get("/", response_class=HTMLResponse)
def overview(request: Request) -> HTMLResponse:
    q = ask(request, {"currency": ()})
    currency = q.currency()
    store = answers(request)
    cheapest = store.cheapest(currency or "USD")
    pivot: dict[str, dict[str, dict[str, Any]]] = {}
    for row in cheapest:
        pivot.setdefault(row["gpu_model"], {})[row["kind"]] = row
    week_ago = datetime.now(UTC) - timedelta(days=7)
    week = store.changes(ChangesRequest(since=week_ago, limit=10, newest_first=True), words=True)
    moved = (ChangeKind.price_drop, ChangeKind.price_increase)
    moves = store.changes(ChangesRequest(since=week_ago, kinds=moved, limit=1, newest_first=True))
    drops = store.changes(ChangesRequest(since=week_ago, kinds=moved[:1], limit=1, newest_first=True))
    offers = list(store.offers(OffersRequest(active=True)))
    sources = store.sources()
    return render(
        request,
        "overview.html",
        currency=currency,
        pivot=sorted(pivot.items()),
        kinds=KINDS,
        models=len(pivot),
        providers=len({r["provider"] for r in cheapest}),
        recent=week,
        drops=drops.total,
        rises=moves.total - drops.total,
        offers=offers[:8],
        offer_count=len(offers),
        sources=sources,
        failing=[s["source"] for s in sources if s["status"] != "ok"],
        money=money,
    )


@router.get("/prices", response_class=HTMLResponse)
def prices(request: Request) -> HTMLResponse:
    q = ask(request, PRICE_PARAMS, PAGE)
    f = price_filter(q)
    sort = q.choice("sort", list(SORTS))
    descending = q.choice("order", ["asc", "desc"], "asc") == "desc"
    size = request.app.state.settings.page_size
    page = q.integer("page", 1, 1, 10**6)
    store = answers(request)
    found = store.prices(dict(f), sort=sort, descending=descending, limit=size, offset=(page - 1) * size)
    headers = ["provider", "region", "instance_type", "gpu_model", "price_model", "price", "price_per_gpu_hour"]
    sort_links = {}
    for name in headers:
        again = sort == name and not descending
        sort_links[name] = relative(
            request.url.remove_query_params("page").include_query_params(sort=name, order="desc" if again else "asc")
        )
    return render(
        request,
        "prices.html",
        f=f,
        sort=sort,
        descending=descending,
        rows=found.rows,
        pages=pager(request, found.total, page, size, found.exact),
        facets=store.facets(),
        sorts=list(SORTS),
        sort_links=sort_links,
        region_groups=REGION_GROUPS,
        price_models=PRICE_MODELS,
        money=money,
    )


@router.get("/instances/{provider}/{instance_type:path}", response_class=HTMLResponse)
def instance(request: Request, provider: str, instance_type: str) -> HTMLResponse:
    q = ask(request, {"region": (), "price_model": (), "since": ()})
    region, model = q.text("region"), q.choice("price_model", PRICE_MODELS)
    store = answers(request)
    intervals = store.history(
        HistoryRequest(
            instance_type=instance_type,
            provider=provider,
            region=region,
            price_model=PriceModel(model) if model else None,
            since=q.moment("since"),
        )
    )
    if not intervals:
        raise BadParameter(f"no prices recorded for {provider} {instance_type}" + (f" in {region}" if region else ""))
    asked = ChangesRequest(
        provider=provider,
        instance_type=instance_type,
        region=region,
        price_model=PriceModel(model) if model else None,
        limit=100,
        newest_first=True,
    )
    moves = store.changes(asked, words=True)
    first = intervals[0]
    return render(
        request,
        "instance.html",
        provider=provider,
        instance_type=instance_type,
        region=region,
        price_model=model,
        first=first,
        network=network_fields({**first, "provider": provider, "instance_type": instance_type}),
        svg=chart.svg(intervals, title=f"{provider} {instance_type}"),
        intervals=sorted(intervals, key=lambda r: r["valid_from"], reverse=True)[:200],
        changes=moves,
        price_models=PRICE_MODELS,
        money=money,
    )


@router.get("/changes", response_class=HTMLResponse)
def changes(request: Request) -> HTMLResponse:
    q = ask(request, CHANGE_PARAMS, PAGE)
    size = request.app.state.settings.page_size
    f = changes_request(q, limit=size)
    page = q.integer("page", 1, 1, 10**6)
    found = answers(request).changes(f, offset=(page - 1) * size, words=True)
    feed = request.url.replace(path="/feeds/changes.atom").remove_query_params(["page", "until", "order"])
    return render(
        request,
        "changes.html",
        f=f,
        since=q.text("since") or "",
        rows=found.rows,
        pages=pager(request, found.total, page, size),
        kinds=CHANGE_KINDS,
        price_models=PRICE_MODELS,
        feed=relative(feed),
        money=money,
    )


@router.get("/offers", response_class=HTMLResponse)
def offers(request: Request) -> HTMLResponse:
    q = ask(request, OFFER_PARAMS, PAGE)
    asked = offers_request(q)
    provider, kind, active = asked.provider, asked.kind, asked.active
    rows = answers(request).offers(asked)
    size = request.app.state.settings.page_size
    page = q.integer("page", 1, 1, 10**6)
    return render(
        request,
        "offers.html",
        provider=provider or "",
        kind=kind,
        active=active,
        kinds=OFFER_KINDS,
        rows=rows[(page - 1) * size : page * size],
        pages=pager(request, len(rows), page, size),
    )


@router.get("/recommend", response_class=HTMLResponse)
def recommend(request: Request) -> HTMLResponse:
    q = ask(request, RECOMMEND_PARAMS)
    asked = bool(request.query_params)
    values = recommend_request(q, most=500)
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    if asked:
        needs = values.needs()
        try:
            rows, notes = answers(request).recommend(values, needs)
        except UserError as e:  # no option meets the needs: the form stays, with the reason
            notes = [str(e)]
    return render(
        request,
        "recommend.html",
        asked=asked,
        v=values,
        gpu=q.text("gpu") or "",
        provider=q.text("provider") or "",
        rows=rows,
        notes=notes,
        workloads=WORKLOADS,
        region_groups=REGION_GROUPS,
        qualify=QUALIFY,
        price_models=RECOMMEND_MODELS,
        money=money,
    )


@router.get("/sources", response_class=HTMLResponse)
def sources(request: Request) -> HTMLResponse:
    ask(request, {})
    store = answers(request)
    # [web] as this server runs: the settings it was started with, the port it was given.
    server = request.scope.get("server")
    settings = store.settings(request.app.state.settings, server[1] if server else None)
    return render(request, "sources.html", rows=store.sources(), store=store.store_label(), settings=settings)
