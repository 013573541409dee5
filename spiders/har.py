"""A small HAR 1.2 reader, matcher and writer.

Requests match by method and URL, with the query compared as decoded pairs
regardless of order and percent-encoding, and for POST by body (JSON bodies
compared as JSON).
"""

from __future__ import annotations

import base64
import gzip
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

# What a secret query parameter (an API key) is written as in captures, logs
# and errors; on replay any value of that parameter matches it.
SECRET_PLACEHOLDER = "REDACTED"

# The HAR entry field (an underscore custom field, as HAR 1.2 allows) marking
# a page as the browser rendered it, and the one marking the browser's own raw
# network entries.
RENDERED = "_rendered"
FROM_BROWSER = "_browser"

# Replayed bodies are already decoded, and their length may differ from the
# recorded one; keeping these headers would make Scrapy decode them twice.
DROPPED_REPLAY_HEADERS = {"content-encoding", "content-length", "transfer-encoding"}


class HarError(Exception):
    """The file is not a readable HAR 1.2 capture."""


@dataclass(frozen=True)
class HarResponse:
    url: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    started: str
    error: str = ""
    # The page as the browser rendered it (a scrapy-playwright response),
    # not a raw network answer: replayed as is, with no browser.
    rendered: bool = False


# Query parameters that carry a secret whatever the spider declares: the names
# the configuration's masking rule knows (tracker/logs.py), so that a key or
# token a user put in an `api_url` is never written to a capture.
ALWAYS_SECRET = frozenset(
    {"api_key", "api-key", "apikey", "access_key", "access-key", "key", "token", "access_token", "secret"}
    | {"password", "passwd", "pwd", "sig", "signature"}
)


def mask_query(url: str, secret_params: Iterable[str]) -> str:
    """`url` with the value of every secret query parameter (the spider's and
    ALWAYS_SECRET) and the password of its user part replaced by
    SECRET_PLACEHOLDER; other parameters keep their order and values."""
    secret = {p.lower() for p in secret_params} | ALWAYS_SECRET
    parts = urlsplit(url)
    if parts.password:
        host = parts.netloc.rpartition("@")[2]
        parts = parts._replace(netloc=f"{parts.username}:{SECRET_PLACEHOLDER}@{host}")
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if not any(k.lower() in secret for k, _ in pairs):
        return parts.geturl() if parts.password else url
    query = urlencode([(k, SECRET_PLACEHOLDER if k.lower() in secret else v) for k, v in pairs])
    return parts._replace(query=query).geturl()


def with_query(url: str, query: str) -> str:
    """`url` with `query` added to the query it already has ("?a=1" and
    "key=K" give "?a=1&key=K"), never a second "?"."""
    return f"{url}{'&' if urlsplit(url).query else '?'}{query}"


def mask_json_body(body: bytes | None, secret_params: Iterable[str]) -> bytes | None:
    """`body` with the secret names among its JSON object's top-level members
    (an OAuth token request's client_secret, its answer's access_token) written
    as SECRET_PLACEHOLDER; any other body unchanged."""
    secret = {p.lower() for p in secret_params}
    if not body or not secret:
        return body
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return body
    if not isinstance(data, dict) or not any(str(k).lower() in secret for k in data):
        return body
    masked = {k: SECRET_PLACEHOLDER if str(k).lower() in secret else v for k, v in data.items()}
    return json.dumps(masked).encode("utf-8")


def request_key(
    method: str, url: str, body: bytes | str | None = None, secret_params: Iterable[str] = ()
) -> tuple[Any, ...]:
    """What a request is matched by. The values of `secret_params`, in the
    query or as top-level members of a JSON body, match any value."""
    parts = urlsplit(mask_query(url, secret_params))
    query = tuple(sorted(parse_qsl(parts.query, keep_blank_values=True)))
    return (
        method.upper(),
        parts.scheme.lower(),
        parts.netloc.lower(),
        unquote(parts.path) or "/",
        query,
        _body_key(method, body, secret_params),
    )


def _body_key(method: str, body: bytes | str | None, secret_params: Iterable[str] = ()) -> str:
    if method.upper() not in {"POST", "PUT", "PATCH"} or not body:
        return ""
    raw = body.encode("utf-8") if isinstance(body, str) else body
    text = (mask_json_body(raw, secret_params) or b"").decode("utf-8", "replace")
    try:
        return json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
    except ValueError:
        return text


