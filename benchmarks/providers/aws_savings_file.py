"""A synthetic AWS Savings Plans file (AWSComputeSavingsPlan, one region) in
the real format, written as a stream, of any size: `{version,
publicationDate, regionCode, products: [{sku, productFamily, serviceCode,
usageType, operation, attributes}], terms: {savingsPlan: [{sku, description,
effectiveDate, leaseContractLength, rates: [...]}]}}`, with its region index.

Plans: Compute Savings Plans (every instance type, plus Fargate and Lambda)
and EC2 Instance Savings Plans (one per instance family), each 1yr and 3yr,
No, Partial and All Upfront. Rates cover GPU and other types, shared
(BoxUsage), dedicated, host and unused-reservation usage, and many operating
systems, so a filter has plenty to drop.

Used by the benchmark (a 1 GB file in a temp folder) and for the test and
demo fixtures: `python -m benchmarks.providers.aws_savings_file` rebuilds the plan
entries of tests/fixtures/aws/aws-reserved-2026-08-06.har and of both
tracker/demo_captures/aws-reserved captures."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import IO, Any

from benchmarks.providers.aws_offer_file import sku_code

PLAN_FAMILIES = ("ComputeSavingsPlans", "EC2InstanceSavingsPlans")
TERMS = ("1yr", "3yr")
OPTIONS = ("No Upfront", "Partial Upfront", "All Upfront")
# Operation code -> price factor over Linux (written here from AWS's billing
# codes, not imported from the code under test).
OPERATIONS = {
    "RunInstances": "1",
    "RunInstances:0002": "1.18",
    "RunInstances:0010": "1.06",
    "RunInstances:000g": "1.05",
    "RunInstances:0006": "1.62",
    "RunInstances:0g00": "1.02",
    "RunInstances:0102": "2.9",
    "RunInstances:0202": "1.3",
    "RunInstances:0004": "1.5",
    "RunInstances:0100": "2.7",
    "RunInstances:0200": "1.12",
}
FIXTURE_OPERATIONS = (
    "RunInstances",
    "RunInstances:0002",
    "RunInstances:0010",
    "RunInstances:000g",
    "RunInstances:0006",
    "RunInstances:0g00",
)
USAGES = {"BoxUsage": "1", "DedicatedUsage": "1.1", "HostUsage": "1.2", "UnusedBox": "1"}
DISCOUNT = {
    ("ComputeSavingsPlans", "1yr"): "0.72",
    ("ComputeSavingsPlans", "3yr"): "0.5",
    ("EC2InstanceSavingsPlans", "1yr"): "0.64",
    ("EC2InstanceSavingsPlans", "3yr"): "0.44",
}
OPTION_FACTOR = {"No Upfront": "1", "Partial Upfront": "0.97", "All Upfront": "0.95"}
REGION_PREFIX = {
    "us-east-1": "",
    "us-west-2": "USW2-",
    "eu-west-1": "EUW1-",
    "cn-north-1": "CNN1-",
    "cn-northwest-1": "CNW1-",
}
LOCATIONS = {
    "us-east-1": "US East (N. Virginia)",
    "us-west-2": "US West (Oregon)",
    "eu-west-1": "EU (Ireland)",
    "cn-north-1": "China (Beijing)",
    "cn-northwest-1": "China (Ningxia)",
}
VERSION = "20260801000000"
GLOBAL_INDEX_URL = (
    "https://pricing.us-east-1.amazonaws.com/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json"
)
CHINA_INDEX_URL = (
    "https://pricing.cn-north-1.amazonaws.com.cn/savingsPlan/v1.0/cn/AWSComputeSavingsPlan/current/region_index.json"
)
CENT = Decimal("0.0001")


@dataclass(frozen=True)
class PlanSpec:
    """What one synthetic plan file holds: instance type -> Linux on-demand
    price, the operations, and prices to force (rateCode -> price)."""

    region: str
    currency: str
    types: dict[str, str]
    operations: Sequence[str] = tuple(OPERATIONS)
    legacy: bool = False  # as older files: no discountedInstanceType, currency or unit
    overrides: dict[str, str] = field(default_factory=dict)


def plan_sku(region: str, family: str, term: str, option: str, instance_family: str = "") -> str:
    return sku_code(f"sp-{region}-{family}-{instance_family}-{term}-{option}")


def discounted_sku(region: str, usage_type: str, operation: str) -> str:
    return sku_code(f"od-{region}-{usage_type}-{operation}")


def plans(spec: PlanSpec) -> list[dict[str, Any]]:
    """The plan products: Compute plans, then one EC2 Instance plan per family."""
    families = sorted({t.split(".")[0] for t in spec.types})
    out = []
    for term in TERMS:
        for option in OPTIONS:
            compact = option.replace(" ", "")
            out.append(
                {
                    "sku": plan_sku(spec.region, "ComputeSavingsPlans", term, option),
                    "productFamily": "ComputeSavingsPlans",
                    "serviceCode": "ComputeSavingsPlans",
                    "usageType": f"ComputeSP:{term}{compact}",
                    "operation": "",
                    "attributes": {
                        "purchaseOption": option,
                        "granularity": "hourly",
                        "locationType": "AWS Region",
                        "purchaseTerm": term,
                        "location": "Any",
                    },
                }
            )
            for family in families:
                prefix = REGION_PREFIX.get(spec.region) or "USE1-"
                out.append(
                    {
                        "sku": plan_sku(spec.region, "EC2InstanceSavingsPlans", term, option, family),
                        "productFamily": "EC2InstanceSavingsPlans",
                        "serviceCode": "ComputeSavingsPlans",
                        "usageType": f"{prefix}EC2SP:{family}.{term}{compact}",
                        "operation": "",
                        "attributes": {
                            "purchaseOption": option,
                            "granularity": "hourly",
                            "instanceType": family,
                            "locationType": "AWS Region",
                            "purchaseTerm": term,
                            "location": LOCATIONS.get(spec.region, spec.region),
                        },
                    }
                )
    return out


def _rate(
    spec: PlanSpec,
    plan: str,
    usage_type: str,
    operation: str,
    service: str,
    unit: str,
    price: Decimal,
    instance_type: str | None,
) -> dict[str, Any]:
    discounted = discounted_sku(spec.region, usage_type, operation)
    code = f"{plan}.{discounted}"
    rate: dict[str, Any] = {
        "discountedSku": discounted,
        "discountedUsageType": usage_type,
        "discountedOperation": operation,
        "discountedServiceCode": service,
        "rateCode": code,
        "unit": unit,
        "discountedRate": {"price": spec.overrides.get(code, str(price)), "currency": spec.currency},
        "discountedRegionCode": spec.region,
    }
    if instance_type:
        rate["discountedInstanceType"] = instance_type
    if spec.legacy:
        rate.pop("discountedInstanceType", None)
        rate.pop("unit")
        rate["discountedRate"].pop("currency")
    return rate


def rates(spec: PlanSpec, plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every rate of one plan: its instance types in every usage and
    operation; Compute plans also discount Fargate and Lambda."""
    attrs = plan["attributes"]
    term, option, family = attrs["purchaseTerm"], attrs["purchaseOption"], plan["productFamily"]
    factor = Decimal(DISCOUNT[(family, term)]) * Decimal(OPTION_FACTOR[option])
    prefix = REGION_PREFIX.get(spec.region, "")
    for instance_type, base in spec.types.items():
        if family == "EC2InstanceSavingsPlans" and instance_type.split(".")[0] != attrs["instanceType"]:
            continue
        for usage, usage_factor in USAGES.items():
            # Dedicated hosts are billed by family, not by size.
            named = instance_type.split(".")[0] if usage == "HostUsage" else instance_type
            for operation in spec.operations:
                price = Decimal(base) * Decimal(OPERATIONS[operation]) * Decimal(usage_factor) * factor
                yield _rate(
                    spec,
                    plan["sku"],
                    f"{prefix}{usage}:{named}",
                    operation,
                    "AmazonEC2",
                    "Hrs",
                    price.quantize(CENT, ROUND_HALF_UP),
                    named,
                )
    if family == "ComputeSavingsPlans":
        for usage, operation, unit, amount in (
            ("Fargate-vCPU-Hours:perCPU", "FargateTask", "hour", "0.0284"),
            ("Fargate-GB-Hours", "FargateTask", "hour", "0.0031"),
            ("Lambda-GB-Second", "Invoke", "Lambda-GB-Second", "0.0000139"),
            ("Lambda-Provisioned-GB-Second", "Invoke", "Lambda-GB-Second", "0.0000032"),
        ):
            service = "AWSLambda" if usage.startswith("Lambda") else "AmazonECS"
            yield _rate(spec, plan["sku"], f"{prefix}{usage}", operation, service, unit, Decimal(amount), None)


