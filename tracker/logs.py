"""Logging for long-running commands: text or JSON lines on stderr, with
secrets masked in every record (webhook keys, API keys, passwords in URLs)."""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from pydantic import BaseModel


MASK = "***"
_PATTERNS = [
    # user:password@ in any URL (database URLs, SMTP, proxies)
    (re.compile(r"(?P<keep>[a-z][a-z0-9+.\-]*://[^/\s:@]*:)[^@\s/]+(?=@)", re.I), None),
    # user:password@host without its scheme, as a resolver or a client names the host it could not reach
    # ("invalid hostname: user:password@host")
    (re.compile(r"(?P<keep>(?<![\w.%+\-~:/@])[\w.%+\-~]+:)[^@\s/]+(?=@[\w\[])", re.I), None),
    # key=..., token=..., secret=..., password=..., sig=... in query strings and key=value text
    # (a value the crawler already wrote as REDACTED stays as it is, as `runs` shows it)
    (
        re.compile(
            r"(?P<keep>(?:[?&;,\s]|^)(?:api[_-]?key|access[_-]?key|key|token|access_token|secret|"
            r"password|passwd|pwd|sig|signature)=)(?!REDACTED(?:[&\s;,'\"]|$))[^&\s;,'\"]+",
            re.I,
        ),
        None,
    ),
    # the path of chat webhooks and Apprise URLs: wecombot://KEY, slack://T/B/C, dingtalk://TOKEN, ...
    (
        re.compile(
            r"(?P<keep>\b(?:wecombot|slack|dingtalk|feishu|lark|tgram|discord|schan|matrix|matrixs|"
            r"pushplus|wecom|ntfy|gotify|msteams|workflows)://)[^\s'\"]+",
            re.I,
        ),
        None,
    ),
    (
        re.compile(
            r"(?P<keep>https?://(?:hooks\.slack\.com/services|qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=|"
            r"oapi\.dingtalk\.com/robot/send\?access_token=|open\.feishu\.cn/open-apis/bot/v2/hook|"
            r"discord(?:app)?\.com/api/webhooks)/?)[^\s'\"]+",
            re.I,
        ),
        None,
    ),
]


def mask_secrets(text: str, known: Iterable[str] = ()) -> str:
    """`text` with every secret we can recognize replaced by ***."""
    for secret in sorted((k for k in known if len(k) >= 4), key=len, reverse=True):
        text = text.replace(secret, MASK)
    for pattern, _ in _PATTERNS:
        text = pattern.sub(lambda m: m.group("keep") + MASK, text)
    return text


def embedded_secrets(text: str) -> list[str]:
    """The secrets a plain string carries, as `mask_secrets` would hide them:
    the password of a URL, the values of `key=`, `token=`... Known, they are
    masked wherever they turn up again, also outside a URL."""
    found = []
    for pattern, _ in _PATTERNS:
        found += [m.group(0)[len(m.group("keep")) :] for m in pattern.finditer(text)]
    return [s for s in found if s and s != MASK]


def secret_values(model: BaseModel) -> list[str]:
    """Every SecretStr value in a (nested) settings model, and the secrets
    its plain strings carry (`embedded_secrets`: an `api_url`'s password or key)."""
    # Here, not at the top: the command line sets up logging before it knows
    # whether it needs pydantic at all.
    from pydantic import BaseModel, SecretStr

    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, SecretStr):
            found.append(value.get_secret_value())
        elif isinstance(value, str):
            found.extend(embedded_secrets(value))
        elif isinstance(value, BaseModel):
            for name in type(value).model_fields:
                walk(getattr(value, name))
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)

    walk(model)
    return found


# Secrets learnt from the configuration once it is loaded; every MaskingFilter
# masks them, with the parts of secret URLs that libraries log on their own
# (an HTTP client logs the path of a webhook URL, not the URL).
_REGISTERED: set[str] = set()


def register_secrets(values: Iterable[str]) -> None:
    for value in values:
        if not value:
            continue
        _REGISTERED.add(value)
        parts = urlsplit(value)
        for piece in (parts.path, parts.query, parts.netloc.rpartition("@")[0], parts.netloc + parts.path):
            if len(piece) >= 6:
                _REGISTERED.add(piece)


