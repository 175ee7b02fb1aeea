"""`GET /metrics` (config/metrics.py): protected by METRICS_TOKEN; scraped from a real
uvicorn after a real match against a bot, played over the socket with an API token while a
real Celery worker plays the bot and finalizes, the counters of both processes moved (they
share PROMETHEUS_MULTIPROC_DIR, as under `make run`); the store's gauges read at scrape."""

import asyncio
import json
import logging
import re
import socket
import time
from datetime import timedelta
from pathlib import Path
from urllib.request import Request, urlopen

import pytest
import yaml
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import REGISTRY
from websockets.asyncio.client import connect

from config import metrics
from config.ops.models import Heartbeat
from gameplay.models import Match
from outbox.models import Job
from tests.factories import PlayerFactory, RoomFactory
from tests.gameplay.helpers import api_key, choose
from tests.gameplay.test_consumers import run_async
from tests.gameplay.test_table_restart import WebServer, os_free_port
from tests.workers import Workers, database_url

TOKEN = "scrape-me-please"
DOCS = Path(__file__).resolve().parents[2] / "docs"


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def total(found: dict, metric: str, **labels) -> float:
    wanted = set(labels.items())
    return sum(value for (key, have), value in found.items() if key == metric and wanted <= have)


@pytest.mark.django_db
def test_the_endpoint_needs_its_token(settings):
    settings.METRICS_TOKEN = ""
    assert Client().get("/metrics").status_code == 404  # off unless configured
    settings.METRICS_TOKEN = TOKEN
    refused = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer wrong")
    assert refused.status_code == 401 and refused["WWW-Authenticate"].startswith("Bearer")
    assert Client().get("/metrics").status_code == 401
    assert Client().get("/metrics", HTTP_AUTHORIZATION=f"Token {TOKEN}").status_code == 401
    ok = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert ok.status_code == 200 and ok["Content-Type"].startswith("text/plain")


@pytest.mark.django_db
def test_the_store_gauges_are_read_at_scrape_time(settings):
    settings.METRICS_TOKEN = TOKEN
    now = timezone.now()
    Job.objects.create(task="t", args=[], available_at=now - timedelta(seconds=90), created_at=now)
    Job.objects.create(task="t", args=[], available_at=now + timedelta(hours=1), created_at=now)
    Heartbeat.objects.create(
        name="w1@host", role="worker", pid=1, beat_at=now - timedelta(seconds=40), started_at=now
    )
    body = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode()
    found = samples(body)
    assert total(found, "knock_outbox_jobs_due") == 1  # the later one is not due yet
    assert 90 <= total(found, "knock_outbox_oldest_due_seconds") < 120
    assert 40 <= total(found, "knock_heartbeat_age_seconds", role="worker", name="w1@host") < 70
    assert any(key == "knock_celery_queue_depth" for key, _ in found)


@pytest.mark.django_db(transaction=True)
def test_a_scrape_after_a_bot_match_shows_the_web_and_worker_counters(
    celery_test_queue, tmp_path, monkeypatch
):
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    monkeypatch.setenv("METRICS_TOKEN", TOKEN)
    worker_port = os_free_port()
    monkeypatch.setenv("METRICS_PORT", str(worker_port))  # the worker serves there too
    room = RoomFactory(options={"target": 1})  # one hand
    ada = PlayerFactory(coins=100)
    key = api_key(ada)
    web = WebServer(os_free_port(), celery_test_queue)
    with Workers(count=1, queue=celery_test_queue, database=database_url()) as _workers:
        web.start()
        try:
            auth = {"Authorization": f"Token {key}", "Content-Type": "application/json"}
            assert json.loads(_http(f"{web.url}/api/me/", auth))["id"] == ada.pk
            play = f"{web.url}/api/rooms/{room.pk}/play/"
            match_id = json.loads(_http(play, auth, {"opponent": "bot"}, status=201))["match"]
            run_async(lambda: play_to_the_end(web, match_id, key))
            deadline = time.monotonic() + 60
            while not Match.objects.filter(pk=match_id, finalized_at__isnull=False).exists():
                assert time.monotonic() < deadline, "the worker did not finalize the match"
                time.sleep(0.2)
            time.sleep(0.5)  # the finalize's counter is written just after its commit
            body = _http(f"{web.url}/metrics", {"Authorization": f"Bearer {TOKEN}"})
            from_worker = _http(f"http://127.0.0.1:{worker_port}/metrics", {})
        finally:
            web.kill()
    found = samples(body)
    match = Match.objects.get(pk=match_id)
    people = sum(1 for move in match.log if move["seat"] == 0)
    bots = sum(1 for move in match.log if move["seat"] == 1)
    assert people and bots, match.log
    assert total(found, "knock_moves_total", variant="gin", by="person") == people
    assert total(found, "knock_moves_total", variant="gin", by="bot") == bots  # the worker's
    assert total(found, "knock_bot_reply_seconds_count", variant="gin") >= 1
    assert total(found, "knock_matches_finished_total", variant="gin", outcome="played") == 1
    assert total(found, "knock_http_requests_total", view="api-room-play", status="201") == 1
    assert total(found, "knock_http_requests_total", view="api-me", method="GET") >= 1
    assert total(found, "knock_http_request_seconds_count", view="api-me") >= 1
    assert total(found, "knock_open_sockets", socket="match") == 0  # closed again
    assert any(key == "knock_open_sockets" for key, _ in found)
    assert total(found, "knock_heartbeat_age_seconds", role="worker") < 30
    # A machine of workers only is scraped on METRICS_PORT: the same folder, the same sums.
    on_worker = samples(from_worker)
    assert total(on_worker, "knock_moves_total", by="bot") == bots
    assert total(on_worker, "knock_matches_finished_total", outcome="played") == 1


