"""Every write in leagues: one function per use case, keyword-only, each safe to run twice.

Exactly-once rules: the row whose state advances (a season, a round, a fixture) is locked
with select_for_update and its state checked again after the lock, or a step is claimed with
a conditional UPDATE whose row count says who won. Lock order is season, round, fixture,
match, standings (by primary key), so two workers never deadlock.
"""

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import Prefetch
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from competition import schedule, standings
from config.db import bulk_update
from config.errors import Conflict, DomainError
from config.jobs import enqueue
from config.text import refuse_hidden
from engine import variants
from gameplay import live
from gameplay import services as gameplay
from gameplay.models import Match, Metric, Player, Rating
from leagues import jobs
from leagues.models import (
    Division,
    Fixture,
    FixtureSeat,
    League,
    Membership,
    Round,
    Season,
    Standing,
)

OVER = [Fixture.Status.DONE, Fixture.Status.VOID]
NO_SHOW = "no_show"


# --- leagues and members ---------------------------------------------------------------


def league_create(
    *,
    name: str,
    variant: str,
    divisions: Sequence[dict],
    options: dict | None = None,
    table_size: int = 2,
    slug: str | None = None,
    tiebreakers: Sequence[str] | None = None,
    points: standings.PointsRule = standings.DEFAULT_POINTS,
    double_round_robin: bool = False,
    rotation_rounds: int = 6,
    round_interval: timedelta = timedelta(days=1),
) -> League:
    """A league and its ladder; ``divisions`` run top first, each {name, size, promote, relegate}.

    The variant must seat both table sizes a rotation can deal (the size and one fewer).
    """
    try:
        engine_variant = variants.get(variant)
        options = engine_variant.validate_options(options or {})
        for seats in {table_size, max(2, table_size - 1)}:
            engine_variant.validate_players(seats)
        chosen = list(tiebreakers) if tiebreakers is not None else None
        if chosen is not None:
            standings.metrics(chosen)
    except ValueError as exc:
        raise DomainError(str(exc), code="invalid_league") from exc
    if chosen == []:
        raise DomainError(_("A league needs at least one tie-breaker."), code="invalid_league")
    if not divisions:
        raise DomainError(_("A league needs at least one division."), code="invalid_league")
    refuse_hidden(name, *(division["name"] for division in divisions))
    with transaction.atomic():
        league = League.objects.create(
            name=name,
            slug=slug or slugify(name),
            variant=variant,
            options=options,
            table_size=table_size,
            double_round_robin=double_round_robin,
            rotation_rounds=rotation_rounds,
            round_interval=round_interval,
            points_win=points.win,
            points_draw=points.draw,
            points_loss=points.loss,
            **({"tiebreakers": chosen} if chosen is not None else {}),
        )
        Division.objects.bulk_create(
            Division(league=league, tier=tier, **spec) for tier, spec in enumerate(divisions, 1)
        )
    return league


def league_join(*, league: League, player: Player) -> Membership:
    """Join the bottom division; the first season start re-places everyone by rating."""
    bottom = league.divisions.order_by("-tier").first()
    membership, _ = Membership.objects.get_or_create(
        league=league, player=player, defaults={"division": bottom}
    )
    return membership


def _ordinals(player_ids: Iterable[int], variant: str) -> dict[int, float]:
    """Current rating ordinals; players without a rating get the starting ordinal."""
    start = gameplay.RATING_MODEL.mu - 3 * gameplay.RATING_MODEL.sigma
    found = dict(
        Rating.objects.filter(player_id__in=list(player_ids), variant=variant).values_list(
            "player_id", "ordinal"
        )
    )
    return defaultdict(lambda: start, found)


