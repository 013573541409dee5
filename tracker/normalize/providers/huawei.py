"""What a Huawei Cloud calculator flavor (`product.ec2_vm[]`) means.

- The flavor is `spec` (`p2s.2xlarge.8`) and its OS `imageSpec` (`linux`,
  `win`...); `resourceSpecCode` joins the two (`p2s.2xlarge.8.linux`). One
  row per flavor, OS and plan; an answer without `spec` is read from
  `resourceSpecCode` (an OS word at its end, else linux).
- `planList[]`, then `bakPlanList[]` for the plans `planList` lacks (the
  calculator keeps the full list there once a plan is picked): ONDEMAND is
  an hourly price; MONTHLY and YEARLY are prepaid
  for `periodNum` months or years (1 when absent). One month or one year is
  stored per month or per year; a longer term (3 months, 3 years) as the
  whole term's price. Other billing modes (RI...) are left out, with a note.
- `acceleratorCard` ("1 × NVIDIA V100 / 1 × 16GiB", "4*NVIDIA T4 16GB",
  "1*NVIDIAT4") is the provider's own statement of the GPU, and wins over the
  spec table; `cpu` ("8vCPUs") and `mem` ("64GiB") likewise.
- One odd flavor (a card we cannot read, a plan priced 0) is skipped with a
  note, never guessed; when every flavor is odd, the answer changed shape
  and the run fails.

## The official API (huawei-api)

What the Huawei Cloud official API answers mean (huawei-api).

- ECS `ListFlavors`: a GPU flavor (`ecs:performancetype` gpu, or
  `hws:performancetype` on flavors registered early, or a GPU passthrough
  alias), its vCPUs and memory (MiB), its GPU from `pci_passthrough:alias`
  ("nvidia-t4:1"); the spec table's names win when it knows the flavor.
  `cond:operation:az` gives each zone's sale state, `cond:operation:status`
  the flavor's: normal and promotion are available, sellout (and compound
  states such as obt_sellout) sold out, obt (public beta), private and test
  limited; abandon is not sold there. A flavor abandoned region-wide but
  normal in some zones (the reference's own example) is stored for those
  zones.
- A flavor a rating answer leaves out is skipped with a note naming it; its
  last price stands (never "removed"). An answer that prices none of its
  batch fails the run.
- BSS `ListOnDemandResourceRatings` for one hour is on demand per hour;
  `ListRateOnPeriodDetail` for one month or one year is 1mo / 1yr. The paid
  price is `amount` (on demand) or the best optional discount (periods), the
  list price `official_website_amount`; all in yuan, Linux images.
- On-demand prices are stored once per zone the flavor lists, with its state;
  period prices once per region with the flavor's own state. A flavor with
  no region-wide state (abandon, or one we do not know) but sold in zones is
  read zone by zone for every price, as a person reads the reference's
  example ("az0(normal), az1(sellout), az2(obt), az3(normal)", other zones
  abandon): each named zone with its own state, none for the abandoned ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from db.schema import PriceModel, PriceQuote, Unit
from spiders.huawei.items import ApiFlavor, ApiFlavorItem, ApiPriceItem, Flavor, FlavorItem, HuaweiApiItem
from tracker.normalize import Normalized, NormalizeError, make_quote, parse_time
from tracker.normalize.api import ApiNormalizer, Price, Variant, Zones
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import GpuSpec, lookup

_NUMBER = r"\d+(?:\.\d+)?"
CARD = re.compile(
    rf"^(?P<count>{_NUMBER})\s*[×xX*]\s*(?P<name>[^/]+?)\s*"
    rf"(?:/\s*(?:{_NUMBER}\s*[×xX*]\s*)?(?P<mem>{_NUMBER})\s*G(?:i)?B?)?$"
)
INLINE_MEMORY = re.compile(rf"[\s(（-]*(?P<mem>{_NUMBER})\s*G(?:i)?B?[)）]?", re.IGNORECASE)
NOISE = re.compile(r"\b(NVIDIA|Tesla|PCIe|NVLink|SXM\d?|GPU)\b", re.IGNORECASE)
# The vendor glued to the model ("NVIDIAT4", "NVIDIA-A100"), as real cards write it.
VENDOR = re.compile(r"^\s*(?:NVIDIA|Tesla)[\s_-]*", re.IGNORECASE)
# The OS words that end a resourceSpecCode, and what we call them.
OS_NAMES = {"linux": "linux", "win": "windows", "windows": "windows", "byol": "byol"}
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
    while VENDOR.match(name):
        name = VENDOR.sub("", name, count=1)
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


def flavor_and_os(data: Flavor) -> tuple[str, str]:
    """('p2s.2xlarge.8', 'linux') from spec and imageSpec, else from
    resourceSpecCode."""
    code = str(data["resourceSpecCode"])
    flavor = str(data.get("spec") or "").strip()
    image = str(data.get("imageSpec") or "").strip().lower()
    head, _, tail = code.rpartition(".")
    if not flavor:
        flavor = head if tail.lower() in OS_NAMES else code
    if not image and code.startswith(flavor + "."):
        image = code[len(flavor) + 1 :].lower()
    return flavor, OS_NAMES.get(image, image) or "linux"


def plans(data: Flavor) -> list[Any]:
    """planList, then the bakPlanList plans (by mode and period) it lacks."""
    seen: set[tuple[str, str]] = set()
    found = []
    for key in ("planList", "bakPlanList"):
        for plan in listed if isinstance(listed := data.get(key), list) else []:
            which = (str(plan.get("billingMode")), str(plan.get("periodNum") or 1)) if isinstance(plan, dict) else None
            if which is None or which not in seen:
                found.append(plan)
            if which is not None:
                seen.add(which)
    return found


def _fields(data: Flavor, flavor: str) -> dict[str, Any]:
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
        raise NormalizeError(f"Huawei: {flavor} {mode} plan costs {price}")  # one odd flavor: skipped
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


def _quotes(item: FlavorItem, skipped: set[str]) -> tuple[str, list[PriceQuote]]:
    data = item.get("data")
    if not isinstance(data, dict) or not data.get("resourceSpecCode"):
        raise NormalizeError("Huawei: an item has no flavor record with a resourceSpecCode")
    flavor, os_name = flavor_and_os(data)
    listed = plans(data)
    if not listed:
        raise NormalizeError(f"Huawei: {flavor} has no planList")
    try:
        fields = _fields(data, flavor)
        variants = []
        for plan in listed:
            variant = plan_variant(plan, flavor)
            if variant is None:
                skipped.add(str(plan.get("billingMode")))
            else:
                variants.append(variant)
    except MoneyError as exc:
        raise NormalizeError(f"Huawei: {exc} for {flavor}") from None
    observed = parse_time(item.get("observed_at"))
    quotes = [
        make_quote(
            "huawei",
            region=str(item.get("region") or ""),
            instance_type=flavor,
            os=os_name,
            currency=str(item.get("currency") or "CNY"),
            source_url=str(item.get("source_url") or ""),
            observed_at=observed,
            **fields,
            **variant,
        )
        for variant in variants
    ]
    return flavor, quotes


def normalize(items: Iterable[FlavorItem]) -> Normalized:
    out = Normalized()
    skipped: set[str] = set()
    unknown: set[str] = set()
    odd: list[str] = []
    seen: set[str] = set()
    for item in items:
        try:
            flavor, quotes = _quotes(item, skipped)
        except NormalizeError as exc:
            odd.append(str(exc))
            continue
        fresh = [q for q in quotes if q.key not in seen]
        if len(fresh) < len(quotes):
            out.notes.append(f"huawei: {flavor} is listed twice in {quotes[0].region}; the first kept")
        seen.update(q.key for q in fresh)
        if fresh and not fresh[0].gpu_model:
            unknown.add(flavor)
        out.quotes.extend(fresh)
    if odd and not out.quotes:
        raise NormalizeError(odd[0])
    out.notes.extend(f"huawei: skipped: {reason}" for reason in odd)
    if skipped:
        out.notes.append(f"huawei: billing modes not tracked: {', '.join(sorted(skipped))}")
    out.notes.extend(f"huawei: no GPU spec for {f}; stored without a GPU model" for f in sorted(unknown))
    return out


# The API items' kinds, and what each is (see ApiNormalizer.kinds).
KINDS = {"huawei.api.flavor": "type", "huawei.api.price": "price", "huawei.api.unpriced": "left out"}
VARIANTS: dict[str, Variant] = {
    "on_demand": (PriceModel.on_demand, "", Unit.hour),
    "1mo": (PriceModel.monthly, "1mo", Unit.month),
    "1yr": (PriceModel.yearly, "1yr", Unit.year),
}
MIB = Decimal(1024)


def _api_fields(flavor: ApiFlavor | None, name: str) -> dict[str, Any]:
    spec = lookup("huawei", name)
    fields: dict[str, Any] = dict(spec.as_fields()) if spec else {}
    if not flavor:
        return fields
    if flavor.get("vcpu"):
        fields["vcpu"] = to_decimal(flavor["vcpu"], what="vcpus")
    if flavor.get("memory_mib"):
        fields["memory_gb"] = to_decimal(flavor["memory_mib"], what="ram") / MIB
    if flavor.get("gpu_count"):
        fields["gpu_count"] = to_decimal(flavor["gpu_count"], what="pci_passthrough:alias")
    if not fields.get("gpu_model") and flavor.get("gpu_model"):
        fields["gpu_model"] = str(flavor["gpu_model"])
    return fields


class HuaweiApi(ApiNormalizer):
    source, provider = "huawei-api", "huawei"
    kinds = KINDS
    variants = VARIANTS
    noun = name_key = left_out_key = "flavor"
    left_out_by = "rating"
    amount_names = ("amount", "official_website_amount")
    odd_note = "sale state not known for {}; stored without availability"

    def described(self, item: ApiFlavorItem) -> None:
        described = item["data"]
        self.types[str(item["region"]), str(described["flavor"])] = described
        if described.get("unknown_states"):
            self.odd.add(f"{described['flavor']} ({', '.join(described.get('unknown_states') or [])})")

    def currency(self, item: ApiPriceItem) -> str:
        return str(item.get("currency") or "CNY")

    def fields(self, price: Price) -> dict[str, Any]:
        return _api_fields(self.types.get((price.region, price.name)), price.name)

    def zones(self, price: Price) -> Zones:
        flavor: ApiFlavor | None = self.types.get((price.region, price.name))
        status = flavor.get("status") if flavor else None
        zones = list(flavor.get("zones", {}).items()) if flavor else []
        if price.variant != "on_demand" and status is not None:
            zones = []  # a region-wide state: periods are priced and sold per region
        return zones or [("", status)]


def normalize_api(items: Iterable[HuaweiApiItem]) -> Normalized:
    return HuaweiApi().normalize(items)
