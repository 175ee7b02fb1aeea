"""Playing a match: creating it, applying moves, bots' turns, turn deadlines, timeouts
and forfeits. A match that ends here is handed to finalize by task name."""

from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import timedelta
from typing import NamedTuple

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from config import metrics
from config.db import bulk_insert, bulk_update
from config.errors import Conflict, DomainError, NotAllowed, NotFound
from config.jobs import discard, enqueue, enqueue_many
from engine import IllegalAction, fair, variants
from engine.variants.base import RESIGN
from gameplay import games, jobs, live, selectors
from gameplay.models import Match, Player, Room, Seat
from gameplay.services import claims
from gameplay.services.common import IllegalMove
from gameplay.services.progression import coins_book

# A bot's turn not played by then is late (its job keeps failing, or waits behind a long
# queue); the sweep, a backstop to the outbox, plays it.
BOT_TURN_GRACE = timedelta(seconds=30)

# What storing a match after moves writes: the same columns whether it finished or not.
# The move log is not among them: the moves are appended to it where it is stored.
STORED_FIELDS = [
    "seq",
    "to_move",
    "state",
    "turn_deadline",
    "claim_window",
    "claim_deadline",
    "bot_claims_window",
    "hand_break_until",
    "hand_break_ready",
    "status",
    "result",
    "finished_at",
]


class NewMatch(NamedTuple):
    variant: str
    options: dict
    players: list[Player]
    room: Room | None = None
    seed: str | None = None
    turn_seconds: int | None = None
    max_timeouts: int | None = None
    # Watchable by anyone signed in even if its room (or no room) says otherwise.
    spectators_allowed: bool = False
    # Milliseconds bots wait before each turn when a person sits at the table; None: the
    # room's, or KNOCK_EVENT_BOT_PAUSE_MS for a match with no room (tournaments, leagues).
    bot_pause_ms: int | None = None
    # Client seeds sent with the play request, by player id; a human seat without one here
    # uses its player's own (profile), else one the server draws (gameplay.games).
    client_seeds: dict[int, str] | None = None


def _bot_pause_ms(spec: NewMatch) -> int:
    if spec.bot_pause_ms is not None:
        return spec.bot_pause_ms
    return spec.room.bot_pause_ms if spec.room else settings.KNOCK_EVENT_BOT_PAUSE_MS


def match_create(**spec) -> Match:
    """Create a match with a secret seed; only its commitment is public until the end.

    Keywords are those of `NewMatch`.
    """
    return match_create_many(specs=[NewMatch(**spec)])[0]


@transaction.atomic
def match_create_many(*, specs: list[NewMatch]) -> list[Match]:
    """Create matches in a few queries (a tournament round starts many at once)."""
    dealt, claimers = [], []
    for spec in specs:
        if len({p.pk for p in spec.players}) != len(spec.players):
            raise DomainError(_("A player can take only one seat."), code="duplicate_player")
    server_seeds = _server_seeds(specs)
    for spec, (seed, seat_seeds) in zip(specs, server_seeds, strict=True):
        try:
            options = variants.get(spec.variant).validate_options(spec.options or {})
        except ValueError as exc:
            raise DomainError(str(exc), code="invalid_options") from exc
        client_seeds = _client_seeds(spec)
        try:
            game = games.new_game(
                spec.variant, len(spec.players), fair.deal_seed(seed, client_seeds), options
            )
        except ValueError as exc:
            raise DomainError(str(exc), code="invalid_players") from exc
        room = spec.room
        has_human = any(not player.is_bot for player in spec.players)
        match = Match(
            room=room,
            variant=spec.variant,
            options=options,
            players=len(spec.players),
            seed=seed,
            commitment=games.commitment(seed),
            seat_seeds=seat_seeds,
            client_seeds=client_seeds,
            to_move=game.to_move,
            # No cached state yet: the first load deals again from the seed, which costs
            # less than the pickle (a tournament round creates its matches by the hundred).
            state=b"",
            entry_fee=room.entry_fee if room else 0,
            turn_seconds=spec.turn_seconds or (room.turn_seconds if room else 60),
            max_timeouts=spec.max_timeouts or (room.max_timeouts if room else 3),
            # The pause is for people watching: a table of bots only plays at once.
            bot_pause_ms=_bot_pause_ms(spec) if has_human else 0,
            spectators_allowed=spec.spectators_allowed,
            claim_seconds=room.claim_seconds if room else 3,
        )
        bot_seats = _bot_seats(spec.players)
        claims.refresh(match, game, bot_seats, [])
        if claims.bots_to_ask(match, game, bot_seats):
            claimers.append(match)
        to_move = spec.players[game.to_move] if game.to_move is not None else None
        dealt.append((match, spec.players, to_move))
    matches = [_with_deadline(m, to_move) for m, _, to_move in dealt]
    bulk_insert(matches)
    Seat.objects.bulk_create(
        Seat(match=match, index=index, player=player)
        for match, players, _ in dealt
        for index, player in enumerate(players)
    )
    for match, players, _to_move in dealt:
        for player in players if match.entry_fee else ():
            if not player.is_bot:
                coins_book(
                    player_id=player.pk,
                    amount=-match.entry_fee,
                    reason=f"Entry fee, match {match.pk}",
                    key=f"match:{match.pk}:fee",
                )
    _enqueue_turns([(match, to_move) for match, _, to_move in dealt])
    _enqueue_bot_claims(claimers)
    return matches


