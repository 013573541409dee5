"""Channels: Apprise URLs, with what Apprise's plugins leave out.

- WeCom's group robot answers HTTP 200 with `{"errcode": N}` on errors and
  Apprise's plugin sends plain text only: `WeComMarkdownBot` posts markdown
  and treats a non-zero errcode as the failure it is.
- Slack's incoming webhooks take Block Kit: `SlackBlocks` posts our blocks.
- Every send is run under Apprise's log capture, so the channel's real
  answer (status, body) is kept for `notify test` and the outbox, masked.

Webhook URLs are secrets. `Masker` knows the pieces of every channel URL and
replaces them with *** in anything we log, store or print.
"""

from __future__ import annotations

import ast
import json
import logging
import re
import threading
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote, unquote

import apprise
import requests
from apprise.plugins.email import NotifyEmail
from apprise.plugins.slack import NotifySlack, SlackMode
from apprise.plugins.wecombot import NotifyWeComBot

from alerts.render import LIMITS, Family, Limits, Message

_PIECES = re.compile(r"[/:@?&=#,+;\s]+")
_HOSTNAME = re.compile(r"^[\w-]+(\.[\w-]+)+$")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]{0,19}$")
_PLAIN_WORDS = {
    "services",
    "webhook",
    "hooks",
    "https",
    "http",
    "mailto",
    "mailtos",
    "format",
    "markdown",
    "wecombot",
    "dingtalk",
    "feishu",
    "tgram",
    "schan",
    "slack",
    "discord",
    "jsons",
    "json",
}
# Services whose messages render markdown (Apprise turns it into HTML where needed).
_MARKDOWN_SERVICES = {"dingtalk", "feishu", "lark", "telegram", "serverchan", "discord", "matrix"}
# The names `alerts preview --family` takes: a family, or a service of one.
FAMILY_NAMES = {
    **{f.value: f for f in Family},
    **dict.fromkeys(sorted(_MARKDOWN_SERVICES | {"email"}), Family.markdown),
    **dict.fromkeys(("json", "ntfy", "mattermost", "teams"), Family.text),
}


class Masker:
    """Replaces the secret pieces of channel URLs with ***."""

    def __init__(self) -> None:
        self.secrets: set[str] = set()

    def add(self, url: str) -> None:
        self.secrets.add(url)
        for piece in _PIECES.split(url):
            if len(piece) >= 6 and piece.lower() not in _PLAIN_WORDS and not _HOSTNAME.match(piece):
                self.secrets.update({piece, quote(piece, safe=""), unquote(piece)})

    def __call__(self, text: str) -> str:
        for secret in sorted(self.secrets, key=len, reverse=True):
            if secret:
                text = text.replace(secret, "***")
        return text


MASK = Masker()


class _MaskFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = MASK(message)
        if masked != message:
            record.msg, record.args = masked, ()
        return True


logging.getLogger("apprise").addFilter(_MaskFilter())


class ChannelError(Exception):
    """A channel URL Apprise cannot use; the message is masked."""


def _instantiate(url: str) -> tuple[apprise.NotifyBase | None, str]:
    """Apprise's plugin for `url` (None if it has none) and what Apprise
    logged meanwhile. Apprise logs its own complaint about a bad URL; it is
    captured here, so the user reads one error of ours, not two."""
    logger = logging.getLogger("apprise")
    propagate, logger.propagate = logger.propagate, False
    try:
        with apprise.LogCapture(level=logging.DEBUG, fmt="%(levelname)s %(message)s") as captured:
            plugin = apprise.Apprise.instantiate(url)
        return plugin, captured.getvalue()
    finally:
        logger.propagate = propagate


def url_problem(url: str) -> str | None:
    """Why Apprise cannot use `url` (masked), or None when it can: checked when
    the configuration is loaded, so a typo stops every command at once instead
    of failing each delivery while the daemon runs on."""
    MASK.add(url)
    plugin, log = _instantiate(url)
    if plugin is not None:
        return None
    scheme = url.partition("://")[0].strip().lower() if "://" in url else ""
    if not _SCHEME.match(scheme):
        return "not a known Apprise URL: it does not start with a scheme such as slack:// or wecombot://"
    if scheme not in apprise.NotificationManager().schemas():
        # The scheme is no secret (the rest may be): it is what was mistyped.
        return f"{scheme}:// is not a known Apprise URL scheme (see https://github.com/caronc/apprise/wiki)"
    reasons = [line.removeprefix("WARNING ") for line in log.splitlines() if line.startswith("WARNING ")]
    why = f": {MASK(reasons[0].strip().rstrip(':'))}" if reasons else ""
    return f"not a known Apprise URL: Apprise cannot read this {scheme}:// URL{why}"


