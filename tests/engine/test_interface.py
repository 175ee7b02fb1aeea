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


@pytest.mark.parametrize("name", variants.names())
def test_a_move_log_numbered_as_the_api_publishes_it_replays(name):
    variant = variants.get(name)
    bots = [variant.bots[0]] * variant.min_players
    rec = variant.play(players=variant.min_players, seed="numbered", bots=bots, options={})
    numbered = [{"number": i, **move} for i, move in enumerate(rec.moves, start=1)]
    replayed = variant.replay(numbered, variant.min_players, "numbered", {})
    assert replayed.result == rec.result


def test_a_move_numbered_out_of_order_is_refused():
    gin = variants.get("gin")
    rec = gin.play(players=2, seed="numbered", bots=["greedy", "greedy"], options={})
    numbered = [{"number": i, **move} for i, move in enumerate(rec.moves, start=1)]
    numbered[1]["number"] = 5
    with pytest.raises(ValueError, match="move 1 is numbered 5, expected 2"):
        gin.replay(numbered, 2, "numbered", {})


@pytest.mark.parametrize("name", ["gin", "basic", "indian"])
def test_only_dummy_has_actions_out_of_turn(name):
    """Issue 17: the claim window is Dummy's; every other variant keeps "only the seat to
    move acts" (`out_of_turn_seats` is empty, other seats have no legal action)."""
    variant = variants.get(name)
    g = variant.new(players=2, seed="turns", options={})
    assert g.out_of_turn_seats() == []
    assert g.legal_actions(1 - g.to_move) == []
    assert variant.bot_out_of_turn(g, 1 - g.to_move, variant.bots[0]) is None


def test_dummy_opens_a_claim_window_to_the_other_seats():
    dummy = variants.get("dummy")
    g = dummy.new(players=3, seed="turns", options={})
    assert g.out_of_turn_seats() == [1, 2]
    assert g.legal_actions(1) == [{"type": "claim"}]
    g.apply({"type": "claim"}, 2)
    assert g.to_move == 0 and g.moves == [{"seat": 2, "action": {"type": "claim"}}]


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("gin", {}),
        ("basic", {}),
        ("basic", {"scoring": "penalty"}),
        ("indian", {"format": "pool101"}),
        ("dummy", {}),
    ],
)
def test_a_variant_says_who_wins_as_its_finished_matches_do(name, options):
    """The variant's own word on lower-or-higher matches the result its games report."""
    v = variants.get(name)
    players = 2 if name == "gin" else 3
    record = v.play(players, "who-wins", ["greedy"] * players, options)
    assert v.lower_score_wins(options) == bool(record.result.get("lower_wins"))


def test_a_forfeiter_places_last_and_the_rest_rank_as_the_game_ranks_them():
    penalty, winner = variants.get("basic"), variants.get("gin")
    assert penalty.forfeit_placements([2, 8, 0], 0, {"scoring": "penalty"}) == [3, 2, 1]
    assert penalty.forfeit_placements([2, 8, 0], 0, {}) == [3, 1, 2]
    assert penalty.forfeit_placements([5, 5, 9, 1], 3, {"scoring": "penalty"}) == [1, 1, 3, 4]
    assert winner.forfeit_placements([40, 90], 1, {}) == [1, 2]
