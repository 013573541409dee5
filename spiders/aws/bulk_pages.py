"""AWS bulk offer files (AmazonEC2, global and China): the region index, and
the per-region `index.json`, which is over 1 GB and so is read as a stream.

An offer file is `{formatVersion, offerCode, version, publicationDate,
products: {sku: {sku, productFamily, attributes}}, terms: {OnDemand: {sku:
{term code: term}}, Reserved: {...}}}`; products come before terms. One pass
keeps the GPU products that a buyer compares (shared tenancy, capacity
"Used", the wanted operating systems) and their terms, and returns them in
the same format, so the kept subset is itself a valid offer file."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import IO, Any, cast
from urllib.parse import urljoin

import ijson
from ijson.common import ObjectBuilder

from spiders.aws.items import OfferProduct, OfferTerms
from spiders.aws.pages import looks_like_gpu
from spiders.pages import PageShapeError, load_json

HEADER_FIELDS = ("formatVersion", "offerCode", "version", "publicationDate")
TERM_TYPES = ("OnDemand", "Reserved")
ProductFilter = Callable[[dict[str, Any]], bool]


def index_regions(body: bytes, what: str) -> Any:
    """The `regions` member of a region index (None if it has none)."""
    page = load_json(body, f"AWS: the {what}", exact=False)
    return page.get("regions") if isinstance(page, dict) else None


def parse_region_index(body: bytes, index_url: str) -> dict[str, str]:
    """region_index.json: `{regions: {code: {regionCode, currentVersionUrl}}}`
    -> region code -> absolute URL of its offer file."""
    regions = index_regions(body, "offer region index")
    if not isinstance(regions, dict) or not regions:
        raise PageShapeError("AWS: the offer region index has no regions object")
    missing = [
        code
        for code, r in regions.items()
        if not isinstance(r, dict) or not isinstance(r.get("currentVersionUrl"), str) or not r["currentVersionUrl"]
    ]
    if missing:
        raise PageShapeError(f"AWS: currentVersionUrl missing (or not text) for {len(missing)}/{len(regions)} regions")
    return {code: urljoin(index_url, r["currentVersionUrl"]) for code, r in regions.items()}


@dataclass(frozen=True)
class GpuProducts:
    """Which products of an offer file to keep: GPU-looking compute
    instances, shared tenancy, capacity status Used, no BYOL, and the
    (operatingSystem, preInstalledSw) pairs asked for."""

    systems: frozenset[tuple[str, str]]

    @classmethod
    def for_systems(cls, names: Iterable[str]) -> GpuProducts:
        """Pricing-page names ('Linux', 'Windows with SQL Std') -> the offer
        file's pairs (('Linux', 'NA'), ('Windows', 'SQL Std'))."""
        pairs = set()
        for name in names:
            system, _, software = name.partition(" with ")
            pairs.add((system, software or "NA"))
        return cls(frozenset(pairs))

    def __call__(self, product: dict[str, Any]) -> bool:
        attrs = product.get("attributes") or {}
        if not isinstance(attrs, dict):
            raise PageShapeError(f"AWS: the attributes of product {str(product.get('sku'))[:40]} are not an object")
        return (
            str(product.get("productFamily", "")).startswith("Compute Instance")
            and looks_like_gpu(str(attrs.get("instanceType", "")), str(attrs.get("instanceFamily", "")))
            and attrs.get("tenancy") == "Shared"
            and attrs.get("capacitystatus", "Used") == "Used"
            and attrs.get("licenseModel") != "Bring your own license"
            and self._system(attrs) in self.systems
        )

    @staticmethod
    def _system(attrs: dict[str, Any]) -> tuple[str, str] | None:
        system, software = attrs.get("operatingSystem"), attrs.get("preInstalledSw", "NA")
        return (system, software) if isinstance(system, str) and isinstance(software, str) else None


