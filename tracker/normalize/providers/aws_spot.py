"""What the Spot Instance Advisor's items mean (source `aws-spot-advisor`).

Each `aws.spot_advisor` item is one pool: a GPU instance type in a region
under an operating system, with the band of its frequency of interruption
as the file labels it ("<5%" ... ">20%"; AWS: "the rate at which Spot has
reclaimed capacity during the trailing month") and the savings over on
demand in percent. The band's rank is its place in AWS's scale
(`BANDS`); a label outside it is refused, never guessed."""

from __future__ import annotations

from collections.abc import Iterable

from db.spot_risk import SpotBand
from spiders.aws.items import AwsAdviceItem
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.providers.aws import ADVISOR_OS

# AWS's labels in order of risk (the `ranges` of spot-advisor-data.json).
BANDS = ("<5%", "5-10%", "10-15%", "15-20%", ">20%")


def band(item: AwsAdviceItem) -> SpotBand | None:
    data = item["data"]
    os_name = ADVISOR_OS.get(data["os"])
    if os_name is None:
        return None
    label = data["interruption"].strip()
    if label not in BANDS:
        raise NormalizeError(
            f"aws-spot-advisor: {data['instance_type']} in {data['region']}: unknown interruption band {label!r}"
        )
    savings = str(data.get("savings_percent", "")).strip()
    return SpotBand(
        provider="aws",
        instance_type=data["instance_type"],
        region=data["region"],
        os=os_name,
        band=label,
        rank=BANDS.index(label),
        savings_percent=int(savings) if savings.isdigit() else None,
        source_url=item["source_url"],
        observed_at=parse_time(item["observed_at"]),
    )


def normalize(items: Iterable[AwsAdviceItem]) -> Normalized:
    out = Normalized()
    seen: set[tuple[str, str, str, str]] = set()
    for item in items:
        if item.get("kind") != "aws.spot_advisor":
            raise NormalizeError(f"aws-spot-advisor: unknown item kind {item.get('kind')!r}")
        try:
            found = band(item)
        except KeyError as exc:
            raise NormalizeError(f"aws-spot-advisor: an Advisor record lacks {exc}") from None
        if found is None or found.pool in seen:
            continue
        seen.add(found.pool)
        out.spot_bands.append(found)
    return out
