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
            # What the alert hook adds for `[alerts] currency = "USD"`.
            detail={"fx_to": "USD", "fx_rate": "0.1408450704225352112676056338", "fx_date": "2026-11-30"},
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
            old_availability="sold_out",
            new_availability="available",
        ),
        # Offer details as the offer diff records them: each side's terms.
        "offer_added": Change(
            kind=ChangeKind.offer_added,
            **offer,
            new_price=Decimal(300),
            currency="CNY",
            detail={
                "title": "GPU 新用户 3.5折 " + HOSTILE,
                "offer_kind": "voucher",
                "new_amount": "300",
                "new_currency": "CNY",
                "new_min_spend": "1000",
                "new_duration_days": "30",
            },
        ),
        "offer_removed": Change(
            kind=ChangeKind.offer_removed,
            **offer,
            old_price=Decimal(300),
            currency="CNY",
            detail={
                "title": "GPU 新用户 3.5折",
                "offer_kind": "voucher",
                "old_amount": "300",
                "old_currency": "CNY",
                "old_min_spend": "1000",
                "old_duration_days": "30",
            },
        ),
        "offer_changed": Change(
            kind=ChangeKind.offer_changed,
            **offer,
            detail={
                "title": "GPU 新用户 3.5折",
                "offer_kind": "voucher",
                "changed": "min_spend, valid_until",
                "old_amount": "300",
                "new_amount": "300",
                "old_currency": "CNY",
                "new_currency": "CNY",
                "old_min_spend": "1000",
                "new_min_spend": "2000",
                "old_valid_until": "2026-08-31T00:00:00+00:00",
                "new_valid_until": "2026-09-30T00:00:00+00:00",
            },
        ),
        "credit_changed": Change(
            kind=ChangeKind.credit_changed,
            **offer,
            old_price=Decimal(300),
            new_price=Decimal(200),
            percent=Decimal("-33.33"),
            currency="CNY",
            detail={
                "title": "代金券",
                "offer_kind": "voucher",
                "old_amount": "300",
                "new_amount": "200",
                "old_currency": "CNY",
                "new_currency": "CNY",
                "old_min_spend": "1000",
                "new_min_spend": "1000",
            },
        ),
        "discount_changed": Change(
            kind=ChangeKind.discount_changed,
            **offer,
            old_price=Decimal(40),
            new_price=Decimal(50),
            percent=Decimal(25),
            unit="percent_off",
            detail={
                "title": "GPU 包年包月 限时折扣",
                "offer_kind": "discount",
                "old_percent_off": "40",
                "new_percent_off": "50",
            },
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
        "price_suspect": Change(
            kind=ChangeKind.price_suspect,
            provider="coreweave",
            source="coreweave",
            observed_at=AT,
            detail={
                "count": "1",
                "reason": "1 price(s) held as suspect, left out of compare, tco and recommend: NVIDIA HGX B200 "
                "on_demand in north-america: 1.07 USD per GPU-hour is 5.2x below the median of 5 other providers "
                "for B200 on demand (5.59 USD); more than 4x away is held as suspect",
            },
        ),
        "spot_risk_worse": Change(
            kind=ChangeKind.spot_risk_worse,
            provider="aws",
            source="aws-spot-advisor",
            key="aws|us-east-1|p5.48xlarge|linux|spot",
            region="us-east-1",
            instance_type="p5.48xlarge",
            gpu_model="H100",
            gpu_count=Decimal(8),
            os="linux",
            price_model="spot",
            source_url="https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json",
            observed_at=AT,
            detail={"old_band": "<5%", "new_band": "10-15%", "savings_percent": "52"},
        ),
    }


def gcp_credit() -> Change:
    """The welcome credit that went from $300 to $200."""
    return Change(
        kind=ChangeKind.credit_changed,
        provider="gcp",
        source="gcp-offers",
        key="gcp:welcome-credit",
        old_price=Decimal("300.00"),
        new_price=Decimal("200.00"),
        percent=Decimal("-33.33"),
        currency="USD",
        source_url="https://cloud.google.com/free",
        observed_at=AT,
        detail={
            "title": "Welcome GPU credit",
            "offer_kind": "free_credit",
            "old_amount": "300.00",
            "new_amount": "200.00",
            "old_currency": "USD",
            "new_currency": "USD",
            "old_duration_days": "90",
            "new_duration_days": "90",
        },
    )
