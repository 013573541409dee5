"""Hostile input raises only our own error types: never a KeyError, a
TypeError or a traceback from deep inside."""

from __future__ import annotations

import json
import string
from pathlib import Path
from tempfile import TemporaryDirectory

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spiders.azure.pages import parse_retail_page
from spiders.har import HarArchive, HarError, read_har
from spiders.pages import PageShapeError
from tests.conftest import examples
from tests.helpers.harutil import from_jsonl
from tracker.config.settings import load_config
from tracker.errors import ConfigError
from tracker.normalize import NormalizeError
from tracker.normalize.providers.azure import normalize as normalize_azure

FUZZ = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)


def _write(tmp: str, name: str, data: bytes) -> Path:
    path = Path(tmp) / name
    path.write_bytes(data)
    return path


@FUZZ
@given(st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()))
def test_har_reader_raises_only_har_error(data: bytes) -> None:
    with TemporaryDirectory() as tmp:
        path = _write(tmp, "x.har", data)
        try:
            read_har(path)
            HarArchive(path)
        except HarError:
            pass


har_entries = st.lists(
    st.dictionaries(st.sampled_from(["request", "response", "startedDateTime", "x"]), json_values, max_size=4)
    | json_values,
    max_size=3,
)


@FUZZ
@given(har_entries)
def test_har_with_odd_entries_raises_only_har_error(entries: list) -> None:
    with TemporaryDirectory() as tmp:
        path = _write(tmp, "x.har", json.dumps({"log": {"entries": entries}}).encode())
        try:
            HarArchive(path).lookup("GET", "https://example.test/")
        except HarError:
            pass


KEYS = [
    "store",
    "diff",
    "crawl",
    "providers",
    "url",
    "removal_confirmations",
    "min_row_ratio",
    "regions",
    "azure",
    "crawl_timeout",
    "api_url",
    "browser_path",
    "bogus",
]
toml_scalars = (
    st.integers(-5, 10**6).map(str)
    | st.text(string.printable, max_size=15).map(json.dumps)
    | st.sampled_from(["true", "false", "[]", '["eastus"]', "1.5", "'${HOME}'", "'${NOPE_UNSET_X}'"])
)


@st.composite
def toml_documents(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 4))):
        section = ".".join(draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=2)))
        lines.append(f"[{section}]")
        for _ in range(draw(st.integers(0, 3))):
            lines.append(f"{draw(st.sampled_from(KEYS))} = {draw(toml_scalars)}")
    if draw(st.booleans()):
        lines.append(draw(st.text(max_size=30)))
    return "\n".join(lines)


@FUZZ
@given(toml_documents())
def test_config_loader_raises_only_config_error(text: str) -> None:
    with TemporaryDirectory() as tmp:
        path = _write(tmp, "config.toml", text.encode("utf-8", "surrogatepass"))
        try:
            load_config(path, home=Path(tmp))
        except ConfigError:
            pass


azure_items = st.dictionaries(
    st.sampled_from(
        [
            "armSkuName",
            "retailPrice",
            "type",
            "skuName",
            "productName",
            "reservationTerm",
            "savingsPlan",
            "unitOfMeasure",
            "currencyCode",
            "armRegionName",
        ]
    ),
    json_values | st.sampled_from(["Standard_NC6", "Consumption", "Reservation", "1 Hour", "1 Year", "USD"]),
    max_size=10,
)


@FUZZ
@given(
    st.binary(max_size=200)
    | st.fixed_dictionaries({"Items": st.lists(azure_items, max_size=4), "NextPageLink": json_values}).map(
        lambda v: json.dumps(v).encode()
    )
)
def test_azure_page_raises_only_page_shape_error(body: bytes) -> None:
    try:
        parse_retail_page(body)
    except PageShapeError:
        pass


@FUZZ
@given(st.lists(azure_items, max_size=4), st.sampled_from(["2026-08-03T06:00:00Z", "yesterday", ""]))
def test_azure_normalizer_raises_only_normalize_error(records: list, observed: str) -> None:
    items = [
        {"kind": "azure.retail_item", "observed_at": observed, "source_url": "https://x", "data": r} for r in records
    ]
    try:
        normalize_azure(from_jsonl(items))
    except NormalizeError:
        pass


VALID_AZURE = {
    "armSkuName": "Standard_NC6s_v3",
    "retailPrice": "3.06",
    "type": "Consumption",
    "skuName": "NC6s v3",
    "productName": "Virtual Machines NCSv3 Series",
    "unitOfMeasure": "1 Hour",
    "currencyCode": "USD",
    "armRegionName": "westeurope",
    "reservationTerm": "1 Year",
    "savingsPlan": [{"retailPrice": "2.1", "term": "1 Year"}],
}


@FUZZ
@given(st.sampled_from(sorted(VALID_AZURE)), json_values, st.sampled_from(["Consumption", "Reservation"]))
def test_azure_normalizer_with_one_field_broken(field: str, value: object, kind: str) -> None:
    record = {**VALID_AZURE, "type": kind, field: value}
    items = [
        {"kind": "azure.retail_item", "observed_at": "2026-08-03T06:00:00Z", "source_url": "https://x", "data": record}
    ]
    try:
        normalize_azure(from_jsonl(items))
    except NormalizeError:
        pass
