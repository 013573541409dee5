"""Checks a recorded official-API answer against the provider SDK's own
response model: every key must be one the model knows (recursively), and the
SDK must build the model from it (which fails on a required field it lacks).
Returns the problems found, empty when the answer fits."""

from __future__ import annotations

import importlib
import re
import warnings
from typing import Any

# The envelope Volcano Engine puts around `Result` (volcenginesdkcore reads it, no model).
VOLC_METADATA = {"RequestId", "Action", "Version", "Service", "Region", "Error"}


def tencent(action: str, data: dict[str, Any]) -> list[str]:
    """tencentcloud-sdk-python: `_deserialize` warns "<keys> fileds are useless" for keys it does not know."""
    from tencentcloud.cvm.v20170312 import models

    response = data["Response"]
    if "Error" in response:
        return []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(models, f"{action}Response")()._deserialize(response)
    return [f"unknown keys: {w.message}" for w in caught if "useless" in str(w.message)]


def _tea_unknown(data: Any, rebuilt: Any, path: str) -> list[str]:
    if isinstance(data, dict):
        rebuilt = rebuilt if isinstance(rebuilt, dict) else {}
        problems = [f"{path}.{k}" for k in data if k not in rebuilt]
        for k, v in data.items():
            if k in rebuilt:
                problems += _tea_unknown(v, rebuilt[k], f"{path}.{k}")
        return problems
    if isinstance(data, list):
        rebuilt = rebuilt if isinstance(rebuilt, list) else []
        return [
            p
            for i, v in enumerate(data)
            for p in _tea_unknown(v, rebuilt[i] if i < len(rebuilt) else None, f"{path}[{i}]")
        ]
    return []


def alibaba(action: str, data: dict[str, Any]) -> list[str]:
    """alibabacloud_ecs20140526 Tea models: `from_map` drops what the model does
    not know, so a key missing after `to_map` is unknown; `validate` checks required fields."""
    from alibabacloud_ecs20140526 import models

    if "Code" in data and "RequestId" in data and len(data) <= 6:
        return []  # an error answer, which no response model describes
    model = getattr(models, f"{action}ResponseBody")().from_map(data)
    try:
        model.validate()
    except Exception as exc:
        return [f"invalid: {exc}"]
    return [f"unknown key {p}" for p in _tea_unknown(data, model.to_map(), action)]


def _swagger(module: str, type_name: str, data: Any, path: str, types_attr: str) -> list[str]:
    """Walks a swagger-generated model (Huawei's openapi_types, Volcano Engine's swagger_types)."""
    list_of = re.fullmatch(r"list\[(.+)\]", type_name)
    if list_of:
        if not isinstance(data, list):
            return [f"{path}: expected a list"]
        return [
            p for i, v in enumerate(data) for p in _swagger(module, list_of.group(1), v, f"{path}[{i}]", types_attr)
        ]
    if type_name.startswith("dict(") or type_name in ("object", "str", "int", "float", "bool", "decimal.Decimal"):
        return []
    cls = getattr(importlib.import_module(module), type_name)
    if not isinstance(data, dict):
        return [f"{path}: expected an object"]
    by_json = {json: attr for attr, json in cls.attribute_map.items()}
    problems = [f"unknown key {path}.{k}" for k in data if k not in by_json]
    kwargs = {}
    for key, value in data.items():
        if key in by_json:
            attr = by_json[key]
            problems += _swagger(module, getattr(cls, types_attr)[attr], value, f"{path}.{key}", types_attr)
            kwargs[attr] = value
    try:
        cls(**kwargs)
    except (TypeError, ValueError) as exc:
        problems.append(f"{path}: the SDK refuses it: {exc}")
    return problems


def huawei(service: str, action: str, data: dict[str, Any]) -> list[str]:
    """huaweicloudsdk<service>: the response model's openapi_types and attribute_map."""
    if "error_code" in data or "error" in data:
        return []
    module = {
        "iam": "huaweicloudsdkiam.v3.model",
        "ecs": "huaweicloudsdkecs.v2.model",
        "bss": "huaweicloudsdkbss.v2.model",
    }
    return _swagger(module[service], f"{action}Response", data, action, "openapi_types")


def volcengine(service: str, action: str, data: dict[str, Any]) -> list[str]:
    """volcenginesdk<service>: `Result` against the response model, the envelope against ResponseMetadata."""
    problems = [f"unknown key {k}" for k in data if k not in ("ResponseMetadata", "Result")]
    problems += [
        f"unknown key ResponseMetadata.{k}" for k in data.get("ResponseMetadata", {}) if k not in VOLC_METADATA
    ]
    if "Result" not in data:
        return problems
    module = {"ecs": "volcenginesdkecs.models", "billing": "volcenginesdkbilling.models"}[service]
    return problems + _swagger(module, f"{action}Response", data["Result"], action, "swagger_types")
