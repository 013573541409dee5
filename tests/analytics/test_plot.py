"""`gpu-tracker plot` (PNG and sparklines), opened and checked: the PNG's
size and content. The report's tests are in test_report.py and test_report_layout.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib import image

from tests.helpers.analytics_data import as_json
from tests.helpers.report_data import load_prices


def _not_blank(pixels: np.ndarray) -> None:
    rgb = pixels[..., :3].reshape(-1, 3)
    assert rgb.std() > 0.05
    assert len(np.unique((rgb * 255).astype(np.uint8), axis=0)) > 20


def test_plot_writes_a_png_of_step_lines(cli, tmp_path: Path) -> None:
    load_prices(cli, tmp_path)
    out = tmp_path / "h100.png"
    result = cli("plot", "--gpu", "H100", "--out", str(out))
    assert result.code == 0, result.err
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = image.imread(out)
    assert pixels.shape[:2] == (550, 1000)  # 10 x 5.5 inches at 100 dpi
    _not_blank(pixels)

    one = tmp_path / "p5.png"
    assert cli("plot", "p5.48xlarge", "--out", str(one), "--per-instance").code == 0
    assert image.imread(one).shape[:2] == (550, 1000)


def test_sparklines_follow_the_steps(cli, tmp_path: Path) -> None:
    load_prices(cli, tmp_path)
    rows = as_json(cli("plot", "p5.48xlarge", "--sparkline", "--every", "month", "--format", "json"))
    [aws] = rows
    # August's price was 55.04 (6.88 a GPU-hour), from September 50 (6.25): a high bar, then low ones.
    assert aws["sparkline"][0] == "█" and set(aws["sparkline"][1:]) == {"▁"}
    assert (aws["max"], aws["min"], aws["last"]) == ("6.8800", "6.2500", "6.2500")
    table = cli("plot", "--gpu", "H100", "--sparkline", "--every", "month")
    assert table.code == 0 and "█" in table.out


def test_plot_bad_input(sqlite_cli) -> None:
    assert sqlite_cli("plot", "--gpu", "H100").code == 2  # neither --out nor --sparkline
    nothing = sqlite_cli("plot", "--gpu", "H100", "--out", "/tmp/never.png")
    assert nothing.code == 1 and "no price history" in nothing.err