def _place_by_rating(league: League, divisions: list[Division]) -> None:
    """Fill the ladder from the top by rating; the bottom division takes any overflow."""
    members = list(Membership.objects.filter(league=league).order_by("joined_at", "pk"))
    ordinal = _ordinals((m.player_id for m in members), league.variant)
    members.sort(key=lambda m: -ordinal[m.player_id])  # stable: equal ratings by join order
    start = 0
    for index, division in enumerate(divisions):
        last = index == len(divisions) - 1
        end = len(members) if last else start + division.size
        for membership in members[start:end]:
            membership.division = division
        start = end
    bulk_update(members, ["division"])


# --- seasons ---------------------------------------------------------------------------


def season_create(*, league: League, starts_at: datetime) -> Season:
    """A scheduled season numbered after the last; the open one if there already is one."""
    with transaction.atomic():
        # The league row orders season creation: two admins never number a season twice.
        League.objects.select_for_update().get(pk=league.pk)
        open_season = league.seasons.exclude(status=Season.Status.CLOSED).first()
        if open_season is not None:
            return open_season
        last = league.seasons.order_by("-number").values_list("number", flat=True).first() or 0
        return Season.objects.create(league=league, number=last + 1, starts_at=starts_at)


def season_start(*, season_id: int) -> Season:
    """Place players (by rating, the first time), then create standings, rounds and fixtures."""
    with transaction.atomic():
        # Locked so a second start (admin double click, a retried task) finds it running.
        season = Season.objects.select_for_update().select_related("league").get(pk=season_id)
        if season.status != Season.Status.SCHEDULED:
            return season
        _start(season)
    return season


def _start(season: Season) -> None:
    league = season.league
    divisions = list(league.divisions.order_by("tier"))
    if not league.seasons.exclude(pk=season.pk).exists():
        _place_by_rating(league, divisions)
    by_division: dict[int, list[int]] = defaultdict(list)
    for division_id, player_id in Membership.objects.filter(league=league).values_list(
        "division_id", "player_id"
    ):
        by_division[division_id].append(player_id)
    if sum(len(ids) for ids in by_division.values()) < 2:
        raise DomainError(_("A season needs at least two members."), code="too_few_members")
    ordinal = _ordinals((p for ids in by_division.values() for p in ids), league.variant)
    Standing.objects.bulk_create(
        Standing(season=season, division_id=d, player_id=p, rating=ordinal[p])
        for d, ids in by_division.items()
        for p in ids
    )
    interval = league.round_interval
    rounds, tables = [], []
    for division in divisions:
        for number, groups in _schedule(league, season, division, sorted(by_division[division.pk])):
            opens_at = season.starts_at + (number - 1) * interval
            rnd = Round(
                season=season,
                division=division,
                number=number,
                opens_at=opens_at,
                deadline=opens_at + interval,
            )
            rounds.append(rnd)
            tables.append(groups)
    Round.objects.bulk_create(rounds)
    fixtures = [
        Fixture(round=rnd, table=table)
        for rnd, groups in zip(rounds, tables, strict=True)
        for table in range(1, len(groups) + 1)
    ]
    Fixture.objects.bulk_create(fixtures)
    groups = [group for round_groups in tables for group in round_groups]
    FixtureSeat.objects.bulk_create(
        FixtureSeat(fixture=fixture, player_id=player_id, seat=seat)
        for fixture, group in zip(fixtures, groups, strict=True)
        for seat, player_id in enumerate(group)
    )
    season.rounds = max((rnd.number for rnd in rounds), default=0)
    season.ends_at = season.starts_at + season.rounds * interval
    season.status = Season.Status.RUNNING
    season.started_at = timezone.now()
    season.save(update_fields=["rounds", "ends_at", "status", "started_at"])
    # Initial positions: everyone level, so the later tie-breakers (rating) set the order.
    _rank(season, [d.pk for d in divisions])


def _schedule(
    league: League, season: Season, division: Division, player_ids: list[int]
) -> list[tuple[int, list[tuple[int, ...]]]]:
    """(round number, tables) for one division; too few players for a table means no rounds."""
    if league.table_size == 2:
        if len(player_ids) < 2:
            return []
        return [
            (rnd.number, [(p.home, p.away) for p in rnd.pairings])
            for rnd in schedule.round_robin(player_ids, double=league.double_round_robin)
        ]
    if len(player_ids) < league.table_size:
        return []
    rotation = schedule.multi_table_rotation(
        player_ids,
        league.table_size,
        league.rotation_rounds,
        seed=f"{league.pk}:{season.number}:{division.tier}",
    )
    return [(rnd.number, list(rnd.tables)) for rnd in rotation]


