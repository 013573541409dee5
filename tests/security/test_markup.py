"""Provider text is shown as written in every table: rich markup in it
(`[/bold]`, `[red]`, `[link=...]`) neither fails the command nor styles the output."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.analytics_data import write_jsonl

# Each would be read as rich markup: a closing tag with nothing open (MarkupError),
# a style, and a hyperlink.
HOSTILE = ["p5[/bold]x", "[red]gn7", "[link=http://evil.example]a10[/link]"]


def rows(price: str) -> list[dict[str, str]]:
    return [
        {
            "provider": "aws",
            "region": "[red]us-east-1",
            "instance_type": name,
            "gpu_model": "H100",
            "gpu_count": "8",
            "price_model": "on_demand",
            "price": price,
            "currency": "USD",
            "unit": "hour",
            "availability": "[bold]sold_out",
        }
        for name in HOSTILE
    ]


def test_markup_in_provider_text_is_shown_literally_in_every_table(sqlite_cli, tmp_path: Path) -> None:
    first = sqlite_cli("import", str(write_jsonl(tmp_path / "a.jsonl", rows("55.04"))), "--source", "mycorp")
    assert first.code == 0, first.err
    second = sqlite_cli("import", str(write_jsonl(tmp_path / "b.jsonl", rows("50"))), "--source", "mycorp")
    assert second.code == 0, second.err
    for name in HOSTILE:
        assert name in second.out  # the import's own table of changes

    prices = sqlite_cli("prices")
    changes = sqlite_cli("changes")
    history = [sqlite_cli("history", name) for name in HOSTILE]
    for result in (prices, changes, *history):
        assert result.code == 0, result.err
        assert "internal error" not in result.err and "\x1b]8;" not in result.out  # no error, no hyperlink
        assert "[red]us-east-1" in result.out
    for name in HOSTILE:
        assert name in prices.out and name in changes.out
    for name, result in zip(HOSTILE, history, strict=True):
        assert name in result.out and "[bold]sold_out" in result.out
        assert "55.04" in result.out and "50" in result.out
