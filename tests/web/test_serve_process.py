"""`gpu-tracker serve` as its own process, as a user starts it: it answers
the CLI's JSON exactly (it runs pandas without pyarrow, see
tracker/cli/commands/daemon.py) and says where it listens."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.helpers.stores import DemoRun
from tracker.web.screenshots import free_port

QUESTIONS = [
    ("/api/compare?gpu=H100&count=8", ["compare", "--gpu", "H100", "--count", "8"]),
    ("/api/recommend?gpus=8&min_gpu_memory=80", ["recommend", "--gpus", "8", "--min-gpu-memory", "80"]),
    ("/api/prices?gpu=A100&limit=10000", ["prices", "--gpu", "A100"]),
]


@pytest.mark.slow
def test_the_server_process_answers_as_the_cli(demo_run: DemoRun, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(demo_run.home / "tracker.db", home / "tracker.db")
    env = {k: v for k, v in os.environ.items() if k != "GPU_TRACKER_DATABASE_URL"} | {"GPU_TRACKER_HOME": str(home)}
    cli = [sys.executable, "-m", "tracker.cli", "--home", str(home)]
    port = free_port()
    server = subprocess.Popen(
        [*cli, "serve", "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "gpu-tracker serve did not start"
            time.sleep(0.2)
        for path, args in QUESTIONS:
            answer = httpx.get(base + path, timeout=60)
            assert answer.status_code == 200, (path, answer.text)
            said = subprocess.run(
                [*cli, *args, "--format", "json"], env=env, capture_output=True, text=True, check=True
            )
            assert answer.json() == json.loads(said.stdout), path
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    assert f"dashboard on http://127.0.0.1:{port}/" in err
    assert "alembic" not in err  # the store's migrations check says nothing at INFO
