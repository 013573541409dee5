"""What Oracle's public price list means for GPU shapes.

- A GPU part (`metricName` "GPU Per Hour") prices one GPU for one hour of a
  shape family, `PAY_AS_YOU_GO` (on demand), in the currency asked for. A
  shape's price is that rate times its GPU count (BM.GPU.H100.8: 8 x the
  H100 rate); the part number and the rate are kept in its attributes.
- Parts are matched by part number (PARTS below), never by reading a chip
  out of `displayName`, whose spelling varies ("OCI - Compute - GPU - H200",
  "Compute  - GPU - A10"); a part whose name no longer carries the chip we
  mapped it to is skipped with a note, since Oracle may have renumbered it.
- Left out: the NVIDIA AI Enterprise software licences and the Compute
  Cloud@Customer appliances, which share the metric; a part outside the
  public categories ("Compute - GPU", "Compute - GPU - Other"); a part we
  know no shape for (H100T, E4), each with a note; a shape whose GPU model
  has no spec row yet (GB300, MI355X), with a note.
- One odd part (no localization in the currency asked for, no or two
  PAY_AS_YOU_GO prices, a price that is not a positive number) is skipped
  with a note; when no part can be priced the run fails.
- OCI's list prices are the same in every commercial region, so each shape
  is stored once per region of the crawl with the same price and no stock.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from db.schema import PriceModel, Unit
from spiders.oci.items import OciItem
from tracker.normalize import Normalized, NormalizeError, make_quote, parse_time
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import lookup

PROVIDER = "oci"
PAYG = "PAY_AS_YOU_GO"
PUBLIC_CATEGORIES = {"Compute - GPU", "Compute - GPU - Other"}
LICENCE_MARKER = "NVIDIA AI Enterprise"
ON_PREMISES = "Cloud@Customer"
# part number -> (a word its displayName carries, the shapes it prices).
# Part-to-shape bindings as Oracle's cost estimator states them (its
# shapes.json names each shape's GPU part); shape names as Oracle's API
# reports them (node.kubernetes.io/instance-type on OKE). docs/providers/oci.md
# names the public material for each.
PARTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "B98415": ("H100", ("BM.GPU.H100.8",)),
    "B110519": ("H200", ("BM.GPU.H200.8",)),
    "B110978": ("B200", ("BM.GPU.B200.8",)),
    "B112237": ("B300", ("BM.GPU.B300.8",)),
    "B110979": ("GB200", ("BM.GPU.GB200.4",)),
    "B112140": ("GB300", ("BM.GPU.GB300.4",)),
    "B109485": ("MI300X", ("BM.GPU.MI300X.8",)),
    "B111758": ("MI355X", ("BM.GPU.MI355X.8",)),
    "B109479": ("L40S", ("BM.GPU.L40S-NC.4",)),
    "B112613": ("RTX PRO 6000", ("BM.GPU.RTXPRO.8",)),
    "B95907": ("A100", ("BM.GPU.A100-v2.8",)),
    "B95909": ("A10", ("VM.GPU.A10.1", "VM.GPU.A10.2", "BM.GPU.A10.4")),
    "B92740": ("E3", ("BM.GPU4.8",)),  # A100 40GB
    "B89734": ("V2", ("VM.GPU3.1", "VM.GPU3.2", "VM.GPU3.4", "BM.GPU3.8")),  # V100
    "B88518": ("Virtual Machine", ("VM.GPU2.1",)),  # P100, X7
    "B88517": ("Bare Metal", ("BM.GPU2.2",)),  # P100, X7
}


def _names(display_name: str, word: str) -> bool:
    """Whether `word` (one or more words) appears whole in the name:
    "H100" is in "OCI - Compute - GPU - H100", not in "... - H100T"."""
    have, want = display_name.upper().replace("-", " ").split(), word.upper().split()
    return any(have[i : i + len(want)] == want for i in range(len(have)))


def _rate(data: dict[str, Any], currency: str) -> Decimal | str:
    """The part's hourly rate per GPU, or why it has none."""
    localizations = data.get("currencyCodeLocalizations")
    if not isinstance(localizations, list):
        return "no currencyCodeLocalizations"
    mine = [loc for loc in localizations if isinstance(loc, dict) and loc.get("currencyCode") == currency]
    if len(mine) != 1:
        return f"{len(mine)} localizations in {currency}"
    prices = mine[0].get("prices")
    if not isinstance(prices, list):
        return "prices is not a list"
    payg = [p for p in prices if isinstance(p, dict) and p.get("model") == PAYG]
    if len(payg) != 1:
        return f"{len(payg)} {PAYG} prices"
    try:
        rate = to_decimal(payg[0].get("value"), what=PAYG)
    except MoneyError as exc:
        return str(exc)
    return rate if rate > 0 else f"the price is {rate}"


def normalize(items: Iterable[OciItem]) -> Normalized:
    out = Normalized()
    priced = considered = 0
    left_out: dict[str, int] = {"licence": 0, "appliance": 0}
    no_shape: list[str] = []
    for item in items:
        if item.get("kind") != "oci.product":
            raise NormalizeError(f"OCI: unknown item kind {item.get('kind')!r}")
        data: dict[str, Any] = dict(item["data"]) if isinstance(item.get("data"), dict) else {}
        part, name = str(data.get("partNumber") or ""), str(data.get("displayName") or "")
        category = str(data.get("serviceCategory") or "")
        if LICENCE_MARKER in name:
            left_out["licence"] += 1
            continue
        if ON_PREMISES in name or ON_PREMISES in category:
            left_out["appliance"] += 1
            continue
        considered += 1
        label = f"part {part or '?'} ({name or 'no name'})"
        if category not in PUBLIC_CATEGORIES:
            out.notes.append(f"oci: {label} is in {category!r}, not a public GPU category; not stored")
            continue
        rate = _rate(data, str(item["currency"]))
        if isinstance(rate, str):
            out.notes.append(f"oci: {label} skipped: {rate}")
            continue
        known = PARTS.get(part)
        if known is None:
            no_shape.append(f"{part} {name.rsplit(' - ', 1)[-1]} at {rate}")
            continue
        word, shapes = known
        if not _names(name, word):
            out.notes.append(f"oci: {label} no longer names {word}; skipped (renumbered part?)")
            continue
        priced += 1
        observed = parse_time(item["observed_at"])
        for shape in shapes:
            spec = lookup(PROVIDER, shape)
            if spec is None or not spec.gpu_count:
                out.notes.append(f"oci: {shape} (part {part}) has no GPU count in gpu_specs/oci.csv; not stored")
                continue
            for region in item["regions"]:
                out.quotes.append(
                    make_quote(
                        PROVIDER,
                        region=region,
                        instance_type=shape,
                        price_model=PriceModel.on_demand,
                        unit=Unit.hour,
                        price=rate * spec.gpu_count,
                        currency=str(item["currency"]),
                        source_url=item["source_url"],
                        observed_at=observed,
                        attrs={"part_number": part, "per_gpu_rate": str(rate)},
                        **spec.as_fields(),
                    )
                )
    if no_shape:
        out.notes.append(f"oci: GPU parts that price no shape we know, not stored: {'; '.join(no_shape)}")
    if left_out["licence"] or left_out["appliance"]:
        out.notes.append(
            f"oci: left out {left_out['licence']} NVIDIA AI Enterprise licence parts and "
            f"{left_out['appliance']} Cloud@Customer parts (not cloud GPU rentals)"
        )
    if not priced:
        raise NormalizeError(f"OCI: none of the {considered} GPU parts could be priced")
    return out
