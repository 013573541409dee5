"""Crusoe Cloud's raw items, values as seen: the cards of the public pricing
page, and the official API's VM types (`Type`) and capacities (`CapacityV1`),
as Crusoe's OpenAPI definition (v1alpha5 and v1) declares them."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from spiders.items import RegionalItem


class PriceCard(TypedDict):
    """One card of www.crusoe.ai/cloud/pricing: its heading ("NVIDIA H100"),
    its tags ("80GB", "HGX"), the text of each of its price blocks in page
    order ("$3.90/GPU-hr", "Contact sales"), and the section heading it sits
    under ("GPU instances pricing", "Self-Serve Deployments pricing")."""

    name: str
    tags: list[str]
    prices: list[str]
    section: NotRequired[str]


class VmType(TypedDict, total=False):
    """`GET /projects/{project_id}/compute/vms/types`: one of `items` (every
    field is required by the API's schema; read as optional all the same)."""

    product_name: str  # "h100-80gb-sxm-ib.8x"
    description: str
    cpu_cores: int
    cpu_type: str
    memory_gb: int
    memory_type: str
    disk_gb: int
    disk_type: str
    num_gpu: int
    gpu_type: str  # "H100-SXM-80GB"


class Capacity(TypedDict, total=False):
    """`GET /capacities`: one of `items`; `location` and `quantity` required."""

    location: str  # "us-east1-a"
    quantity: int
    num_slices: int
    quota_type: str
    type: str  # a VM type's product_name


# kind: crusoe.price, crusoe.type or crusoe.capacity
CrusoeItem = RegionalItem[PriceCard | VmType | Capacity]
# One kind each: crusoe.price, crusoe.type, crusoe.capacity.
CrusoePriceItem = RegionalItem[PriceCard]
CrusoeTypeItem = RegionalItem[VmType]
CrusoeCapacityItem = RegionalItem[Capacity]
