"""Whole answers kept per ETag: the bytes a page or API answer came to, asked
again with the same tag (the store's version, the URL and the language; see
`app._etag`), are sent again without working them out. A tag that stays the
same is already the promise that the answer did not change (a client holding
it gets a 304), so the kept bytes are the bytes a new computation would
give; they are kept at most `[web] cache_seconds` (the max-age clients are
told), so that a page's "5 min ago" is never older than a browser's copy.

Only 200 answers of at most ENTRY_BYTES are kept, KEPT_BYTES in all, the
least recently asked dropped first. While one request works an answer out,
others asking the same tag wait for it instead of working it out too.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.responses import Response

ENTRY_BYTES = 4 * 1024 * 1024
KEPT_BYTES = 48 * 1024 * 1024


@dataclass(frozen=True)
class Entry:
    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    until: float

    def response(self) -> Response:
        """A new response each time: the app adds its headers to it."""
        found = Response(self.body, status_code=self.status)
        found.raw_headers = list(self.headers)
        return found


class ResponseCache:
    """The kept answers of one server, in its event loop (no lock needed)."""

    def __init__(self, seconds: float, kept_bytes: int = KEPT_BYTES, entry_bytes: int = ENTRY_BYTES) -> None:
        self.seconds = seconds
        self.kept_bytes = kept_bytes
        self.entry_bytes = entry_bytes
        self._kept: OrderedDict[str, Entry] = OrderedDict()
        self._size = 0
        self._working: dict[str, asyncio.Future[Entry | None]] = {}
        self.hits = 0
        self.misses = 0

    async def answer(self, tag: str, compute: Callable[[], Awaitable[Response]]) -> Response:
        """The kept answer for `tag`, or `compute()`'s (kept when it can be)."""
        if self.seconds <= 0:
            return await compute()
        found = self._get(tag)
        if found is not None:
            self.hits += 1
            return found.response()
        working = self._working.get(tag)
        if working is not None:
            done = await asyncio.shield(working)
            if done is not None:
                self.hits += 1
                return done.response()
            return await compute()  # the other's answer could not be kept (an error): this one's own
        self.misses += 1
        future: asyncio.Future[Entry | None] = asyncio.get_running_loop().create_future()
        self._working[tag] = future
        try:
            response = await compute()
            kept = await self._keep(tag, response)
        except BaseException:
            future.set_result(None)
            raise
        finally:
            self._working.pop(tag, None)
        if not future.done():
            future.set_result(kept)
        return kept.response() if kept is not None else response

    def _get(self, tag: str) -> Entry | None:
        found = self._kept.get(tag)
        if found is None:
            return None
        if found.until < time.monotonic():
            self._drop(tag)
            return None
        self._kept.move_to_end(tag)
        return found

    async def _keep(self, tag: str, response: Response) -> Entry | None:
        if response.status_code != 200:
            return None
        body = getattr(response, "body", None)
        if body is None:  # a streamed answer: read it whole, then sent from the bytes
            iterator = getattr(response, "body_iterator", None)
            if iterator is None:
                return None
            chunks = [chunk if isinstance(chunk, bytes) else str(chunk).encode() async for chunk in iterator]
            body = b"".join(chunks)
        kept = Entry(response.status_code, tuple(response.raw_headers), bytes(body), time.monotonic() + self.seconds)
        if len(kept.body) <= self.entry_bytes:
            self._drop(tag)
            self._kept[tag] = kept
            self._size += len(kept.body)
            while self._size > self.kept_bytes and self._kept:
                self._drop(next(iter(self._kept)))
        return kept

    def _drop(self, tag: str) -> None:
        old = self._kept.pop(tag, None)
        if old is not None:
            self._size -= len(old.body)
