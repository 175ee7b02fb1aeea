"""/healthz answers 200 when the database and broker answer, 503 naming what failed."""

import pytest
from django.db import OperationalError

from config import health
from config.celery import app as celery_app


@pytest.mark.django_db
def test_healthz_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "broker": "ok"}


@pytest.mark.django_db
def test_healthz_names_an_unreachable_broker(client, monkeypatch):
    # Nothing listens on port 1: a real connection attempt that fails.
    # broker_write_url falls back to broker_url when read, so patch (and restore) it first.
    for name in ("broker_write_url", "broker_url"):
        monkeypatch.setattr(celery_app.conf, name, "redis://127.0.0.1:1/0")
    # The embedded default names its transport class, which would win over the URL.
    monkeypatch.setitem(celery_app.conf, "broker_transport", None)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["database"] == "ok"
    assert body["broker"].startswith("error")


@pytest.mark.django_db
def test_healthz_names_a_failing_database(client, monkeypatch):
    class BrokenConnection:
        def cursor(self):
            raise OperationalError("connection refused")

    monkeypatch.setattr(health, "connection", BrokenConnection())
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "error: OperationalError: connection refused"
    assert response.json()["broker"] == "ok"
