"""The leagues API: tables, fixtures, histories and the leaderboard. No business logic here.

Everything read is public, like the pages; joining a league needs a signed-in player.
"""

import django_filters
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from config.errors import DomainError
from config.filters import IdFilter
from engine import variants
from gameplay import services as gameplay
from gameplay.models import Player
from leagues import selectors, services
from leagues.models import Division, Fixture, League, Season, Standing
from leagues.serializers import (
    DivisionSerializer,
    FixtureSerializer,
    HistorySerializer,
    LeaderboardSerializer,
    LeagueDetailSerializer,
    LeagueSerializer,
    MembershipSerializer,
    SeasonSerializer,
    StandingSerializer,
)


class LeagueList(generics.ListAPIView):
    permission_classes = [AllowAny]
    serializer_class = LeagueSerializer

    def get_queryset(self):
        return selectors.leagues()


class LeagueDetail(generics.RetrieveAPIView):
    permission_classes = [AllowAny]
    serializer_class = LeagueDetailSerializer

    def get_queryset(self):
        return selectors.leagues().prefetch_related("divisions")


class LeagueJoin(APIView):
    @extend_schema(request=None, responses={201: MembershipSerializer})
    def post(self, request, pk: int):
        league = get_object_or_404(League, pk=pk)
        membership = services.league_join(
            league=league, player=gameplay.player_for_user(request.user)
        )
        return Response(MembershipSerializer(membership).data, status=status.HTTP_201_CREATED)


class LeagueSeasons(generics.ListAPIView):
    permission_classes = [AllowAny]
    serializer_class = SeasonSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no pk
            return Season.objects.none()
        return selectors.seasons_of(get_object_or_404(League, pk=self.kwargs["pk"]))


class LeagueDivisions(generics.ListAPIView):
    permission_classes = [AllowAny]
    serializer_class = DivisionSerializer
    pagination_class = None  # a ladder is a handful of rungs

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Division.objects.none()
        return get_object_or_404(League, pk=self.kwargs["pk"]).divisions.order_by("tier")


class SeasonDetail(generics.RetrieveAPIView):
    permission_classes = [AllowAny]
    serializer_class = SeasonSerializer
    queryset = Season.objects.all()


class StandingFilter(django_filters.FilterSet):
    league = IdFilter(field_name="season__league")
    rank_max = django_filters.NumberFilter(field_name="rank", lookup_expr="lte")

    class Meta:
        model = Standing
        fields = ["season", "division", "player", "outcome", "champion"]


class StandingList(generics.ListAPIView):
    """Table rows in order; filter by league, season, division, player, outcome, rank_max."""

    permission_classes = [AllowAny]
    serializer_class = StandingSerializer
    filterset_class = StandingFilter

    def get_queryset(self):
        return selectors.standings_rows()


class FixtureFilter(django_filters.FilterSet):
    season = IdFilter(field_name="round__season")
    division = IdFilter(field_name="round__division")
    round = django_filters.NumberFilter(field_name="round__number")
    player = IdFilter(field_name="seats__player")

    class Meta:
        model = Fixture
        fields = ["status"]


class FixtureList(generics.ListAPIView):
    permission_classes = [AllowAny]
    serializer_class = FixtureSerializer
    filterset_class = FixtureFilter

    def get_queryset(self):
        return selectors.fixtures()


class PlayerHistory(generics.ListAPIView):
    """Every league season the player took part in, newest first."""

    permission_classes = [AllowAny]
    serializer_class = HistorySerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Standing.objects.none()
        player = get_object_or_404(Player, pk=self.kwargs["pk"])
        return selectors.player_history(player.pk)


class Leaderboard(generics.ListAPIView):
    """Ratings of one variant (``?variant=``, default gin) past the activity gates."""

    permission_classes = [AllowAny]
    serializer_class = LeaderboardSerializer
    filter_backends: list = []

    @extend_schema(
        parameters=[
            OpenApiParameter("variant", str, enum=variants.names()),
            OpenApiParameter("bots", str, enum=["0", "1"], description="0: people only"),
        ]
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        variant = self.request.query_params.get("variant", "gin")
        if variant not in variants.names():
            raise DomainError(f"Unknown variant {variant!r}.", code="invalid_variant")
        bots = self.request.query_params.get("bots", "1")
        if bots not in ("0", "1"):
            raise DomainError(_("bots must be 0 or 1."), code="invalid_bots")
        return selectors.leaderboard(variant, bots=bots == "1")
