"""The raw items of the Lambda source: the API's own records, values as
seen (Lambda Cloud API 1.10.0, `InstanceTypesItem` and `Region`)."""

from __future__ import annotations

from typing import TypedDict

from spiders.items import RegionalItem


class LambdaRegion(TypedDict):
    name: str
    description: str


class LambdaSpecs(TypedDict):
    vcpus: int
    memory_gib: int
    storage_gib: int
    gpus: int


class LambdaInstanceType(TypedDict):
    name: str
    description: str
    gpu_description: str
    price_cents_per_hour: int
    specs: LambdaSpecs


class LambdaTypeRecord(TypedDict):
    """One value of `data` in the instance-types answer, with its key."""

    key: str
    instance_type: LambdaInstanceType
    regions_with_capacity_available: list[LambdaRegion]


# The envelope the spider yields (spiders/base.py `items`): kind
# `lambda.instance_type` holds a LambdaTypeRecord, `lambda.region` a
# LambdaRegion. `regions` are the regions the crawl was asked for.
LambdaItem = RegionalItem[LambdaTypeRecord | LambdaRegion]
LambdaTypeItem = RegionalItem[LambdaTypeRecord]
