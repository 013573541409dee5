"""AWS's own names for things that both the page modules and the AWS
normalizers read: the spot feed's old region names, the EC2 operation code of
each operating system, the instance type inside a usage type.

They are facts about AWS, not about how a page is parsed, so they sit here,
beside the page modules: a normalizer (tracker/normalize/providers/aws*.py)
may import this module without depending on a page module, and spiders/
still imports nothing of ours."""

from __future__ import annotations

import re

# Older spot feeds name regions their own way.
SPOT_REGION_ALIASES = {
    "us-east": "us-east-1",
    "us-west": "us-west-1",
    "eu-ireland": "eu-west-1",
    "apac-sin": "ap-southeast-1",
    "apac-syd": "ap-southeast-2",
    "apac-tokyo": "ap-northeast-1",
}
# The EC2 operation code of each operating system, by the names the pricing
# page and the offer files use (the same names as `operating_systems`).
OPERATIONS = {
    "Linux": "RunInstances",
    "Windows": "RunInstances:0002",
    "RHEL": "RunInstances:0010",
    "SUSE": "RunInstances:000g",
    "Ubuntu Pro": "RunInstances:0g00",
    "Windows with SQL Std": "RunInstances:0006",
    "Windows with SQL Ent": "RunInstances:0102",
    "Windows with SQL Web": "RunInstances:0202",
    "Linux with SQL Std": "RunInstances:0004",
    "Linux with SQL Ent": "RunInstances:0100",
    "Linux with SQL Web": "RunInstances:0200",
}
# `BoxUsage:p5.48xlarge`, or with a region prefix outside us-east-1
# (`USW2-BoxUsage:p4d.24xlarge`). BoxUsage is shared tenancy; DedicatedUsage,
# HostUsage and UnusedBox are other tenancies and capacity reservations.
_USAGE = re.compile(r"^(?:[A-Z0-9]+-)*(?P<usage>[A-Za-z]+):(?P<type>[^:]+)$")


def spot_region(name: str) -> str:
    return SPOT_REGION_ALIASES.get(name, name)


def usage_instance_type(usage_type: str, usage: str = "BoxUsage") -> str | None:
    """'USW2-BoxUsage:p4d.24xlarge' -> 'p4d.24xlarge'; None for another usage."""
    found = _USAGE.match(usage_type)
    return found.group("type") if found and found.group("usage") == usage else None
