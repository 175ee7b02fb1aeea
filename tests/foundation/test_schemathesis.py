"""Schemathesis against the live schema: generated requests, valid and invalid, as an
anonymous client and as a player; no answer may be a server error or break the schema."""

import os

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from rest_framework.throttling import SimpleRateThrottle
from schemathesis import checks

from tests.factories import PlayerFactory, RoomFactory
from tests.gameplay.helpers import api_key

pytestmark = pytest.mark.django_db

# Examples per operation and mode: the whole run stays well under two minutes.
EXAMPLES = int(os.environ.get("KNOCK_SCHEMATHESIS_EXAMPLES", "15"))
# Every check but two: the API reads some query parameters leniently (a page_size it cannot
# read is ignored, `0.5` is read as a number), and DRF reads an empty form field as missing;
# neither is an error this suite is after.
LENIENT = [checks.negative_data_rejection, checks.positive_data_acceptance]

# The schema the app serves, fetched from it when this module is collected.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
schema.config.generation.update(max_examples=EXAMPLES, deterministic=True)


@pytest.fixture(autouse=True)
def one_connection():
    """Requests go through Django's WSGI handler, which closes the database connection after
    each one; as in Django's test client, keep the test's (its transaction holds the rows)."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.fixture(autouse=True)
def unthrottled(monkeypatch):
    """Not a test of the rate limits: every scope lets the generated requests through."""
    for scope in SimpleRateThrottle.THROTTLE_RATES:
        monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, scope, "100000/min")


@schema.parametrize()
def test_anonymous_client(case):
    RoomFactory()
    case.call_and_validate(excluded_checks=LENIENT)


@schema.parametrize()
def test_player(case):
    player = PlayerFactory(coins=500)
    RoomFactory()
    token = {"Authorization": f"Token {api_key(player)}"}
    case.call_and_validate(headers=token, excluded_checks=LENIENT)
