"""/healthz answers 200 when the database and broker answer and the workers and beat have
sent fresh heartbeats, 503 naming what failed or went stale: the kind to anyone, the
detail (exception text, machine names) to staff only."""

from datetime import timedelta

import pytest
from django.db import OperationalError, connection
from django.db.utils import load_backend
from django.utils import timezone

from config import health
from config.celery import app as celery_app
from config.ops import heartbeats
from config.ops.models import Heartbeat
from tests.factories import UserFactory
from tests.served import free_port

pytestmark = pytest.mark.django_db

ALL_OK = {"database": "ok", "broker": "ok", "workers": "ok", "beat": "ok"}


@pytest.fixture
def alive():
    """A worker and beat that have just sent their heartbeats."""
    now = timezone.now()
    heartbeats.record(role=heartbeats.WORKER, name="celery@test", started_at=now)
    heartbeats.record(role=heartbeats.BEAT, name="beat@test", started_at=now)


def test_healthz_ok(client, alive):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == ALL_OK


@pytest.fixture
def staff(client):
    client.force_login(UserFactory(is_staff=True))


def test_healthz_answers_head(client, alive):
    response = client.head("/healthz")
    assert response.status_code == 200
    assert response.content == b""
    assert client.post("/healthz").status_code == 405


def test_a_dead_database_is_named_without_its_host(client, alive, monkeypatch):
    """A real connection attempt to where no database listens: the driver's message names
    the host, port and role, which anonymous callers must not see."""
    port = free_port()
    settings_dict = connection.settings_dict | {"HOST": "127.0.0.1", "PORT": port}
    if connection.vendor == "sqlite":
        settings_dict["NAME"] = f"/nonexistent-{port}/knock.sqlite3"
    backend = load_backend(settings_dict["ENGINE"])
    monkeypatch.setattr(health, "connection", backend.DatabaseWrapper(settings_dict, "dead"))
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == ALL_OK | {"database": "error"}
    assert str(port).encode() not in response.content
    assert b"127.0.0.1" not in response.content


def test_healthz_names_an_unreachable_broker(client, alive, monkeypatch):
    # Nothing listens on port 1: a real connection attempt that fails.
    # broker_write_url falls back to broker_url when read, so patch (and restore) it first.
    for name in ("broker_write_url", "broker_url"):
        monkeypatch.setattr(celery_app.conf, name, "redis://127.0.0.1:1/0")
    # The embedded default names its transport class, which would win over the URL.
    monkeypatch.setitem(celery_app.conf, "broker_transport", None)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == ALL_OK | {"broker": "error"}


def test_staff_see_what_failed(client, alive, staff, monkeypatch):
    class BrokenConnection:
        def cursor(self):
            raise OperationalError("connection refused")

    monkeypatch.setattr(health, "connection", BrokenConnection())
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "error: OperationalError: connection refused"
    assert response.json()["broker"] == "ok"


def test_anonymous_callers_see_the_kind_only(client, alive, settings):
    Heartbeat.objects.filter(name="celery@test").update(
        beat_at=timezone.now() - timedelta(seconds=95)
    )
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == ALL_OK | {"workers": "stale"}
    assert b"celery@test" not in response.content


def test_healthz_names_a_stale_worker(client, alive, staff, settings):
    settings.KNOCK_HEARTBEAT_STALE_SECONDS = 30
    Heartbeat.objects.filter(name="celery@test").update(
        beat_at=timezone.now() - timedelta(seconds=95)
    )
    heartbeats.record(role=heartbeats.WORKER, name="celery@other", started_at=timezone.now())
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == ALL_OK | {"workers": "stale: celery@test last seen 95 s ago"}


def test_healthz_says_when_no_beat_ever_reported(client, alive, staff):
    Heartbeat.objects.filter(role=heartbeats.BEAT).delete()
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == ALL_OK | {"beat": "missing: no beat has sent a heartbeat"}
    client.logout()
    assert client.get("/healthz").json() == ALL_OK | {"beat": "missing"}


def test_only_runs_the_checks_named(client):
    """A web liveness probe asks for what the web process needs: no heartbeats here."""
    response = client.get("/healthz?only=database,broker")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "broker": "ok"}
    assert client.get("/healthz").status_code == 503  # the workers and beat are missing


def test_only_refuses_an_unknown_check(client):
    response = client.get("/healthz?only=database,disk")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "unknown_check"
    assert "disk" in response.json()["error"]["message"]