def _server_seeds(specs: list[NewMatch]) -> list[tuple[str, list]]:
    """Each match's server seed and the seat seeds it is made of.

    A match with people seated takes their pre-committed next seeds (`fair.server_seed_of`),
    whose commitments they were shown before sending a client seed, and each of them gets a
    new one; their rows are locked so no two matches use one seed. A bots-only match, or one
    given its seed by the code creating it (the demo's history, tests), keeps a seed of its
    own and no seat seeds.
    """
    people = sorted({p.pk for spec in specs if not spec.seed for p in spec.players if not p.is_bot})
    held = (
        dict(
            Player.objects.select_for_update()
            .filter(pk__in=people)
            .order_by("pk")
            .values_list("pk", "next_seed")
        )
        if people
        else {}
    )
    found = []
    for spec in specs:
        if spec.seed or all(p.is_bot for p in spec.players):
            found.append((spec.seed or games.new_seed(), []))
            continue
        seat_seeds = [
            None if p.is_bot else (held.get(p.pk) or games.new_seed()) for p in spec.players
        ]
        for p in spec.players:
            if not p.is_bot:
                held[p.pk] = ""  # used: a second match of this batch draws another
        found.append((fair.server_seed_of(seat_seeds), seat_seeds))
    renewed = [Player(pk=pk, next_seed=games.new_seed()) for pk in people]
    if renewed:
        bulk_update(renewed, ["next_seed"])
    return found


def _client_seeds(spec: NewMatch) -> list[str | None]:
    """One client seed per seat: None for a bot; for a person the one sent with the play
    request, else their own from their profile, else one drawn here.

    A match given its server seed by the code that creates it (the demo's repeatable
    history, tests; no form or API can) is dealt from that seed alone unless client seeds
    are given too, so it deals the same cards every time.
    """
    sent = spec.client_seeds or {}
    seeds = []
    for player in spec.players:
        if player.is_bot or (spec.seed and player.pk not in sent):
            seeds.append(None)
            continue
        seed = sent.get(player.pk) or player.client_seed or games.new_client_seed()
        try:
            seeds.append(fair.check_client_seed(seed))
        except ValueError as exc:
            raise DomainError(str(exc), code="invalid_client_seed") from exc
    return seeds