def _http(url: str, headers: dict, body: dict | None = None, status: int = 200) -> str:
    data = None if body is None else json.dumps(body).encode()
    with urlopen(Request(url, data=data, headers=headers), timeout=10) as answer:
        assert answer.status == status
        return answer.read().decode()


async def play_to_the_end(web, match_id: int, key: str) -> None:
    """Seat 0's moves over the socket (an API token), the bot's from the worker."""
    url = f"ws://127.0.0.1:{web.port}/ws/matches/{match_id}/"
    async with connect(url, subprotocols=["knock.token", key]) as ws:
        latest, pending, ref = None, False, 0
        deadline = time.monotonic() + 120
        while True:
            assert time.monotonic() < deadline, "the match did not end"
            frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if frame["type"] == "error":
                raise AssertionError(frame)
            if frame["type"] != "view":
                continue
            if latest is None or frame["seq"] >= latest["seq"]:
                latest = frame["view"]
            if frame.get("ref") == ref:
                pending = False
            if latest["status"] != "active":
                return
            if latest["to_move"] == latest["seat"] and latest["legal_actions"] and not pending:
                await asyncio.sleep(0.1)  # a bot client's pace: the socket takes 10 acts a second
                ref += 1
                pending = True
                action = {"type": "act", "seq": latest["seq"], "action": choose(latest), "ref": ref}
                await ws.send(json.dumps(action))


@pytest.mark.django_db
def test_the_alert_rules_and_dashboard_name_only_metrics_that_exist():
    """docs/prometheus-alerts.yml and docs/grafana-knock.json follow config/metrics.py."""
    suffixes = {"counter": ["_total"], "histogram": ["_bucket", "_count", "_sum"], "gauge": [""]}
    families = [*REGISTRY.collect(), *metrics.StoreCollector().collect()]
    known = {
        f.name + end for f in families if f.name.startswith("knock_") for end in suffixes[f.type]
    }
    rules = yaml.safe_load((DOCS / "prometheus-alerts.yml").read_text())
    exprs = [rule["expr"] for group in rules["groups"] for rule in group["rules"]]
    dashboard = json.loads((DOCS / "grafana-knock.json").read_text())
    exprs += [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    named = {name for expr in exprs for name in re.findall(r"knock_[a-z_]+", expr)}
    assert named and named <= known, named - known
    alerts = {rule["alert"] for group in rules["groups"] for rule in group["rules"]}
    assert {
        "KnockOutboxBehind",
        "KnockHeartbeatStale",
        "KnockHttp5xx",
        "KnockBotReplySlow",
    } <= alerts


def test_a_second_worker_on_the_machine_leaves_the_metrics_port_to_the_first(caplog):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with caplog.at_level(logging.INFO, logger="config.metrics"):
            metrics.serve(taken.getsockname()[1])
    assert "another worker serves it" in caplog.text
