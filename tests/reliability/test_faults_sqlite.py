"""The fault matrix (`fault_matrix.py`) on SQLite: each fault of issue 30, and what must hold."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.helpers.faults import Store, can_chattr, chattr, sqlite_files
from tests.reliability.fault_matrix import Ctx, Fault, rows_for

pytestmark = pytest.mark.slow


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[Store]:
    folder = tmp_path / "store"
    folder.mkdir()
    if not can_chattr(folder):
        pytest.skip("chattr +i does not work here: the store cannot be stopped")
    db = folder / "tracker.db"
    url = f"sqlite:///{db}"
    yield Store("sqlite", url, url, db=db)
    chattr("-i", [*sqlite_files(db), folder])


@pytest.mark.parametrize("fault", rows_for("sqlite"), ids=str)
def test_fault(fault: Fault, sqlite_store: Store, home: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("GPU_TRACKER_DATABASE_URL", sqlite_store.url)
    fault.check(Ctx(sqlite_store, home, tmp_path, Cli(home, capsys)))
