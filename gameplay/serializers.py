from rest_framework import serializers

from gameplay.models import Match, Player, Room


class RegisterSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(write_only=True)


class RoomSerializer(serializers.ModelSerializer):
    locked = serializers.BooleanField(read_only=True)

    class Meta:
        model = Room
        fields = [
            "id",
            "name",
            "variant",
            "options",
            "seats",
            "min_level",
            "entry_fee",
            "turn_seconds",
            "bots_allowed",
            "locked",
        ]


class PlaySerializer(serializers.Serializer):
    opponent = serializers.ChoiceField(choices=["bot", "human"])


class ActionSerializer(serializers.Serializer):
    seq = serializers.IntegerField(min_value=0)
    action = serializers.JSONField()


class TitleChoiceSerializer(serializers.Serializer):
    title = serializers.IntegerField(allow_null=True)


class MatchSummarySerializer(serializers.ModelSerializer):
    room = serializers.CharField(source="room.name", default=None)
    players = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = [
            "id",
            "variant",
            "room",
            "status",
            "seq",
            "players",
            "commitment",
            "created_at",
            "finished_at",
        ]

    def get_players(self, match) -> list[dict]:
        return [
            {
                "seat": seat.index,
                "player": seat.player.display_name,
                "bot": seat.player.is_bot,
                "placement": seat.placement,
                "score": seat.score,
            }
            for seat in match.seats.all()
        ]


class PlayerSerializer(serializers.ModelSerializer):
    title = serializers.CharField(source="displayed_title.name", default=None)
    ratings = serializers.SerializerMethodField()

    class Meta:
        model = Player
        fields = ["id", "display_name", "is_bot", "level", "xp", "coins", "title", "ratings"]

    def get_ratings(self, player) -> list[dict]:
        return [
            {
                "variant": rating.variant,
                "ordinal": round(rating.ordinal, 2),
                "mu": round(rating.mu, 3),
                "sigma": round(rating.sigma, 3),
                "provisional": rating.provisional,
                "rated_matches": rating.rated_matches,
            }
            for rating in player.ratings.all()
        ]
