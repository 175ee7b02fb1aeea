"""Dummy rummy bots. They read only their own hand and the public table; the random bot's
choices come from the match seed (label ``bot:<move number>``, and
``bot:<move number>:claim:<seat>`` for a claim), so a match replays exactly."""

from __future__ import annotations

from engine import fair
from engine.cards import JOKER_TEXT, card, deck
from engine.contracts import (
    CONTRACTS,
    POINTS,
    RUN,
    is_wild,
    lay_downs,
    meld_ok,
    shortfall,
)
from engine.variants.basic_bots import pick

#: The random bot claims an offered card one time in this many.
RANDOM_CLAIM_ODDS = 4


def random_bot(game, seat: int) -> dict:
    """Any listed legal action, uniformly."""
    actions = game.legal_actions(seat)
    return actions[pick(game, len(actions))]


def random_claims(game, seat: int) -> bool:
    stream = fair.Stream(game._seed, f"bot:{game.seq}:claim:{seat}")
    return stream.below(RANDOM_CLAIM_ODDS) == 0


def _lack(game, seat: int, hand) -> int:
    return shortfall(hand, game.contract[seat], same_suit=game.same_suit)


def _improves(game, seat: int, card) -> bool:
    """The card brings the seat's contract strictly closer (fewer cards missing)."""
    hand = game.hands[seat]
    return _lack(game, seat, [*hand, card]) < _lack(game, seat, hand)


def greedy_claims(game, seat: int) -> bool:
    """Buys the offered card only when it brings the contract strictly closer."""
    return _improves(game, seat, game.discard[-1])


def greedy_bot(game, seat: int) -> dict:
    """Before its contract is down: takes the discard only when it brings the contract
    closer, lays the contract down as soon as it can, and discards the card whose loss keeps
    the contract closest (never a wild if another will do; highest value on ties). After:
    adds every card it can to the table (keeping one to discard), then discards its highest
    card."""
    hand = game.hands[seat]
    if game.phase == "draw":
        if not game.down[seat] and game.discard and _improves(game, seat, game.discard[-1]):
            return {"type": "draw", "source": "discard"}
        return {"type": "draw", "source": "stock"}
    legal = game.legal_actions(seat)
    for action in legal:
        if action["type"] in ("meld", "layoff"):
            return action
    discards = [a["card"] for a in legal if a["type"] == "discard"]
    by_text = {c.text: c for c in hand}
    if game.down[seat]:
        return {"type": "discard", "card": max(discards, key=lambda t: (_value(by_text[t]), t))}
    ranked = []
    for text in discards:
        c = by_text[text]
        rest = list(hand)
        rest.remove(c)
        ranked.append((_lack(game, seat, rest), is_wild(c), -_value(c), text))
    return {"type": "discard", "card": min(ranked)[3]}


def _value(c) -> int:
    return POINTS[c.rank]


#: The planner buys a card only if the contract is then at most this many cards away: a buy
#: costs two penalty cards, worth it only when the contract is about to go down.
PLANNER_BUY_SHORTFALL = 2
#: Every natural card of two decks, by (rank, suit): the planner's probes for "outs".
_NATURALS: dict[tuple[int, str], list] = {}
for _c in deck(decks=2):
    if not is_wild(_c):
        _NATURALS.setdefault((_c.rank, _c.suit), []).append(_c)


def _outs(game, seat: int, hand, lack: int) -> int:
    """How many unseen cards would bring the contract closer if drawn into ``hand``: per
    kind of card (a rank; a rank and suit when runs keep one suit), the copies not in sight
    (this hand, the discard pile, the table) when one such card lowers the shortfall."""
    seen: dict[tuple, int] = {}
    key = (lambda c: (c.rank, c.suit)) if game.same_suit else (lambda c: c.rank)
    shown = [*hand, *game.discard, *(c for m in game.table for c in m["cards"])]
    for c in shown:
        if not is_wild(c):
            seen[key(c)] = seen.get(key(c), 0) + 1
    held = set(map(id, hand))
    outs = 0
    kinds: dict = {}
    for (rank, suit), copies in _NATURALS.items():
        kinds.setdefault((rank, suit) if game.same_suit else rank, []).extend(copies)
    for kind, copies in kinds.items():
        unseen = len(copies) - seen.get(kind, 0)
        probe = next((c for c in copies if id(c) not in held), None)
        if unseen > 0 and probe is not None and _lack(game, seat, [*hand, probe]) < lack:
            outs += unseen
    return outs


def planner_claims(game, seat: int) -> bool:
    """Buys the offered card only when it brings the contract closer and leaves it at most
    `PLANNER_BUY_SHORTFALL` cards away (the penalty cards are then soon melded or shed)."""
    card = game.discard[-1]
    hand = game.hands[seat]
    after = _lack(game, seat, [*hand, card])
    return after < _lack(game, seat, hand) and after <= PLANNER_BUY_SHORTFALL


