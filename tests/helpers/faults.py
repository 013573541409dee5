"""Faults of the store for the fault-matrix tests, on each back end.

- PostgreSQL "stops": the daemon reaches the server through `TcpProxy` on
  127.0.0.1, which can drop every open connection and refuse new ones, and
  later let them through again. The server itself (shared by other tests)
  is never touched.
- SQLite "stops": the database file and its WAL are made immutable
  (`chattr +i`): every write fails with SQLite's "disk I/O error", even
  through open handles, as on a disk that went away or went read-only;
  `chattr -i` brings it back. The WAL index (`-shm`) stays writable: SQLite
  maps it into memory, and a write to a mapped immutable file is a SIGBUS.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit


class TcpProxy:
    """Forwards 127.0.0.1:<port> to `target`; `down()` cuts every connection
    and refuses new ones until `up()`."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.server.getsockname()[1])
        self.open = threading.Event()
        self.open.set()
        self.sockets: set[socket.socket] = set()
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            if not self.open.is_set():
                client.close()  # the server is "down": the connection is refused at once
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()
            with self.lock:
                self.sockets.discard(source)
                self.sockets.discard(sink)

    def down(self) -> None:
        self.open.clear()
        with self.lock:
            live = list(self.sockets)
        for s in live:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def up(self) -> None:
        self.open.set()

    def close(self) -> None:
        self.closed = True
        self.down()
        self.server.close()

    def url(self, url: str) -> str:
        """`url` (a PostgreSQL URL) through this proxy."""
        netloc = urlsplit(url).netloc
        host = netloc.rpartition("@")[2]
        return url.replace(f"@{host}", f"@127.0.0.1:{self.port}", 1)


def chattr(flag: str, paths: list[Path]) -> None:
    existing = [str(p) for p in paths if p.exists()]
    if existing:
        subprocess.run(["chattr", flag, *existing], check=True, capture_output=True)


def sqlite_files(db: Path) -> list[Path]:
    return [db, Path(f"{db}-wal"), Path(f"{db}-shm")]


@dataclass
class Store:
    """One back end as a fault test sees it: the URL the processes under
    test use, the test's own URL (never cut), and how to stop and restart it."""

    name: str
    url: str
    direct_url: str
    proxy: TcpProxy | None = None
    db: Path | None = None
    frozen: list[Path] = field(default_factory=list)

    def down(self) -> None:
        if self.proxy is not None:
            self.proxy.down()
        else:
            assert self.db is not None
            self.frozen = sqlite_files(self.db)[:2]
            chattr("+i", self.frozen)

    def up(self) -> None:
        if self.proxy is not None:
            self.proxy.up()
        else:
            chattr("-i", self.frozen)
            self.frozen = []

    @contextlib.contextmanager
    def stopped(self) -> Iterator[None]:
        self.down()
        try:
            yield
        finally:
            self.up()


def can_chattr(folder: Path) -> bool:
    probe = folder / ".chattr-probe"
    probe.write_text("x")
    try:
        chattr("+i", [probe])
        chattr("-i", [probe])
        return True
    except (subprocess.CalledProcessError, FileNotFoundError):
        return False
    finally:
        probe.unlink(missing_ok=True)
