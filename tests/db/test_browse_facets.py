"""The prices page's filter lists (`price_facets`, issue 40.11): read by
jumping from value to value in the open prices' indexes and one read of the
table, they are the values a plain DISTINCT of every open price gives, on
both back ends; closed prices and empty values are not offered."""

from __future__ import annotations

import sqlalchemy as sa

from db.store.engine import make_engine
from db.store.reads.browse import price_facets

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
