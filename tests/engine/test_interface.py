"""The variant interface the gameplay app is written against (issue 3, "Interfaces")."""

import json

import pytest

from engine import IllegalAction, variants


def test_gin_is_registered_with_its_player_range():
    v = variants.get("gin")
    assert (v.name, v.min_players, v.max_players) == ("gin", 2, 2)


def test_unknown_variant_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="'poker'"):
        variants.get("poker")
    with pytest.raises(ValueError, match="unknown variant"):
        variants.get(["gin"])


def test_a_variant_name_is_registered_once():
    with pytest.raises(ValueError, match="'gin' is already registered"):
        variants.register(type(variants.get("gin"))())
    assert "gin" in variants.names()


@pytest.mark.parametrize("bots", [["random", "random"], ["greedy", "random"], ["greedy", "greedy"]])
def test_bot_match_replays_to_the_same_result(bots):
    v = variants.get("gin")
    rec = v.play(players=2, seed="abc", bots=bots, options={})
    assert rec.result["winner"] in (0, 1)
    json.dumps(rec.moves)
    json.dumps(rec.result)
    assert v.replay(rec.moves, players=2, seed="abc", options={}).result == rec.result


def test_wrong_seat_is_not_your_turn():
    g = variants.get("gin").new(players=2, seed="abc", options={})
    with pytest.raises(IllegalAction) as err:
        g.apply({"type": "pass"}, seat=1 - g.to_move)
    assert err.value.code == "not_your_turn"
