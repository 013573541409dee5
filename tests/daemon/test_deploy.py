"""deploy/: the manifests parse, their configuration loads, and every command
they run is a real `gpu-tracker` command with real options."""

from __future__ import annotations

import configparser
import json
import shlex
import tomllib
from pathlib import Path

import pytest
import typer
import typer.main
import yaml

from tracker.cli import app
from tracker.config.settings import Config, load_config
from tracker.daemon.health import default_sources
from tracker.daemon.k8s import cron, cronjobs
from tracker.sources import SOURCES

DEPLOY = Path(__file__).parents[2] / "deploy"
K8S = DEPLOY / "k8s"
REGENERATE = "run `python -m tracker.daemon.k8s > deploy/k8s/cronjobs.yaml`"
DEFAULT = [name for name in default_sources(Config()) if name in SOURCES]


def check_command(argv: list[str]) -> str:
    """Parse argv as the CLI would, without running it; returns the subcommand."""
    assert argv, "empty command"
    root = typer.main.get_command(app)
    assert isinstance(root, typer.core.TyperGroup)
    with root.make_context("gpu-tracker", list(argv)) as ctx:
        rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
        name, command, args = root.resolve_command(ctx, rest)
        assert command is not None, argv
        command.make_context(name, args, parent=ctx)
    return str(name)


def after_program(argv: list[str]) -> list[str]:
    for i, word in enumerate(argv):
        if Path(word).name == "gpu-tracker":
            return argv[i + 1 :]
    raise AssertionError(f"no gpu-tracker in {argv}")


def k8s_docs() -> list[dict]:
    docs: list[dict] = []
    for path in sorted(K8S.glob("*.yaml")):
        docs.extend(d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d)
    return docs


def containers(doc: dict) -> list[dict]:
    spec = doc["spec"]
    if doc["kind"] == "CronJob":
        spec = spec["jobTemplate"]["spec"]
    return spec["template"]["spec"]["containers"]


def test_the_checker_rejects_what_the_cli_would() -> None:
    assert check_command(["crawl", "azure", "--wait", "5"]) == "crawl"
    for bad in (["crawl", "azure", "--no-such-option"], ["nosuch"], ["daemon", "--metrics-port", "x"]):
        with pytest.raises(typer.TyperException):
            check_command(bad)


def test_kubernetes_manifests() -> None:
    docs = k8s_docs()
    kinds = [d["kind"] for d in docs]
    assert {"ConfigMap", "Secret", "Deployment", "CronJob", "Kustomization"} <= set(kinds)
    commands = []
    for doc in docs:
        if doc["kind"] in {"CronJob", "Deployment"}:
            for c in containers(doc):
                commands.append(after_program(c["command"] + c["args"]))
    assert all(check_command(argv) for argv in commands)
    crawled = {argv[argv.index("crawl") + 1] for argv in commands if "crawl" in argv}
    missing = set(DEFAULT) - crawled
    assert not missing, f"no CronJob for {sorted(missing)}: {REGENERATE}"
    assert any("daemon" in argv and "--no-crawl" in argv for argv in commands)
    listed = yaml.safe_load((K8S / "kustomization.yaml").read_text())["resources"]
    assert sorted(listed) == sorted(p.name for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")


def test_the_cronjobs_are_generated_from_the_registry() -> None:
    committed = (K8S / "cronjobs.yaml").read_text(encoding="utf-8")
    assert committed == cronjobs(), f"deploy/k8s/cronjobs.yaml is out of date: {REGENERATE}"
    jobs = [d for d in yaml.safe_load_all(committed) if d]
    # The daemon's default set (the sources whose evidence is more than assumed), in registry order.
    assert [d["metadata"]["labels"]["gpu-tracker/source"] for d in jobs] == DEFAULT
    assert {d["spec"]["schedule"].split(" ", 1)[1] for d in jobs} == {"*/6 * * *"}  # the daemon's default 6h
    assert len({d["spec"]["schedule"] for d in jobs}) == len(jobs)  # no two start together


def test_a_cronjob_repeats_only_on_whole_hours_of_a_day() -> None:
    assert cron("1d", 0) == "17 0 * * *" and cron("2h", 7) == "6 */2 * * *"
    for every in ("90m", "5h", "2d"):
        with pytest.raises(ValueError, match="divides 24"):
            cron(every, 0)


def test_configurations_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    configmap = next(d for d in k8s_docs() if d["kind"] == "ConfigMap")
    secret = next(d for d in k8s_docs() if d["kind"] == "Secret")
    for key in secret["stringData"]:
        monkeypatch.setenv(key, "placeholder")
    (tmp_path / "k8s.toml").write_text(configmap["data"]["config.toml"])
    for path in (tmp_path / "k8s.toml", DEPLOY / "config.toml"):
        config = load_config(path, home=tmp_path)
        assert set(config.daemon.schedule) <= set(SOURCES)


def test_systemd_unit() -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment]
    unit.read(DEPLOY / "systemd" / "gpu-tracker.service")
    service = unit["Service"]
    assert service["Restart"] == "on-failure" and service["User"] == "gpu-tracker"
    for option in ("NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp"):
        assert option in service
    assert check_command(after_program(shlex.split(service["ExecStart"]))) == "daemon"