def season_close(*, season_id: int) -> Season:
    """Freeze ranks, move players up and down the ladder, honour champions, start the next.

    Returns the next season; a second call finds this one closed and returns the same one,
    so awards (which add to counters) happen once.
    """
    with transaction.atomic():
        # The season row is the claim: only the call that flips it to closed awards anything.
        season = Season.objects.select_for_update().select_related("league").get(pk=season_id)
        league = season.league
        if season.status == Season.Status.CLOSED:
            return Season.objects.get(league=league, number=season.number + 1)
        if season.status != Season.Status.RUNNING:
            raise Conflict(_("The season has not started."), code="season_not_started")
        unfinished = Fixture.objects.filter(round__season=season).exclude(status__in=OVER).count()
        if unfinished:
            raise Conflict(
                f"{unfinished} fixture(s) are still to be played.",
                code="season_unfinished",
                details={"unfinished": unfinished},
            )
        now = timezone.now()
        late = list(
            Round.objects.filter(season=season, ranked_at__isnull=True).values_list(
                "division_id", flat=True
            )
        )
        if late:
            Round.objects.filter(season=season, ranked_at__isnull=True).update(ranked_at=now)
            _rank(season, sorted(set(late)))
        promoted, champions = _move_players(season)
        # A promotion or relegation is news on every page of the players it moves.
        live.notify_players(
            Standing.objects.filter(
                season=season,
                outcome__in=(Standing.Outcome.PROMOTED, Standing.Outcome.RELEGATED),
                player__is_bot=False,
            ).values_list("player_id", flat=True)
        )
        season.status = Season.Status.CLOSED
        season.closed_at = now
        season.save(update_fields=["status", "closed_at"])
        _award(season, promoted, champions)
        following = Season.objects.create(
            league=league,
            number=season.number + 1,
            starts_at=max(season.ends_at or now, now),
        )
        _start(following)
    return following


def _move_players(season: Season) -> tuple[list[int], list[Standing]]:
    """Apply the zones of every division; returns promoted player ids and champion rows."""
    divisions = list(season.league.divisions.order_by("tier"))
    rows_of: dict[int, list[Standing]] = defaultdict(list)
    for row in (
        Standing.objects.filter(season=season)
        .select_related("division")
        .order_by("division__tier", "rank", "player_id")
    ):
        rows_of[row.division_id].append(row)
    moves: dict[int, list[int]] = defaultdict(list)  # target division id -> players
    promoted, champions, changed = [], [], []
    for index, division in enumerate(divisions):
        rows = rows_of[division.pk]
        if not rows:
            continue
        zone = standings.zones(
            len(rows),
            min(division.promote, len(rows)),
            min(division.relegate, max(len(rows) - division.promote, 0)),
            top=index == 0,
            bottom=index == len(divisions) - 1,
        )
        for position, row in enumerate(rows, 1):
            where = zone.of(position)
            if where == "promotion":
                row.outcome = Standing.Outcome.PROMOTED
                moves[divisions[index - 1].pk].append(row.player_id)
                promoted.append(row.player_id)
            elif where == "relegation":
                row.outcome = Standing.Outcome.RELEGATED
                moves[divisions[index + 1].pk].append(row.player_id)
            else:
                row.outcome = Standing.Outcome.STAYED
            row.champion = row.rank == 1 and row.played > 0
            if row.champion:
                champions.append(row)
            changed.append(row)
    bulk_update(changed, ["outcome", "champion"])
    for division_id, player_ids in moves.items():
        Membership.objects.filter(league=season.league, player_id__in=player_ids).update(
            division_id=division_id
        )
    return promoted, champions


