"""Every number an answer takes has a range the cost model computes
(`tracker/answers/ranges.py`), on the API, the pages and the command line
alike (issue 40 item 9): out of it is a 400 in one sentence that quotes at
most the head of the value, never a 500."""

from __future__ import annotations

from decimal import Decimal
from html import unescape

import pytest

from tests.web.conftest import Served
from tracker.answers.ranges import HEAD, RANGES, OutOfRange, parse

LONG = "9" * 20_000

REFUSED = [
    ("/api/recommend?gpus=8&hours_per_month=1e-400", "hours_per_month='1e-400' must be a number from 0.1 to 744"),
    ("/api/recommend?gpus=8&hours_per_month=1e-30", "hours_per_month='1e-30' must be a number from 0.1 to 744"),
    ("/api/recommend?gpus=8&hours_per_month=0", "hours_per_month='0' must be a number from 0.1"),
    ("/api/recommend?gpus=8&hours_per_month=NaN", "hours_per_month='NaN' must be a number"),
    ("/api/recommend?gpus=1e30", "gpus='1e30' must be a number from 0.001 to 1024"),
    ("/api/recommend?gpus=1e-400", "gpus='1e-400' must be a number from 0.001"),
    ("/api/recommend?storage_gb=1e400", "storage_gb='1e400' must be a number from 0 to 1000000000"),
    ("/api/recommend?spot_overhead=1e9", "spot_overhead='1e9' must be a number from 1 to 10"),
    ("/api/recommend?min_gpu_memory=-1", "min_gpu_memory='-1' must be a number from 0"),
    ("/api/compare?gpu=H100&count=1e-400", "count='1e-400' must be a number from 0.001 to 1024"),
    ("/recommend?gpus=8&hours_per_month=1e-30", "hours_per_month='1e-30' must be a number from 0.1 to 744"),
]


@pytest.mark.parametrize(("path", "says"), REFUSED, ids=[p for p, _ in REFUSED])
def test_a_number_out_of_range_is_a_400_in_one_sentence(served: Served, path: str, says: str) -> None:
    answer = served.get(path)
    assert answer.status_code == 400, answer.text[:300]
    text = answer.json()["error"] if path.startswith("/api/") else unescape(answer.text)
    assert says in text, text[:500]


@pytest.mark.parametrize(
    "path",
    ["/api/recommend?hours_per_month=", "/api/recommend?gpus=", "/recommend?gpus=", "/api/compare?gpu=H100&count="],
)
def test_a_long_bad_value_is_quoted_by_its_head(served: Served, path: str) -> None:
    answer = served.get(path + LONG[:190])  # under the 200 characters a parameter may have
    assert answer.status_code == 400
    text = answer.json()["error"] if path.startswith("/api/") else unescape(answer.text)
    assert "9" * HEAD in text and "9" * (HEAD + 1) not in text and "(190 characters)" in text
    longer = served.get(path + LONG)
    assert longer.status_code == 400 and LONG[: HEAD + 1] not in longer.text


def test_an_unknown_parameter_is_quoted_by_its_head(served: Served) -> None:
    answer = served.get(f"/api/recommend?{'x' * 5000}=1")
    assert answer.status_code == 400 and len(answer.json()["error"]) < 400


def test_the_edges_of_each_range_answer(served: Served) -> None:
    for path in (
        "/api/recommend?gpus=1024&hours_per_month=744&months=240",
        "/api/recommend?gpus=8&hours_per_month=0.1&months=1",
        "/api/compare?gpu=H100&count=1024",
        "/recommend?gpus=8&hours_per_month=0.1",
    ):
        answer = served.get(path)
        assert answer.status_code == 200, (path, answer.text[:300])


def test_one_range_for_both_faces() -> None:
    assert parse("hours_per_month", "744") == Decimal(744)
    with pytest.raises(OutOfRange, match=r"--hours-per-month='745' must be a number from 0.1 to 744"):
        RANGES["hours_per_month"].parse("--hours-per-month", "745")
    with pytest.raises(OutOfRange, match="must be a whole number of GPUs"):
        parse("gpus", "1.5")
    with pytest.raises(OutOfRange, match=r"\(20,000 characters\) is not a number"):
        parse("gpus", LONG)
    assert parse("usable_memory_share", "1") == 1
    with pytest.raises(OutOfRange, match="above 0 and at most 1"):
        parse("usable_memory_share", "0")
