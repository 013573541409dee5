"""The fault matrix (`fault_matrix.py`) on PostgreSQL: each fault of issue 30,
and what must hold. The processes under test reach the server through a TCP
proxy that can cut them off; the server itself is never stopped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import Cli
from tests.helpers.faults import Store, TcpProxy
from tests.reliability.fault_matrix import Ctx, Fault, rows_for

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


@pytest.fixture
def pg_store(pg_url: str) -> Iterator[Store]:
    parts = urlsplit(pg_url)
    proxy = TcpProxy((parts.hostname or "127.0.0.1", parts.port or 5432))
    yield Store("postgres", proxy.url(pg_url), pg_url, proxy=proxy)
    proxy.close()


@pytest.mark.parametrize("fault", rows_for("postgres"), ids=str)
def test_fault(fault: Fault, pg_store: Store, home: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("GPU_TRACKER_DATABASE_URL", pg_store.url)
    fault.check(Ctx(pg_store, home, tmp_path, Cli(home, capsys)))
