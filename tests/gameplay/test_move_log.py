"""The move log column: JSON kept as text, written and read whole."""

import json

import pytest
from django.core import serializers
from django.db import connection

from gameplay import services
from gameplay.models import Match

pytestmark = pytest.mark.django_db

LOG = [
    {"seat": 0, "action": {"type": "draw", "source": "stock"}},
    {"seat": 0, "action": {"type": "discard", "card": "TS"}, "auto": True},
    {"seat": 1, "action": {"type": "knock", "card": "AH", "note": "é ♠"}},
]


def stored_match(log: list) -> Match:
    bots = services.bot_players(kind="greedy", count=2)
    match = services.match_create(variant="gin", options={}, players=bots)
    Match.objects.filter(pk=match.pk).update(log=log)
    return Match.objects.get(pk=match.pk)


def test_a_log_comes_back_as_it_was_stored():
    assert stored_match(LOG).log == LOG


def test_the_column_holds_compact_json_text():
    match = stored_match(LOG)
    with connection.cursor() as cursor:
        cursor.execute("SELECT log FROM gameplay_match WHERE id = %s", [match.pk])
        [raw] = cursor.fetchone()
    assert isinstance(raw, str) and json.loads(raw) == LOG
    assert ", " not in raw and '": ' not in raw


def test_a_new_match_starts_with_an_empty_log():
    bots = services.bot_players(kind="greedy", count=2)
    match = services.match_create(variant="gin", options={}, players=bots)
    assert Match.objects.get(pk=match.pk).log == []


def test_dumpdata_and_loaddata_carry_the_log():
    match = stored_match(LOG)
    text = serializers.serialize("json", [match], fields=["log"])
    assert json.loads(json.loads(text)[0]["fields"]["log"]) == LOG
    [loaded] = serializers.deserialize("json", text)
    assert loaded.object.log == LOG
