"""Check a finished match without trusting the server that ran it.

    python -m engine.verify match.json        # or: ... - < match.json
    python -m engine.verify --quiet match.json

The document is what `GET /api/matches/<id>/` answers once the match is over (or the same
keys from anywhere else; ``GET /api/matches/<id>/document/`` answers exactly them):
``variant``, ``options``, ``seats`` (one entry per seat, or ``players`` as a count), ``seed``
(the server's), ``commitment``, ``client_seeds`` (one per seat, null for a bot; absent or
empty for a match without any), ``moves`` and ``result``; ``deal_seed``, when present, must
be the one derived; ``seat_seeds``, when present (a match with people seated), the seats'
pre-committed server seeds. The check:

1. the revealed server seed hashes to the commitment published from the first move, and is
   made of the seat seeds (`engine.fair.server_seed_of`; each seat's commitment printed);
2. every hand is dealt again from the deal seed, `engine.fair.deal_seed(seed,
   client_seeds)` (printed: each seat's cards and the upcard);
3. every move is replayed through the rules and must be legal (printed, one per line);
4. the replayed result must equal the published one (a resign is a move, so its result is
   replayed too; for any other forfeit: the log stops before the end, where the forfeit
   says, with the table's scores at that moment).

Exit status: 0 when everything matches, 1 on the first mismatch (said on stderr), 2 when
the document cannot be read. Needs only this package: no Django, no database, no network.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from dataclasses import dataclass
from typing import TextIO

from engine import fair, variants
from engine.errors import IllegalAction

REQUIRED = ("variant", "options", "seed", "commitment", "moves", "result")


class Mismatch(Exception):
    """The document does not describe a fair, legal match with this result."""


@dataclass(frozen=True)
class Document:
    variant: str
    options: dict
    players: int
    seed: str
    commitment: str
    moves: list
    result: dict
    client_seeds: tuple = ()
    deal_seed: str | None = None
    seat_seeds: tuple = ()

    @classmethod
    def parse(cls, data: object) -> Document:
        """The fields verification needs; ValueError names what is missing or malformed."""
        if not isinstance(data, dict):
            raise ValueError("the document must be a JSON object")
        missing = [key for key in REQUIRED if key not in data]
        if "seats" not in data and "players" not in data:
            missing.append("seats (or players)")
        if missing:
            raise ValueError(f"the document lacks {', '.join(missing)}")
        if data.get("seed") is None:
            raise ValueError("the seed is not revealed yet: a match is verifiable once it ends")
        players = len(data["seats"]) if "seats" in data else data["players"]
        kinds = {"variant": str, "options": dict, "seed": str, "commitment": str, "moves": list}
        for key, kind in kinds.items():
            if not isinstance(data[key], kind):
                raise ValueError(f"{key} must be a JSON {kind.__name__}")
        if not isinstance(data["result"], dict) or type(players) is not int:
            raise ValueError("result must be a JSON object and the players a number")
        client_seeds = data.get("client_seeds") or []
        if not isinstance(client_seeds, list) or len(client_seeds) not in (0, players):
            raise ValueError("client_seeds must be a list with one entry per seat")
        seat_seeds = data.get("seat_seeds") or []
        if not isinstance(seat_seeds, list) or len(seat_seeds) not in (0, players):
            raise ValueError("seat_seeds must be a list with one entry per seat")
        return cls(
            variant=data["variant"],
            options=data["options"],
            players=players,
            seed=data["seed"],
            commitment=data["commitment"],
            moves=data["moves"],
            result=data["result"],
            client_seeds=tuple(client_seeds),
            deal_seed=data.get("deal_seed"),
            seat_seeds=tuple(seat_seeds),
        )


def _check_seat_seeds(doc: Document, say) -> None:
    """The server seed is made of the seats' pre-committed seeds: each player compares the
    commitment printed for their seat with the one they were shown before the match."""
    try:
        made = fair.server_seed_of(doc.seat_seeds)
    except ValueError as exc:
        raise Mismatch(f"the seat seeds cannot be used: {exc}") from None
    if made != doc.seed:
        raise Mismatch(f"the seat seeds make the server seed {made}, not {doc.seed}")
    for seat, seed in enumerate(doc.seat_seeds):
        if seed is not None:
            say(f"seat {seat}: server seed committed as {fair.commitment(seed)} before the match")
    say("server seed = made of the seats' committed seeds: ok")


def verify(doc: Document, out: TextIO, *, quiet: bool = False) -> None:
    """Print the check as it goes; Mismatch at the first thing that does not hold."""

    def say(line: str) -> None:
        if not quiet:
            print(line, file=out)

    if fair.commitment(doc.seed) != doc.commitment:
        raise Mismatch(
            f"the seed does not match the commitment: sha256(seed) is "
            f"{fair.commitment(doc.seed)}, the published commitment {doc.commitment}"
        )
    say(f"commitment {doc.commitment} = sha256(seed): ok")
    if doc.seat_seeds:
        _check_seat_seeds(doc, say)
    try:
        dealt_from = fair.deal_seed(doc.seed, doc.client_seeds)
    except ValueError as exc:
        raise Mismatch(f"the client seeds cannot be used: {exc}") from None
    if doc.deal_seed is not None and doc.deal_seed != dealt_from:
        raise Mismatch(f"the published deal seed {doc.deal_seed} is not {dealt_from}")
    if dealt_from != doc.seed:
        say(f"client seeds {json.dumps(list(doc.client_seeds))}")
        say(f"deal seed HMAC-SHA256(seed, client seeds) = {dealt_from}")
    variant = variants.get(doc.variant)
    try:
        game = variant.new(doc.players, dealt_from, doc.options)
    except ValueError as exc:
        raise Mismatch(f"the match cannot be set up: {exc}") from None
    say(f"{doc.variant}, {doc.players} players, options {json.dumps(game.view(None)['options'])}")
    hand = None
    for number, move in enumerate(doc.moves, start=1):
        if game.view(None)["hand_number"] != hand:
            hand = game.view(None)["hand_number"]
            _print_deal(game, doc.players, hand, say)
        if not isinstance(move, dict) or "seat" not in move or "action" not in move:
            raise Mismatch(f"move {number} is not {{'seat': ..., 'action': ...}}: {move!r}")
        if move.get("number", number) != number:
            raise Mismatch(f"move {number} is numbered {move['number']!r}")
        try:
            game.apply(move["action"], move["seat"])
        except (IllegalAction, ValueError, TypeError) as exc:
            raise Mismatch(f"move {number} by seat {move['seat']} is illegal: {exc}") from None
        say(f"  move {number:>4}  seat {move['seat']}  {json.dumps(move['action'])}  legal")
    forfeit = doc.result.get("forfeit") if isinstance(doc.result, dict) else None
    # A resign is a move: the replay ends the match, and its result must be the published
    # one. Any other forfeit stopped a match the log leaves unfinished.
    if forfeit and not game.over:
        _check_forfeit(game, forfeit, len(doc.moves), doc.result, say)
        return
    if not game.over:
        raise Mismatch(f"the moves end before the match does ({len(doc.moves)} moves)")
    if game.result != doc.result:
        raise Mismatch(
            f"the replayed result differs from the published one:\n"
            f"  replayed  {json.dumps(game.result, sort_keys=True)}\n"
            f"  published {json.dumps(doc.result, sort_keys=True)}"
        )
    say(f"result {json.dumps(game.result, sort_keys=True)}: matches the published result")


@dataclass(frozen=True)
class Report:
    """The outcome of a check, for a caller that shows it rather than prints it."""

    verified: bool
    lines: list[str]
    problem: str = ""


def check(data: object) -> Report:
    """Verify a parsed JSON document; never raises for a bad document (the web page's
    /verify/ shows what this says)."""
    out = io.StringIO()
    try:
        verify(Document.parse(data), out)
    except (ValueError, Mismatch) as exc:
        return Report(False, out.getvalue().splitlines(), str(exc))
    return Report(True, out.getvalue().splitlines())


def _check_forfeit(game, forfeit: dict, moves: int, result: dict, say) -> None:
    """A seat forfeited (turn timeouts, a walkover, a disqualification): the match stopped
    where the log stops, unfinished, and the scores are the table's at that moment."""
    if game.over:
        raise Mismatch("a forfeit is published, but the moves play the match to its end")
    if forfeit.get("seq") != moves:
        raise Mismatch(
            f"the forfeit is published at move {forfeit.get('seq')}, the log has {moves}"
        )
    if result.get("scores") != game.view(None)["scores"]:
        raise Mismatch(
            f"the published scores {result.get('scores')} are not the table's "
            f"{game.view(None)['scores']} when seat {forfeit.get('seat')} forfeited"
        )
    say(
        f"seat {forfeit.get('seat')} forfeited ({forfeit.get('reason')}) after move {moves}; "
        f"scores {result['scores']}: match the table"
    )


def _print_deal(game, players: int, hand: int, say) -> None:
    say(f"hand {hand} dealt from the seed:")
    for seat in range(players):
        say(f"  seat {seat}: {' '.join(game.view(seat)['hand'])}")
    pile = game.view(None).get("discard")
    if pile:
        say(f"  upcard: {pile[-1] if isinstance(pile, list) else pile}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.verify", description="Replay and check a finished match."
    )
    parser.add_argument("document", help="the match's JSON document, or - for stdin")
    parser.add_argument("--quiet", action="store_true", help="print only the verdict")
    args = parser.parse_args(argv)
    try:
        if args.document == "-":
            data = json.load(sys.stdin)
        else:
            with open(args.document, encoding="utf-8") as handle:
                data = json.load(handle)
        doc = Document.parse(data)
    except (OSError, ValueError) as exc:
        print(f"cannot read the match: {exc}", file=sys.stderr)
        return 2
    try:
        verify(doc, sys.stdout, quiet=args.quiet)
    except Mismatch as exc:
        print(f"NOT VERIFIED: {exc}", file=sys.stderr)
        return 1
    print("verified: the deal follows from the committed seed and every move was legal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