def write_plan_file(out: IO[str], spec: PlanSpec) -> int:
    """Write the file to `out`, a rate at a time; returns the rate count."""
    products = plans(spec)
    out.write(
        json.dumps({"version": VERSION, "publicationDate": "2026-08-01T00:00:00Z", "regionCode": spec.region})[:-1]
    )
    out.write(', "products": [' + ", ".join(json.dumps(p) for p in products) + '], "terms": {"savingsPlan": [')
    count = 0
    for n, plan in enumerate(products):
        years = int(plan["attributes"]["purchaseTerm"][0])
        head = {
            "sku": plan["sku"],
            "description": f"{years} year {plan['attributes']['purchaseOption']} "
            f"{plan['productFamily']} in {spec.region}",
            "effectiveDate": "2026-08-01T00:00:00Z",
            "leaseContractLength": {"duration": years, "unit": "year"},
        }
        out.write(("," if n else "") + json.dumps(head)[:-1] + ', "rates": [')
        for i, rate in enumerate(rates(spec, plan)):
            out.write(("," if i else "") + "\n" + json.dumps(rate))
            count += 1
        out.write("]}")
    out.write("]}}\n")
    return count


def plan_index(regions: Sequence[str], partition: str = "aws") -> dict[str, Any]:
    return {
        "disclaimer": "Synthetic.",
        "publicationDate": "2026-08-01T00:00:00Z",
        "regions": [
            {
                "regionCode": r,
                "versionUrl": f"/savingsPlan/v1.0/{partition}/AWSComputeSavingsPlan/{VERSION}/{r}/index.json",
            }
            for r in regions
        ],
    }


