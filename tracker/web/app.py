"""The web app: FastAPI (on Starlette) with the pages and the JSON API over one
`Answers`. Safe by default: read-only (GET and HEAD only), a strict
Content-Security-Policy with no script at all, authentication when a token or
a user is configured, and every failure one sentence (docs/web.md)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import re
import secrets
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException

from tracker import __version__
from tracker.config.web import WebSettings
from tracker.errors import TrackerError, UserError
from tracker.web.answers import Answers, store_reason
from tracker.web.cache import ResponseCache
from tracker.web.labels import Words, choose
from tracker.web.params import BadParameter

log = logging.getLogger("gpu_tracker.web")

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'none'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
OPEN_PATHS = ("/healthz",)
# Answers that move with the clock as well as with the store (ages,
# staleness, the last seven days): their tag holds the minute too.
CLOCK_PATHS = ("/", "/sources", "/api/sources")
SPAN = re.compile(r"\s*\d+\s*[a-z]+\s*$", re.I)  # since=7d: a span back from now


def _package_dir(name: str) -> str:
    return str(resources.files("tracker.web") / name)


def templates() -> Jinja2Templates:
    found = Jinja2Templates(directory=_package_dir("templates"))
    found.env.globals["version"] = __version__
    return found


def words(request: Request) -> Words:
    return Words(choose(request.headers.get("accept-language")))


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or request.url.path.startswith("/feeds/")


def _authorized(header: str | None, settings: WebSettings) -> bool:
    token, basic = settings.secret(), settings.basic()
    if token is None and basic is None:
        return True
    if not header:
        return False
    scheme, _, value = header.partition(" ")
    if token is not None and scheme.lower() == "bearer":
        return hmac.compare_digest(value.strip().encode(), token.encode())
    if scheme.lower() == "basic":
        try:
            user, _, password = base64.b64decode(value.strip(), validate=True).decode().partition(":")
        except (ValueError, UnicodeDecodeError):
            return False
        if basic is not None and hmac.compare_digest(f"{user}:{password}".encode(), ":".join(basic).encode()):
            return True
        # With a token alone, a browser asks for it as the password (any user name).
        return token is not None and hmac.compare_digest(password.encode(), token.encode())
    return False


def error(request: Request, status: int, message: str) -> Response:
    """One sentence: JSON for the API, a small page for people."""
    if wants_json(request):
        return JSONResponse({"error": message}, status_code=status, headers=SECURITY_HEADERS)
    page = request.app.state.templates.TemplateResponse(
        request, "error.html", {"t": words(request), "message": message, "status": status}, status_code=status
    )
    page.headers.update(SECURITY_HEADERS)
    return page


def create_app(answers: Answers, settings: WebSettings, healthy: Callable[[], bool] | None = None) -> FastAPI:
    """The app over `answers`; /healthz answers `healthy()` (the daemon's
    scheduler) or, for `gpu-tracker serve`, whether the store answers.
    `settings` are those it is served with (the server may set others,
    as `app.state.settings`, before it listens). A blank or short token is
    refused here, in one sentence, before anything listens."""
    from tracker.web import api, pages

    problem = settings.credential_problem()
    if problem is not None:
        raise UserError(problem)

    app = FastAPI(
        title="gpu-tracker",
        version=__version__,
        description="Read-only answers of gpu-tracker: the JSON of the CLI's `--format json`, "
        "Decimals as strings, times ISO 8601 in UTC.",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.answers = answers
    app.state.settings = settings
    # In every tag: a page of another process (a new version, other settings) is never taken for this one's.
    app.state.generation = secrets.token_hex(8)
    app.state.templates = templates()
    app.mount("/static", StaticFiles(directory=_package_dir("static")), name="static")
    app.include_router(api.router)
    app.include_router(api.feeds)
    app.include_router(pages.router)

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> PlainTextResponse:
        if healthy is not None:
            alive = healthy()
            return PlainTextResponse("ok\n" if alive else "scheduler not running\n", status_code=200 if alive else 503)
        try:
            answers.version()
        except Exception as exc:  # the store is down: say so, in one line
            log.warning("health: the store does not answer: %s", store_reason(exc))
            return PlainTextResponse("store not reachable\n", status_code=503)
        return PlainTextResponse("ok\n")

    kept = ResponseCache(settings.cache_seconds)
    app.state.kept = kept

    @app.middleware("http")
    async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        if request.method not in ("GET", "HEAD"):
            response: Response = error(request, 405, "this server is read-only: only GET and HEAD are answered")
            response.headers["Allow"] = "GET, HEAD"
            return response
        served = request.app.state.settings
        if request.url.path not in OPEN_PATHS and not _authorized(request.headers.get("authorization"), served):
            response = error(request, 401, "sign in: give the token (as a bearer token, or as the password)")
            response.headers["WWW-Authenticate"] = 'Basic realm="gpu-tracker", charset="UTF-8"'
            return response
        head = request.method == "HEAD"
        if head:  # answered as GET, without the body (the routes are declared for GET)
            request.scope["method"] = "GET"
        tag = _etag(request, answers)
        try:
            if tag and request.headers.get("if-none-match") == tag:
                response = Response(status_code=304, headers={"ETag": tag})
            elif tag:  # the same tag, the same bytes: sent again as they were (tracker/web/cache.py)
                response = await kept.answer(tag, lambda: call_next(request))
            else:
                response = await call_next(request)
        except Exception as exc:  # answered here: past this, the server would log its traceback again
            response = failed(request, exc)
        if head:
            body = getattr(response, "body_iterator", None)
            if body is not None:
                async for _ in body:  # let the route finish; its bytes are not sent
                    pass
            response = Response(status_code=response.status_code, headers=dict(response.headers))
        response.headers.update(SECURITY_HEADERS)
        response.headers.setdefault("Vary", "Accept-Language, Authorization")
        if response.status_code in (200, 304) and request.url.path not in OPEN_PATHS:
            _cache_headers(request, response, tag, served)
        return response

    @app.exception_handler(BadParameter)
    @app.exception_handler(TrackerError)
    async def bad_parameter(request: Request, exc: Exception) -> Response:
        return error(request, 400, str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        first: dict[str, Any] = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ())[1:]) or "the request"
        return error(request, 400, f"{where}: {first.get('msg', 'is not valid').lower()}")

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        message = exc.detail if isinstance(exc.detail, str) and exc.status_code != 404 else None
        if exc.status_code == 404:
            message = f"nothing at {request.url.path}; start at / or /api/openapi.json"
        return error(request, exc.status_code, message or "that did not work")

    @app.exception_handler(Exception)
    async def crashed(request: Request, exc: Exception) -> Response:
        return failed(request, exc)

    return app


def failed(request: Request, exc: Exception) -> Response:
    """A request that failed: its reason on one log line (the traceback only
    with --debug), one sentence for the client."""
    import sqlalchemy as sa

    if isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated:  # dropped again, asked again: away
        log.warning("web: %s %s: the store does not answer: %s", request.method, request.url.path, store_reason(exc))
        response = error(request, 503, "the store does not answer right now; try again in a moment")
        response.headers["Retry-After"] = "5"
        return response
    reason = store_reason(exc) if isinstance(exc, sa.exc.SQLAlchemyError) else str(exc).strip()
    log.error(
        "web: %s %s failed: %s",
        request.method,
        request.url.path,
        f"{type(exc).__name__}: {reason}" if reason else type(exc).__name__,
        exc_info=log.isEnabledFor(logging.DEBUG),
    )
    return error(request, 500, "the server could not answer this; its log says why")


def _etag(request: Request, answers: Answers) -> str | None:
    """A weak tag of the answer, made of what it shows: the store's version
    (its runs and its newest change, `Answers.version`), this process, the
    URL and the language; and the minute, for an answer that moves with the
    clock (a source's age, a span back from now)."""
    path = request.url.path
    if path in OPEN_PATHS or path.startswith("/static/"):
        return None
    try:
        version = answers.version()
    except Exception:  # the store is down: the answer itself says so
        return None
    seed: tuple[Any, ...] = (
        request.app.state.generation,
        version,
        str(request.url),
        request.headers.get("accept-language"),
    )
    spans = any(k in ("since", "until") and SPAN.match(v) for k, v in request.query_params.multi_items())
    if path in CLOCK_PATHS or spans:
        seed += (datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),)
    return f'W/"{hashlib.sha256(repr(seed).encode()).hexdigest()[:20]}"'


def _cache_headers(request: Request, response: Response, tag: str | None, settings: WebSettings) -> None:
    if request.url.path.startswith("/static/"):
        response.headers["Cache-Control"] = "public, max-age=86400"
        return
    response.headers["Cache-Control"] = f"private, max-age={settings.cache_seconds}"
    if tag:
        response.headers["ETag"] = tag
