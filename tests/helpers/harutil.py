"""Helpers to derive test captures from fixture captures."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from spiders.har import read_har, write_har


def shifted(src: Path, dst: Path, when: datetime, edit: Callable[[int, dict[str, Any]], None] | None = None) -> Path:
    """A copy of `src` recorded at `when`; `edit(i, entry)` may change entries."""
    data = read_har(src)
    for i, entry in enumerate(data["log"]["entries"]):
        entry["startedDateTime"] = when.isoformat().replace("+00:00", "Z")
        if edit:
            edit(i, entry)
    write_har(dst, data["log"]["entries"])
    return dst


def page_json(entry: dict[str, Any]) -> dict[str, Any]:
    return json.loads(entry["response"]["content"]["text"])


def set_page_json(entry: dict[str, Any], page: dict[str, Any]) -> None:
    entry["response"]["content"]["text"] = json.dumps(page)


def assert_broken_replay_keeps_data(
    cli: Any, crawl: Callable[[Any, Path], Any], good: Path | None, broken: Path, message: str
) -> None:
    """`good` loads (None: the store holds it already, `replayed`); `broken`
    then fails in one line naming `message`, as a failed run, and the prices
    stay as they were."""
    if good is not None:
        assert crawl(cli, good).code == 0
    before = cli("prices", "--format", "json").out
    result = crawl(cli, broken)
    assert result.code == 1 and "Traceback" not in result.err
    assert message in result.err
    assert cli("prices", "--format", "json").out == before
    assert json.loads(cli("runs", "--format", "json").out)[0]["status"] == "failed"


def only(quotes: list[Any], **want: str) -> Any:
    """The one quote whose fields (as strings) are `want`; fails otherwise."""
    found = [q for q in quotes if all(str(getattr(q, k)) == v for k, v in want.items())]
    assert len(found) == 1, (want, found)
    return found[0]


def one_error_line(result: Any) -> str:
    """The one `error:` line of a failed CLI call (exit 1, no traceback)."""
    assert result.code == 1 and "Traceback" not in result.err
    errors = [line for line in result.err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.err
    return errors[0]


def from_jsonl(items: Iterable[Mapping[str, Any]]) -> list[Any]:
    """Items built by hand (odd ones on purpose), typed as a normalizer reads
    them: JSON lines of a run's items.jsonl, untyped and taken on trust as
    the TypedDicts of spiders/<provider>/items.py declare them
    (`tracker.normalize.Normalizer`)."""
    return list(items)