def match_act(*, match_id: int, player: Player, seq: int, action: dict) -> Match:
    """Apply one player action, validated by the engine against the current state.

    Returns the match with its seats (and their players) loaded, ready for a view.
    """
    with transaction.atomic():
        # The match row serialises every write to one match across processes.
        match = next(iter(selectors.matches_with_seats([match_id], for_update=True)), None)
        seat = (
            next((s for s in match.seats.all() if s.player_id == player.pk), None)
            if match
            else None
        )
        if match is None or seat is None:
            raise NotFound(_("No such match."))
        if match.status != Match.Status.ACTIVE:
            raise Conflict(_("The match is over."), code="match_over")
        if seq != match.seq and not _claim_in_window(match, seq, action):
            raise Conflict(
                _("The match is at move %(seq)s, not %(sent)s.") % {"seq": match.seq, "sent": seq},
                code="stale_seq",
                details={"seq": match.seq},
            )
        if not isinstance(action, dict):
            raise IllegalMove(_("An action is a JSON object."), code="bad_action")
        if action.get("type") == "resign":
            raise IllegalMove(
                _(
                    "Resigning is not a turn: POST /api/matches/<id>/resign/ (or the socket's "
                    '{"type": "resign"}).'
                ),
                code="resign_separately",
            )
        game = games.load(match)
        # Another seat's turn: only what the engine lists for this seat. A claim the engine
        # refuses says why (already claimed, own discard, window closed, ...).
        out_of_turn = match.to_move != seat.index and action.get("type") != "claim"
        if out_of_turn and action not in game.legal_actions(seat.index):
            raise NotAllowed(_("It is not your turn."), code="not_your_turn")
        if match.hand_break_until is not None:
            raise Conflict(
                _(
                    "The table rests between hands: the next one starts when everyone pressed "
                    "Next hand, or when the countdown ends."
                ),
                code="between_hands",
                details={"until": match.hand_break_until.isoformat()},
            )
        if claims.holds(match, action):
            raise Conflict(
                _(
                    "Others may still claim the discard: draw from the stock once the "
                    "window closes."
                ),
                code="claim_window_open",
                details={"claim_deadline": match.claim_deadline.isoformat()},
            )
        _apply(match, game, [(seat.index, action, False)])
    return match


def _seated_locked(match_id: int, player: Player) -> tuple[Match, Seat]:
    """The match, locked, with its seats, and the player's seat; 404 for anyone else, 409
    once it is over. The caller holds a transaction."""
    # The match row serialises every write to one match across processes: of a resign and
    # the last move, or two resigns, sent at once, the second finds the match over.
    match = next(iter(selectors.matches_with_seats([match_id], for_update=True)), None)
    seat = next((s for s in match.seats.all() if s.player_id == player.pk), None) if match else None
    if match is None or seat is None:
        raise NotFound("No such match.")
    if match.status != Match.Status.ACTIVE:
        raise Conflict("The match is over.", code="match_over")
    return match, seat


def match_resign(*, match_id: int, player: Player) -> Match:
    """The player gives up the match, at any moment, in turn or not: an engine move
    (`engine.variants.base.RESIGN`), so the log replays to the result and finalize checks
    it. The resigner places last and is marked forfeited: no XP for anyone at the table, as
    for every forfeit; ratings and the pot follow the placements."""
    with transaction.atomic():
        match, seat = _seated_locked(match_id, player)
        game = games.load(match)
        _apply(match, game, [(seat.index, dict(RESIGN), False)])
    return match


def match_abort(*, match_id: int, player: Player) -> Match:
    """Call a room's match off before its first move: it ends `aborted`, with no result to
    rate, no XP and every person's entry fee booked back. Tournament and league matches
    belong to their events (409 `abort_not_allowed`); after the first move, resign (409
    `match_started`)."""
    with transaction.atomic():
        match, seat = _seated_locked(match_id, player)
        if match.room_id is None:
            raise Conflict(
                "A tournament or league match cannot be called off: resign instead.",
                code="abort_not_allowed",
            )
        if match.seq > 0:
            raise Conflict(
                "The first move has been played: the match can no longer be called off, "
                "only resigned.",
                code="match_started",
                details={"seq": match.seq},
            )
        match.status = Match.Status.ABORTED
        match.result = {"aborted": {"seat": seat.index}}
        match.finished_at = timezone.now()
        match.to_move = match.turn_deadline = match.claim_deadline = None
        match.hand_break_until, match.hand_break_ready = None, []
        match.state = b""
        match.save(
            update_fields=[
                "status",
                "result",
                "finished_at",
                "to_move",
                "turn_deadline",
                "claim_deadline",
                "hand_break_until",
                "hand_break_ready",
                "state",
            ]
        )
        for other in match.seats.all() if match.entry_fee else ():
            if not other.player.is_bot:
                coins_book(
                    player_id=other.player_id,
                    amount=match.entry_fee,
                    reason=f"Entry fee back, match {match.pk} called off",
                    key=f"match:{match.pk}:refund",
                )
        discard(jobs.TURN_TIMEOUT, first_args=[match.pk])
        live.announce([match])
    return match


def _claim_in_window(match: Match, seq: int, action) -> bool:
    """A claim made from any view since its window opened still counts: claims do not
    change what is offered, so two seats claiming at once both get in. A claim that lost
    the race to the mover's draw finds the window gone (409, stale)."""
    return (
        isinstance(action, dict)
        and action.get("type") == "claim"
        and match.claim_window is not None
        and match.claim_window <= seq <= match.seq
    )