def read_har(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise HarError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        data = json.loads(raw.decode("utf-8"))
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as exc:
        raise HarError(f"{path} is not a HAR file: {type(exc).__name__}: {exc}") from None
    entries = data.get("log", {}).get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise HarError(f"{path} is not a HAR file: it has no log.entries list")
    return data


def _entry_response(entry: dict[str, Any]) -> HarResponse:
    req, resp = entry["request"], entry["response"]
    content = resp.get("content") or {}
    text = content.get("text") or ""
    if content.get("encoding") == "base64":
        body = base64.b64decode(text)
    else:
        body = text.encode("utf-8")
    headers = [
        (h["name"], h["value"])
        for h in resp.get("headers", [])
        if h.get("name", "").lower() not in DROPPED_REPLAY_HEADERS
    ]
    return HarResponse(
        url=req["url"],
        status=int(resp["status"]),
        headers=headers,
        body=body,
        started=str(entry.get("startedDateTime") or ""),
        error=str(resp.get("_error") or entry.get("_error") or ""),
        rendered=bool(entry.get(RENDERED)),
    )


class HarArchive:
    """Serves recorded responses. Repeated requests get the recorded ones in
    order, and the last one again once they run out. The values of
    `secret_params` are ignored in matching: a capture holds the placeholder."""

    def __init__(self, path: str | Path, secret_params: Iterable[str] = ()) -> None:
        self.path = Path(path)
        self.secret_params = tuple(secret_params)
        data = read_har(self.path)
        self._served: dict[tuple[Any, ...], int] = defaultdict(int)
        self._entries: dict[tuple[Any, ...], list[HarResponse]] = defaultdict(list)
        for n, entry in enumerate(data["log"]["entries"], start=1):
            try:
                req = entry["request"]
                body = (req.get("postData") or {}).get("text")
                key = request_key(str(req["method"]), str(req["url"]), body, self.secret_params)
                self._entries[key].append(_entry_response(entry))
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise HarError(
                    f"{self.path} is not a HAR file: entry {n} is malformed ({type(exc).__name__}: {exc})"
                ) from None

    def __len__(self) -> int:
        return sum(len(v) for v in self._entries.values())

    def lookup(
        self,
        method: str,
        url: str,
        body: bytes | str | None = None,
        *,
        peek: bool = False,
        rendered: bool = False,
    ) -> HarResponse | None:
        """The next recorded answer. A browser page (`rendered`) is answered
        by the page as rendered when the capture has it, a plain request by
        the raw answer: a capture holds both for a page the browser loaded."""
        key = request_key(method, url, body, self.secret_params)
        found = [r for r in self._entries.get(key, ()) if r.rendered == rendered] or self._entries.get(key)
        if not found:
            return None
        served = (key, rendered)
        index = min(self._served[served], len(found) - 1)
        if not peek:
            self._served[served] += 1
        return found[index]

    def has_rendered(self, method: str, url: str, body: bytes | str | None = None) -> bool:
        key = request_key(method, url, body, self.secret_params)
        return any(r.rendered for r in self._entries.get(key, ()))


def har_entry(
    *,
    method: str,
    url: str,
    request_headers: list[tuple[str, str]],
    request_body: bytes | None,
    status: int,
    response_headers: list[tuple[str, str]],
    body: bytes,
    mime_type: str,
    started: datetime,
    elapsed_ms: float,
    rendered: bool = False,
) -> dict[str, Any]:
    try:
        content: dict[str, Any] = {"size": len(body), "mimeType": mime_type, "text": body.decode("utf-8")}
    except UnicodeDecodeError:
        content = {
            "size": len(body),
            "mimeType": mime_type,
            "encoding": "base64",
            "text": base64.b64encode(body).decode("ascii"),
        }
    query = [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=True)]
    request: dict[str, Any] = {
        "method": method,
        "url": url,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": [{"name": k, "value": v} for k, v in request_headers],
        "queryString": query,
        "headersSize": -1,
        "bodySize": len(request_body or b""),
    }
    if request_body:
        request["postData"] = {"mimeType": "application/json", "text": request_body.decode("utf-8", "replace")}
    entry: dict[str, Any] = {
        "startedDateTime": started.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "time": round(elapsed_ms, 3),
        "request": request,
        "response": {
            "status": status,
            "statusText": "",
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": [{"name": k, "value": v} for k, v in response_headers],
            "content": content,
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(body),
        },
        "cache": {},
        "timings": {"send": 0, "wait": round(elapsed_ms, 3), "receive": 0},
    }
    if rendered:
        entry[RENDERED] = True
    return entry


def browser_capture_path(record: str) -> str:
    """Where the browser's own HAR goes; the caller merges it into `record`."""
    return record + ".browser.har"


def merge_har(target: str | Path, extra: str | Path) -> None:
    """Append the entries of `extra` (the browser's capture, marked as such)
    to `target`, in time order, and remove `extra`."""
    from_browser = [{**e, FROM_BROWSER: True} for e in read_har(extra)["log"]["entries"]]
    entries = read_har(target)["log"]["entries"] + from_browser
    entries.sort(key=lambda e: str(e.get("startedDateTime", "")))
    write_har(target, entries)
    Path(extra).unlink()


def needs_browser(path: str | Path) -> bool:
    """Whether replaying the capture needs Chromium: it holds the browser's
    raw network answers but no page as the browser rendered it (a capture
    recorded before pages were kept as rendered)."""
    entries = read_har(path)["log"]["entries"]
    return any(e.get(FROM_BROWSER) for e in entries) and not any(e.get(RENDERED) for e in entries)


def write_har(path: str | Path, entries: list[dict[str, Any]], *, creator: str = "gpu-tracker") -> None:
    data = {"log": {"version": "1.2", "creator": {"name": creator, "version": "1"}, "pages": [], "entries": entries}}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8")
    if path.suffix == ".gz":
        payload = gzip.compress(payload)
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(payload)
    tmp.replace(path)
