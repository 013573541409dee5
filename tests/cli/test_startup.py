"""The command line starts fast: heavy libraries load only in the commands
that use them, and a current store is opened without Alembic."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from db.store.engine import _alembic_config, _stored_heads, make_engine, migrate
from db.store.heads import script_heads

HEAVY = ("pandas", "matplotlib", "scrapy", "twisted", "apprise", "alembic", "pyarrow", "sqlalchemy", "sqlmodel")
ROOT = Path(__file__).resolve().parents[2]


def loaded_after(argv: list[str], home: Path, *, extra: tuple[str, ...] = ()) -> tuple[int, list[str]]:
    """Runs the CLI on `argv` in a fresh interpreter; its exit code and
    which heavy modules (and `extra` ones) it loaded."""
    script = (
        "import contextlib, io, json, sys\n"
        "from tracker.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main({argv!r})\n"
        f"print(json.dumps([code, [m for m in {HEAVY + extra!r} if m in sys.modules]]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GPU_TRACKER_HOME": str(home)}
    env.pop("GPU_TRACKER_DATABASE_URL", None)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    code, loaded = json.loads(out.stdout.strip().splitlines()[-1])
    return code, loaded


def test_importing_the_cli_loads_nothing_heavy() -> None:
    script = f"import sys, tracker.cli; print([m for m in {HEAVY!r} + ('pydantic',) if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["prices", "--help"], ["demo", "--help"], ["plot", "--help"], ["alerts", "outbox", "--help"]],
)
def test_help_loads_nothing_heavy(argv: list[str], tmp_path: Path) -> None:
    assert loaded_after(argv, tmp_path) == (0, [])


@pytest.mark.parametrize(
    "argv",
    [
        ["prices", "--gpu", "H100", "--format", "json"],
        ["prices", "--format", "csv"],
        ["runs", "--format", "json"],
        ["changes", "--since", "7d", "--format", "json"],
    ],
)
def test_a_simple_query_on_a_current_store_loads_nothing_heavy(argv: list[str], tmp_path: Path) -> None:
    """Not even the store's ORM: `db.store.reads.reader` reads it with the driver. (Pydantic
    does load: Typer converts option values with it; the settings models do not.)"""
    migrate(make_engine(f"sqlite:///{tmp_path / 'tracker.db'}"))
    assert loaded_after(argv, tmp_path, extra=("tracker.config.settings",)) == (0, [])


def test_the_changes_table_words_changes_without_the_orm(demo_run, tmp_path: Path) -> None:
    """Each change in words (the alert cards, on the value types of `db.schema`),
    with neither SQLModel nor SQLAlchemy loaded."""
    from tests.helpers.stores import copy_home

    home = copy_home(demo_run.home, tmp_path / "home")
    assert loaded_after(["changes", "--limit", "50"], home) == (0, [])


@pytest.mark.parametrize("command", ["report", "recommend"])
def test_the_report_and_recommend_on_a_current_store_load_neither_pandas_nor_the_orm(
    command: str, tmp_path: Path
) -> None:
    """They rank and draw on the driver's connection: at 100,000 prices
    pandas and SQLAlchemy alone were most of the report's second."""
    migrate(make_engine(f"sqlite:///{tmp_path / 'tracker.db'}"))
    argv = ["report", "--out", str(tmp_path / "r.html")] if command == "report" else ["recommend", "--gpus", "8"]
    code, loaded = loaded_after(argv, tmp_path)
    assert loaded == []
    if command == "report":  # (recommend ends with "no prices" on an empty store)
        assert code == 0
        assert "Source health" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_a_query_on_a_store_not_created_yet_takes_the_orm_path(tmp_path: Path) -> None:
    code, loaded = loaded_after(["prices", "--gpu", "H100", "--format", "json"], tmp_path)
    assert code == 0
    assert "sqlmodel" in loaded  # it creates the store
    assert not {"pandas", "matplotlib", "scrapy", "apprise"} & set(loaded)


def test_script_heads_read_as_text_are_alembics() -> None:
    from alembic.script import ScriptDirectory

    engine = make_engine("sqlite://")
    assert script_heads() == set(ScriptDirectory.from_config(_alembic_config(engine)).get_heads())


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_migrated_store_is_recognized_as_current(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = f"sqlite:///{tmp_path / 'tracker.db'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    engine = make_engine(url)
    assert _stored_heads(engine) is None
    migrate(engine)
    assert _stored_heads(engine) == script_heads()
    migrate(engine)  # current: a no-op
    engine.dispose()