def _apply(match: Match, game, actions: Iterable[tuple[int, dict, bool]]) -> None:
    """Apply actions in order, append them to the log and store the new state."""
    moves = []
    hand = game.hand_number
    for seat_index, action, automatic in actions:
        try:
            game.apply(action, seat=seat_index)
        except IllegalAction as exc:
            raise IllegalMove(exc.message, code=exc.code) from None
        move = {"seat": seat_index, "action": action}
        moves.append({**move, "auto": True} if automatic else move)
    _store_many([(match, game, moves)], hands={match.pk: hand})


def _store_many(played: list[tuple[Match, object, list[dict]]], *, hands: dict[int, int]) -> None:
    """Append already-applied moves to each match's log and store the state they led to.

    The caller holds the match row locks (and has the seats loaded). The moves are
    appended to the stored log in the database; a log the caller read is extended too.
    Finished matches go to finalize in one task. `hands`: each match's hand number before
    these moves; a match whose moves ended a hand rests before the next (`_rests`).
    """
    now = timezone.now()
    stamp = now.isoformat(timespec="milliseconds")
    finished, placed, turns, claimed, appended, rests = [], [], [], [], [], []
    counted = Counter()
    for match, game, moves in played:
        bot_seats = {seat.index for seat in match.seats.all() if seat.player.is_bot}
        # Each move keeps when it was stored (the downloadable document shows it). The
        # callers' move dicts are their own and new: stamped in place, not copied.
        for move in moves:
            move["at"] = stamp
            by = "timeout" if move.get("auto") else "bot" if move["seat"] in bot_seats else "person"
            counted[match.variant, by] += 1
        appended.append(moves)
        claims.refresh(match, game, bot_seats, moves)  # before the log in hand grows
        if "log" not in match.get_deferred_fields():
            match.log = [*match.log, *moves]
        match.seq, match.to_move = game.seq, game.to_move
        # A finished match's state is its log: the cache is kept only while it is played
        # (a finished table's view replays it; finalize replays it anyway).
        match.state = b"" if game.over else games.dump(game)
        resting = not game.over and game.hand_number != hands[match.pk] and _rests(match)
        if claims.bots_to_ask(match, game, bot_seats) and not resting:
            claimed.append(match)
        if resting:
            _rest(match, now)
            rests.append(match)
        elif game.over:
            match.status = Match.Status.FINISHED
            match.result = game.result
            match.finished_at = now
            match.turn_deadline = None
            match.hand_break_until, match.hand_break_ready = None, []
            placed += _placed_seats(match, game.result)
            finished.append(match.pk)
        else:
            to_move = next(seat for seat in match.seats.all() if seat.index == game.to_move)
            turns.append((_with_deadline(match, to_move.player), to_move.player))
    bulk_update(
        [match for match, _, _ in played],
        STORED_FIELDS,
        append={"log": appended},
    )
    if placed:
        bulk_update(placed, ["score", "placement", "forfeited"])
    live.announce([match for match, _, _ in played])
    transaction.on_commit(lambda: _count_moves(counted))
    # A match that moved has no earlier turn left to time out. Kept, each person's move
    # left a job that ran a minute later only to find the match moved on: as many worker
    # tasks as moves, and bots' turns waited behind them in the queue.
    discard(jobs.TURN_TIMEOUT, first_args=[match.pk for match, _, _ in played])
    _enqueue_turns(turns)
    _enqueue_bot_claims(claimed)
    for match in rests:
        enqueue(
            jobs.HAND_BREAK_END,
            match.pk,
            match.seq,
            countdown=settings.KNOCK_NEXT_HAND_SECONDS,
        )
    if finished:
        discard(jobs.HAND_BREAK_END, first_args=finished)
        _finalize_later(finished)


def _placed_seats(match: Match, result: dict) -> list[Seat]:
    """The seats with their final score and place; a resign (an engine move, whose result
    names the forfeit) marks its seat forfeited as the server's forfeits do."""
    seats = list(match.seats.all())
    forfeit = result.get("forfeit") or {}
    for seat in seats:
        seat.score = result["scores"][seat.index]
        seat.placement = result["placements"][seat.index]
        seat.forfeited = seat.forfeited or seat.index == forfeit.get("seat")
    return seats