def test_dockerfile_and_compose() -> None:
    lines = (DEPLOY / "Dockerfile").read_text(encoding="utf-8").splitlines()
    instruction = {
        line.split()[0]: line.split(None, 1)[1]
        for line in lines
        if line and line.split()[0] in {"FROM", "ENTRYPOINT", "CMD", "USER", "HEALTHCHECK"}
    }
    assert "slim" in instruction["FROM"] and instruction["USER"].split(":")[0] not in {"root", "0"}
    entrypoint, cmd = json.loads(instruction["ENTRYPOINT"]), json.loads(instruction["CMD"])
    assert entrypoint[0] == "tini"
    assert check_command(after_program(entrypoint + cmd)) == "daemon"
    assert "chromium" in "\n".join(lines)

    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))
    tracker = compose["services"]["tracker"]
    assert "postgres" in compose["services"] and tracker["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert check_command(tracker["command"]) == "daemon"
    assert tracker["environment"]["GPU_TRACKER_DATABASE_URL"].startswith("postgresql+psycopg://")
    tomllib.loads((DEPLOY / "config.toml").read_text(encoding="utf-8"))


def test_the_dashboard_is_exposed_with_a_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compose file and the Deployment bind the dashboard to the container's
    address, which the daemon allows only with the token their secrets give;
    the Service reaches the Deployment's web port, whose /healthz is the probe."""
    from tracker.errors import UserError
    from tracker.web.serve import check_bind

    docs = k8s_docs()
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    service = next(d for d in docs if d["kind"] == "Service")
    container = containers(deployment)[0]
    argv = after_program(container["command"] + container["args"])
    assert argv[argv.index("--web-host") + 1] == "0.0.0.0"
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert container["readinessProbe"]["httpGet"] == {"path": "/healthz", "port": "web"}
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]
    assert {p["targetPort"] for p in service["spec"]["ports"]} <= set(ports)
    secret = next(d for d in docs if d["kind"] == "Secret")
    assert "GPU_TRACKER_WEB_TOKEN" in secret["stringData"]
    configmap = next(d for d in docs if d["kind"] == "ConfigMap")
    (tmp_path / "k8s.toml").write_text(configmap["data"]["config.toml"])
    config = load_config(tmp_path / "k8s.toml", home=tmp_path)
    assert config.web.enabled and config.web.port == ports["web"]
    monkeypatch.delenv("GPU_TRACKER_WEB_TOKEN", raising=False)
    opened = config.web.model_copy(update={"host": "0.0.0.0"})
    with pytest.raises(UserError, match="without a token"):
        check_bind(opened)
    monkeypatch.setenv("GPU_TRACKER_WEB_TOKEN", "from-the-k8s-secret")  # at least 16 characters
    check_bind(opened)

    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))["services"]["tracker"]
    assert "GPU_TRACKER_WEB_TOKEN:?" in compose["environment"]["GPU_TRACKER_WEB_TOKEN"]
    assert "--web-host" in compose["command"] and "127.0.0.1:8080:8080" in compose["ports"]
    assert "web]" in (DEPLOY / "Dockerfile").read_text(encoding="utf-8")  # the image has the web extra
    local = load_config(DEPLOY / "config.toml", home=tmp_path).web
    assert local.enabled and local.host == "127.0.0.1"  # systemd: loopback, no token needed
