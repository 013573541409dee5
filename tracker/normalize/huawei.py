"""What a Huawei Cloud calculator flavor (`product.ec2_vm[]`) means.

- `planList[]`: ONDEMAND is an hourly price; MONTHLY and YEARLY are prepaid
  for `periodNum` months or years (1 when absent). One month or one year is
  stored per month or per year; a longer term (3 months, 3 years) as the
  whole term's price. Other billing modes (RI...) are left out, with a note.
- `acceleratorCard` ("1 × NVIDIA V100 / 1 × 16GiB", "4*NVIDIA T4 16GB") is
  the provider's own statement of the GPU, and wins over the spec table;
  `cpu` ("8vCPUs") and `mem` ("64GiB") likewise. A card we cannot read is an
  error, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from db.kinds import PriceModel, Unit
from tracker.normalize import Normalized, NormalizeError, make_quote, parse_time
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import GpuSpec, lookup

_NUMBER = r"\d+(?:\.\d+)?"
CARD = re.compile(
    rf"^(?P<count>{_NUMBER})\s*[×xX*]\s*(?P<name>[^/]+?)\s*"
    rf"(?:/\s*(?:{_NUMBER}\s*[×xX*]\s*)?(?P<mem>{_NUMBER})\s*G(?:i)?B?)?$"
)
INLINE_MEMORY = re.compile(rf"[\s(（-]*(?P<mem>{_NUMBER})\s*G(?:i)?B?[)）]?", re.IGNORECASE)
NOISE = re.compile(r"\b(NVIDIA|Tesla|PCIe|NVLink|SXM\d?|GPU)\b", re.IGNORECASE)
LEADING_NUMBER = re.compile(rf"^\s*({_NUMBER})")
MAX_PERIODS = 120  # a sanity bound on periodNum: 10 years of months
# Models whose canonical name depends on the memory per card.
BY_MEMORY = {"V100": {16: "V100", 32: "V100 32GB"}, "A100": {40: "A100 40GB", 80: "A100 80GB"}}


def parse_card(text: str, flavor: str) -> dict[str, Any]:
    """'1 × NVIDIA V100 / 1 × 32GiB' -> gpu_model 'V100 32GB', count 1, memory 32.
    The memory is None when the card does not state it."""
    match = CARD.match(text.strip())
    if not match:
        raise NormalizeError(f"Huawei: cannot read acceleratorCard {text!r} of {flavor}")
    name, per_card = match.group("name"), match.group("mem")
    inline = INLINE_MEMORY.search(name)
    if inline:
        per_card = per_card or inline.group("mem")
        name = name[: inline.start()] + name[inline.end() :]
    model = " ".join(NOISE.sub(" ", name).split())
    if not model:
        raise NormalizeError(f"Huawei: acceleratorCard {text!r} of {flavor} names no GPU")
    count = Decimal(match.group("count"))
    memory = Decimal(per_card) if per_card else None
    variants = BY_MEMORY.get(model.upper())
    if variants and memory is not None:
        if int(memory) not in variants:
            raise NormalizeError(f"Huawei: acceleratorCard {text!r} of {flavor}: no {model} has {memory} GB")
        model = variants[int(memory)]
    return {"gpu_model": model, "gpu_count": count, "gpu_memory_gb": memory * count if memory else None}


def _card_fields(card: str, flavor: str, spec: GpuSpec | None) -> dict[str, Any]:
    """The card's statement, completed from the spec table only where they
    agree on the GPU; a card that leaves the model ambiguous is an error."""
    stated = parse_card(card, flavor)
    if stated["gpu_memory_gb"] is not None:
        return stated
    same_gpu = (
        spec is not None
        and spec.gpu_model is not None
        and (spec.gpu_model.split()[0].upper() == stated["gpu_model"].split()[0].upper())
    )
    if same_gpu and spec is not None and spec.gpu_count == stated["gpu_count"]:
        return {**stated, "gpu_model": spec.gpu_model, "gpu_memory_gb": spec.gpu_memory_gb}
    if stated["gpu_model"].upper() in BY_MEMORY:
        raise NormalizeError(
            f"Huawei: acceleratorCard {card!r} of {flavor} does not say which {stated['gpu_model']} (no memory size)"
        )
    return stated


def _leading_number(value: object, what: str, flavor: str) -> Decimal | None:
    if value in (None, ""):
        return None
    match = LEADING_NUMBER.match(str(value))
    if not match:
        raise NormalizeError(f"Huawei: cannot read {what} {value!r} of {flavor}")
    return Decimal(match.group(1))


def _fields(data: dict[str, Any]) -> dict[str, Any]:
    flavor = str(data["resourceSpecCode"])
    spec = lookup("huawei", flavor)
    fields: dict[str, Any] = dict(spec.as_fields()) if spec else {}
    card = str(data.get("acceleratorCard") or "").strip()
    if card:
        fields.update(_card_fields(card, flavor, spec))
    for name, key in (("vcpu", "cpu"), ("memory_gb", "mem")):
        value = _leading_number(data.get(key), key, flavor)
        if value is not None:
            fields[name] = value
    return fields


def plan_variant(plan: object, flavor: str) -> dict[str, Any] | None:
    """(price model, term, unit, price) of one plan; None for modes we skip."""
    if not isinstance(plan, dict):
        raise NormalizeError(f"Huawei: a plan of {flavor} is not an object")
    mode = str(plan.get("billingMode"))
    price = to_decimal(plan.get("amount"), what=f"{mode} amount")
    if price <= 0:
        raise NormalizeError(f"Huawei: {flavor} {mode} plan costs {price}")
    if mode == "ONDEMAND":
        return {"price_model": PriceModel.on_demand, "term": "", "unit": Unit.hour, "price": price}
    if mode not in ("MONTHLY", "YEARLY"):
        return None
    raw_period = plan.get("periodNum")
    number = Decimal(1) if raw_period in (None, "") else to_decimal(raw_period, what="periodNum")
    if not (1 <= number <= MAX_PERIODS) or number != number.to_integral_value():
        raise NormalizeError(f"Huawei: {flavor} {mode} plan has periodNum {raw_period!r}")
    period = int(number)
    model, suffix, unit = (
        (PriceModel.monthly, "mo", Unit.month) if mode == "MONTHLY" else (PriceModel.yearly, "yr", Unit.year)
    )
    return {
        "price_model": model,
        "term": f"{period}{suffix}",
        "unit": unit if period == 1 else Unit.term,
        "price": price,
    }


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    skipped: set[str] = set()
    unknown: set[str] = set()
    for item in items:
        data = item.get("data")
        if not isinstance(data, dict) or not data.get("resourceSpecCode"):
            raise NormalizeError("Huawei: an item has no flavor record with a resourceSpecCode")
        flavor = str(data["resourceSpecCode"])
        if not isinstance(data.get("planList"), list):
            raise NormalizeError(f"Huawei: {flavor} has no planList")
        try:
            fields = _fields(data)
            variants = []
            for plan in data["planList"]:
                variant = plan_variant(plan, flavor)
                if variant is None:
                    skipped.add(str(plan.get("billingMode")))
                else:
                    variants.append(variant)
        except MoneyError as exc:
            raise NormalizeError(f"Huawei: {exc} for {flavor}") from None
        if not fields.get("gpu_model"):
            unknown.add(flavor)
        observed = parse_time(item.get("observed_at"))
        for variant in variants:
            out.quotes.append(
                make_quote(
                    "huawei",
                    region=str(item.get("region") or ""),
                    instance_type=flavor,
                    os="linux",
                    currency=str(item.get("currency") or "CNY"),
                    source_url=str(item.get("source_url") or ""),
                    observed_at=observed,
                    **fields,
                    **variant,
                )
            )
    if skipped:
        out.notes.append(f"huawei: billing modes not tracked: {', '.join(sorted(skipped))}")
    out.notes.extend(f"huawei: no GPU spec for {f}; stored without a GPU model" for f in sorted(unknown))
    return out
