"""Changes of every kind, as the diff and the offer sources produce them.

Their source URLs are only text for the messages; tests that send them point
the channels at a local server on 127.0.0.1."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from db.schema import Change, ChangeKind

AT = datetime(2026, 8, 3, 9, 30, tzinfo=UTC)
AZURE_URL = "https://prices.azure.com/api/retail/prices?$filter=armRegionName eq 'eastus'"
# Provider text that tries to mention everyone, inject a link and break markdown.
HOSTILE = '<!channel> **[Free](http://evil.example)** <@U024BE7LH> <font color="warning">50%</font> #1 `x` *y*'


def price(
    kind: ChangeKind = ChangeKind.price_drop,
    *,
    old: str | None = "27.20",
    new: str | None = "25.18",
    key: str = "k-nd96",
    region: str = "eastus",
    instance: str = "Standard_ND96asr_v4",
    gpu: str | None = "A100 40GB",
    count: str | None = "8",
    price_model: str = "spot",
    at: datetime = AT,
    **detail: str,
) -> Change:
    o = Decimal(old) if old is not None else None
    n = Decimal(new) if new is not None else None
    pct = ((n - o) / o * 100).quantize(Decimal("0.01")) if o is not None and n is not None else None
    return Change(
        kind=kind,
        provider="azure",
        source="azure",
        key=key,
        region=region,
        instance_type=instance,
        gpu_model=gpu,
        gpu_count=Decimal(count) if count else None,
        os="linux",
        price_model=price_model,
        old_price=o,
        new_price=n,
        percent=pct,
        currency="USD",
        unit="hour",
        source_url=AZURE_URL,
        observed_at=at,
        detail=dict(detail),
    )


def every_kind() -> dict[str, Change]:
    offer = dict(
        provider="tencent",
        source="tencent-offers",
        key="offer-gpu-new",
        observed_at=AT,
        source_url="https://cloud.tencent.com/act/pro/gpu",
    )
    return {
        "price_drop": price(),
        "price_increase": price(ChangeKind.price_increase, old="25.18", new="27.20"),
        "new_sku": Change(
            kind=ChangeKind.new_sku,
            provider="alibaba",
            source="alibaba",
            key="k-gn7",
            region="cn-hangzhou",
            instance_type="ecs.gn7i-c8g1.2xlarge",
            gpu_model="A10",
            gpu_count=Decimal(1),
            os="linux",
            price_model="monthly",
            term="1mo",
            new_price=Decimal("3985.00"),
            currency="CNY",
            unit="month",
            source_url="https://www.aliyun.com/price/product#/ecs/detail",
            observed_at=AT,
        ),
        "sku_removed": price(
            ChangeKind.sku_removed,
            old="3.06",
            new=None,
            instance="Standard_NC4as_T4_v3",
            gpu="T4",
            count="1",
            price_model="on_demand",
        ),
        "availability_changed": price(
            ChangeKind.availability_changed,
            old="1.20",
            new="1.20",
            old_availability="available",
            new_availability="sold_out",
        ),
        "offer_added": Change(
            kind=ChangeKind.offer_added,
            **offer,
            detail={"title": "GPU 新用户 3.5折 " + HOSTILE, "new_terms": "满1000减300, 30 天"},
        ),
        "offer_removed": Change(
            kind=ChangeKind.offer_removed,
            **offer,
            detail={"title": "GPU 新用户 3.5折", "old_terms": "满1000减300, 30 天"},
        ),
        "offer_changed": Change(
            kind=ChangeKind.offer_changed,
            **offer,
            detail={"title": "GPU 新用户 3.5折", "old_terms": "3.5折, 30 天", "new_terms": "2.8折, 60 天"},
        ),
        "credit_changed": Change(
            kind=ChangeKind.credit_changed,
            **offer,
            detail={"title": "代金券", "old_terms": "100 CNY", "new_terms": "200 CNY"},
        ),
        "discount_changed": Change(
            kind=ChangeKind.discount_changed,
            **offer,
            detail={"title": "Spot 折扣", "old_terms": "2折", "new_terms": "1.5折"},
        ),
        "source_broken": Change(
            kind=ChangeKind.source_broken,
            provider="azure",
            source="azure",
            observed_at=AT,
            detail={"reason": "HTTP 503 from prices.azure.com " + HOSTILE},
        ),
        "source_recovered": Change(
            kind=ChangeKind.source_recovered,
            provider="azure",
            source="azure",
            observed_at=AT,
            detail={"after": "failed"},
        ),
        "source_stale": Change(
            kind=ChangeKind.source_stale,
            provider="gcp",
            source="gcp",
            observed_at=AT,
            detail={"since": "2026-08-01T00:00:00Z"},
        ),
    }
