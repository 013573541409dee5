"""The answers on the demo store stay what they were when recorded
(tests/data/golden_answers, see its README): rankings, totals, histories,
the report's numbers, on SQLite and PostgreSQL. A faster way to an answer
must come to the same answer, rows in the same order (prices that tie on
every ordered field keep the order they were written in, on both back ends)."""

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


def test_the_commands_answer_as_recorded(settled) -> None:
    def run(*args: str) -> tuple[int, str, str]:
        result = settled(*args)
        return result.code, result.out, result.err

    differ = []
    for name, args in COMMANDS.items():
        now = command_answer(run, args)
        if dump(now) != dump(recorded(name)):
            differ.append(name)
    assert not differ, f"answers changed: {', '.join(differ)}"


def test_the_report_numbers_are_as_recorded(settled, demo_db_url) -> None:
    assert dump(report_answer(demo_db_url)) == dump(recorded("report"))
