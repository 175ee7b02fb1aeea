"""Organisers' webhooks: the tournament's events POSTed to their endpoints, signed.

An event is written as one `WebhookDelivery` per subscribed webhook in the transaction of
the change it reports, with a key that makes a change reported twice one delivery, and a
job (`tournaments.jobs.DELIVER_WEBHOOK`) that sends it once that transaction commits. A
failed attempt (a connection error, a timeout, an answer other than 2xx) is logged on the
row and retried by the outbox with its backoff, `KNOCK_WEBHOOKS["attempts"]` times in all.
Delivery is at least once: a receiver dedupes by the `X-Knock-Delivery` header.

Signature (as Stripe's): `X-Knock-Signature: t=<unix seconds>,v1=<hex>` where `v1` is
HMAC-SHA256 of `"<t>.<body>"` under the webhook's secret; a receiver recomputes it and
refuses an old `t`. Endpoints must be public: an address that resolves to a loopback,
private, link-local or reserved network is refused when added and again before each
attempt, and redirects are not followed, so a webhook cannot reach into Knock's network
(`KNOCK_WEBHOOKS["allow_private"]` lifts that for a closed deployment and the tests).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import socket
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import orjson
import urllib3
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from config.errors import Conflict, DomainError, NotFound
from config.jobs import enqueue_many
from tournaments import jobs
from tournaments.models import Tournament, Webhook, WebhookDelivery
from tournaments.services.common import _check_organiser

logger = logging.getLogger(__name__)

EVENTS = [choice for choice, _label in Webhook.Event.choices]


class DeliveryFailed(Exception):
    """An attempt that did not reach a 2xx answer; the outbox retries the job."""


@dataclass(frozen=True)
class Event:
    tournament_id: int
    event: str
    key: str  # what it is about, once per webhook
    data: dict


def _public_address_or_refuse(url: str) -> None:
    """Refuse a URL that is not http(s), or whose host resolves to a non-public address."""
    if not url.isascii() or not url.isprintable() or " " in url:
        raise DomainError(_("A webhook address is a plain http or https URL."), code="invalid_url")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DomainError(_("A webhook needs an http or https address."), code="invalid_url")
    if settings.KNOCK_WEBHOOKS["allow_private"]:
        return
    try:
        found = socket.getaddrinfo(parts.hostname, parts.port or 443, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError, ValueError):
        raise DomainError(
            _("The webhook's host name does not resolve."), code="invalid_url"
        ) from None
    for *_rest, address in found:
        ip = ipaddress.ip_address(address[0])
        if not ip.is_global or ip.is_multicast:
            raise DomainError(
                _("A webhook must be on the public internet, not %(address)s.") % {"address": ip},
                code="invalid_url",
            )


def webhook_add(*, tournament_id: int, by, url: str, events: list[str] | None = None) -> Webhook:
    """Add an endpoint to the organiser's tournament; `events` empty or None: all of them."""
    events = list(events or [])
    unknown = sorted(set(events) - set(EVENTS))
    if unknown:
        raise DomainError(
            _("Unknown webhook event %(event)s; known: %(known)s.")
            % {"event": unknown[0], "known": ", ".join(EVENTS)},
            code="invalid_event",
        )
    if len(url) > 500:
        raise DomainError(_("A webhook address is at most 500 characters."), code="invalid_url")
    _public_address_or_refuse(url)
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None:
            raise NotFound(_("No such tournament."), code="not_found")
        _check_organiser(by, tournament)
        if tournament.webhooks.count() >= settings.KNOCK_WEBHOOKS["per_tournament"]:
            raise Conflict(
                _("A tournament has at most %(count)d webhooks.")
                % {"count": settings.KNOCK_WEBHOOKS["per_tournament"]},
                code="too_many_webhooks",
            )
        return Webhook.objects.create(tournament=tournament, url=url, events=sorted(set(events)))