def _award(season: Season, promoted: list[int], champions: list[Standing]) -> None:
    """Counters, rewards and titles; runs only inside the closing call that won the claim."""
    for player_id in promoted:
        gameplay.metrics_add(player_id=player_id, changes={Metric.LEAGUE_PROMOTIONS: 1})
    for row in champions:
        division = row.division
        gameplay.metrics_add(player_id=row.player_id, changes={Metric.LEAGUE_TITLES: 1})
        reason = f"{division.name} champion, {season}"
        if division.champion_reward_id:
            gameplay.unless_full(
                gameplay.reward_grant,
                player_id=row.player_id,
                reward=division.champion_reward,
                reason=reason,
                key=f"league-season:{season.pk}:champion",
            )
        if division.champion_title_id:
            gameplay.title_grant(player=row.player, title=division.champion_title, reason=reason)
    for player_id in sorted({*promoted, *(row.player_id for row in champions)}):
        gameplay.progress_evaluate(player_id=player_id)


# --- rounds and fixtures ---------------------------------------------------------------


def round_open(*, round_id: int) -> int:
    """Create the round's matches; returns how many (0 when already open)."""
    with transaction.atomic():
        # Locked so a beat tick and a retried task never create a second set of matches.
        rnd = Round.objects.select_for_update().select_related("season__league").get(pk=round_id)
        if rnd.opened_at is not None or rnd.season.status != Season.Status.RUNNING:
            return 0
        league = rnd.season.league
        fixtures = list(
            rnd.fixtures.filter(status=Fixture.Status.SCHEDULED).prefetch_related(
                Prefetch("seats", queryset=FixtureSeat.objects.select_related("player"))
            )
        )
        for fixture in fixtures:
            fixture.match = gameplay.match_create(
                variant=league.variant,
                options=league.options,
                players=[seat.player for seat in fixture.seats.all()],
            )
            fixture.status = Fixture.Status.PLAYING
        bulk_update(fixtures, ["match", "status"])
        rnd.opened_at = timezone.now()
        rnd.save(update_fields=["opened_at"])
    return len(fixtures)


def fixture_no_show(*, fixture_id: int) -> bool:
    """Past the deadline: the seat due to move has not shown up and forfeits (loses).

    The forfeit finishes the match, which gameplay finalizes and announces like any other.
    """
    with transaction.atomic():
        fixture = Fixture.objects.select_related("round").get(pk=fixture_id)
        if fixture.match_id is None or fixture.round.deadline > timezone.now():
            return False
        # The match lock is what match_forfeit requires; a move racing in loses or wins it.
        match = Match.objects.select_for_update().get(pk=fixture.match_id)
        if match.status != Match.Status.ACTIVE:
            return False
        seat = match.to_move if match.to_move is not None else match.players - 1
        gameplay.match_forfeit(match=match, seat_index=seat, reason=NO_SHOW)
    return True


def fixture_record(*, match_id: int) -> bool:
    """Record a fixture's validated result once; complete the round with its last result.

    Only finalized matches count (the replay checked them); a disputed match voids the
    fixture, which counts for nobody. Returns True for the call that recorded it.
    """
    found = Fixture.objects.filter(match_id=match_id).values_list("pk", "round_id").first()
    if found is None:
        return False
    fixture_id, round_id = found
    with transaction.atomic():
        # The round row orders the results of one round: whichever records last sees every
        # other result committed and completes the round, exactly once.
        rnd = Round.objects.select_for_update().select_related("season__league").get(pk=round_id)
        fixture = Fixture.objects.select_for_update().get(pk=fixture_id)
        if fixture.recorded_at is not None:
            return False
        match = Match.objects.get(pk=match_id)
        if match.status == Match.Status.DISPUTED:
            fixture.status = Fixture.Status.VOID
        elif match.status == Match.Status.FINISHED and match.finalized_at is not None:
            _apply_result(rnd, fixture, match)
            fixture.status = Fixture.Status.DONE
        else:
            return False
        fixture.recorded_at = timezone.now()
        fixture.save(update_fields=["status", "recorded_at"])
        _complete_round(rnd)
    return True


