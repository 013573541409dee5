"""A synthetic AmazonEC2 bulk offer file in the real format, written as a
stream, of any size: `{formatVersion, offerCode, version, publicationDate,
products: {sku: {sku, productFamily, attributes}}, terms: {OnDemand:
{sku: {term: {priceDimensions, termAttributes}}}, Reserved: {...}}}`.

Used by the benchmark (a 1 GB file in a temp folder) and to make the small
test fixture. About one SKU in twenty is a GPU type."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import IO

GPU_TYPES = [
    "p4d.24xlarge",
    "p5.48xlarge",
    "p5.4xlarge",
    "g5.xlarge",
    "g5.12xlarge",
    "g6.xlarge",
    "g6e.2xlarge",
    "g4dn.xlarge",
    "p3.2xlarge",
    "g6f.large",
]
OTHER_TYPES = [
    f"{f}.{s}"
    for f in ("m5", "c6i", "r7g", "m7i", "c5n", "x2idn", "i4i", "t3")
    for s in ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge")
]
SYSTEMS = ["Linux", "Windows", "RHEL", "SUSE"]
TENANCIES = ["Shared", "Dedicated", "Host"]
CAPACITY = ["Used", "UnusedCapacityReservation", "AllocatedCapacityReservation"]
RESERVED = [
    (length, cls, option)
    for length in ("1yr", "3yr")
    for cls in ("standard", "convertible")
    for option in ("No Upfront", "Partial Upfront", "All Upfront")
]
RESERVED_CODES = {
    "1yr": {
        "standard": {"No Upfront": "4NA7Y494T4", "Partial Upfront": "HU7G6KETJZ", "All Upfront": "6QCMYABX3D"},
        "convertible": {"No Upfront": "7NE97W5U4E", "Partial Upfront": "CUZHX8X6JH", "All Upfront": "VJWZNREJX2"},
    },
    "3yr": {
        "standard": {"No Upfront": "BPH4J8HBKS", "Partial Upfront": "38NPMPTW36", "All Upfront": "NQ3QZPMQV9"},
        "convertible": {"No Upfront": "Z2E3P23VKM", "Partial Upfront": "R5XV2EPZQZ", "All Upfront": "MZU6U2429S"},
    },
}
HOURS = {"1yr": 8760, "3yr": 26280}


def sku_code(seed: str) -> str:
    digest = hashlib.sha256(seed.encode()).hexdigest().upper()
    return "".join(c if c.isalpha() else "ABCDEFGHJK"[int(c)] for c in digest[:16])


def product(
    sku: str, instance_type: str, os_name: str, tenancy: str, capacity: str, region: str, location: str
) -> dict[str, object]:
    gpu = instance_type in GPU_TYPES
    return {
        "sku": sku,
        "productFamily": "Compute Instance",
        "attributes": {
            "servicecode": "AmazonEC2",
            "location": location,
            "locationType": "AWS Region",
            "instanceType": instance_type,
            "currentGeneration": "Yes",
            "instanceFamily": "GPU instance" if gpu else "General purpose",
            "vcpu": "96" if gpu else "8",
            "physicalProcessor": "Intel Xeon Platinum 8275L",
            "clockSpeed": "3 GHz",
            "memory": "1152 GiB",
            "storage": "EBS only",
            "networkPerformance": "400 Gigabit",
            "processorArchitecture": "64-bit",
            "tenancy": tenancy,
            "operatingSystem": os_name,
            "licenseModel": "No License required",
            "usagetype": f"BoxUsage:{instance_type}",
            "operation": "RunInstances",
            "capacitystatus": capacity,
            "ecu": "NA",
            "enhancedNetworkingSupported": "Yes",
            "gpu": "8" if gpu else "0",
            "marketoption": "OnDemand",
            "normalizationSizeFactor": "192",
            "preInstalledSw": "NA",
            "regionCode": region,
            "servicename": "Amazon Elastic Compute Cloud",
            "vpcnetworkingsupport": "true",
        },
    }


def _dimension(sku: str, term: str, rate: str, unit: str, price: str, currency: str, text: str) -> dict:
    return {
        "rateCode": f"{sku}.{term}.{rate}",
        "description": text,
        "beginRange": "0",
        "endRange": "Inf",
        "unit": unit,
        "pricePerUnit": {currency: price},
        "appliesTo": [],
    }


def on_demand_terms(sku: str, hourly: float, currency: str) -> dict[str, object]:
    term = "JRTCKXETXF"
    return {
        f"{sku}.{term}": {
            "offerTermCode": term,
            "sku": sku,
            "effectiveDate": "2026-08-01T00:00:00Z",
            "priceDimensions": {
                f"{sku}.{term}.6YS6EN2CT7": _dimension(
                    sku, term, "6YS6EN2CT7", "Hrs", f"{hourly:.10f}", currency, f"{hourly:.4f} per On Demand hour"
                )
            },
            "termAttributes": {},
        }
    }


def reserved_terms(sku: str, hourly: float, currency: str) -> dict[str, object]:
    terms: dict[str, object] = {}
    for length, cls, option in RESERVED:
        code = RESERVED_CODES[length][cls][option]
        discount = {"1yr": 0.62, "3yr": 0.42}[length] * (1.08 if cls == "convertible" else 1)
        total = hourly * discount * HOURS[length]
        upfront = {"No Upfront": 0.0, "Partial Upfront": total / 2, "All Upfront": total}[option]
        rest = (total - upfront) / HOURS[length]
        dims = {
            f"{sku}.{code}.6YS6EN2CT7": _dimension(
                sku,
                code,
                "6YS6EN2CT7",
                "Hrs",
                f"{rest:.10f}",
                currency,
                "Linux/UNIX (Amazon VPC), reserved instance applied",
            )
        }
        if option != "No Upfront":
            dims[f"{sku}.{code}.2TG2D8R56U"] = _dimension(
                sku, code, "2TG2D8R56U", "Quantity", f"{upfront:.0f}", currency, "Upfront Fee"
            )
        terms[f"{sku}.{code}"] = {
            "offerTermCode": code,
            "sku": sku,
            "effectiveDate": "2026-08-01T00:00:00Z",
            "priceDimensions": dims,
            "termAttributes": {"LeaseContractLength": length, "OfferingClass": cls, "PurchaseOption": option},
        }
    return terms


def skus(count: int, seed: int = 1) -> Iterator[tuple[str, str, str, str, str, float]]:
    rnd = random.Random(seed)
    for i in range(count):
        gpu = i % 20 == 0
        instance_type = GPU_TYPES[(i // 20) % len(GPU_TYPES)] if gpu else rnd.choice(OTHER_TYPES)
        hourly = round(rnd.uniform(8, 60) if gpu else rnd.uniform(0.05, 4), 4)
        yield (
            sku_code(f"{seed}-{i}"),
            instance_type,
            SYSTEMS[i % 4],
            TENANCIES[(i // 4) % 3],
            CAPACITY[(i // 12) % 3],
            hourly,
        )


def _write_object(out: IO[str], name: str, members: Iterator[tuple[str, object]], last: bool = False) -> None:
    out.write(f'  "{name}" : {{\n')
    first = True
    for key, value in members:
        out.write(("" if first else ",\n") + f"    {json.dumps(key)} : " + json.dumps(value, indent=2))
        first = False
    out.write("\n  }" + ("\n" if last else ",\n"))


def write_offer_file(
    path: Path,
    *,
    target_bytes: int | None = None,
    sku_count: int | None = None,
    region: str = "us-east-1",
    location: str = "US East (N. Virginia)",
    currency: str = "USD",
    seed: int = 1,
) -> int:
    """Write the file; returns the SKU count. Give a size or a count."""
    count = sku_count or max(1, (target_bytes or 0) // 12_000)
    rows = list(skus(count, seed))
    with path.open("w", encoding="utf-8") as out:
        out.write(
            '{\n  "formatVersion" : "v1.0",\n  "disclaimer" : "Synthetic offer file for tests.",\n'
            '  "offerCode" : "AmazonEC2",\n  "version" : "20260801000000",\n'
            '  "publicationDate" : "2026-08-01T00:00:00Z",\n'
        )
        _write_object(
            out, "products", ((s, product(s, t, o, ten, cap, region, location)) for s, t, o, ten, cap, _ in rows)
        )
        out.write('  "terms" : {\n')
        _write_object(out, "OnDemand", ((s, on_demand_terms(s, h, currency)) for s, *_, h in rows))
        _write_object(out, "Reserved", ((s, reserved_terms(s, h, currency)) for s, *_, h in rows), last=True)
        out.write("  }\n}\n")
    return count
