"""The copy of a store that tests start from (tests/helpers/replayed.py), on
SQLite and PostgreSQL: every row of every table, written over what the
target held, and the ids the next run writes follow the original's."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from db.store.engine import make_engine
from tests.file_import.test_import_jsonl import T0, export
from tests.helpers.replayed import copy_store
from tracker.file_import.importing import import_file
from tracker.run.pipeline import Pipeline


@pytest.fixture
def second_url(store_backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Another migrated, empty store on the same back end."""
    if store_backend == "sqlite":
        path = tmp_path / "second.db"
        path.write_bytes(request.getfixturevalue("sqlite_template").read_bytes())
        yield f"sqlite:///{path}"
        return
    server = request.getfixturevalue("pg_server")
    with server.schema(request.getfixturevalue("pg_migrations")) as url:
        yield url


def imported(url: str, folder: Path, day: int, prices: dict[int, str]) -> None:
    engine = make_engine(url)
    try:
        pipeline = Pipeline(engine=engine, clock=lambda: T0 + timedelta(days=40))
        import_file(pipeline, export(folder / f"d{day}.jsonl", day, prices), source="mine")
    finally:
        engine.dispose()


def rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    engine = sa.create_engine(url)
    try:
        names = sa.inspect(engine).get_table_names()
        with engine.connect() as conn:
            return {n: sorted(map(tuple, conn.exec_driver_sql(f'SELECT * FROM "{n}"')), key=repr) for n in names}
    finally:
        engine.dispose()


def test_a_copy_holds_every_row_and_numbers_on(db_url: str, second_url: str, tmp_path: Path) -> None:
    imported(db_url, tmp_path, 1, {i: f"{10 + i}.50" for i in range(5)})
    imported(db_url, tmp_path, 2, {i: f"{10 + i}.50" for i in range(4)} | {9: "1.00"})
    imported(second_url, tmp_path, 1, {7: "3.00"})  # what the target held goes
    original = rows(db_url)
    assert original["changes"] and len(original["crawl_runs"]) == 2 and len(original["price_points"]) == 6

    copy_store(db_url, second_url)
    assert rows(second_url) == original
    copy_store(db_url, second_url)  # over a copy: the same again
    assert rows(second_url) == original

    # The next run in each store gets the same ids: the sequences were copied.
    for url in (db_url, second_url):
        imported(url, tmp_path, 3, {i: f"{20 + i}.50" for i in range(5)})
    after = rows(db_url)
    assert after == rows(second_url) and len(after["crawl_runs"]) == 3