# --- the rest between hands -------------------------------------------------------------
#
# A move that ends a hand (the engine deals the next one at once) puts the table at rest
# when a person sits at it: `Match.hand_break_until` is set, the move's turn gets no clock
# and no bot job, every move is refused (409 `between_hands`) and the view carries
# `hand_break`, so a reload or a reconnect shows the hand's overlay again. The rest ends
# when every person at the table pressed Next hand (`match_next_hand`) or at that time (the
# `hand_break_end` job, and the deadline sweep as its backstop): only then does the turn
# get its deadline, its timeout or bot job and, in Dummy, its claim window's countdown.


def _rests(match: Match) -> bool:
    """A table with a person rests between hands (unless the setting is 0)."""
    return settings.KNOCK_NEXT_HAND_SECONDS > 0 and any(
        not seat.player.is_bot for seat in match.seats.all()
    )


def _rest(match: Match, now) -> None:
    match.hand_break_until = now + timedelta(seconds=settings.KNOCK_NEXT_HAND_SECONDS)
    match.hand_break_ready = []
    # The sweep's backstop finds a rest that outlived its job as it finds a late turn.
    match.turn_deadline = match.hand_break_until
    # A claim window the new hand opened counts down only once play resumes.
    match.claim_deadline = None


def _end_rest(match: Match) -> None:
    """Play resumes: the turn gets its clock (or its bot), the claim window its countdown.
    The caller holds the match lock and has the seats loaded."""
    match.hand_break_until = None
    match.hand_break_ready = []
    bot_seats = {seat.index for seat in match.seats.all() if seat.player.is_bot}
    if match.claim_window is not None:
        game = games.load(match)
        if claims.waiting(match, game.out_of_turn_seats(), bot_seats):
            match.claim_deadline = timezone.now() + timedelta(seconds=match.claim_seconds)
        if claims.bots_to_ask(match, game, bot_seats):
            _enqueue_bot_claims([match])
    to_move = next(seat.player for seat in match.seats.all() if seat.index == match.to_move)
    _with_deadline(match, to_move)
    match.save(
        update_fields=["hand_break_until", "hand_break_ready", "turn_deadline", "claim_deadline"]
    )
    discard(jobs.HAND_BREAK_END, first_args=[match.pk])
    _enqueue_turns([(match, to_move)])
    live.announce([match])


def match_next_hand(*, match_id: int, player: Player) -> Match:
    """A person at the table is ready for the next hand; the last of them ends the rest.

    Pressing it when the table is not resting (the countdown ended first, or a second
    press) changes nothing and is no error. Returns the match with its seats loaded.
    """
    with transaction.atomic():
        # The match row serialises the presses and the rest's end.
        match = next(iter(selectors.matches_with_seats([match_id], for_update=True)), None)
        seat = (
            next((s for s in match.seats.all() if s.player_id == player.pk), None)
            if match
            else None
        )
        if match is None or seat is None:
            raise NotFound("No such match.")
        if match.status != Match.Status.ACTIVE:
            raise Conflict("The match is over.", code="match_over")
        if match.hand_break_until is None or seat.index in match.hand_break_ready:
            return match
        match.hand_break_ready = sorted([*match.hand_break_ready, seat.index])
        people = {s.index for s in match.seats.all() if not s.player.is_bot}
        if people <= set(match.hand_break_ready):
            _end_rest(match)
        else:
            match.save(update_fields=["hand_break_ready"])
            live.announce([match])
    return match


def match_hand_break_end(*, match_id: int, seq: int) -> str:
    """The rest's countdown ended: play resumes unless it did already."""
    with transaction.atomic():
        match = next(iter(selectors.matches_with_seats([match_id], for_update=True)), None)
        if match is None or match.status != Match.Status.ACTIVE or match.seq != seq:
            return "moved_on"
        if match.hand_break_until is None:
            return "resumed"
        if match.hand_break_until > timezone.now():
            return "not_due"
        _end_rest(match)
        return "ended"


def _bot_seats(players: list[Player]) -> set[int]:
    return {index for index, player in enumerate(players) if player.is_bot}


def _enqueue_bot_claims(matches: list[Match]) -> None:
    """Bots answer a claim window at once (the play_bots task asks them, once per window)."""
    if matches:
        enqueue(jobs.PLAY_BOTS, *[match.pk for match in matches])