def webhook_remove(*, webhook_id: int, by) -> None:
    with transaction.atomic():
        webhook = Webhook.objects.select_related("tournament").filter(pk=webhook_id).first()
        if webhook is None:
            raise NotFound(_("No such webhook."), code="not_found")
        _check_organiser(by, webhook.tournament)
        webhook.delete()


def announce(events: list[Event]) -> None:
    """Write the deliveries of `events` for every webhook that wants them, and their jobs,
    in the caller's transaction. One query when the tournaments have no webhooks."""
    if not events:
        return
    hooks = list(
        Webhook.objects.filter(
            tournament_id__in={event.tournament_id for event in events}, active=True
        )
    )
    if not hooks:
        return
    now = timezone.now().isoformat()
    rows = [
        WebhookDelivery(
            webhook=hook,
            event=event.event,
            key=event.key,
            payload={
                "event": event.event,
                "tournament": event.tournament_id,
                "at": now,
                "data": event.data,
            },
        )
        for event in events
        for hook in hooks
        if hook.tournament_id == event.tournament_id and hook.wants(event.event)
    ]
    keys = {row.key for row in rows}
    reported = set(
        WebhookDelivery.objects.filter(webhook__in=hooks, key__in=keys).values_list(
            "webhook_id", "key"
        )
    )
    rows = [row for row in rows if (row.webhook.pk, row.key) not in reported]
    if not rows:
        return
    # A report racing this one (a task run twice at once) loses at the unique constraint.
    WebhookDelivery.objects.bulk_create(rows, ignore_conflicts=True)
    new = {(row.webhook.pk, row.key) for row in rows}
    ids = [
        pk
        for pk, hook, key in WebhookDelivery.objects.filter(
            webhook__in=hooks, key__in=keys, attempts=0
        ).values_list("pk", "webhook_id", "key")
        if (hook, key) in new
    ]
    enqueue_many(jobs.DELIVER_WEBHOOK, [(pk,) for pk in ids])


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """The `X-Knock-Signature` value of `body` sent at `timestamp`."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


_http = urllib3.PoolManager(retries=False)


def webhook_deliver(*, delivery_id: int) -> str:
    """One attempt at a pending delivery; raises `DeliveryFailed` (so the job is retried)
    until the last attempt, which marks it failed. Returns the delivery's status."""
    delivery = WebhookDelivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != WebhookDelivery.Status.PENDING:
        return delivery.status if delivery else "gone"
    webhook = delivery.webhook
    body = orjson.dumps({"id": delivery.pk, **delivery.payload})
    answer, error = None, ""
    try:
        _public_address_or_refuse(webhook.url)
        response = _http.request(
            "POST",
            webhook.url,
            body=body,
            headers={
                "Content-Type": "application/json",
                "User-Agent": "Knock-Webhooks/1",
                "X-Knock-Event": delivery.event,
                "X-Knock-Delivery": str(delivery.pk),
                "X-Knock-Signature": signature(webhook.secret, int(time.time()), body),
            },
            timeout=urllib3.Timeout(total=settings.KNOCK_WEBHOOKS["timeout_seconds"]),
            redirect=False,
            preload_content=False,
        )
        answer = response.status
        response.drain_conn()
        response.release_conn()
        if not 200 <= answer < 300:
            error = f"answered {answer}"
    except DomainError as exc:
        error = str(exc)
    except urllib3.exceptions.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}"
    attempts = delivery.attempts + 1
    done = not error
    last = attempts >= settings.KNOCK_WEBHOOKS["attempts"]
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        attempts=attempts,
        response_status=answer,
        last_error=error[:300],
        status=(
            WebhookDelivery.Status.DELIVERED
            if done
            else WebhookDelivery.Status.FAILED
            if last
            else WebhookDelivery.Status.PENDING
        ),
        delivered_at=timezone.now() if done else None,
    )
    if done:
        return WebhookDelivery.Status.DELIVERED
    if last:
        logger.warning("webhook delivery %s failed %s times: %s", delivery.pk, attempts, error)
        return WebhookDelivery.Status.FAILED
    raise DeliveryFailed(f"webhook delivery {delivery.pk}, attempt {attempts}: {error}")
