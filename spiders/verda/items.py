"""Verda's (formerly DataCrunch) raw items, as its public API states them
(the verda SDK's InstanceType model; prices as decimal strings)."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from spiders.items import RawItem


class Sized(TypedDict, total=False):
    description: str
    size_in_gigabytes: int


class Cores(TypedDict, total=False):
    description: str
    number_of_cores: int


class Gpus(TypedDict, total=False):
    description: str  # "8x H100 SXM5 80GB"
    number_of_gpus: int


class InstanceType(TypedDict, total=False):
    """`GET /v1/instance-types?currency=usd`: one element."""

    id: str
    instance_type: str  # "1H100.80S.30V"
    price_per_hour: str
    spot_price: str
    dynamic_price: str
    currency: str  # "usd" or "eur"
    description: str
    model: str
    name: str
    cpu: Cores
    gpu: Gpus
    memory: Sized
    gpu_memory: Sized
    storage: Sized


class Location(TypedDict, total=False):
    """`GET /v1/locations`: one element."""

    code: str  # "FIN-01"
    name: str
    country_code: str


class Availability(TypedDict, total=False):
    """`GET /v1/instance-availability?isSpot=...`: the types that can be
    deployed now in one location; `spot` is ours (which question it answers)."""

    location_code: str
    availabilities: list[str]
    spot: bool


class VerdaItem(RawItem[InstanceType | Location | Availability]):
    """kind: verda.type (with the regions asked for), verda.location or verda.availability."""

    regions: NotRequired[list[str]]


class VerdaTypeItem(RawItem[InstanceType]):
    """kind: verda.type."""

    regions: NotRequired[list[str]]
