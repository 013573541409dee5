"""Logs of long-running commands: JSON lines, and no secret in them.

The webhook URLs here are only text to mask: nothing is sent anywhere (the
delivery tests send to a local server on 127.0.0.1)."""

from __future__ import annotations

import json
import logging

import pytest
from pydantic import BaseModel, SecretStr

from tracker.logs import exception_reason, mask_secrets, secret_values, setup_logging


@pytest.mark.parametrize(
    "text, secret",
    [
        ("store postgresql+psycopg://tracker:s3cr3tpw@db:5432/gpu", "s3cr3tpw"),
        ("sending to wecombot://a1b2c3d4-e5f6-7890", "a1b2c3d4-e5f6-7890"),
        ("sending to slack://T000/B000/XXXXabcdef", "T000/B000/XXXXabcdef"),
        ("POST https://hooks.slack.com/services/T1/B2/abcdef123", "T1/B2/abcdef123"),
        ("POST https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693axxx6-7aoc", "693axxx6-7aoc"),
        ("GET https://oapi.dingtalk.com/robot/send?access_token=deadbeef42", "deadbeef42"),
        ("GET https://api.example.com/prices?region=x&api_key=AKIA1234567&page=2", "AKIA1234567"),
        ("config password=hunter22 token=tok_9876", "hunter22"),
    ],
)
def test_secrets_are_masked(text: str, secret: str) -> None:
    masked = mask_secrets(text)
    assert secret not in masked and "***" in masked


def test_plain_text_is_left_alone() -> None:
    text = "azure: run 4 ok: 562 items in https://prices.azure.com/api/retail/prices?api-version=2023-01-01-preview"
    assert mask_secrets(text) == text


def test_known_secret_values_are_masked_wherever_they_appear() -> None:
    class Settings(BaseModel):
        key: SecretStr
        nested: dict[str, SecretStr]

    known = secret_values(Settings(key=SecretStr("plainkey-123"), nested={"a": SecretStr("other-456")}))
    assert sorted(known) == ["other-456", "plainkey-123"]
    assert mask_secrets("got plainkey-123 and other-456", known) == "got *** and ***"


def test_json_log_lines(capsys: pytest.CaptureFixture[str]) -> None:
    setup_logging("json", logging.INFO, ["topsecret-1"])
    try:
        logging.getLogger("gpu_tracker.test").info(
            "run %d ok, key topsecret-1", 3, extra={"source": "azure", "items": 562}
        )
        logging.getLogger("gpu_tracker.test").error("db postgresql://u:pw1234@h/db failed")
    finally:
        logging.getLogger().handlers.clear()
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert lines[0]["message"] == "run 3 ok, key ***" and lines[0]["level"] == "info"
    assert lines[0]["source"] == "azure" and lines[0]["items"] == 562 and lines[0]["time"].endswith("Z")
    assert "pw1234" not in lines[1]["message"]


def _store_error() -> BaseException:
    """A real SQLAlchemy error of a full disk, as SQLite raises it."""
    import sqlite3

    import sqlalchemy as sa

    try:
        raise sa.exc.OperationalError(
            "INSERT INTO price_points ...", {}, sqlite3.OperationalError("database or disk is full")
        )
    except sa.exc.OperationalError as exc:
        return exc


def test_the_reason_of_a_store_error_is_the_drivers_not_the_background_link() -> None:
    exc = _store_error()
    assert "Background on this error" in str(exc)  # what the traceback's last line said (issue 40)
    assert exception_reason(exc) == "database or disk is full"
    assert exception_reason(KeyError("price")) == "KeyError: 'price'"
    assert exception_reason(RuntimeError()) == "RuntimeError"


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("debug", [False, True])
def test_an_error_with_an_exception_says_why_in_both_formats(
    fmt: str, debug: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 30: `error: azure: the crawl job failed` said no reason in the
    text format. Issue 40: for a store error it said SQLAlchemy's link, and
    the JSON line carried the whole traceback: the reason goes in the
    message in both formats, the traceback only with --debug."""
    setup_logging(fmt, logging.DEBUG if debug else logging.INFO, ["pw-9876"])
    try:
        for error in (ConnectionError("connection to postgresql://u:pw-9876@db/gpu refused"), _store_error()):
            try:
                raise error
            except Exception:
                logging.getLogger("gpu_tracker.daemon").exception("azure: the crawl job failed")
    finally:
        logging.getLogger().handlers.clear()
    err = capsys.readouterr().err
    assert "pw-9876" not in err
    if fmt == "text":
        lines = [line for line in err.splitlines() if "the crawl job failed" in line]
        messages = [line.partition("error: ")[2] for line in lines]
    else:
        records = [json.loads(line) for line in err.splitlines()]
        messages = [r["message"] for r in records]
        assert all(("exception" in r) == debug for r in records), records
    assert messages == [
        "azure: the crawl job failed: ConnectionError: connection to postgresql://u:***@db/gpu refused",
        "azure: the crawl job failed: database or disk is full",
    ], err
    assert ("Traceback" in err) == debug
    assert "Background on this error" not in "".join(messages)