def _apply_result(rnd: Round, fixture: Fixture, match: Match) -> None:
    league = rnd.season.league
    placed = {s.player_id: s for s in match.seats.all()}
    seats = list(fixture.seats.all())
    # Penalty points (Indian, Dummy, penalty Basic: the lowest total wins) count against
    # their holder, so "game points for" and the difference rank the same way as elsewhere.
    sign = -1 if variants.get(match.variant).lower_score_wins(match.options) else 1
    result = standings.Result(
        rnd.number,
        {s.player_id: placed[s.player_id].placement for s in seats},
        {s.player_id: sign * (placed[s.player_id].score or 0) for s in seats},
    )
    outcome = standings.outcomes(result)
    total = sum(result.points.values())
    for seat in seats:
        seat.place = result.places[seat.player_id]
        seat.game_points = result.points[seat.player_id]
        seat.outcome = outcome[seat.player_id]
    bulk_update(seats, ["place", "game_points", "outcome"])
    award = {"W": league.points_win, "D": league.points_draw, "L": league.points_loss}
    ordinal = _ordinals(result.places, league.variant)
    rows = list(
        Standing.objects.select_for_update()
        .filter(season_id=rnd.season_id, player_id__in=list(result.places))
        .order_by("pk")
    )
    for row in rows:
        mark = outcome[row.player_id]
        row.played += 1
        row.won += mark == "W"
        row.drawn += mark == "D"
        row.lost += mark == "L"
        row.points += award[mark]
        row.game_for += result.points[row.player_id]
        row.game_against += total - result.points[row.player_id]
        row.form = (row.form + mark)[-standings.FORM_LENGTH :]
        row.rating = ordinal[row.player_id]
    bulk_update(
        rows,
        ["played", "won", "drawn", "lost", "points", "game_for", "game_against", "form", "rating"],
    )


def _complete_round(rnd: Round) -> None:
    """Inside the round lock: the last result marks the round complete and queues ranking."""
    if rnd.completed_at is not None or rnd.fixtures.exclude(status__in=OVER).exists():
        return
    rnd.completed_at = timezone.now()
    rnd.save(update_fields=["completed_at"])
    enqueue(jobs.RANK_ROUND, rnd.pk)


# --- ranking ---------------------------------------------------------------------------


def round_rank(*, round_id: int) -> bool:
    """Rank the division of a completed round, once; close the season after its last round.

    The conditional UPDATE is the claim: of two workers given the same round, one changes
    the row and ranks, the other sees zero rows and returns False, so ``previous_rank``
    (the movement arrows) is never overwritten by a second run.
    """
    season_id = Round.objects.filter(pk=round_id).values_list("season_id", flat=True).first()
    if season_id is None:
        return False
    with transaction.atomic():
        # The season row orders the last rounds of its divisions: ranked at the same
        # moment, the second waits for the first's commit, then sees every round ranked
        # and queues the closing; without it each saw the other unranked, and neither did.
        Season.objects.select_for_update().only("pk").get(pk=season_id)
        claimed = Round.objects.filter(
            pk=round_id, completed_at__isnull=False, ranked_at__isnull=True
        ).update(ranked_at=timezone.now())
        if not claimed:
            return False
        rnd = Round.objects.select_related("season__league").get(pk=round_id)
        _rank(rnd.season, [rnd.division_id])
        if not Round.objects.filter(season_id=season_id, ranked_at__isnull=True).exists():
            enqueue(jobs.CLOSE_SEASON, season_id)
    return True


SQL_ORDER = {
    "points": '"points" DESC',
    "wins": '"won" DESC',
    "game_diff": '("game_for" - "game_against") DESC',
    "game_for": '"game_for" DESC',
    "rating": '"rating" DESC',
}


