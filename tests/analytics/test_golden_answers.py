"""The answers on the demo store stay what they were when recorded
(tests/data/golden_answers, see its README): rankings, totals, histories,
the report's numbers, on SQLite and PostgreSQL. A faster way to an answer
must come to the same answer."""

from __future__ import annotations

import json

import pytest

from tests.helpers.golden_answers import COMMANDS, FOLDER, command_answer, dump, report_answer, settle


@pytest.fixture
def settled(demo_cli, demo_db_url):
    settle(demo_db_url)
    return demo_cli


def recorded(name: str):
    return json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))


def test_every_command_has_its_recorded_answer() -> None:
    assert {p.stem for p in FOLDER.glob("*.json")} == {*COMMANDS, "report"}


def unordered(answer: dict) -> str:
    """The answer with its rows as a set and without ranks: what is left when
    the order of rows that tie on every ranked field is the server's choice."""
    rows = answer["rows"]
    if rows is None:
        return dump(answer)
    rows = sorted(dump({k: v for k, v in row.items() if k != "rank"}) for row in rows)
    return dump({**answer, "rows": rows})


def test_the_commands_answer_as_recorded(settled, store_backend: str) -> None:
    def run(*args: str) -> tuple[int, str, str]:
        result = settled(*args)
        return result.code, result.out, result.err

    same = dump if store_backend == "sqlite" else unordered
    differ = []
    for name, args in COMMANDS.items():
        now = command_answer(run, args)
        if same(now) != same(recorded(name)):
            differ.append(name)
    assert not differ, f"answers changed: {', '.join(differ)}"


def test_the_report_numbers_are_as_recorded(settled, demo_db_url) -> None:
    assert dump(report_answer(demo_db_url)) == dump(recorded("report"))
