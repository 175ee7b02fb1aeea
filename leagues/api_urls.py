from django.urls import path

from leagues import api

urlpatterns = [
    path("leagues/", api.LeagueList.as_view(), name="api-leagues"),
    path("leagues/<int:pk>/", api.LeagueDetail.as_view(), name="api-league"),
    path("leagues/<int:pk>/join/", api.LeagueJoin.as_view(), name="api-league-join"),
    path("leagues/<int:pk>/seasons/", api.LeagueSeasons.as_view(), name="api-league-seasons"),
    path("leagues/<int:pk>/divisions/", api.LeagueDivisions.as_view(), name="api-league-divisions"),
    path("seasons/<int:pk>/", api.SeasonDetail.as_view(), name="api-season"),
    path("standings/", api.StandingList.as_view(), name="api-standings"),
    path("fixtures/", api.FixtureList.as_view(), name="api-fixtures"),
    path("players/<int:pk>/leagues/", api.PlayerHistory.as_view(), name="api-player-leagues"),
    path("leaderboard/", api.Leaderboard.as_view(), name="api-leaderboard"),
]
