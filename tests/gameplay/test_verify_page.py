"""/verify/ is public, so it is cheap whatever it is sent (issue 24): bounded documents,
numbers in ASCII digits, no recursion, a rate per client; every refusal is the page again
with its reason, never a 500."""

import json
import time

import pytest
from django.test import Client

from config.security import RateLimit
from gameplay import services
from gameplay.views import VERIFY_MAX_CHARS, VERIFY_MAX_MOVES

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "number",
    ["\u00b2", "\u0663", "\uff11", "1" * 5000, str(2**63), "-1", "1e3", " 1 2", "0x10", "1\x00"],
)
def test_a_match_number_that_is_not_ascii_digits_in_range_is_a_400(client, number):
    answer = client.get("/verify/", {"match": number})
    assert answer.status_code == 400
    assert "A match number is written in the digits 0-9" in answer.content.decode()


def test_an_unknown_but_well_formed_number_is_no_finished_match(client):
    answer = client.get("/verify/", {"match": str(2**63 - 1)})
    assert answer.status_code == 200 and "No finished match" in answer.content.decode()


def test_a_deeply_nested_document_is_a_400_not_a_recursion_error(client):
    for document in (
        "[" * 200_000 + "]" * 200_000,
        json.dumps({"moves": [[[[[[[[]]]]]]]]} | {"options": json.loads("[" * 40 + "]" * 40)}),
    ):
        answer = client.post("/verify/", {"document": document})
        assert answer.status_code == 400, answer.status_code
        assert "nests deeper than" in answer.content.decode()


def test_a_document_past_the_bounds_is_a_413_answered_fast(client):
    bot = services.bot_players(kind="greedy", count=2)
    match = services.match_create(variant="gin", options={}, players=bot)
    services.match_play_bots(match_id=match.pk)
    document = client.get(f"/api/matches/{match.pk}/document/").json()
    long_moves = {**document, "moves": document["moves"] * (VERIFY_MAX_MOVES // 100)}
    assert len(long_moves["moves"]) > VERIFY_MAX_MOVES
    padded = json.dumps(document) + " " * VERIFY_MAX_CHARS
    for pasted in (json.dumps(long_moves), padded):
        started = time.perf_counter()
        answer = client.post("/verify/", {"document": pasted})
        assert answer.status_code == 413
        assert time.perf_counter() - started < 1.0
    assert "check it offline" in answer.content.decode()
    # A body past the upload limit is refused before it is read.
    huge = Client().post("/verify/", {"document": "x" * 3_000_000})
    assert huge.status_code == 413
    # Inside the bounds, the same match verifies.
    answer = client.post("/verify/", {"document": json.dumps(document)})
    assert answer.status_code == 200 and "✓ Verified" in answer.content.decode()


def test_checks_are_limited_per_client(monkeypatch):
    monkeypatch.setitem(RateLimit.THROTTLE_RATES, "verify", "3/min")
    here, elsewhere = Client(REMOTE_ADDR="10.0.0.1"), Client(REMOTE_ADDR="10.0.0.2")
    for _ in range(3):
        assert here.get("/verify/", {"match": "1"}).status_code == 200
    assert here.get("/verify/").status_code == 200  # the empty form checks nothing
    refused = here.post("/verify/", {"document": "{}"})
    assert refused.status_code == 429 and "Too many checks" in refused.content.decode()
    assert elsewhere.get("/verify/", {"match": "1"}).status_code == 200
