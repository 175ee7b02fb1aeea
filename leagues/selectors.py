"""Reads shared by the API, pages and tasks: querysets with their related rows loaded."""

from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, Prefetch, Q, QuerySet
from django.utils import timezone

from competition import standings
from gameplay.models import Rating
from leagues.models import Division, Fixture, FixtureSeat, League, Membership, Season, Standing

# Lichess-style gates: a rating shows on the leaderboard once it rests on enough rated
# matches and the player is still active, so one lucky provisional win does not top it.
LEADERBOARD_MIN_MATCHES = 3
LEADERBOARD_ACTIVE_DAYS = 30


def leagues() -> QuerySet[League]:
    return League.objects.annotate(
        member_count=Count("memberships", distinct=True),
        division_count=Count("divisions", distinct=True),
    ).order_by("name")


def seasons_of(league: League) -> QuerySet[Season]:
    return league.seasons.order_by("-number")


def divisions_of(league: League) -> list[Division]:
    return list(league.divisions.order_by("tier"))


def standings_rows(*, season_id: int | None = None, division_id: int | None = None) -> QuerySet:
    """Rows in table order: rank, then player id within a shared rank."""
    rows = Standing.objects.select_related("player", "division", "season__league")
    if season_id is not None:
        rows = rows.filter(season_id=season_id)
    if division_id is not None:
        rows = rows.filter(division_id=division_id)
    return rows.order_by("season_id", "division__tier", "rank", "player_id")


@dataclass
class TableLine:
    position: int
    row: Standing
    zone: str | None

    @property
    def movement(self) -> int | None:
        return self.row.movement


def division_table(season: Season, division: Division, ladder: list[Division]) -> list[TableLine]:
    """A football-style table with promotion and relegation zones marked."""
    rows = list(standings_rows(season_id=season.pk, division_id=division.pk))
    if not rows:
        return []
    zone = standings.zones(
        len(rows),
        min(division.promote, len(rows)),
        min(division.relegate, max(len(rows) - division.promote, 0)),
        top=division.tier == ladder[0].tier,
        bottom=division.tier == ladder[-1].tier,
    )
    return [TableLine(i, row, zone.of(i)) for i, row in enumerate(rows, 1)]


def fixtures(*, season_id: int | None = None, division_id: int | None = None) -> QuerySet[Fixture]:
    rows = Fixture.objects.select_related("round__division", "round__season").prefetch_related(
        Prefetch("seats", queryset=FixtureSeat.objects.select_related("player"))
    )
    if season_id is not None:
        rows = rows.filter(round__season_id=season_id)
    if division_id is not None:
        rows = rows.filter(round__division_id=division_id)
    return rows.order_by("round__season_id", "round__division__tier", "round__number", "table")


def player_history(player_id: int) -> QuerySet[Standing]:
    """Every season the player took part in, newest first."""
    return (
        Standing.objects.filter(player_id=player_id)
        .select_related("season__league", "division")
        .order_by("-season__starts_at", "-season_id")
    )


def leaderboard(variant: str, now=None, *, bots: bool = True) -> QuerySet[Rating]:
    """Ratings past the gates, best ordinal first (player id breaks exact ties); without the
    house's bots when ``bots`` is false."""
    now = now or timezone.now()
    ratings = Rating.objects.filter(
        Q(variant=variant)
        & Q(rated_matches__gte=LEADERBOARD_MIN_MATCHES)
        & Q(last_rated_at__gte=now - timedelta(days=LEADERBOARD_ACTIVE_DAYS))
    )
    if not bots:
        ratings = ratings.filter(player__is_bot=False)
    return ratings.select_related("player").order_by("-ordinal", "player_id")


def membership_of(league: League, player) -> Membership | None:
    if player is None:
        return None
    memberships = Membership.objects.filter(league=league, player=player)
    return memberships.select_related("division").first()


# How long a promotion or relegation stays news (a notice on every page).
MOVES_NEWS_DAYS = 7


def moves_of(player, *, league: League | None = None, days: int | None = None) -> list[dict]:
    """The player's promotions and relegations, newest season first, each with the division
    they left and the one they play in now: two queries."""
    if player is None:
        return []
    rows = Standing.objects.filter(
        player=player,
        outcome__in=(Standing.Outcome.PROMOTED, Standing.Outcome.RELEGATED),
        season__status=Season.Status.CLOSED,
    ).select_related("season__league", "division")
    if league is not None:
        rows = rows.filter(season__league=league)
    if days is not None:
        rows = rows.filter(season__closed_at__gte=timezone.now() - timedelta(days=days))
    rows = list(rows.order_by("-season__closed_at"))
    now_in = {
        m.league_id: m.division
        for m in Membership.objects.filter(
            player=player, league_id__in={r.season.league_id for r in rows}
        ).select_related("division")
    }
    return [
        {
            "standing": row,
            "league": row.season.league,
            "season": row.season,
            "up": row.outcome == Standing.Outcome.PROMOTED,
            "left": row.division,
            "now_in": now_in.get(row.season.league_id),
        }
        for row in rows
    ]


def next_season(seasons: list[Season]) -> Season | None:
    """The scheduled season a new member would play first, if one is set."""
    return next((s for s in seasons if s.status == Season.Status.SCHEDULED), None)


def next_fixture(player) -> Fixture | None:
    """The player's first league fixture still to play in a running season, with who else
    sits at it (the home page): two queries."""
    return (
        Fixture.objects.filter(
            seats__player=player,
            status__in=(Fixture.Status.SCHEDULED, Fixture.Status.PLAYING),
            round__season__status=Season.Status.RUNNING,
        )
        .select_related("round__season__league", "round__division")
        .prefetch_related(Prefetch("seats", queryset=FixtureSeat.objects.select_related("player")))
        .order_by("round__opens_at", "pk")
        .first()
    )
