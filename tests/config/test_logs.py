"""Logs of long-running commands: JSON lines, and no secret in them.

The webhook URLs here are only text to mask: nothing is sent anywhere (the
delivery tests send to a local server on 127.0.0.1)."""

from __future__ import annotations

import json
import logging

import pytest
from pydantic import BaseModel, SecretStr

from tracker.logs import mask_secrets, secret_values, setup_logging


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


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_an_error_with_an_exception_says_why_in_both_formats(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30: `error: azure: the crawl job failed` said no reason in the
    text format (the masking filter turns the exception into text, which the
    text formatter never printed)."""
    setup_logging(fmt, logging.INFO, ["pw-9876"])
    try:
        try:
            raise ConnectionError("connection to postgresql://u:pw-9876@db/gpu refused")
        except ConnectionError:
            logging.getLogger("gpu_tracker.daemon").exception("azure: the crawl job failed")
    finally:
        logging.getLogger().handlers.clear()
    err = capsys.readouterr().err
    line = err.splitlines()[0] if fmt == "text" else json.loads(err.splitlines()[0])["exception"].splitlines()[-1]
    assert "ConnectionError: connection to postgresql://u:***@db/gpu refused" in line, err
    assert "pw-9876" not in err
    if fmt == "text":
        assert "azure: the crawl job failed: ConnectionError" in line and "Traceback" not in err
