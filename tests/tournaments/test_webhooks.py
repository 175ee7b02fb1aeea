"""Organisers' webhooks (issue 31, "Integrations"): the tournament's events are POSTed to
a local HTTP server, signed with the webhook's secret, retried after a failure, logged."""

import hashlib
import hmac
import json
import queue
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from rest_framework.test import APIClient

from tests.factories import PlayerFactory
from tests.tournaments.helpers import bots, drive, open_tournament, organiser, register_all
from tournaments import services
from tournaments.models import Webhook, WebhookDelivery
from tournaments.services.webhooks import DeliveryFailed, Event, announce

pytestmark = pytest.mark.django_db


class Receiver:
    """A local endpoint: answers each POST with the next status given, records them all."""

    def __init__(self, *statuses: int):
        self.statuses = list(statuses)
        self.received = queue.Queue()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.put((dict(self.headers), body))
                answer = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(answer)
                self.end_headers()

            def log_message(self, *args):
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks/knock"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def allow_local(settings):
    settings.KNOCK_WEBHOOKS = {**settings.KNOCK_WEBHOOKS, "allow_private": True}


def verified(secret: str, headers: dict, body: bytes) -> bool:
    """What a receiver does with X-Knock-Signature."""
    parts = dict(item.split("=", 1) for item in headers["X-Knock-Signature"].split(","))
    expected = hmac.new(secret.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256)
    fresh = abs(time.time() - int(parts["t"])) < 300
    return fresh and hmac.compare_digest(expected.hexdigest(), parts["v1"])


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=user)
    return client


def test_only_the_organiser_adds_a_public_http_endpoint_for_known_events(settings):
    by = organiser()
    tournament = open_tournament(by=by)
    url = f"/api/tournaments/{tournament.pk}/webhooks/"
    stranger = api(PlayerFactory().user).post(url, {"url": "https://example.com/h"})
    assert stranger.status_code == 403
    client = api(by)
    for body, code in [
        ({"url": "ftp://example.com/h"}, "invalid_url"),
        ({"url": "https://example.com/" + "a" * 500}, "invalid"),
        ({"url": "https://example.com/h", "events": ["entry.exploded"]}, "invalid"),
        ({"url": "http://127.0.0.1:8000/admin/"}, "invalid_url"),
        ({"url": "http://10.1.2.3/internal"}, "invalid_url"),
        ({"url": "http://[::1]/h"}, "invalid_url"),
        ({"url": "http://169.254.169.254/latest/meta-data/"}, "invalid_url"),
    ]:
        answer = client.post(url, body, format="json")
        assert answer.status_code == 400, (body, answer.json())
        assert answer.json()["error"]["code"] == code, (body, answer.json())
    assert not Webhook.objects.exists()
    settings.KNOCK_WEBHOOKS = {**settings.KNOCK_WEBHOOKS, "allow_private": True}
    for n in range(settings.KNOCK_WEBHOOKS["per_tournament"]):
        created = client.post(url, {"url": f"http://127.0.0.1:9/{n}"}, format="json")
        assert created.status_code == 201, created.json()
        assert len(created.json()["secret"]) == 64
    too_many = client.post(url, {"url": "http://127.0.0.1:9/x"}, format="json")
    assert (too_many.status_code, too_many.json()["error"]["code"]) == (409, "too_many_webhooks")
    assert len(client.get(url).json()) == settings.KNOCK_WEBHOOKS["per_tournament"]
    assert api(PlayerFactory().user).get(url).status_code == 403
    first = Webhook.objects.first()
    assert api(PlayerFactory().user).delete(f"{url}{first.pk}/").status_code == 403
    assert client.delete(f"{url}{first.pk}/").status_code == 204
    assert not Webhook.objects.filter(pk=first.pk).exists()


def test_a_whole_tournament_reports_each_event_once(allow_local):
    by = organiser()
    tournament = open_tournament(by=by, show_up_seconds=0)
    services.webhook_add(tournament_id=tournament.pk, by=by, url="http://127.0.0.1:9/all")
    services.webhook_add(
        tournament_id=tournament.pk,
        by=by,
        url="http://127.0.0.1:9/end",
        events=["tournament.finished"],
    )
    register_all(tournament, bots(4))
    services.tournament_start(tournament_id=tournament.pk)
    drive(tournament)
    assert tournament.status == "finished"
    everything = WebhookDelivery.objects.filter(webhook__url__endswith="/all")
    counts = {}
    for event in everything.values_list("event", flat=True):
        counts[event] = counts.get(event, 0) + 1
    assert counts == {
        "entry.registered": 4,
        "round.started": 2,
        "match.finished": 3,
        "tournament.finished": 1,
    }
    end = WebhookDelivery.objects.get(webhook__url__endswith="/end")
    champion = end.payload["data"]["champion"]
    assert end.payload["data"]["placements"][0]["entry"] == champion
    # Reported again (a task run twice): still one delivery each.
    announce([Event(tournament.pk, "tournament.finished", "finished", {})])
    assert WebhookDelivery.objects.filter(event="tournament.finished").count() == 2


