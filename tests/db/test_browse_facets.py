"""The prices page's filter lists and region groups at a million prices
(issue 40.11), on both back ends. The lists (`price_facets`), read by
jumping from value to value in the open prices' indexes and one read of the
table, are the values a plain DISTINCT of every open price gives; closed
prices and empty values are not offered. A region group, said per provider
with lists of regions, holds the prices `References.region_group` puts in
it, every sort and page alike."""

from __future__ import annotations

import sqlalchemy as sa

from db.store.engine import make_engine
from db.store.reads.browse import page_prices, price_facets
from db.store.reads.rows import PriceFilter

NAMES = ("provider", "price_model", "availability", "currency", "gpu_model")


def _plain(conn: sa.Connection) -> dict[str, list[str]]:
    found = {}
    for name in NAMES:
        rows = conn.execute(sa.text(f"SELECT DISTINCT {name} FROM price_points WHERE valid_to IS NULL"))
        found[name] = sorted(v for (v,) in rows if v)
    return found


def test_the_filter_lists_are_every_open_value(demo_db_url: str) -> None:
    engine = make_engine(demo_db_url)
    try:
        with engine.begin() as conn:
            # A value only a closed price has, and an empty one: neither is offered.
            conn.execute(
                sa.text(
                    "UPDATE price_points SET valid_to = valid_from, provider = 'gone' "
                    "WHERE id = (SELECT min(id) FROM price_points WHERE valid_to IS NULL)"
                )
            )
            conn.execute(
                sa.text(
                    "UPDATE price_points SET availability = '' "
                    "WHERE id = (SELECT max(id) FROM price_points WHERE valid_to IS NULL)"
                )
            )
        with engine.connect() as conn:
            found = price_facets(conn)
            assert found == _plain(conn) and tuple(found) == NAMES
        assert "gone" not in found["provider"] and "" not in found["availability"]
        assert len(found["provider"]) > 5 and "H100" in found["gpu_model"] and "USD" in found["currency"]
    finally:
        engine.dispose()


def test_a_region_group_holds_the_prices_of_its_regions(demo_db_url: str) -> None:
    from tracker.analytics.facts.reference import load_references

    refs = load_references()
    engine = make_engine(demo_db_url)
    try:
        with engine.connect() as conn:
            every = page_prices(conn, PriceFilter(), limit=100_000, offset=0, count_cap=100_000).rows
            groups = sorted(set(refs.region_groups.values()))
            assert {"us", "eu", "cn"} <= set(groups)
            for group in groups:
                pairs = refs.region_groups
                f = PriceFilter(
                    regions=[p for p, g in pairs.items() if g == group and p[1] != "*"],
                    providers_everywhere=sorted({p for (p, r), g in pairs.items() if g == group and r == "*"}),
                    named_regions=[p for p in pairs if p[1] != "*"],
                )
                found = page_prices(conn, f, limit=100_000, offset=0, count_cap=100_000)
                wanted = [r["id"] for r in every if refs.region_group(r["provider"], r["region"]) == group]
                assert sorted(r["id"] for r in found.rows) == sorted(wanted), group
                assert found.total == len(wanted) and found.exact
                for sort in ("price", "region"):  # a page of a sort is that sort's slice of the group
                    page = page_prices(conn, f, sort=sort, descending=True, limit=7, offset=3, count_cap=100_000)
                    assert {r["id"] for r in page.rows} <= set(wanted) and len(page.rows) == max(
                        0, min(7, len(wanted) - 3)
                    )
    finally:
        engine.dispose()