class WeComMarkdownBot(NotifyWeComBot):
    """The WeCom group robot, in markdown, checking `errcode`."""

    body_maxlen = 4096
    notify_format = apprise.NotifyFormat.MARKDOWN
    answer = ""

    def send(self, body: str, title: str = "", notify_type: object = None, **kwargs: object) -> bool:
        payload = {"msgtype": "markdown", "markdown": {"content": body}}
        self.throttle()
        try:
            r = requests.post(
                self.api_url,
                data=json.dumps(payload, ensure_ascii=False).encode("utf-8"),
                headers={"User-Agent": self.app_id, "Content-Type": "application/json; charset=utf-8"},
                verify=self.verify_certificate,
                timeout=self.request_timeout,
            )
        except requests.RequestException as exc:
            self.answer = f"connection failed: {type(exc).__name__}"
            return False
        text = r.content[:500].decode("utf-8", "replace")
        self.answer = f"HTTP {r.status_code}: {text}"
        if r.status_code != 200:
            return False
        try:
            code = int(json.loads(r.content).get("errcode", -1))
        except (ValueError, AttributeError, TypeError):
            self.answer = f"HTTP 200 but not the robot's JSON answer: {text}"
            return False
        return code == 0


class SlackBlocks(NotifySlack):
    """Slack incoming webhooks with our own Block Kit blocks."""

    prepared: dict | None = None

    def send(
        self,
        body: str,
        title: str = "",
        notify_type: object = None,
        attach: Any = None,
        body_format: Any = None,
        body_passthrough: Any = None,
        **kwargs: Any,
    ) -> bool:
        if self.prepared is None or self.mode not in (SlackMode.WEBHOOK, SlackMode.WEBHOOK_GOV):
            return super().send(
                body, title=title, attach=attach, body_format=body_format, body_passthrough=body_passthrough, **kwargs
            )
        base = self.webhook_url if self.mode is SlackMode.WEBHOOK else self.webhook_gov_url
        url = f"{base}/{self.token_a}/{self.token_b}/{self.token_c}"
        return self._send(url, dict(self.prepared)) is not False


@dataclass(frozen=True)
class SendResult:
    ok: bool
    answer: str
    retryable: bool = True
    # The HTTP status of the channel's last answer, when it was HTTP.
    status: int | None = None
    # Seconds the channel asked us to wait (Retry-After, Telegram's
    # `retry_after`, WeCom's rate-limit errcode), or the time it named
    # (Retry-After as an HTTP date): the floor of the next attempt.
    retry_after: float | None = None
    retry_at: datetime | None = None


# WeCom's group robot: errcode 45009 is "api freq out of limit" (20 messages
# a minute per robot); it names no wait, so the next attempt waits a minute.
WECOM_RATE_LIMITED = 45009
_WECOM_WAIT = 60.0


def retry_after(value: str | None) -> float | datetime | None:
    """An HTTP Retry-After value (RFC 9110: delay-seconds, or an HTTP-date):
    the seconds to wait, or the time named."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


class _Answers(threading.local):
    """The HTTP answers of the sends made by this thread while `recording`."""

    recording = False

    def __init__(self) -> None:
        self.seen: list[Any] = []


_ANSWERS = _Answers()
_original_send = requests.Session.send


def _recording_send(self: requests.Session, request: Any, **kwargs: Any) -> Any:
    response = _original_send(self, request, **kwargs)
    if _ANSWERS.recording:
        _ANSWERS.seen.append(response)
    return response


# Apprise's plugins keep the response to themselves (they log its status and
# body); the status and the Retry-After header a flood-controlled channel
# sends are read here, from the requests Session every plugin goes through.
# Recording is per thread and only while `Channel.send` runs.
requests.Session.send = _recording_send  # type: ignore[method-assign]  # the patch is deliberate (above)


def _wait_asked(response: Any) -> float | datetime | None:
    """What an HTTP answer asks us to wait (seconds, or until a time):
    Retry-After, or the JSON body's `parameters.retry_after` (Telegram) or
    WeCom's rate-limit errcode."""
    asked = retry_after(response.headers.get("Retry-After"))
    if asked is not None:
        return asked
    try:
        body = response.json()
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    parameters = body.get("parameters")
    if isinstance(parameters, dict) and isinstance(parameters.get("retry_after"), (int, float)):
        return float(parameters["retry_after"])
    if body.get("errcode") == WECOM_RATE_LIMITED:
        return _WECOM_WAIT
    return None


