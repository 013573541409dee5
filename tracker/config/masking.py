"""The configuration as it may be shown: every secret masked, the rule the
logs use (`tracker.logs.mask_secrets`). `gpu-tracker config show` prints it,
the dashboard's sources page shows its [web] and [store].

The same rule for what a run records and what is shown of it (`masked_text`,
`masked_detail`): a run's error, a change's detail, a log line. A crawl of
an `api_url` with a password or a `key=` in it that fails names the URL;
what is stored and shown names it masked."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tracker.logs import mask_secrets, registered_secrets, secret_values

MASK = "********"


def masked(value: Any, known: tuple[str, ...] | None = None) -> Any:
    """Plain data with every secret replaced by a mask: SecretStr fields, and
    the secrets plain strings carry (a password in `[store] url`, `?key=` in
    an `api_url`, any SecretStr value pasted into another field)."""
    from pydantic import BaseModel, SecretStr

    if known is None:
        known = tuple(secret_values(value)) if isinstance(value, BaseModel) else ()
    if isinstance(value, SecretStr):
        return MASK if value.get_secret_value() else ""
    if isinstance(value, BaseModel):
        return {
            name: masked(getattr(value, name), known)
            for name, field in type(value).model_fields.items()
            if not field.exclude
        }
    if isinstance(value, dict):
        return {k: masked(v, known) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [masked(v, known) for v in value]
    if isinstance(value, str):
        return mask_secrets(value, known)
    if value is None or isinstance(value, (int, float, bool)):
        return value
    return mask_secrets(str(value), known)


def masked_text(text: str, known: Iterable[str] = ()) -> str:
    """An error or a message as it may be stored and shown: the rule of
    `masked`, with `known` secrets and those the loaded configuration
    registered (`tracker.logs.register_secrets`)."""
    return mask_secrets(text, (*known, *registered_secrets()))


def masked_detail(detail: Mapping[str, Any], known: Iterable[str] = ()) -> dict[str, Any]:
    """A change's detail with every text value masked (`masked_text`)."""
    secrets = (*known, *registered_secrets())
    return {k: mask_secrets(v, secrets) if isinstance(v, str) else v for k, v in detail.items()}
