"""The simple queries (`prices`, `runs`, `changes`) read the store through
`db.store.reads.reader`, without the ORM: on a demo store, on SQLite and on PostgreSQL,
they print byte for byte what the ORM path (`db.store.reads.session` in a SQLModel
session) prints, in every format. A store that is not ready for the reader
(missing, behind the migrations, a run to settle) is opened the ORM way, as
before; a PostgreSQL that does not answer is one sentence."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from db.kinds import is_side_cost
from db.store.engine import StoreError, make_engine, migrate
from db.store.reads import session as store
from db.store.reads.reader import Reader, Unreachable, open_reader, script_heads
from tracker.answers.columns import (
    CHANGE_COLUMNS,
    CHANGE_TABLE,
    PRICE_COLUMNS,
    PRICE_TABLE,
    RUN_COLUMNS,
    RUN_TABLE,
    change_dict,
)
from tracker.answers.rows import price_dict
from tracker.cli.output import OutputFormat, emit

FORMATS = [["--format", "json"], ["--format", "csv"], [], ["--wide"]]
PRICE_FILTERS: list[dict[str, str]] = [
    {},
    {"gpu": "H100"},
    {"gpu": "a1"},
    {"provider": "aws", "price_model": "reserved"},
    {"region": "westeurope"},
    {"instance_type": "p5.48xlarge"},
]


def _fmt(args: list[str]) -> tuple[OutputFormat, bool]:
    return (OutputFormat(args[1]) if args and args[0] == "--format" else OutputFormat.table), "--wide" in args


def _options(filters: dict[str, Any]) -> list[str]:
    return [part for key, value in filters.items() for part in (f"--{key.replace('_', '-')}", str(value))]


def _orm_prices(session: Session, filters: dict[str, str]) -> list[dict[str, Any]]:
    return [store.point_to_dict(p) for p in store.query_prices(session=session, **filters)]  # type: ignore[arg-type]


def _printed(capsys: pytest.CaptureFixture[str], rows: list[dict[str, Any]], args: list[str], **kw: Any) -> str:
    fmt, wide = _fmt(args)
    capsys.readouterr()
    emit(rows, fmt, wide=wide, **kw)
    return capsys.readouterr().out


@pytest.mark.slow
# Thousands of rows drawn as tables, twice per format: minutes when the cores are shared.
@pytest.mark.timeout(900)
def test_simple_queries_on_a_demo_store_match_the_orm_path(
    demo_cli, demo_db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # A copy of the demo's store on each back end for the three checks.
    demo, db_url = demo_cli, demo_db_url
    reads_what_the_orm_reads(db_url)
    prices_print_what_the_orm_path_prints(demo, db_url, capsys)
    runs_and_changes_print_what_the_orm_path_prints(demo, db_url, capsys)


def reads_what_the_orm_reads(db_url: str) -> None:
    engine = make_engine(db_url)
    reader = open_reader(db_url)
    assert isinstance(reader, Reader)  # a current demo store: no fallback
    with reader, Session(engine) as session:
        for filters in PRICE_FILTERS:
            fast, orm = reader.prices(**filters), _orm_prices(session, filters)
            assert fast == orm, filters
            # Exact numbers keep their stored digits, times are aware UTC.
            assert [str(r["price"]) for r in fast] == [str(r["price"]) for r in orm]
            assert all(r["valid_from"].utcoffset().total_seconds() == 0 for r in fast)
        assert len(reader.prices()) > 1000
        assert reader.runs(limit=500) == [r.model_dump() for r in store.list_runs(session=session, limit=500)]
        assert reader.runs(source="aws", limit=3) == [
            r.model_dump() for r in store.list_runs(session=session, source="aws", limit=3)
        ]
        since = store.query_changes(session=session)[5].observed_at
        for kw in ({}, {"since": since}, {"kinds": ["price_drop", "new_sku"], "limit": 7}, {"provider": "azure"}):
            expected = [c.model_dump() for c in store.query_changes(session=session, **kw)]
            assert expected and reader.changes(**kw) == expected, kw
    engine.dispose()


def prices_print_what_the_orm_path_prints(demo, db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    engine = make_engine(db_url)
    with Session(engine) as session:
        for filters in PRICE_FILTERS:
            # `prices` lists GPU prices; the tracked side costs are `prices --side-costs`' (issue 42).
            orm_rows = [price_dict(p) for p in _orm_prices(session, filters) if not is_side_cost(p["source"])]
            # JSON and CSV hold every field of every row; a table is the same rows drawn by the same
            # `emit`, so two small listings drawn (and wide) are enough (drawing hundreds took most of the time).
            for args in FORMATS if filters.keys() & {"instance_type", "price_model"} else FORMATS[:2]:
                expected = _printed(
                    capsys, orm_rows, args, columns=PRICE_COLUMNS, table_columns=PRICE_TABLE, empty="no prices match"
                )
                result = demo("prices", *_options(filters), *args)
                assert result.code == 0, result.err
                assert result.out == expected, (filters, args)
        assert json.loads(demo("prices", "--gpu", "H100", "--format", "json").out)
    engine.dispose()


def runs_and_changes_print_what_the_orm_path_prints(demo, db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    engine = make_engine(db_url)
    with Session(engine) as session:
        runs = [r.model_dump() for r in store.list_runs(session=session, limit=20)]
        changes = store.query_changes(session=session, kinds=["price_drop", "availability_changed"])
        for args in FORMATS:
            expected = _printed(capsys, runs, args, columns=RUN_COLUMNS, table_columns=RUN_TABLE, empty="no runs yet")
            assert demo("runs", *args).out == expected, args
            expected = _printed(
                capsys,
                [change_dict(c) for c in changes],
                args,
                columns=CHANGE_COLUMNS,
                table_columns=CHANGE_TABLE,
                empty="no changes",
            )
            result = demo("changes", "--kind", "price_drop", "--kind", "availability_changed", *args)
            assert result.code == 0, result.err
            assert result.out == expected, args
    engine.dispose()


def test_a_missing_store_is_created_as_before(sqlite_cli, home: Path) -> None:
    assert open_reader(f"sqlite:///{home / 'tracker.db'}") is None
    result = sqlite_cli("prices", "--format", "json")
    assert (result.code, result.out) == (0, "[]\n")
    assert (home / "tracker.db").is_file()
    assert isinstance(open_reader(f"sqlite:///{home / 'tracker.db'}"), Reader)


def test_a_store_behind_the_migrations_is_left_to_the_orm_path(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'tracker.db'}"
    engine = make_engine(url)
    migrate(engine)
    head = max(script_heads())  # the newest of the heads, whichever it is
    with engine.begin() as conn:
        conn.exec_driver_sql(f"UPDATE alembic_version SET version_num = '0006' WHERE version_num = '{head}'")
    assert open_reader(url) is None
    engine.dispose()


def test_a_run_left_running_by_a_dead_process_is_settled_first(sqlite_cli, home: Path) -> None:
    url = f"sqlite:///{home / 'tracker.db'}"
    engine = make_engine(url)
    migrate(engine)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO crawl_runs (source, provider, spider, mode, started_at, status, regions, pages, items,"
            " rows_written, changes, pid) VALUES ('aws', 'aws', '', 'live', '2026-12-01 00:00:00.000000',"
            f" 'running', '', 0, 0, 0, 0, {int(dead.stdout)})"
        )
    engine.dispose()
    assert open_reader(url) is None
    [run] = json.loads(sqlite_cli("runs", "--format", "json").out)
    assert run["status"] == "aborted"
    assert run["error"] == "interrupted: the process running it stopped before it finished"
    assert isinstance(open_reader(url), Reader)  # settled: the reader may read it now


def test_a_postgresql_that_does_not_answer_is_one_sentence(sqlite_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    url = "postgresql+psycopg://tracker:s3cret@127.0.0.1:1/tracker"
    with pytest.raises(StoreError) as orm:
        migrate(make_engine(url))
    with pytest.raises(Unreachable) as fast:
        open_reader(url)
    assert str(fast.value) == str(orm.value)
    assert "s3cret" not in str(fast.value) and "127.0.0.1" in str(fast.value)
    monkeypatch.setenv("GPU_TRACKER_DATABASE_URL", url)
    result = sqlite_cli("prices", "--gpu", "H100", "--format", "json")
    assert result.code == 1
    assert result.out == ""
    assert result.err.strip() == f"error: {orm.value}"
    assert result.err.startswith(
        "error: cannot open the store at postgresql+psycopg://tracker:***@127.0.0.1:1/tracker:"
    )


def test_an_unreadable_sqlite_file_is_left_to_the_orm_path(tmp_path: Path) -> None:
    path = tmp_path / "tracker.db"
    path.write_bytes(b"this is not a database" * 100)
    assert open_reader(f"sqlite:///{path}") is None
    assert open_reader(f"sqlite:///{path}?mode=ro") is None
    assert open_reader("postgresql://someone@127.0.0.1/other") is None  # psycopg2's URL: the ORM's to open


def test_a_config_file_still_decides_the_store(sqlite_cli, home: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere.db"
    (home / "config.toml").write_text(f'[store]\nurl = "sqlite:///{other}"\n', encoding="utf-8")
    os.chmod(home / "config.toml", 0o600)
    assert sqlite_cli("prices", "--format", "json").out == "[]\n"
    assert other.is_file() and not (home / "tracker.db").exists()
