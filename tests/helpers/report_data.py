"""A store for the report tests: the H100 rows at two dates (one price moves),
a row with hostile text in its instance name, and offers with a hostile title,
a `javascript:` link and a title too long for any column."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import sqlalchemy as sa
from sqlmodel import Session

from db.schema import Offer
from db.store.engine import make_engine
from db.store.writes.offers import OfferPoint, offer_to_row
from tests.helpers.analytics_data import H100_ROWS, load_rows

T1, T2 = "2026-08-01T00:00:00Z", "2026-09-15T00:00:00Z"
HOSTILE = "<script>alert('x')</script>&co"
HOSTILE_ESCAPED = "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&amp;co"
LONG_TITLE = "GPU_credit_" * 30  # nowhere a browser would break a line by itself


def load_prices(cli, tmp_path: Path) -> None:
    first = [r | {"observed_at": T1} for r in H100_ROWS]
    first.append(
        {
            "provider": "tencent",
            "region": "ap-guangzhou",
            "instance_type": HOSTILE,
            "gpu_model": "H100",
            "gpu_count": "8",
            "price_model": "on_demand",
            "price": "5",
            "currency": "CNY",
            "unit": "hour",
            "observed_at": T1,
        }
    )
    second = [dict(r) for r in first]
    second[0] = second[0] | {"price": "50"}
    second = [r | {"observed_at": T2} for r in second]
    load_rows(cli, tmp_path, first, source="mycorp", name="first.jsonl")
    load_rows(cli, tmp_path, second, source="mycorp", name="second.jsonl")


def add_offers(db_url: str) -> None:
    """Offers written straight to the store, as an offers crawl would leave them."""
    seen = datetime(2026, 9, 15, tzinfo=UTC)
    offers = [
        Offer(
            provider="gcp",
            offer_id="gcp:credit",
            kind="free_credit",
            title="$300 in free credits",
            amount=Decimal(300),
            currency="USD",
            source_url="https://cloud.google.com/free",
            observed_at=seen,
        ),
        Offer(
            provider="tencent",
            offer_id="tencent:hostile",
            kind="voucher",
            title=HOSTILE,
            amount=Decimal(300),
            currency="CNY",
            min_spend=Decimal(1000),
            source_url="javascript:alert(1)",
            observed_at=seen,
        ),
        Offer(provider="aws", offer_id="aws:long", kind="free_trial", title=LONG_TITLE, observed_at=seen),
    ]
    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            rows = [offer_to_row(o, source="offers", run_id=None, valid_from=seen) for o in offers]
            session.connection().execute(sa.insert(OfferPoint.__table__), rows)
            session.commit()
    finally:
        engine.dispose()
