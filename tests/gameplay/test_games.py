"""The cached engine state is only trusted from the engine code that wrote it."""

import pickle

import pytest

from gameplay import games, services
from gameplay.models import Match

pytestmark = pytest.mark.django_db


class Tampered:
    """What an old engine's pickle would be to this one: not a game it can use."""


def started_match() -> Match:
    bots = services.bot_players(kind="greedy", count=2)
    match = services.match_create(variant="gin", options={}, players=bots)
    services.match_play_bots(match_id=match.pk, max_actions=7)
    match.refresh_from_db()
    return match


@pytest.mark.parametrize(
    "stored",
    [
        pickle.dumps(Tampered()),  # written before states were stamped
        b"knock-engine:0123456789abcdef:" + pickle.dumps(Tampered()),  # another engine's
    ],
)
def test_a_state_from_other_engine_code_is_rebuilt_from_the_move_log(stored):
    match = started_match()
    expected = games.load(match).view(0)
    Match.objects.filter(pk=match.pk).update(state=stored)
    match.refresh_from_db()
    assert games.load(match).view(0) == expected


def test_this_engines_state_is_loaded_without_a_replay(monkeypatch):
    match = started_match()
    assert bytes(match.state).startswith(games.ENGINE_FINGERPRINT)
    monkeypatch.setattr(games, "replay", lambda match: pytest.fail("replayed"))
    assert games.load(match).seq == match.seq