def registered_secrets() -> list[str]:
    """The secrets `register_secrets` learnt: what is masked in every record
    is masked in every stored error too (tracker.config.masking.masked_text)."""
    return list(_REGISTERED)


# Lines of an exception's text that are no reason: SQLAlchemy's statement,
# parameters and link to its docs ("(Background on this error at: ...)").
_NOT_REASONS = ("[", "(Background on this error")
REASON_LIMIT = 300


def exception_reason(exc: BaseException) -> str:
    """An exception's reason on one line. For an error of the store, the
    driver's own message (SQLAlchemy's `.orig`: "database or disk is full"),
    without SQLAlchemy's statement, parameters and link; for any other, its
    type and message, as a traceback's last line says them."""
    orig = getattr(exc, "orig", None)
    shown = orig if isinstance(orig, BaseException) else exc
    lines = (line.strip() for line in str(shown).splitlines())
    text = " ".join(line for line in lines if line and not line.startswith(_NOT_REASONS))[:REASON_LIMIT]
    if shown is not exc:
        return text or type(shown).__name__
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class MaskingFilter(logging.Filter):
    """Masks every record's secrets. A record with an exception gets the
    exception's reason at the end of its message (`exception_reason`), in
    every format; the traceback, masked, is kept for --debug."""

    def __init__(self, known: Iterable[str] = ()) -> None:
        super().__init__()
        self.known = list(known)

    def filter(self, record: logging.LogRecord) -> bool:
        known = [*self.known, *_REGISTERED]
        message = record.getMessage()
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            reason = exception_reason(error)
            message += f": {reason}" if reason not in message else ""
        record.msg, record.args = mask_secrets(message, known), None
        if record.exc_info:
            record.exc_text = mask_secrets(logging.Formatter().formatException(record.exc_info), known)
            record.exc_info = None
        return True


_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, and any `extra=` fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value if isinstance(value, (int, float, bool, type(None))) else mask_secrets(str(value))
        if record.exc_text and logging.getLogger().level <= logging.DEBUG:
            out["exception"] = record.exc_text  # the reason is in the message; the traceback with --debug
        return json.dumps(out, ensure_ascii=False)


@contextmanager
def logging_to_stderr(fmt: str, level: int, known_secrets: Iterable[str] = ()) -> Iterator[None]:
    """setup_logging for the block, then the logging set up before it again
    (the CLI also runs in-process, in tests and notebooks)."""
    root = logging.getLogger()
    saved = (list(root.handlers), root.level, logging.getLogger("apscheduler").level)
    setup_logging(fmt, level, known_secrets)
    try:
        yield
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])
        logging.getLogger("apscheduler").setLevel(saved[2])


class TextFormatter(logging.Formatter):
    """`warning: ...` for the CLI; the time and logger name with --verbose."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"{record.levelname.lower()}: {record.getMessage()}"
        verbose = logging.getLogger().level < logging.WARNING
        if verbose:
            text = f"{self.formatTime(record)} {record.name} {text}"
        # MaskingFilter has put the exception's reason in the message and
        # turned its traceback into masked text: that only with --debug.
        trace = record.exc_text or (self.formatException(record.exc_info) if record.exc_info else "")
        if trace and logging.getLogger().level <= logging.DEBUG:
            text += "\n" + trace
        return text


class CurrentStderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is at the time of each record: the CLI
    also runs in-process (tests, notebooks), where stderr is swapped."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self) -> object:
        return sys.stderr

    @stream.setter
    def stream(self, value: object) -> None:
        pass


def setup_logging(fmt: str, level: int, known_secrets: Iterable[str] = ()) -> None:
    handler = CurrentStderrHandler()
    handler.addFilter(MaskingFilter(known_secrets))
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        # Ours, or the default stderr handler; a test's capture handler stays.
        if isinstance(old, CurrentStderrHandler) or type(old) is logging.StreamHandler:
            root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # APScheduler logs every job start at INFO; that belongs to --verbose debugging.
    logging.getLogger("apscheduler").setLevel(max(level, logging.WARNING))
    # Alembic announces each plugin and its context at INFO whenever the store is opened.
    logging.getLogger("alembic").setLevel(max(level, logging.WARNING))