def _with_deadline(match: Match, player: Player | None) -> Match:
    """Every turn gets a deadline in its row: a human's timeout, and for a bot the point
    where the sweep task plays the turn if its job has not."""
    if player is None:
        match.turn_deadline = None
    elif player.is_bot:
        match.turn_deadline = timezone.now() + BOT_TURN_GRACE
    else:
        match.turn_deadline = timezone.now() + timedelta(seconds=match.turn_seconds)
    return match


def _enqueue_turns(turns: list[tuple[Match, Player | None]]) -> None:
    """Bot turns go to a worker as one job per pause (a room's human-like wait before each
    bot turn), each human turn gets a timeout job, due when its time is up; all of them
    written in a query or two."""
    bot_turns: dict[int, list[int]] = defaultdict(list)
    for match, player in turns:
        if player is not None and player.is_bot:
            bot_turns[max(match.bot_pause_ms, _claim_wait_ms(match))].append(match.pk)
    for pause_ms, match_ids in sorted(bot_turns.items()):
        enqueue(jobs.PLAY_BOTS, *match_ids, countdown=pause_ms / 1000 or None)
    timeouts = defaultdict(list)
    for match, player in turns:
        if player is not None and not player.is_bot:
            timeouts[match.turn_seconds].append((match.pk, match.seq))
    for seconds, args in timeouts.items():
        enqueue_many(jobs.TURN_TIMEOUT, args, countdown=seconds)


def _claim_wait_ms(match: Match) -> int:
    """How long a bot to move waits for the claim window to close (its stock draw waits)."""
    if match.claim_deadline is None:
        return 0
    return max(0, round((match.claim_deadline - timezone.now()).total_seconds() * 1000))


def _finalize_later(match_ids: list[int]) -> None:
    enqueue(jobs.FINALIZE_MATCH, *match_ids)


def _count_moves(counted: Counter) -> None:
    for (variant, by), n in counted.items():
        metrics.MOVES.labels(variant, by).inc(n)


def _bot_reply_seconds(played: list[tuple[Match, object, list[dict]]]) -> list[tuple[str, float]]:
    """How long each match's bot turn waited for this run, from when it came up (its
    deadline is the grace after that), less the room's deliberate pause."""
    now = timezone.now()
    return [
        (
            match.variant,
            max(
                0.0,
                (now - match.turn_deadline + BOT_TURN_GRACE).total_seconds()
                - match.bot_pause_ms / 1000,
            ),
        )
        for match, _, _ in played
        if match.turn_deadline is not None
        and any(seat.index == match.to_move and seat.player.is_bot for seat in match.seats.all())
    ]


def _observe_replies(waits: list[tuple[str, float]]) -> None:
    for variant, seconds in waits:
        metrics.BOT_REPLY_SECONDS.labels(variant).observe(seconds)


def match_play_bots(*, match_id: int, max_actions: int = 5000) -> int:
    """Play every consecutive bot turn in one transaction; returns how many were played."""
    return match_play_bots_many(match_ids=[match_id], max_actions=max_actions).get(match_id, 0)


