"""What the official-API spiders share: an AccessKey pair (or placeholders on
replay), requests the provider's SDK signs, and one way to read an answer:
a provider error code fails the run with that code, except throttling, which
is retried with backoff, and the codes a provider documents for the one item
asked (a price not found for one type), which are recorded for that item
alone (an `<provider>.api.unpriced` item) while the rest is stored."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar
from urllib.parse import urlsplit

import scrapy
from scrapy.http import Response

from spiders.base import ProviderSpider, SourceFailure
from spiders.har import SECRET_PLACEHOLDER
from spiders.pages import PageShapeError, load_json

# Statuses a gateway answers when it wants us to slow down, whatever the body.
RETRY_STATUSES = ("HTTP 429", "HTTP 503")
MAX_WAIT = 120.0


@dataclass(frozen=True)
class ApiCall:
    """One API request before signing: `params` are the provider's own
    (query, body, path), `then` reads the successful answer."""

    action: str
    region: str
    params: Mapping[str, Any]
    then: Callable[[Response, Any, ApiCall], Iterable[Any]]
    attempt: int = 0
    context: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Signed:
    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None = None


@dataclass(frozen=True)
class ApiError:
    code: str
    message: str
    retry_after: float | None = None


class SignedApiSpider(ProviderSpider):
    """Subclasses set the class variables below and implement `sign`,
    `error_of` and `start_calls`."""

    sdk_module: ClassVar[str]  # the SDK package that signs and describes the requests
    auth_codes: ClassVar[tuple[str, ...]] = ()  # prefixes: the key is wrong or lacks rights
    retry_codes: ClassVar[tuple[str, ...]] = ()  # prefixes: the provider asks us to slow down
    # Codes: the one item a call asks about cannot be priced now (its context
    # names it as `item`); the answer is not broken as a whole.
    item_codes: ClassVar[tuple[str, ...]] = ()
    max_attempts: ClassVar[int] = 4
    backoff_seconds: ClassVar[float] = 2.0

    def __init__(
        self, access_key_id: str = "", access_key_secret: str = "", api_endpoint: str = "", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.access_key_id = access_key_id
        self.access_key_secret = access_key_secret
        self.api_endpoint = api_endpoint.rstrip("/")

    @property
    def replaying(self) -> bool:
        return bool(self.settings.get("GPU_TRACKER_REPLAY"))

    def keys(self) -> tuple[str, str]:
        """The AccessKey pair; a replay signs with placeholders, since the
        capture is matched without the signature headers."""
        if self.access_key_id and self.access_key_secret:
            return self.access_key_id, self.access_key_secret
        return SECRET_PLACEHOLDER, SECRET_PLACEHOLDER

    def key_hint(self) -> str:
        env = f"GPU_TRACKER_{self.provider.upper()}"
        return (
            f"set access_key_id and access_key_secret under [providers.{self.provider}], "
            f"or {env}_ACCESS_KEY_ID and {env}_ACCESS_KEY_SECRET"
        )

    async def start(self) -> AsyncIterator[Any]:
        if not (self.access_key_id and self.access_key_secret) and not self.replaying:
            raise SourceFailure(f"{self.name}: no AccessKey; {self.key_hint()}")
        if not sdk_installed(self.sdk_module):
            raise SourceFailure(
                f"{self.name} needs the provider's SDK ({self.sdk_module}); "
                "install it with: pip install 'gpu-offer-tracker[china]'"
            )
        for call in self.start_calls():
            yield self.send(call)

    # -- for subclasses -------------------------------------------------------

    def start_calls(self) -> Iterable[ApiCall]:
        raise NotImplementedError

    def sign(self, call: ApiCall) -> Signed:
        raise NotImplementedError

    def error_of(self, status: int, data: Any) -> ApiError | None:
        raise NotImplementedError

    def unpriced(self, response: Response, call: ApiCall, error: ApiError) -> Iterable[Any]:
        """The record of items a call could not price: what it asked about,
        and the provider's code and message."""
        records = [{**call.context["item"], "code": error.code, "message": error.message}]
        return self.items(response, f"{self.provider}.api.unpriced", records, region=call.region)

    # -- shared ---------------------------------------------------------------

    def send(self, call: ApiCall) -> scrapy.Request:
        signed = self.sign(call)
        url = signed.url
        if self.api_endpoint:
            # Signed for the provider's host, sent elsewhere: a proxy, or a test server.
            parts = urlsplit(url)
            url = f"{self.api_endpoint}{parts.path}" + (f"?{parts.query}" if parts.query else "")
        return scrapy.Request(
            url,
            method=signed.method,
            headers=signed.headers,
            body=signed.body,
            callback=self.on_answer,
            errback=self.on_error,
            cb_kwargs={"call": call},
            dont_filter=True,
            # Throttling is ours to retry, with a fresh signature.
            meta={"dont_retry": True},
        )

    def answer_of(self, response: Response, call: ApiCall) -> tuple[Any, ApiError | None]:
        """The parsed answer and its error; a gateway's non-JSON error page is
        an error with its HTTP status (429 and 503 retried like throttling)."""
        try:
            data = load_json(response.body, f"{self.name}: the {call.action} answer in {call.region}")
        except PageShapeError:
            if response.status == 200:
                raise
            return None, ApiError(f"HTTP {response.status}", "the answer is not JSON", retry_after_header(response))
        error = self.error_of(response.status, data)
        if error is None and response.status != 200:
            error = ApiError(f"HTTP {response.status}", "no error code in the answer", retry_after_header(response))
        return data, error

    async def on_answer(self, response: Response, call: ApiCall) -> AsyncIterator[Any]:
        data, error = self.answer_of(response, call)
        if error is None:
            self.pages += 1
            self.progress(self.pages)
            for out in call.then(response, data, call):
                yield out
            return
        where = f"{self.name}: {call.action} in {call.region}"
        if error.code in self.item_codes and isinstance(call.context.get("item"), Mapping):
            for out in self.unpriced(response, call, error):
                yield out
            return
        if error.code.startswith((*self.retry_codes, *RETRY_STATUSES)):
            if call.attempt + 1 < self.max_attempts:
                wait = error.retry_after if error.retry_after is not None else self.backoff_seconds * 2**call.attempt
                if self.replaying:  # the capture holds the answers; nothing to wait for
                    self.notes.append(f"{where} answered {error.code}; retrying")
                else:
                    self.notes.append(f"{where} answered {error.code}; retrying in {wait:g} s")
                    await asyncio.sleep(wait)
                yield self.send(replace(call, attempt=call.attempt + 1))
                return
            raise SourceFailure(f"{where} answered {error.code} {self.max_attempts} times: {error.message}")
        if error.code.startswith(self.auth_codes) and self.auth_codes:
            raise SourceFailure(f"{where}: the key was refused ({error.code}: {error.message}); {self.key_hint()}")
        raise SourceFailure(f"{where} answered {error.code}: {error.message}")


def retry_after_header(response: Response) -> float | None:
    value = (response.headers.get("Retry-After") or b"").decode("latin-1").strip()
    return min(float(value), MAX_WAIT) if value.isdigit() else None


def sdk_installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent package is missing
        return False
