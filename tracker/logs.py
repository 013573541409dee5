"""Logging for long-running commands: text or JSON lines on stderr, with
secrets masked in every record (webhook keys, API keys, passwords in URLs)."""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, SecretStr

MASK = "***"
_PATTERNS = [
    # user:password@ in any URL (database URLs, SMTP, proxies)
    (re.compile(r"(?P<keep>[a-z][a-z0-9+.\-]*://[^/\s:@]*:)[^@\s/]+(?=@)", re.I), None),
    # key=..., token=..., secret=..., password=..., sig=... in query strings and key=value text
    (re.compile(r"(?P<keep>(?:[?&;,\s]|^)(?:api[_-]?key|access[_-]?key|key|token|access_token|secret|"
                r"password|passwd|pwd|sig|signature)=)[^&\s;,'\"]+", re.I), None),
    # the path of chat webhooks and Apprise URLs: wecombot://KEY, slack://T/B/C, dingtalk://TOKEN, ...
    (re.compile(r"(?P<keep>\b(?:wecombot|slack|dingtalk|feishu|lark|tgram|discord|schan|matrix|matrixs|"
                r"pushplus|wecom|ntfy|gotify|msteams|workflows)://)[^\s'\"]+", re.I), None),
    (re.compile(r"(?P<keep>https?://(?:hooks\.slack\.com/services|qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=|"
                r"oapi\.dingtalk\.com/robot/send\?access_token=|open\.feishu\.cn/open-apis/bot/v2/hook|"
                r"discord(?:app)?\.com/api/webhooks)/?)[^\s'\"]+", re.I), None),
]


def mask_secrets(text: str, known: Iterable[str] = ()) -> str:
    """`text` with every secret we can recognize replaced by ***."""
    for secret in sorted((k for k in known if len(k) >= 4), key=len, reverse=True):
        text = text.replace(secret, MASK)
    for pattern, _ in _PATTERNS:
        text = pattern.sub(lambda m: m.group("keep") + MASK, text)
    return text


def secret_values(model: BaseModel) -> list[str]:
    """Every SecretStr value in a (nested) settings model."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, SecretStr):
            found.append(value.get_secret_value())
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


class MaskingFilter(logging.Filter):
    def __init__(self, known: Iterable[str] = ()) -> None:
        super().__init__()
        self.known = list(known)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        record.msg, record.args = mask_secrets(message, self.known), None
        if record.exc_info:
            record.exc_text = mask_secrets(logging.Formatter().formatException(record.exc_info), self.known)
            record.exc_info = None
        return True


_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, and any `extra=` fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace(
                "+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value if isinstance(value, (int, float, bool, type(None))) else mask_secrets(str(value))
        if record.exc_text:
            out["exception"] = record.exc_text
        return json.dumps(out, ensure_ascii=False)


def setup_logging(fmt: str, level: int, known_secrets: Iterable[str] = ()) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(MaskingFilter(known_secrets))
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # APScheduler logs every job start at INFO; that belongs to --verbose debugging.
    logging.getLogger("apscheduler").setLevel(max(level, logging.WARNING))