def rank_statement(tiebreakers: Sequence[str], *, divisions: int | None) -> str:
    """The one UPDATE that ranks divisions: RANK() over the tie-breakers, per division.

    Its ORDER BY is `standings.sort_key` in SQL, so rows equal on every key share a rank;
    the old rank moves to ``previous_rank`` in the same statement. Rows that would not
    change are not written.
    """
    if not standings.sql_sortable(tiebreakers):
        raise ValueError(f"{list(tiebreakers)} needs head-to-head, which SQL cannot order")
    table = connection.ops.quote_name(Standing._meta.db_table)
    order = ", ".join(SQL_ORDER[key] for key in tiebreakers)
    over = f"PARTITION BY division_id ORDER BY {order}" if order else "PARTITION BY division_id"
    where = "season_id = %s"
    if divisions is not None:
        where += f" AND division_id IN ({', '.join(['%s'] * divisions)})"
    return (
        f'UPDATE {table} SET "previous_rank" = {table}."rank", "rank" = ranked.new_rank '
        f"FROM (SELECT id, RANK() OVER ({over}) AS new_rank FROM {table} WHERE {where}) "
        f'AS ranked WHERE {table}.id = ranked.id AND ({table}."rank" IS DISTINCT FROM '
        f'ranked.new_rank OR {table}."previous_rank" IS DISTINCT FROM {table}."rank")'
    )


def standings_rank(*, season: Season, division_ids: Sequence[int] | None = None) -> None:
    """Rank some (or all) divisions of a season now; callers own the exactly-once claim."""
    with transaction.atomic():
        _rank(season, division_ids)


def _rank(season: Season, division_ids: Sequence[int] | None) -> None:
    """One set-based statement when every tie-breaker is SQL-computable.

    With head-to-head in the list the order depends on results among exactly the players
    still tied, which no window function expresses; then the divisions' rows and results
    are loaded in two queries, ranked by `standings.rank_standings`, and written back with
    one bulk UPDATE. Either way the query count does not grow with the rows.
    """
    league = season.league
    if division_ids is not None and not division_ids:
        return
    if standings.sql_sortable(league.tiebreakers):
        count = None if division_ids is None else len(division_ids)
        sql = rank_statement(league.tiebreakers, divisions=count)
        params = [season.pk, *(division_ids or ())]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
        return
    rows = Standing.objects.filter(season=season)
    seats = FixtureSeat.objects.filter(
        fixture__round__season=season, fixture__status=Fixture.Status.DONE
    )
    if division_ids is not None:
        rows = rows.filter(division_id__in=division_ids)
        seats = seats.filter(fixture__round__division_id__in=division_ids)
    rows = list(rows)
    results: dict[int, dict[int, standings.Result]] = defaultdict(dict)
    for division_id, fixture_id, number, player_id, place, points in seats.values_list(
        "fixture__round__division_id",
        "fixture_id",
        "fixture__round__number",
        "player_id",
        "place",
        "game_points",
    ):
        result = results[division_id].setdefault(fixture_id, standings.Result(number, {}, {}))
        result.places[player_id] = place
        result.points[player_id] = points
    by_division: dict[int, list[Standing]] = defaultdict(list)
    for row in rows:
        by_division[row.division_id].append(row)
    for division_id, division_rows in by_division.items():
        ranked = standings.rank_standings(
            [_row(r) for r in division_rows],
            results[division_id].values(),
            tiebreakers=league.tiebreakers,
            points=league.points_rule,
        )
        rank_of = {r.player: r.rank for r in ranked}
        for row in division_rows:
            row.previous_rank, row.rank = row.rank, rank_of[row.player_id]
    bulk_update(rows, ["previous_rank", "rank"])


def _row(row: Standing) -> standings.Row:
    return standings.Row(
        player=row.player_id,
        played=row.played,
        won=row.won,
        drawn=row.drawn,
        lost=row.lost,
        points=row.points,
        game_for=row.game_for,
        game_against=row.game_against,
        form=row.form,
        rating=row.rating,
    )
