"""Leagues, their ladder of divisions, seasons, rounds, fixtures and standings.

Tables and constraints only; every write goes through leagues.services. A division is a
rung of the league's ladder (tier 1 is the top); a season plays a schedule of rounds within
each division, and each standings row is one player's line in one season's division table.
"""

from datetime import timedelta

from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from competition import standings
from config.text import visible_name
from gameplay.models import Match, Player, Reward, Title, variant_choices

SQL_TIEBREAKERS = ["points", "wins", "game_diff", "game_for", "rating"]


def default_tiebreakers() -> list[str]:
    """Every SQL-computable metric, so ranking runs as one window-function statement."""
    return list(SQL_TIEBREAKERS)


class League(models.Model):
    name = models.CharField(max_length=80, unique=True, validators=[visible_name])
    slug = models.SlugField(unique=True)
    variant = models.CharField(max_length=16, choices=variant_choices)
    options = models.JSONField(default=dict, blank=True)
    table_size = models.PositiveSmallIntegerField(default=2, help_text="Seats per fixture, 2-6.")
    double_round_robin = models.BooleanField(
        default=False, help_text="Two-seat tables: everyone meets twice, home and away."
    )
    rotation_rounds = models.PositiveSmallIntegerField(
        default=6, help_text="Rounds per season for tables of three or more."
    )
    round_interval = models.DurationField(
        default=timedelta(days=1), help_text="Time between round openings; also each deadline."
    )
    points_win = models.PositiveSmallIntegerField(default=standings.DEFAULT_POINTS.win)
    points_draw = models.PositiveSmallIntegerField(default=standings.DEFAULT_POINTS.draw)
    points_loss = models.PositiveSmallIntegerField(default=standings.DEFAULT_POINTS.loss)
    tiebreakers = models.JSONField(
        default=default_tiebreakers,
        help_text="Ordered tie-breaker keys (leagues.standings.METRICS).",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(table_size__gte=2, table_size__lte=6), name="league_table_size_2_6"
            ),
            models.CheckConstraint(
                condition=Q(rotation_rounds__gte=1), name="league_rotation_rounds_min"
            ),
            models.CheckConstraint(
                condition=Q(points_win__gte=F("points_draw"), points_draw__gte=F("points_loss")),
                name="league_points_ordered",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def points_rule(self) -> standings.PointsRule:
        return standings.PointsRule(self.points_win, self.points_draw, self.points_loss)


class Division(models.Model):
    """One rung of the ladder; ``tier`` 1 is the top division."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="divisions")
    tier = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=40, validators=[visible_name])
    size = models.PositiveSmallIntegerField(help_text="Places filled by rating at the first start.")
    promote = models.PositiveSmallIntegerField(default=2)
    relegate = models.PositiveSmallIntegerField(default=2)
    champion_reward = models.ForeignKey(
        Reward, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    champion_title = models.ForeignKey(
        Title, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["league", "tier"]
        constraints = [
            models.UniqueConstraint(fields=["league", "tier"], name="division_tier_once"),
            models.UniqueConstraint(fields=["league", "name"], name="division_name_once"),
            models.CheckConstraint(condition=Q(tier__gte=1), name="division_tier_from_one"),
            models.CheckConstraint(condition=Q(size__gte=2), name="division_size_min"),
            models.CheckConstraint(
                condition=Q(size__gte=F("promote") + F("relegate")),
                name="division_moves_fit",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.league} · {self.name}"


class Membership(models.Model):
    """A player in a league and the division they play next season."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="memberships")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="league_memberships")
    division = models.ForeignKey(Division, on_delete=models.PROTECT, related_name="memberships")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["league", "division__tier", "player_id"]
        constraints = [
            models.UniqueConstraint(fields=["league", "player"], name="membership_once"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.division}"


class Season(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("Scheduled")
        RUNNING = "running", _("Running")
        CLOSED = "closed", _("Closed")

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SCHEDULED)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField(null=True, blank=True)
    rounds = models.PositiveSmallIntegerField(
        default=0, help_text="Rounds of the longest schedule."
    )
    started_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["league", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["league", "number"], name="season_number_once"),
            # At most one season in play per league: closing creates the next exactly once.
            models.UniqueConstraint(
                fields=["league"], condition=~Q(status="closed"), name="season_one_open"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="season_number_from_one"),
        ]

    def __str__(self) -> str:
        return f"{self.league} · season {self.number}"


class Round(models.Model):
    """One round of one division's schedule; its timestamps record each step exactly once."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="round_set")
    division = models.ForeignKey(Division, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    opens_at = models.DateTimeField()
    deadline = models.DateTimeField()
    opened_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    ranked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["season", "division__tier", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["season", "division", "number"], name="round_number_once"
            ),
            models.CheckConstraint(condition=Q(deadline__gt=F("opens_at")), name="round_deadline"),
        ]
        indexes = [models.Index(fields=["opened_at", "opens_at"], name="round_due")]

    def __str__(self) -> str:
        return f"{self.season} · {self.division.name} · round {self.number}"

    @property
    def due(self) -> bool:
        """Its opening time has passed but beat has not opened it yet (within a tick)."""
        return self.opened_at is None and self.opens_at <= timezone.now()


class Fixture(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("Scheduled")
        PLAYING = "playing", _("Playing")
        DONE = "done", _("Done")
        VOID = "void", _("Void")

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="fixtures")
    table = models.PositiveSmallIntegerField(help_text="Position within the round, from 1.")
    match = models.OneToOneField(
        Match, null=True, blank=True, on_delete=models.PROTECT, related_name="league_fixture"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SCHEDULED)
    recorded_at = models.DateTimeField(null=True, blank=True)
    players = models.ManyToManyField(Player, through="FixtureSeat", related_name="league_fixtures")

    class Meta:
        ordering = ["round", "table"]
        constraints = [
            models.UniqueConstraint(fields=["round", "table"], name="fixture_table_once"),
            models.CheckConstraint(
                condition=Q(status__in=["done", "void"], recorded_at__isnull=False)
                | (~Q(status__in=["done", "void"]) & Q(recorded_at__isnull=True)),
                name="fixture_recorded_iff_over",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.round} · table {self.table}"


class FixtureSeat(models.Model):
    """A player at a fixture; place (1 is best) and game points once the result is in."""

    fixture = models.ForeignKey(Fixture, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    game_points = models.IntegerField(null=True, blank=True)
    outcome = models.CharField(max_length=1, blank=True, help_text="W, D or L.")

    class Meta:
        ordering = ["fixture", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["fixture", "seat"], name="fixture_seat_once"),
            models.UniqueConstraint(fields=["fixture", "player"], name="fixture_player_once"),
        ]

    def __str__(self) -> str:
        return f"seat {self.seat} of fixture {self.fixture_id}"


class Standing(models.Model):
    """One player's line in a season's division table.

    Totals grow as results are recorded; ``rank`` and ``previous_rank`` change only when the
    division is ranked (a round completed), in one statement for the whole division.
    """

    class Outcome(models.TextChoices):
        PROMOTED = "promoted", _("Promoted")
        RELEGATED = "relegated", _("Relegated")
        STAYED = "stayed", _("Stayed")

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="standings")
    division = models.ForeignKey(Division, on_delete=models.CASCADE, related_name="standings")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="league_standings")
    played = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    drawn = models.PositiveIntegerField(default=0)
    lost = models.PositiveIntegerField(default=0)
    points = models.IntegerField(default=0)
    game_for = models.IntegerField(default=0)
    game_against = models.IntegerField(default=0)
    form = models.CharField(max_length=standings.FORM_LENGTH, blank=True)
    rating = models.FloatField(default=0.0, help_text="Rating ordinal when last recorded.")
    rank = models.PositiveIntegerField(null=True, blank=True)
    previous_rank = models.PositiveIntegerField(null=True, blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome.choices, blank=True)
    champion = models.BooleanField(default=False)

    class Meta:
        ordering = ["season", "division__tier", "rank", "player_id"]
        constraints = [
            models.UniqueConstraint(fields=["season", "player"], name="standing_once_per_season"),
            models.CheckConstraint(
                condition=Q(played=F("won") + F("drawn") + F("lost")), name="standing_played_sum"
            ),
        ]
        indexes = [models.Index(fields=["season", "division"], name="standing_table")]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.division_id}, season {self.season_id}"

    @property
    def game_diff(self) -> int:
        return self.game_for - self.game_against

    @property
    def movement(self) -> int | None:
        if self.rank is None:
            return None
        return standings.movement(self.previous_rank, self.rank)
