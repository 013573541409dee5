"""Hostile official-API answers (any field of a recorded answer replaced by
any JSON value) raise only our own error types, in the page objects and the
normalizers alike."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spiders.alibaba import api_pages as alibaba_api
from spiders.har import read_har
from spiders.huawei import api_pages as huawei_api
from spiders.pages import PageShapeError
from spiders.tencent import api_pages as tencent_api
from spiders.volcengine import api_pages as volcengine_api
from tests.conftest import DEMO_CAPTURES, FIXTURES
from tests.security.test_fuzz import FUZZ, json_values
from tracker.normalize import NormalizeError
from tracker.normalize.providers import alibaba as norm_alibaba
from tracker.normalize.providers import huawei as norm_huawei
from tracker.normalize.providers import tencent as norm_tencent
from tracker.normalize.providers import volcengine as norm_volcengine


def answers(source: str) -> list[Any]:
    path = next(iter([*(FIXTURES / source).glob("*.har"), *(DEMO_CAPTURES / source).glob("*.har.gz")]))
    return [json.loads(e["response"]["content"]["text"]) for e in read_har(path)["log"]["entries"]]


def paths(value: Any, here: tuple = ()) -> Iterator[tuple]:
    yield here
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, (*here, i))


def replaced(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    out = copy.deepcopy(value)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = new
    return out


def item(kind: str, data: Any, **extra: Any) -> Any:
    return {"kind": kind, "observed_at": "2026-11-02T02:00:00Z", "source_url": "https://x", "data": data, **extra}


def tencent(answer: Any) -> None:
    if tencent_api.api_error(answer) is None:
        norm_tencent.normalize_api(
            item("tencent.api", i, region="ap-guangzhou") for i in tencent_api.parse_quota_set(answer)
        )


def alibaba(answer: Any) -> None:
    if alibaba_api.api_error(200, answer):
        return
    if isinstance(answer, dict) and "InstanceTypes" in answer:
        types, _ = alibaba_api.parse_instance_types(answer)
        norm_alibaba.normalize_api([item("alibaba.api.type", t) for t in types])
    elif isinstance(answer, dict) and "AvailableZones" in answer:
        stock = alibaba_api.parse_stock(answer)
        norm_alibaba.normalize_api(
            [item("alibaba.api.stock", s, region="cn-beijing", variants=["on_demand"]) for s in stock]
        )
    else:
        price = {**alibaba_api.parse_price(answer), "variant": "on_demand", "instance_type": "ecs.gn7i-c8g1.2xlarge"}
        norm_alibaba.normalize_api([item("alibaba.api.price", price, region="cn-beijing")])


def volcengine(answer: Any) -> None:
    if volcengine_api.api_error(answer):
        return
    result = volcengine_api.result(answer, "an action")
    if "InstanceTypes" in result:
        types, _ = volcengine_api.parse_instance_types(answer)
        norm_volcengine.normalize_api([item("volcengine.api.type", t) for t in types])
    elif "AvailableZones" in result:
        stock = volcengine_api.parse_stock(answer)
        norm_volcengine.normalize_api([item("volcengine.api.stock", s, region="cn-beijing") for s in stock])
    else:
        lines = volcengine_api.parse_prices(answer, "QueryPriceForPayAsYouGo")
        norm_volcengine.normalize_api(
            [item("volcengine.api.price", x, region="cn-beijing", variant="on_demand") for x in lines]
        )


def huawei(answer: Any) -> None:
    if huawei_api.api_error(200, answer):
        return
    if isinstance(answer, dict) and "projects" in answer:
        huawei_api.project_id(answer, "cn-north-4")
    elif isinstance(answer, dict) and "flavors" in answer:
        flavors = huawei_api.parse_flavors(answer)
        norm_huawei.normalize_api([item("huawei.api.flavor", f, region="cn-north-4") for f in flavors])
    else:
        on_demand = isinstance(answer, dict) and "product_rating_results" in answer
        rated = huawei_api.parse_on_demand(answer) if on_demand else huawei_api.parse_period(answer)
        records = [{"flavor": f"f{k}", "variant": "on_demand", **v} for k, v in rated.items()]
        norm_huawei.normalize_api([item("huawei.api.price", r, region="cn-north-4") for r in records])


READERS: dict[str, Callable[[Any], None]] = {
    "tencent-api": tencent,
    "alibaba-api": alibaba,
    "volcengine-api": volcengine,
    "huawei-api": huawei,
}


@pytest.mark.parametrize("source", sorted(READERS))
@FUZZ
@given(data=st.data(), value=json_values)
def test_hostile_answers_raise_only_our_errors(source: str, data: st.DataObject, value: Any) -> None:
    recorded = answers(source)
    answer = data.draw(st.sampled_from(recorded))
    path = data.draw(st.sampled_from(list(paths(answer))))
    try:
        READERS[source](replaced(answer, path, value))
    except (PageShapeError, NormalizeError):
        pass
