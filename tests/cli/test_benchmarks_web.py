"""The dashboard offers what `recommend --benchmark` and `--nodes` do (form and
API, the same rows as the command line) and says an instance's network."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator

import pytest

from tests.helpers import stores
from tests.web.conftest import Served, serving


@pytest.fixture(scope="module")
def site(demo_run: stores.DemoRun, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("web-home")
    shutil.copyfile(demo_run.home / "tracker.db", home / "tracker.db")
    with serving(f"sqlite:///{home / 'tracker.db'}", home) as found:
        yield found


ASK = "gpus=8&min_gpu_memory=80&workload=inference&benchmark=llama2-70b-99&limit=5"


def test_the_api_ranks_by_a_benchmark_as_the_cli_does(site: Served, demo_cli) -> None:
    answer = site.get(f"/api/recommend?{ASK}")
    assert answer.status_code == 200, answer.text
    cli = demo_cli(
        "recommend", "--gpus", "8", "--min-gpu-memory", "80", "--workload", "inference",
        "--benchmark", "llama2-70b-99", "--limit", "5", "--format", "json",
    )  # fmt: skip
    assert answer.json() == json.loads(cli.out)
    assert "measured:" in answer.json()[0]["why"] or "estimate" in answer.json()[0]["why"]


def test_the_form_offers_a_benchmark_and_nodes(site: Served) -> None:
    page = site.get(f"/recommend?{ASK}")
    assert page.status_code == 200
    assert 'name="benchmark" value="llama2-70b-99"' in page.text and 'name="nodes"' in page.text
    assert "MLPerf Inference v" in page.text
    nodes = site.get("/recommend?gpus=32&nodes=4")
    assert nodes.status_code == 200 and "4 nodes over" in nodes.text
    bad = site.get("/api/recommend?gpus=8&benchmark=llama-9000")
    assert bad.status_code == 400 and "no MLPerf result for" in bad.text


def test_the_instance_page_says_its_network(site: Served) -> None:
    page = site.get("/instances/aws/p5.48xlarge")
    assert page.status_code == 200
    assert "3200 Gbps EFA" in page.text and "docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html" in page.text