def test_a_delivery_is_signed_and_retried_after_a_500_then_logged(allow_local):
    receiver = Receiver(500, 200)
    try:
        by = organiser()
        tournament = open_tournament(by=by)
        hook = services.webhook_add(tournament_id=tournament.pk, by=by, url=receiver.url)
        services.entry_register(tournament_id=tournament.pk, player=PlayerFactory())
        delivery = WebhookDelivery.objects.get()
        with pytest.raises(DeliveryFailed):
            services.webhook_deliver(delivery_id=delivery.pk)
        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts, delivery.response_status) == (
            "pending",
            1,
            500,
        )
        assert delivery.last_error == "answered 500"
        assert services.webhook_deliver(delivery_id=delivery.pk) == "delivered"
        assert services.webhook_deliver(delivery_id=delivery.pk) == "delivered"  # no resend
        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts, delivery.response_status) == (
            "delivered",
            2,
            200,
        )
        sent = [receiver.received.get(timeout=5) for _ in range(2)]
        assert receiver.received.empty()
        for headers, body in sent:
            assert verified(hook.secret, headers, body)
            assert not verified("another secret", headers, body)
            assert headers["X-Knock-Event"] == "entry.registered"
            assert headers["X-Knock-Delivery"] == str(delivery.pk)
            payload = json.loads(body)
            assert (payload["id"], payload["tournament"]) == (delivery.pk, tournament.pk)
            assert payload["data"]["status"] == "registered"
    finally:
        receiver.close()


def test_a_delivery_that_keeps_failing_is_marked_failed_after_its_attempts(allow_local, settings):
    settings.KNOCK_WEBHOOKS = {**settings.KNOCK_WEBHOOKS, "attempts": 2}
    receiver = Receiver(503, 503, 503)
    try:
        by = organiser()
        tournament = open_tournament(by=by)
        services.webhook_add(tournament_id=tournament.pk, by=by, url=receiver.url)
        services.entry_register(tournament_id=tournament.pk, player=PlayerFactory())
        delivery = WebhookDelivery.objects.get()
        with pytest.raises(DeliveryFailed):
            services.webhook_deliver(delivery_id=delivery.pk)
        assert services.webhook_deliver(delivery_id=delivery.pk) == "failed"
        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts) == ("failed", 2)
    finally:
        receiver.close()


def test_an_unreachable_endpoint_is_an_attempt_logged_not_a_crash(allow_local):
    by = organiser()
    tournament = open_tournament(by=by)
    services.webhook_add(tournament_id=tournament.pk, by=by, url="http://127.0.0.1:9/closed")
    services.entry_register(tournament_id=tournament.pk, player=PlayerFactory())
    delivery = WebhookDelivery.objects.get()
    with pytest.raises(DeliveryFailed):
        services.webhook_deliver(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert delivery.attempts == 1 and "Error" in delivery.last_error


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_delivers_through_the_outbox_after_a_500(allow_local, celery_worker):
    receiver = Receiver(500, 200)
    try:
        by = organiser()
        tournament = open_tournament(by=by)
        hook = services.webhook_add(tournament_id=tournament.pk, by=by, url=receiver.url)
        started = time.monotonic()
        services.entry_register(tournament_id=tournament.pk, player=PlayerFactory())
        first = receiver.received.get(timeout=30)
        second = receiver.received.get(timeout=60)
        took = time.monotonic() - started
        for headers, body in (first, second):
            assert verified(hook.secret, headers, body)
        deadline = time.monotonic() + 10
        while WebhookDelivery.objects.get().status != "delivered":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        # The outbox's first backoff after a failure is 5 s (outbox.services.LEASE).
        assert 4 < took < 60, took
    finally:
        receiver.close()


def test_the_organiser_adds_and_removes_a_webhook_on_the_page_and_staff_see_its_log(
    client, allow_local, admin_client
):
    by = organiser()
    tournament = open_tournament(by=by)
    client.force_login(by)
    page = f"/tournaments/{tournament.pk}/"
    added = client.post(
        f"{page}webhooks/", {"url": "http://127.0.0.1:9/page", "events": ["match.finished"]}
    )
    assert added.status_code == 302
    hook = Webhook.objects.get()
    assert hook.events == ["match.finished"]
    shown = client.get(page).content.decode()
    assert "http://127.0.0.1:9/page" in shown and hook.secret in shown
    refused = client.post(f"{page}webhooks/", {"url": "javascript:alert(1)"}, follow=True)
    assert "http or https" in refused.content.decode()
    assert Webhook.objects.count() == 1
    # Another player sees neither the address nor the secret.
    client.force_login(PlayerFactory().user)
    other = client.get(page).content.decode()
    assert hook.secret not in other and "127.0.0.1:9/page" not in other
    assert client.post(f"{page}webhooks/{hook.pk}/remove/").status_code == 302
    assert Webhook.objects.filter(pk=hook.pk).exists()
    # Staff read the log in the admin, never the secret.
    services.webhook_add(tournament_id=tournament.pk, by=by, url="http://127.0.0.1:9/all")
    services.entry_register(tournament_id=tournament.pk, player=PlayerFactory())
    listing = admin_client.get("/admin/tournaments/webhook/")
    change = admin_client.get(f"/admin/tournaments/webhook/{hook.pk}/change/")
    log = admin_client.get("/admin/tournaments/webhookdelivery/")
    for answer in (listing, change, log):
        assert answer.status_code == 200
        assert hook.secret not in answer.content.decode()
    assert "entry.registered" in log.content.decode()
    client.force_login(by)
    assert client.post(f"{page}webhooks/{hook.pk}/remove/").status_code == 302
    assert not Webhook.objects.filter(pk=hook.pk).exists()