# ---- the benchmark's file ---------------------------------------------------

GPU_FAMILIES = {
    "p4d": ["24xlarge"],
    "p5": ["48xlarge", "4xlarge"],
    "g5": ["xlarge", "2xlarge", "12xlarge"],
    "g6": ["xlarge", "4xlarge"],
    "g6e": ["xlarge", "12xlarge"],
    "g4dn": ["xlarge", "2xlarge"],
    "p3": ["2xlarge"],
    "g6f": ["large"],
}
SIZES = ["large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "metal"]
BYTES_PER_TYPE = 190_000  # every operation: 2 x 6 plans x 4 usages x 11 operations x ~360 B (measured)


def _made_up(prefixes: str) -> Iterator[str]:
    variants = ("", "a", "d", "g", "i", "n", "e", "gd", "dn")
    return (f"{p}{g}{v}.{s}" for g in range(1, 10) for p in prefixes for v in variants for s in SIZES)


def many_types(target_bytes: int, seed: int = 1) -> dict[str, str]:
    """About `target_bytes` worth of instance types, one in twenty a GPU type:
    the real GPU types first, then made-up GPU-looking ones (p1a.large ...);
    the other families are made up too (m1a, c7gd ...) and never look like GPUs."""
    rnd = random.Random(seed)
    wanted = max(len(GPU_FAMILIES), target_bytes // BYTES_PER_TYPE)
    gpu = iter([f"{f}.{s}" for f, sizes in GPU_FAMILIES.items() for s in sizes] + list(_made_up("pg")))
    others = _made_up("mcrxitzdh")
    types: dict[str, str] = {}
    while len(types) < wanted:
        if len(types) % 20 == 0:
            name, price = next(gpu), rnd.uniform(0.2, 60)
        else:
            name, price = next(others), rnd.uniform(0.01, 8)
        types[name] = f"{price:.4f}"
    return types


def write_big_plan_file(path: Path, target_bytes: int) -> int:
    """A us-east-1 plan file of about `target_bytes`; returns the rate count."""
    with path.open("w", encoding="utf-8") as out:
        return write_plan_file(out, PlanSpec("us-east-1", "USD", many_types(target_bytes)))


# ---- the fixtures -----------------------------------------------------------

# The same instance types and Linux on-demand prices as the offer files of the fixture.
FIXTURE_TYPES = {
    "us-east-1": (
        "USD",
        {
            "p4d.24xlarge": "21.9576",
            "p5.48xlarge": "55.04",
            "g5.xlarge": "1.006",
            "g6e.xlarge": "1.861",
            "g6f.large": "0.2012",
            "m5.large": "0.096",
            "c6i.xlarge": "0.17",
        },
    ),
    "cn-north-1": ("CNY", {"p4d.24xlarge": "262.8116", "g5.xlarge": "10.2", "g4dn.xlarge": "4.2", "m5.large": "0.9"}),
}
CAPTURES = (
    "tests/fixtures/aws/aws-reserved-2026-08-06.har",
    "tracker/demo_captures/aws-reserved/2026-08-06-us-east-1+cn-north-1.har.gz",
    "tracker/demo_captures/aws-reserved/2026-09-06-us-east-1+cn-north-1.har.gz",
)


def rate_code(
    region: str, family: str, term: str, option: str, usage_type: str, operation: str, instance_family: str = ""
) -> str:
    return f"{plan_sku(region, family, term, option, instance_family)}.{discounted_sku(region, usage_type, operation)}"


# What the 2026-09-06 demo capture changes: one GPU savings plan rate that the
# tracker reads (p5.48xlarge Linux, Compute, 1yr No Upfront: 39.6288 -> 36.4585),
# and two it must not report (a non-GPU type; a GPU type on dedicated tenancy).
SEPTEMBER = {
    rate_code(
        "us-east-1", "ComputeSavingsPlans", "1yr", "No Upfront", "BoxUsage:p5.48xlarge", "RunInstances"
    ): "36.4585",
    rate_code("us-east-1", "ComputeSavingsPlans", "1yr", "No Upfront", "BoxUsage:m5.large", "RunInstances"): "0.0601",
    rate_code(
        "us-east-1", "ComputeSavingsPlans", "1yr", "No Upfront", "DedicatedUsage:p5.48xlarge", "RunInstances"
    ): "40.1000",
}


def fixture_spec(region: str, overrides: dict[str, str] | None = None) -> PlanSpec:
    currency, types = FIXTURE_TYPES[region]
    return PlanSpec(region, currency, types, FIXTURE_OPERATIONS, overrides=overrides or {})


def fixture_entries(started: datetime, overrides: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The plan entries of an aws-reserved capture: both plan region indexes
    and the us-east-1 and cn-north-1 plan files."""
    import io

    from spiders.har import har_entry

    def entry(url: str, body: bytes) -> dict[str, Any]:
        return har_entry(
            method="GET",
            url=url,
            request_headers=[],
            request_body=None,
            status=200,
            response_headers=[("Content-Type", "application/json")],
            body=body,
            mime_type="application/json",
            started=started,
            elapsed_ms=0,
        )

    host = {"aws": "https://pricing.us-east-1.amazonaws.com", "cn": "https://pricing.cn-north-1.amazonaws.com.cn"}
    out = [
        entry(GLOBAL_INDEX_URL, json.dumps(plan_index(["us-east-1", "us-west-2", "eu-west-1"])).encode()),
        entry(CHINA_INDEX_URL, json.dumps(plan_index(["cn-north-1", "cn-northwest-1"], "cn")).encode()),
    ]
    for region in FIXTURE_TYPES:
        text = io.StringIO()
        write_plan_file(text, fixture_spec(region, overrides))
        partition = "cn" if region.startswith("cn-") else "aws"
        url = f"{host[partition]}/savingsPlan/v1.0/{partition}/AWSComputeSavingsPlan/{VERSION}/{region}/index.json"
        out.append(entry(url, text.getvalue().encode()))
    return out


def rebuild_fixtures(root: Path) -> None:
    """Replace the plan entries of the three aws-reserved captures under
    `root` (the repository), keeping their other entries as they are."""
    from spiders.har import read_har, write_har
    from tracker.normalize import parse_time

    for name in CAPTURES:
        path = root / name
        entries = [e for e in read_har(path)["log"]["entries"] if "/savingsPlan/" not in e["request"]["url"]]
        started = parse_time(entries[0]["startedDateTime"])
        write_har(path, entries + fixture_entries(started, SEPTEMBER if "2026-09-06" in name else None))


if __name__ == "__main__":
    rebuild_fixtures(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
