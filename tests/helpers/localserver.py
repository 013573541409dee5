"""A tiny HTTP server on 127.0.0.1 for tests of the real download path, and
a tiny SMTP server for what email channels send."""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


Handler = Callable[[Received], Reply]


@contextmanager
def serve(handler: Handler) -> Iterator[tuple[str, list[Received]]]:
    """Yields the base URL and the list of requests received so far."""
    received: list[Received] = []

    class _H(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            req = Received(self.command, self.path, dict(self.headers), self.rfile.read(length) if length else b"")
            received.append(req)
            reply = handler(req)
            self.send_response(reply.status)
            for k, v in reply.headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        do_GET = do_POST = _answer

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), _H)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", received
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve_smtp() -> Iterator[tuple[int, list[bytes]]]:
    """Yields the port and the messages (raw RFC 5322 bytes) received so far.
    It accepts every command and offers neither TLS nor AUTH: just enough SMTP."""
    received: list[bytes] = []

    class _H(socketserver.StreamRequestHandler):
        def _reply(self, line: str) -> None:
            self.wfile.write(line.encode("ascii") + b"\r\n")

        def handle(self) -> None:
            self._reply("220 127.0.0.1 ESMTP test")
            data: list[bytes] | None = None
            for line in self.rfile:
                if data is not None:
                    if line.rstrip(b"\r\n") == b".":
                        received.append(b"".join(data))
                        data = None
                        self._reply("250 OK")
                    else:
                        data.append(line[1:] if line.startswith(b"..") else line)
                    continue
                verb = line[:4].upper()
                if verb in (b"EHLO", b"HELO"):
                    self._reply("250 127.0.0.1")
                elif verb == b"DATA":
                    data = []
                    self._reply("354 end with <CRLF>.<CRLF>")
                elif verb == b"QUIT":
                    self._reply("221 bye")
                    return
                else:
                    self._reply("250 OK")

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _H)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], received
    finally:
        server.shutdown()
        server.server_close()
