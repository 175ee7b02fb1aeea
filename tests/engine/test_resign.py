"""A resign is an engine move in every variant (issue 27): any seat, in turn or not; the
result names the forfeit and a replay of the log reproduces it."""

import io

import pytest

from engine import IllegalAction, fair, variants
from engine.variants.base import RESIGN
from engine.verify import Document, Mismatch, verify


def dealt(name: str):
    variant = variants.get(name)
    players = max(variant.min_players, 3) if variant.max_players >= 3 else 2
    game = variant.new(players, "resign", {})
    for _ in range(7):  # a few moves in, so totals and turns are under way
        seat = game.to_move
        game.apply(variant.bot_action(game, seat, variant.bots[0]), seat)
    return variant, game


@pytest.mark.parametrize("name", variants.names())
def test_a_resign_out_of_turn_ends_the_match_and_replays(name):
    variant, game = dealt(name)
    seat = (game.to_move + 1) % game.players
    scores = list(game.scores)
    assert RESIGN not in game.legal_actions(seat) and RESIGN not in game.legal_actions(game.to_move)
    game.apply({"type": "resign"}, seat)
    assert game.over and game.to_move is None and game.legal_actions(seat) == []
    places = variant.forfeit_placements(scores, seat, {})
    assert game.result == {
        "winner": places.index(1) if places.count(1) == 1 else None,
        "scores": scores,
        "placements": places,
        "forfeit": {"seat": seat, "reason": "resigned", "seq": game.seq},
    }
    assert game.moves[-1] == {"seat": seat, "action": {"type": "resign"}}
    assert variant.replay(game.moves, game.players, "resign", {}).result == game.result


@pytest.mark.parametrize("name", variants.names())
def test_a_resign_with_extra_keys_or_after_the_end_is_refused_and_changes_nothing(name):
    _variant, game = dealt(name)
    before = (game.seq, game.to_move, list(game.moves))
    with pytest.raises(IllegalAction) as bad:
        game.apply({"type": "resign", "card": "7H"}, 0)
    assert bad.value.code == "bad_action"
    assert (game.seq, game.to_move, game.moves) == before
    game.apply(dict(RESIGN), 0)
    with pytest.raises(IllegalAction) as over:
        game.apply(dict(RESIGN), 1)
    assert over.value.code == "match_over"


def test_the_verifier_checks_a_resign_and_refuses_a_changed_result():
    _variant, game = dealt("gin")
    game.apply(dict(RESIGN), 0)
    doc = {
        "variant": "gin",
        "options": {},
        "players": 2,
        "seed": "resign",
        "commitment": fair.commitment("resign"),
        "moves": game.moves,
        "result": game.result,
    }
    out = io.StringIO()
    verify(Document.parse(doc), out)
    assert '{"type": "resign"}  legal' in out.getvalue()
    doc["result"] = {**game.result, "placements": [1, 1]}
    with pytest.raises(Mismatch, match="differs"):
        verify(Document.parse(doc), io.StringIO())