def planner_bot(game, seat: int) -> dict:
    """Greedy's draws (the discard pile only when it brings the contract closer), then:

    - before the contract is down, when it can go down: the grouping (of every placement
      of the contract's melds) that leaves the fewest cards which fit neither those melds
      nor the table's, then the fewest penalty points (`_lay_down`);
    - before, when it cannot: among the discards that keep the contract closest (never a
      wild if another will do), the one leaving the most outs (unseen cards that would
      bring it closer), then the highest value (`_plan_discard`);
    - once down: every natural lay-off first, then a wild where it lets a dead card fit
      (a wild in a run stretches its reach), then any wild; the discard is the dead card
      least likely to fit later (one card from a run on the table), highest value first
      (`_down_play`)."""
    if game.phase == "draw":
        return greedy_bot(game, seat)
    legal = game.legal_actions(seat)
    if game.down[seat]:
        return _down_play(game, seat, legal)
    if any(a["type"] == "meld" for a in legal):
        action = _lay_down(game, seat)
        if action is not None:
            return action
    return _plan_discard(game, seat, legal)


#: A wild no deal holds (two decks have four jokers, copies 0-3): the planner's probe for
#: "one more card in that run".
_GHOST = card(JOKER_TEXT, copy=8)


def _melds_of(game, seat: int, groups) -> list[tuple[str, list]]:
    """The table's melds (copies) plus ``groups`` laid down as the seat's contract."""
    own = [
        (kind, list(g)) for g, (kind, _) in zip(groups, CONTRACTS[game.contract[seat]], strict=True)
    ]
    return own + [(m["kind"], list(m["cards"])) for m in game.table]


def _fitting(melds, c, same_suit: bool) -> int | None:
    return next(
        (i for i, (k, cs) in enumerate(melds) if meld_ok(k, [*cs, c], same_suit=same_suit)),
        None,
    )


def _left_over(game, seat: int, hand, groups) -> list:
    """The naturals of ``hand`` that neither ``groups`` (the contract laid down) use nor any
    meld would take after it, laying off as long as anything fits (a run grows)."""
    melds = _melds_of(game, seat, groups)
    used = {id(c) for g in groups for c in g}
    rest = [c for c in hand if id(c) not in used and not is_wild(c)]
    placed = True
    while placed and rest:
        placed = False
        for c in list(rest):
            i = _fitting(melds, c, game.same_suit)
            if i is not None:
                melds[i][1].append(c)
                rest.remove(c)
                placed = True
    return rest


def _lay_down(game, seat: int) -> dict | None:
    """The contract grouping leaving the fewest dead cards (naturals that fit nowhere,
    less the wilds kept, which fit anywhere), then the fewest penalty points."""
    hand = game.hands[seat]
    best = None
    for groups in lay_downs(hand, game.contract[seat], same_suit=game.same_suit):
        if sum(map(len, groups)) >= len(hand):
            continue  # a discard must stay
        rest = _left_over(game, seat, hand, groups)
        used = {id(c) for g in groups for c in g}
        wilds = sum(1 for c in hand if is_wild(c) and id(c) not in used)
        key = (max(len(rest) - wilds, 0), sum(map(_value, rest)))
        if best is None or key < best[0]:
            best = (key, groups)
    if best is None:
        return None
    return {"type": "meld", "groups": [[c.text for c in g] for g in best[1]]}


def _plan_discard(game, seat: int, legal) -> dict:
    hand = game.hands[seat]
    by_text = {c.text: c for c in hand}
    ranked = []
    for text in sorted({a["card"] for a in legal if a["type"] == "discard"}):
        c = by_text[text]
        rest = list(hand)
        rest.remove(c)
        ranked.append((_lack(game, seat, rest), is_wild(c), -_value(c), text, rest))
    best = min(r[:2] for r in ranked)
    tied = [r for r in ranked if r[:2] == best]
    if len(tied) == 1:
        return {"type": "discard", "card": tied[0][3]}
    scored = [(-_outs(game, seat, rest, lack), value, text) for lack, _, value, text, rest in tied]
    return {"type": "discard", "card": min(scored)[2]}


def _near_a_run(game, c, melds) -> bool:
    """``c`` would fit a run on the table once one more card joined it."""
    return any(
        k == RUN and meld_ok(k, [*cs, _GHOST, c], same_suit=game.same_suit) for k, cs in melds
    )


def _down_play(game, seat: int, legal) -> dict:
    hand = game.hands[seat]
    by_text = {c.text: c for c in hand}
    layoffs = [a for a in legal if a["type"] == "layoff"]
    naturals = [a for a in layoffs if not is_wild(by_text[a["card"]])]
    if naturals:
        return naturals[0]
    table = [(m["kind"], m["cards"]) for m in game.table]
    dead = [c for c in hand if not is_wild(c)]
    for action in layoffs:  # wilds only now: first one that lets a dead card fit
        melds = [(k, list(cs)) for k, cs in table]
        melds[action["meld"]][1].append(by_text[action["card"]])
        if any(_fitting(melds, c, game.same_suit) is not None for c in dead):
            return action
    if layoffs:
        return layoffs[0]
    discards = [a["card"] for a in legal if a["type"] == "discard"]
    card_of = by_text.__getitem__
    return {
        "type": "discard",
        "card": max(
            discards,
            key=lambda t: (
                not is_wild(card_of(t)),
                not _near_a_run(game, card_of(t), table),
                _value(card_of(t)),
                t,
            ),
        ),
    }


BOTS = {"random": random_bot, "greedy": greedy_bot, "planner": planner_bot}
CLAIMS = {"random": random_claims, "greedy": greedy_claims, "planner": planner_claims}
