"""Every hand's points come with the lines that make them up (issue 14: "the hand's points
explained line by line"), computed by the engine, so a table shows them as they are."""

import pytest

from engine import gin, variants
from engine.cards import parse


def hands_of(variant: str, players: int, seed: str, bots: list[str], options: dict):
    """Every `last_hand` a bot match goes through, step by step, and the finished game."""
    v = variants.get(variant)
    record = v.play(players=players, seed=seed, bots=bots, options=options)
    game = v.new(players=players, seed=seed, options=options)
    seen = []
    for move in record.moves:
        game.apply(move["action"], move["seat"])
        if game.last_hand is not None and (not seen or seen[-1] is not game.last_hand):
            seen.append(game.last_hand)
    return seen, game


def test_a_knock_is_the_defenders_deadwood_less_the_knockers():
    res = gin.settle(parse("AS 2S 3S 8H 8D 8C KS 4C 5C 6C"), parse("AH 2H 3H 9D 9C TS TH JC QC KC"))
    assert res.kind == "knock"
    assert [(line["code"], line["points"]) for line in res.breakdown] == [
        ("defender_deadwood", res.defender_points),
        ("knocker_deadwood", -res.knocker_points),
    ]
    assert sum(line["points"] for line in res.breakdown) == res.points


def test_gin_and_an_undercut_name_their_bonuses():
    res = gin.settle(parse("AS 2S 3S 8H 8D 8C 4C 5C 6C 7C"), parse("AH 2H 3H 9D 9C TS TH JC QC KC"))
    assert [line["code"] for line in res.breakdown] == ["gin_bonus", "defender_deadwood"]
    assert res.breakdown[0]["points"] == 25
    res = gin.settle(
        parse("AS 2S 3S 8H 8D 8C 4C 5C 6C 9S"),
        parse("AH 2H 3H 4D 5D 6D 7D 9D 9C 9H"),
        undercut_bonus=20,
    )
    assert res.kind == "undercut"
    assert res.breakdown[0] == {
        "code": "undercut_bonus",
        "label": res.breakdown[0]["label"],
        "points": 20,
    }
    assert sum(line["points"] for line in res.breakdown) == res.points


@pytest.mark.parametrize(
    "options",
    [
        {"target": 200},
        {"target": 150, "oklahoma": True, "oklahoma_spades_double": True},
        {"target": 100, "line_bonus": 20, "game_bonus": 100, "shutout_double": True},
    ],
)
def test_every_gin_hand_and_the_final_totals_add_up(options):
    kinds = set()
    for seed in ("abc", "lines-1", "lines-2"):
        seen, game = hands_of("gin", 2, seed, ["greedy", "random"], options)
        for hand in seen:
            kinds.add(hand["kind"])
            if hand["kind"] == "draw":
                continue
            assert sum(line["points"] for line in hand["breakdown"]) == hand["points"]
            assert len(hand["layoff_targets"]) == len(hand["layoffs"])
        totals = game.view(None)["totals_breakdown"]
        assert [sum(line["points"] for line in lines) for lines in totals] == game.result["scores"]
        # Replay is exact, and the result did not change shape.
        replayed = variants.get("gin").replay(game.moves, 2, seed, options)
        assert replayed._snapshot() == game._snapshot()
        assert set(game.result) == {
            "winner",
            "scores",
            "hand_points",
            "placements",
            "hands",
            "stats",
        }
    assert {"knock", "gin"} <= kinds


def test_every_basic_hand_adds_up_per_loser():
    for seed in ("b-1", "b-2"):
        seen, _ = hands_of("basic", 3, seed, ["greedy"] * 3, {"target": 120})
        for hand in seen:
            if hand["winner"] is None:
                assert hand["breakdown"] == []
                continue
            assert sum(line["points"] for line in hand["breakdown"]) == hand["points"]
            seats = {line["seat"] for line in hand["breakdown"] if "seat" in line}
            assert seats == {0, 1, 2} - {hand["winner"]}


def test_every_indian_deal_adds_up_per_seat():
    for seed in ("i-1", "i-2", "i-3"):
        seen, _ = hands_of("indian", 3, seed, ["greedy", "random", "greedy"], {"format": "deals"})
        for hand in seen:
            for seat, points in enumerate(hand["points"]):
                mine = [line["points"] for line in hand["breakdown"] if line["seat"] == seat]
                if hand["status"][seat] == "out":
                    assert mine == []
                else:
                    assert mine and sum(mine) == points, (seat, hand["breakdown"])
