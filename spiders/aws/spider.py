"""AWS on demand and spot: the public pricing-page JSON behind
aws.amazon.com/ec2/pricing, one table per location and operating system,
the spot price feed, and the Spot Instance Advisor's interruption rates.

The list of locations comes from the pricing page's own locations.json and
the price table's metadata.json (which locations and systems have prices);
nothing about regions is hard-coded here."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from scrapy.http import Response

from spiders.aws.names import spot_region
from spiders.aws.pages import (
    parse_locations,
    parse_metadata,
    parse_ondemand_page,
    parse_spot_advisor,
    parse_spot_feed,
)
from spiders.base import ProviderSpider, SourceFailure

PRICING_BASE = "https://b0.p.awsstatic.com"
LOCATIONS_URL = "/locations/1.0/aws/current/locations.json"
ONDEMAND_TABLE = "/pricing/2.0/meteredUnitMaps/ec2/USD/current/ec2-ondemand-without-sec-sel"
SPOT_FEED_URL = "https://website.spot.ec2.aws.a2z.com/spot.json"
SPOT_ADVISOR_URL = "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"


def ondemand_url(location: str, os_name: str, base: str = PRICING_BASE) -> str:
    """`.../US%20East%20(N.%20Virginia)/Linux/index.json`, as the page asks."""
    return f"{base}{ONDEMAND_TABLE}/{quote(location, safe='()')}/{quote(os_name, safe='()')}/index.json"


def flag(value: str | bool) -> bool:
    return str(value).strip().lower() not in {"false", "0", "no", "off", ""}


def _names(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


class AwsSpider(ProviderSpider):
    name = "aws"
    provider = "aws"

    def __init__(
        self,
        operating_systems: str = "Linux,Windows",
        location_types: str = "AWS Region",
        spot: str = "true",
        spot_advisor: str = "true",
        pricing_base: str = PRICING_BASE,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.operating_systems = _names(operating_systems)
        self.location_types = set(_names(location_types))
        self.want_spot = flag(spot)
        self.want_advisor = self.want_spot and flag(spot_advisor)
        self.pricing_base = pricing_base.rstrip("/")
        self.chosen: dict[str, str] = {}  # location name -> region code

    async def start(self) -> Any:
        yield self.request(self.pricing_base + LOCATIONS_URL, self.parse_locations)

    def parse_locations(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        locations = parse_locations(response.body)
        yield self.request(
            f"{self.pricing_base}{ONDEMAND_TABLE}/metadata.json",
            self.parse_metadata,
            cb_kwargs={"locations": locations},
        )

    def parse_metadata(self, response: Response, locations: list[dict[str, str]]) -> Iterable[Any]:
        self.fetched(response)
        priced, systems = parse_metadata(response.body)
        unknown_os = [o for o in self.operating_systems if o not in systems]
        if unknown_os:
            raise SourceFailure(
                f"AWS has no on-demand prices for operating system {unknown_os[0]!r}; it lists: {', '.join(systems)}"
            )
        self.chosen = self._choose(locations, set(priced))
        self.regions = sorted(set(self.chosen.values()))
        for location, code in sorted(self.chosen.items()):
            for os_name in self.operating_systems:
                yield self.request(
                    ondemand_url(location, os_name, self.pricing_base),
                    self.parse_ondemand,
                    cb_kwargs={"location": location, "region": code, "os_name": os_name},
                )
        if self.want_spot:
            yield self.request(SPOT_FEED_URL, self.parse_spot)
        if self.want_advisor:
            yield self.request(SPOT_ADVISOR_URL, self.parse_advisor)

    def _choose(self, locations: list[dict[str, str]], priced: set[str]) -> dict[str, str]:
        """Location name -> code: the asked regions, or every location of the
        wanted types that has prices."""
        by_code = {loc["code"]: loc for loc in locations}
        if self.regions:
            missing = [r for r in self.regions if r not in by_code]
            if missing:
                raise SourceFailure(
                    f"unknown AWS region {missing[0]!r}; AWS lists: "
                    f"{', '.join(sorted(code for code, loc in by_code.items() if loc['type'] == 'AWS Region'))}"
                )
            picked = [by_code[r] for r in self.regions]
        else:
            picked = [loc for loc in locations if loc["type"] in self.location_types]
        unpriced = sorted(loc["code"] for loc in picked if loc["name"] not in priced)
        if unpriced and self.regions:
            self.notes.append(f"aws: no on-demand price table for {', '.join(unpriced)}")
        chosen = {loc["name"]: loc["code"] for loc in picked if loc["name"] in priced}
        if not chosen:
            raise SourceFailure("AWS: none of the chosen locations has an on-demand price table")
        return chosen

    def parse_ondemand(self, response: Response, location: str, region: str, os_name: str) -> Iterable[Any]:
        self.fetched(response)
        manifest, rows = parse_ondemand_page(response.body, location)
        yield from self.items(
            response,
            "aws.ondemand",
            rows,
            region=region,
            os=os_name,
            currency=manifest["currencyCode"],
            published=manifest.get("hawkFilePublicationDate", ""),
        )

    def parse_spot(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        wanted = set(self.regions)
        records = [r for r in parse_spot_feed(response.body) if spot_region(r["region"]) in wanted]
        yield from self.items(response, "aws.spot", records)

    def parse_advisor(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        wanted = set(self.regions)
        records = [r for r in parse_spot_advisor(response.body) if r["region"] in wanted]
        yield from self.items(response, "aws.spot_advisor", records)