def offer_subset(stream: IO[bytes], keep: ProductFilter) -> dict[str, Any]:
    """One streaming pass: the header, the kept products and their terms.
    Memory holds only what is kept."""
    out: dict[str, Any] = {"products": {}, "terms": {t: {} for t in TERM_TYPES}}
    products: dict[str, Any] = out["products"]
    path: list[str | None] = []  # the keys of the enclosing objects
    key: str | None = None
    builder: ObjectBuilder | None = None
    depth, target = 0, ("", "")
    seen = set()
    try:
        for event, value in ijson.basic_parse(stream, use_float=False):
            if builder is not None:
                builder.event(event, value)
                if event in ("start_map", "start_array"):
                    depth += 1
                elif event in ("end_map", "end_array"):
                    depth -= 1
                if depth == 0:
                    section, sku = target
                    built, builder = builder.value, None
                    if section == "products":
                        if not isinstance(built, dict):
                            raise PageShapeError(f"AWS: product {sku[:40]} of the offer file is not an object")
                        if keep(built):
                            products[sku] = built
                    else:
                        out["terms"][section][sku] = built
                continue
            if event == "map_key":
                key = value
                level = len(path)
                if level == 2 and path[1] == "products":
                    target, builder, depth = ("products", value), ObjectBuilder(), 0
                elif level == 3 and path[1] == "terms" and path[2] in TERM_TYPES and value in products:
                    target, builder, depth = (path[2], value), ObjectBuilder(), 0
            elif event == "start_map":
                path.append(key)
                if len(path) == 2:
                    if key == "products" and "terms" in seen:
                        raise PageShapeError("AWS: the offer file lists terms before products")
                    seen.add(key)
            elif event == "end_map":
                path.pop()
            elif len(path) == 1 and key in HEADER_FIELDS:
                out[key] = str(value)
    except ijson.JSONError as exc:
        raise PageShapeError(f"AWS: the offer file is not valid JSON ({exc})") from None
    for section in ("products", "terms"):
        if section not in seen:
            raise PageShapeError(f"AWS: the offer file has no {section} object")
    return out


def subset_body(stream: IO[bytes], keep: ProductFilter) -> bytes:
    """The kept subset as an offer file of its own (what a live crawl records)."""
    return compact_json(offer_subset(stream, keep))


def compact_json(page: dict[str, Any]) -> bytes:
    """A kept subset written back as JSON; ijson's exact Decimals are written
    as the strings they were read from, never through float."""
    return json.dumps(page, default=_decimal, separators=(",", ":")).encode()


def _decimal(value: object) -> str:
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"cannot write {type(value).__name__}")


def parse_offer_file(body: bytes, keep: ProductFilter) -> tuple[dict[str, str], list[OfferProduct]]:
    """(header, one record per kept product: {sku, attributes, terms:
    {OnDemand: [term], Reserved: [term]}})."""
    subset = offer_subset(io.BytesIO(body), keep)
    header = {k: subset[k] for k in HEADER_FIELDS if k in subset}
    records: list[OfferProduct] = []
    for sku, product in subset["products"].items():
        offered = {t: subset["terms"][t].get(sku) or {} for t in TERM_TYPES}  # term code -> term
        if not all(
            isinstance(by_code, dict) and all(isinstance(term, dict) for term in by_code.values())
            for by_code in offered.values()
        ):
            raise PageShapeError(f"AWS: the terms of SKU {sku} are not {{term code: term object}}")
        terms = {t: list(by_code.values()) for t, by_code in offered.items()}
        broken = [t for ts in terms.values() for t in ts if not isinstance(t.get("priceDimensions"), dict)]
        if broken:
            raise PageShapeError(f"AWS: a term of SKU {sku} has no priceDimensions")
        # OnDemand and Reserved (TERM_TYPES), each a list of terms.
        records.append({"sku": sku, "attributes": product.get("attributes", {}), "terms": cast(OfferTerms, terms)})
    return header, records