def _family(plugin: object) -> Family:
    if isinstance(plugin, NotifySlack):
        return Family.slack
    if isinstance(plugin, NotifyWeComBot):
        return Family.wecom
    service = type(plugin).__name__.removeprefix("Notify").lower()
    return Family.markdown if service in _MARKDOWN_SERVICES or isinstance(plugin, NotifyEmail) else Family.text


def _upgrade(plugin: apprise.NotifyBase) -> apprise.NotifyBase:
    """Swap Apprise's WeCom and Slack plugins for ours, same settings."""
    for base, ours in ((NotifyWeComBot, WeComMarkdownBot), (NotifySlack, SlackBlocks)):
        if type(plugin) is base:
            settings = base.parse_url(plugin.url(privacy=False))
            return ours(**settings)
    return plugin


class Channel:
    def __init__(self, name: str, url: str, *, timeout: float = 20, max_per_minute: int | None = None) -> None:
        MASK.add(url)
        self.name = name
        plugin, _ = _instantiate(url)
        if plugin is None:
            raise ChannelError(f"channel {name}: Apprise does not understand the URL {MASK(url)!r}: {url_problem(url)}")
        self.plugin = _upgrade(plugin)
        # The outbox paces each channel (limits.per_minute); Apprise's own pause would only stall it.
        self.plugin.request_rate_per_sec = 0
        self.plugin.socket_read_timeout = timeout
        self.plugin.socket_connect_timeout = min(timeout, 10)
        self.family = _family(self.plugin)
        limits = LIMITS[self.family]
        self.limits: Limits = replace(limits, per_minute=max_per_minute or limits.per_minute)
        self.service = getattr(self.plugin, "service_name", type(self.plugin).__name__)

    def send(self, message: Message) -> SendResult:
        plugin = self.plugin
        if isinstance(plugin, WeComMarkdownBot):
            plugin.answer = ""
        if isinstance(plugin, SlackBlocks):
            plugin.prepared = {"text": message.title, "blocks": message.blocks} if message.blocks else None
        headers = getattr(plugin, "headers", None)
        if isinstance(headers, dict):
            headers["Idempotency-Key"] = message.key
        logger = logging.getLogger("apprise")
        propagate, logger.propagate = logger.propagate, False
        _ANSWERS.seen, _ANSWERS.recording = [], True
        try:
            with apprise.LogCapture(level=logging.DEBUG, fmt="%(levelname)s %(message)s") as captured:
                apart = self.family in (Family.markdown, Family.text)
                ok = plugin.notify(
                    body=message.lead if apart else message.body,
                    title=message.title if apart else "",
                    body_format=self._format(),
                )
            log = captured.getvalue()
        except Exception as exc:
            ok, log = False, f"ERROR {type(exc).__name__}: {exc}"
        finally:
            logger.propagate = propagate
            _ANSWERS.recording = False
        answers, _ANSWERS.seen = _ANSWERS.seen, []
        answer = getattr(plugin, "answer", "") or _answer_from_log(log, ok)
        last = answers[-1] if answers else None
        status = last.status_code if last is not None else None
        wait = _wait_asked(last) if last is not None and not ok else None
        return SendResult(
            bool(ok),
            MASK(answer),
            status=status,
            retry_after=wait if isinstance(wait, float) else None,
            retry_at=wait if isinstance(wait, datetime) else None,
        )

    def _format(self) -> apprise.NotifyFormat:
        return apprise.NotifyFormat.TEXT if self.family is Family.text else apprise.NotifyFormat.MARKDOWN


def _as_text(logged: str) -> str:
    """The body Apprise logs as the repr of its bytes (`"Response
    Details:\\r\\n%r", r.content`, apprise/plugins/custom_json.py), as text."""
    if re.fullmatch(r"b(['\"]).*\1", logged, re.S):
        try:
            body = ast.literal_eval(logged)
        except (ValueError, SyntaxError):
            return logged
        if isinstance(body, bytes):
            return body.decode("utf-8", errors="replace")
    return logged


def _answer_from_log(log: str, ok: bool) -> str:
    """Apprise logs the status on failure and the response body at debug level."""
    lines = [line for line in log.splitlines() if line.startswith(("WARNING", "ERROR"))]
    details = re.search(r"Response Details:\s*(.+?)(?:\n(?:DEBUG|INFO|WARNING|ERROR) |\Z)", log, re.S)
    if details:
        lines.append("answer: " + " ".join(_as_text(details.group(1).strip()).split())[:500])
    if ok and not lines:
        return "accepted"
    return " | ".join(re.sub(r"^(WARNING|ERROR) ", "", line) for line in lines) or "failed without a reason"