def match_play_bots_many(*, match_ids: Iterable[int], max_actions: int = 5000) -> dict[int, int]:
    """Play every consecutive bot turn of each match in one transaction.

    Returns how many moves were played per match; a match that is over, or whose turn
    is a human's, plays none. A match with a bot pause plays one bot's turn only: the next
    bot's turn is queued after the pause again, so people at the table see each one.
    """
    with transaction.atomic():
        # Locked in id order: two batches never deadlock.
        matches = selectors.matches_with_seats(list(match_ids), for_update=True, active_only=True)
        played, held = [], []
        hands: dict[int, int] = {}
        for match in matches:
            bots = {
                seat.index: seat.player.bot_kind for seat in match.seats.all() if seat.player.is_bot
            }
            claiming = match.claim_window not in (None, match.bot_claims_window)
            if match.hand_break_until is not None or (match.to_move not in bots and not claiming):
                continue
            game = games.load(match)
            engine_variant = variants.get(match.variant)
            moves = []
            first = game.to_move
            hands[match.pk] = hand = game.hand_number
            rests = _rests(match)
            deadline = match.claim_deadline
            bot_seats = set(bots)
            claims.refresh(match, game, bot_seats, moves)
            while not game.over and len(moves) < max_actions:
                # Other bots answer the open claim window first (once per window). Most
                # variants never open one: then a move costs the engine's work alone.
                if match.claim_window is not None:
                    moves += claims.ask_bots(match, game, bots)
                    claims.refresh(match, game, bot_seats, moves)
                if game.to_move not in bots or (match.bot_pause_ms and game.to_move != first):
                    break
                seat = game.to_move
                action = engine_variant.bot_action(game, seat, bot=bots[seat])
                if claims.holds(match, action):
                    held.append(match)
                    break
                # A bot choosing an illegal action is a bug: let IllegalAction surface.
                game.apply(action, seat=seat)
                moves.append({"seat": seat, "action": action})
                claims.refresh(match, game, bot_seats, moves)
                if rests and game.hand_number != hand:
                    break  # the table rests before the next hand
            if moves:
                played.append((match, game, moves))
                continue
            # No move: the bots let the window pass (it may close early), or the stock
            # draw waits for it (asked again when it closes).
            Match.objects.filter(pk=match.pk).update(
                bot_claims_window=match.bot_claims_window, claim_deadline=match.claim_deadline
            )
            if match.claim_deadline != deadline:
                # Closed early: a new version with no new move (`live.window_stage`); the
                # mover's page stops its countdown and offers the stock now.
                live.announce([match])
            if match in held:
                bot = next(s.player for s in match.seats.all() if s.index == match.to_move)
                _enqueue_turns([(match, bot)])
        if played:
            waits = _bot_reply_seconds(played)  # before the store sets the next deadlines
            _store_many(played, hands=hands)
            transaction.on_commit(lambda: _observe_replies(waits))
    return {match.pk: len(moves) for match, _, moves in played}


def match_timeout(*, match_id: int, seq: int) -> str:
    """A human missed the turn deadline: play a safe action for them, or forfeit them."""
    with transaction.atomic():
        match = next(iter(selectors.matches_with_seats([match_id], for_update=True)), None)
        if match is None or match.status != Match.Status.ACTIVE or match.seq != seq:
            return "moved_on"
        if match.turn_deadline is None or match.turn_deadline > timezone.now():
            return "not_due"
        if match.hand_break_until is not None:
            # A rest is no turn: its end (overdue, found by the sweep) counts no timeout.
            _end_rest(match)
            return "rest_ended"
        seat = next(seat for seat in match.seats.all() if seat.index == match.to_move)
        if seat.player.is_bot:
            match_play_bots(match_id=match_id)
            return "bots_played"
        seat.timeouts += 1
        if seat.timeouts >= match.max_timeouts:
            seat.save(update_fields=["timeouts"])
            match_forfeit(match=match, seat_index=seat.index, reason="timeouts")
            return "forfeited"
        game = games.load(match)
        action = variants.get(match.variant).bot_action(game, seat.index, bot="greedy")
        # What the table played, so the table can tell its player (`match_view`).
        seat.last_timeout = {"seq": match.seq + 1, "action": action}
        seat.save(update_fields=["timeouts", "last_timeout"])
        _apply(match, game, [(seat.index, action, True)])
        return "auto_played"


def match_forfeit(*, match: Match, seat_index: int, reason: str) -> None:
    """End an active match with one seat forfeiting (timeouts, walkover, disqualification).

    Must run inside the caller's transaction holding the match lock. The forfeiter
    places last; the others keep their order by the match score so far.
    """
    if match.status != Match.Status.ACTIVE:
        raise Conflict(_("The match is over."), code="match_over")
    game = games.load(match)
    scores = game.view(None)["scores"]
    placements = variants.get(match.variant).forfeit_placements(scores, seat_index, match.options)
    result = {
        "winner": placements.index(1) if placements.count(1) == 1 else None,
        "scores": scores,
        "placements": placements,
        "forfeit": {"seat": seat_index, "reason": reason, "seq": match.seq},
    }
    match.status = Match.Status.FINISHED
    match.result = result
    match.finished_at = timezone.now()
    match.turn_deadline = None
    match.to_move = None
    match.hand_break_until, match.hand_break_ready = None, []
    match.save(
        update_fields=[
            "status",
            "result",
            "finished_at",
            "turn_deadline",
            "to_move",
            "hand_break_until",
            "hand_break_ready",
        ]
    )
    seats = _placed_seats(match, result)
    for seat in seats:
        seat.forfeited = seat.forfeited or seat.index == seat_index
    bulk_update(seats, ["score", "placement", "forfeited"])
    live.announce([match])
    match_id = match.pk
    _finalize_later([match_id])
