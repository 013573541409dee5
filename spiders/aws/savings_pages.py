"""AWS Savings Plans bulk files (AWSComputeSavingsPlan, global and China): the
plan region index, and each region's plan file, hundreds of MB to over 1 GB,
read as a stream.

A plan file is `{version, publicationDate, regionCode, products: [{sku,
productFamily, serviceCode, usageType, attributes}], terms: {savingsPlan:
[{sku, description, effectiveDate, leaseContractLength, rates: [rate]}]}}`;
products (the plans: Compute or EC2 Instance, term, purchase option) come
before terms. Each term lists every rate its plan discounts: EC2 of every
type, tenancy and operating system, Fargate, Lambda, thousands of them. One
pass keeps, per plan, only the rates a GPU buyer compares (EC2, shared
tenancy, GPU types, the wanted systems), and never holds a term's whole rate
list. The kept subset is written back in the same format, so it is itself a
valid plan file."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import IO, Any
from urllib.parse import urljoin

import ijson
from ijson.common import ObjectBuilder

from spiders.aws.bulk_pages import compact_json, index_regions
from spiders.aws.items import SavingsPlan
from spiders.aws.names import OPERATIONS, usage_instance_type
from spiders.aws.pages import looks_like_gpu
from spiders.pages import PageShapeError

HEADER_FIELDS = ("version", "publicationDate", "regionCode")
RateFilter = Callable[[dict[str, Any]], bool]
RATE = "terms.savingsPlan.item.rates.item"  # the ijson prefix of a rate
_OPEN, _CLOSE = ("start_map", "start_array"), ("end_map", "end_array")


def parse_plan_index(body: bytes, index_url: str) -> dict[str, str]:
    """The plan region_index.json: `{regions: [{regionCode, versionUrl}]}` (a
    list, unlike the EC2 offer index) -> region code -> absolute URL."""
    regions = index_regions(body, "savings plan region index")
    if not isinstance(regions, list) or not regions:
        raise PageShapeError("AWS: the savings plan region index has no regions list")
    bad = [
        r
        for r in regions
        if not isinstance(r, dict)
        or not r.get("regionCode")
        or not isinstance(r.get("versionUrl"), str)
        or not r["versionUrl"]
    ]
    if bad:
        raise PageShapeError(f"AWS: regionCode or versionUrl missing in {len(bad)}/{len(regions)} savings plan regions")
    return {str(r["regionCode"]): urljoin(index_url, str(r["versionUrl"])) for r in regions}


def unknown_systems(names: Iterable[str]) -> list[str]:
    """The names that have no operation code here (their plans are not read)."""
    return [n for n in names if n not in OPERATIONS]


@dataclass(frozen=True)
class GpuRates:
    """Which rates of a plan to keep: EC2, shared tenancy (BoxUsage),
    GPU-looking instance types and the wanted operations."""

    operations: frozenset[str]

    @classmethod
    def for_systems(cls, names: Iterable[str]) -> GpuRates:
        """'Linux', 'Windows with SQL Std' -> their operation codes; names
        without one are left out (see unknown_systems)."""
        return cls(frozenset(OPERATIONS[n] for n in names if n in OPERATIONS))

    def checks(self) -> dict[str, Callable[[str], bool]]:
        """Field -> test of its value; a rate is kept when every test passes.
        One failed test is enough to drop a rate, so the stream can stop
        building it there (most rates go at their first fields)."""
        return {
            "discountedServiceCode": "AmazonEC2".__eq__,
            "discountedOperation": self.operations.__contains__,
            "discountedUsageType": _gpu_box_usage,
        }

    def __call__(self, rate: dict[str, Any]) -> bool:
        return all(test(str(rate.get(name, ""))) for name, test in self.checks().items())


def _gpu_box_usage(usage_type: str) -> bool:
    instance_type = usage_instance_type(usage_type)
    return instance_type is not None and looks_like_gpu(instance_type)


class _Pass:
    """The state of one streaming pass; see plan_subset."""

    def __init__(self, keep: RateFilter) -> None:
        self.keep = keep
        checks: dict[str, Callable[[str], bool]] = keep.checks() if isinstance(keep, GpuRates) else {}
        self.early = {f"{RATE}.{name}": test for name, test in checks.items()}
        self.header: dict[str, str] = {}
        self.products: dict[str, dict[str, Any]] = {}
        self.terms: dict[str, dict[str, Any]] = {}  # plan sku -> its term, kept rates only
        self.term_skus: set[str] = set()
        self.top: set[str] = set()
        self.plans_seen = False
        self.term: dict[str, Any] | None = None
        self.term_key = ""
        self.rates: list[dict[str, Any]] = []

    def product(self, product: Any) -> None:
        sku = product.get("sku") if isinstance(product, dict) else None
        if not sku:
            raise PageShapeError("AWS: a savings plan product has no sku")
        self.products[str(sku)] = product

    def end_term(self) -> None:
        term, self.term = self.term or {}, None
        sku = term.get("sku")
        if not sku:
            raise PageShapeError("AWS: a savings plan term has no sku")
        sku = str(sku)
        if sku not in self.products:
            raise PageShapeError(f"AWS: the savings plan term of {sku} names no product")
        if sku in self.term_skus:
            raise PageShapeError(f"AWS: the savings plan file lists the term of {sku} twice")
        self.term_skus.add(sku)
        if self.rates:
            self.terms[sku] = {**term, "rates": self.rates}
        self.rates = []

    def run(self, stream: IO[bytes]) -> None:
        builder: ObjectBuilder | None = None  # None inside a rate already ruled out
        depth, into = 0, ""  # depth > 0: inside a product, a rate or a term's nested field
        early = self.early
        for prefix, event, value in ijson.parse(stream, use_float=False):
            if depth:
                if event in _OPEN:
                    depth += 1
                elif event in _CLOSE:
                    depth -= 1
                if builder is not None:
                    builder.event(event, value)
                    if depth == 0:
                        self.built(into, builder.value)
                        builder = None
                    elif event == "string" and prefix in early and not early[prefix](value):
                        builder = None
                continue
            if prefix == "":
                if event == "map_key":
                    if value == "products" and "terms" in self.top:
                        raise PageShapeError("AWS: the savings plan file lists terms before products")
                    self.top.add(value)
                elif event not in ("start_map", "end_map"):
                    raise PageShapeError("AWS: the savings plan file is not a JSON object")
            elif prefix in ("products.item", RATE) or (
                self.term is not None
                and prefix == f"terms.savingsPlan.item.{self.term_key}"
                and self.term_key != "rates"
            ):
                if event in _OPEN:
                    builder, depth, into = ObjectBuilder(), 1, prefix
                    builder.event(event, value)
                elif prefix == "products.item":
                    raise PageShapeError("AWS: a savings plan product is not an object")
                elif prefix.endswith("rates.item"):
                    raise PageShapeError("AWS: a savings plan rate is not an object")
                else:
                    assert self.term is not None
                    self.term[self.term_key] = value
            elif prefix == "terms.savingsPlan.item":
                if event == "start_map":
                    self.term, self.rates = {}, []
                elif event == "map_key":
                    self.term_key = value
                elif event == "end_map":
                    self.end_term()
                else:
                    raise PageShapeError("AWS: a savings plan term is not an object")
            elif prefix in ("products", "terms.savingsPlan", "terms.savingsPlan.item.rates"):
                if event not in ("start_array", "end_array"):
                    raise PageShapeError(f"AWS: {prefix} in the savings plan file is not a list")
                self.plans_seen = self.plans_seen or prefix == "terms.savingsPlan"
            elif prefix in HEADER_FIELDS and event not in _OPEN + _CLOSE + ("map_key",):
                self.header[prefix] = str(value)

    def built(self, into: str, value: Any) -> None:
        if into == "products.item":
            self.product(value)
        elif into == RATE:
            if not isinstance(value, dict):
                raise PageShapeError("AWS: a savings plan rate is not an object")
            if self.keep(value):
                self.rates.append(value)
        elif self.term is not None:
            self.term[self.term_key] = value


def plan_subset(stream: IO[bytes], keep: RateFilter) -> dict[str, Any]:
    """One streaming pass: {header: {version, publicationDate, regionCode},
    products: {sku: product} (every plan), terms: {sku: term with only its
    kept rates} (plans with at least one kept rate)}. Memory holds the plan
    products, which are few, and the kept rates."""
    state = _Pass(keep)
    try:
        state.run(stream)
    except ijson.JSONError as exc:
        raise PageShapeError(f"AWS: the savings plan file is not valid JSON ({exc})") from None
    if "products" not in state.top:
        raise PageShapeError("AWS: the savings plan file has no products list")
    if not state.plans_seen:
        raise PageShapeError("AWS: the savings plan file has no terms.savingsPlan list")
    return {"header": state.header, "products": state.products, "terms": state.terms}


def plan_subset_body(stream: IO[bytes], keep: RateFilter) -> bytes:
    """The kept subset as a plan file of its own (what a live crawl records):
    the plans with kept rates, and their terms with those rates only."""
    subset = plan_subset(stream, keep)
    terms = subset["terms"]
    return compact_json(
        {
            **subset["header"],
            "products": [p for sku, p in subset["products"].items() if sku in terms],
            "terms": {"savingsPlan": list(terms.values())},
        }
    )


def parse_plan_file(body: bytes, keep: RateFilter) -> tuple[dict[str, str], list[SavingsPlan]]:
    """(header, one record per plan with kept rates: {sku, productFamily,
    usageType, attributes, leaseContractLength, effectiveDate, rates})."""
    subset = plan_subset(io.BytesIO(body), keep)
    records: list[SavingsPlan] = []
    for sku, term in subset["terms"].items():
        if not all(isinstance(r.get("discountedRate"), dict) for r in term["rates"]):
            raise PageShapeError(f"AWS: a rate of savings plan {sku} has no discountedRate")
        product = subset["products"][sku]
        records.append(
            {
                "sku": sku,
                "productFamily": product.get("productFamily", ""),
                "usageType": product.get("usageType", ""),
                "attributes": product.get("attributes") or {},
                "leaseContractLength": term.get("leaseContractLength") or {},
                "effectiveDate": term.get("effectiveDate", ""),
                "rates": term["rates"],
            }
        )
    return subset["header"], records
