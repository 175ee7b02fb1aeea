"""Read shapes of the leagues API; no business logic."""

from rest_framework import serializers

from gameplay.models import Rating
from leagues.models import Division, Fixture, FixtureSeat, League, Season, Standing


class DivisionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Division
        fields = ["id", "tier", "name", "size", "promote", "relegate"]


class LeagueSerializer(serializers.ModelSerializer):
    member_count = serializers.IntegerField(read_only=True)
    points = serializers.SerializerMethodField()

    class Meta:
        model = League
        fields = [
            "id",
            "name",
            "slug",
            "variant",
            "options",
            "table_size",
            "double_round_robin",
            "round_interval",
            "points",
            "tiebreakers",
            "member_count",
        ]

    def get_points(self, league: League) -> dict:
        return league.points_rule._asdict()


class LeagueDetailSerializer(LeagueSerializer):
    divisions = DivisionSerializer(many=True, read_only=True)

    class Meta(LeagueSerializer.Meta):
        fields = [*LeagueSerializer.Meta.fields, "divisions"]


class SeasonSerializer(serializers.ModelSerializer):
    class Meta:
        model = Season
        fields = [
            "id",
            "league",
            "number",
            "status",
            "starts_at",
            "ends_at",
            "rounds",
            "started_at",
            "closed_at",
        ]


class MembershipSerializer(serializers.Serializer):
    league = serializers.IntegerField(source="league_id")
    division = serializers.IntegerField(source="division_id")
    joined_at = serializers.DateTimeField()


class StandingSerializer(serializers.ModelSerializer):
    player_name = serializers.CharField(source="player.display_name")
    division_name = serializers.CharField(source="division.name")
    game_diff = serializers.IntegerField()
    movement = serializers.IntegerField(allow_null=True)

    class Meta:
        model = Standing
        fields = [
            "id",
            "season",
            "division",
            "division_name",
            "player",
            "player_name",
            "rank",
            "previous_rank",
            "movement",
            "played",
            "won",
            "drawn",
            "lost",
            "points",
            "game_for",
            "game_against",
            "game_diff",
            "form",
            "rating",
            "outcome",
            "champion",
        ]


class HistorySerializer(StandingSerializer):
    league = serializers.IntegerField(source="season.league_id")
    league_name = serializers.CharField(source="season.league.name")
    season_number = serializers.IntegerField(source="season.number")

    class Meta(StandingSerializer.Meta):
        fields = ["league", "league_name", "season_number", *StandingSerializer.Meta.fields]


class FixtureSeatSerializer(serializers.ModelSerializer):
    player_name = serializers.CharField(source="player.display_name")

    class Meta:
        model = FixtureSeat
        fields = ["seat", "player", "player_name", "place", "game_points", "outcome"]


class FixtureSerializer(serializers.ModelSerializer):
    season = serializers.IntegerField(source="round.season_id")
    division = serializers.IntegerField(source="round.division_id")
    round = serializers.IntegerField(source="round.number")
    deadline = serializers.DateTimeField(source="round.deadline")
    seats = FixtureSeatSerializer(many=True)

    class Meta:
        model = Fixture
        fields = [
            "id",
            "season",
            "division",
            "round",
            "table",
            "status",
            "match",
            "deadline",
            "seats",
        ]


class LeaderboardSerializer(serializers.ModelSerializer):
    player_name = serializers.CharField(source="player.display_name")
    provisional = serializers.BooleanField()

    class Meta:
        model = Rating
        fields = [
            "player",
            "player_name",
            "variant",
            "ordinal",
            "mu",
            "sigma",
            "rated_matches",
            "last_rated_at",
            "provisional",
        ]
