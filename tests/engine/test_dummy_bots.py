"""Dummy's planner bot: buys only near its contract, keeps the discard that leaves the most
outs, plays legal moves only and replays exactly (issue 17: "a stronger one that plans
contracts and buys sensibly")."""

from engine.variants import dummy_bots, get
from tests.engine.test_dummy_rules import new, rig

DUMMY = get("dummy")


def test_the_planner_is_a_dummy_bot_and_its_matches_replay_exactly():
    assert "planner" in DUMMY.bots
    bots = ["planner", "greedy", "planner"]
    record = DUMMY.play(3, "planner-1", bots, {"max_hands": 12})
    assert DUMMY.replay(record.moves, 3, "planner-1", {"max_hands": 12}).result == record.result
    assert DUMMY.play(3, "planner-1", bots, {"max_hands": 12}).moves == record.moves


def test_the_planner_buys_only_a_card_that_brings_its_contract_within_two():
    """Two sets of 3. 7C 7S + 9D 9H: 2 away; a third 7 makes it 1 away: a buy. With one 7
    and nothing else paired the 7 still helps (4 away to 3) but the planner lets it go."""
    near = new(3)
    rig(near, ["KC 5D 4S", "7C 7S 9D 9H KD QS JC"], "7D")
    near.to_move, near.discarder = 0, 2
    assert dummy_bots.planner_claims(near, 1) and dummy_bots.greedy_claims(near, 1)
    far = new(3)
    rig(far, ["KC 5D 4S", "7C 3S 9D 5H KD QS JC"], "7D")
    far.to_move, far.discarder = 0, 2
    assert dummy_bots.greedy_claims(far, 1) and not dummy_bots.planner_claims(far, 1)


def test_where_the_planner_discards_otherwise_than_greedy_it_keeps_more_outs():
    """Greedy throws the highest of the cards that keep the contract closest; the planner
    throws the one leaving the most unseen cards that would bring it closer. Over greedy
    matches, at every turn the two choose differently, the planner's choice keeps as close
    a contract and strictly more outs."""
    differ = 0
    for n in range(3):
        g = DUMMY.new(3, f"outs-{n}", {"max_hands": 12})
        g.contract = [7, 7, 7]  # three sets of 3: a contract that takes some building
        while g.hand_number == 1 and not g.over:
            seat = g.to_move
            greedy = DUMMY.bot_action(g, seat, "greedy")
            planner = DUMMY.bot_action(g, seat, "planner")
            if greedy != planner:
                assert greedy["type"] == planner["type"] == "discard"
                kept = {}
                for choice in (greedy, planner):
                    rest = list(g.hands[seat])
                    rest.remove(next(c for c in rest if c.text == choice["card"]))
                    lack = dummy_bots._lack(g, seat, rest)
                    kept[choice["card"]] = (lack, dummy_bots._outs(g, seat, rest, lack))
                (g_lack, g_outs), (p_lack, p_outs) = kept[greedy["card"]], kept[planner["card"]]
                assert p_lack == g_lack and p_outs > g_outs
                differ += 1
            g.apply(greedy, seat)
    assert differ >= 3
