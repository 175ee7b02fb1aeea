from django.urls import path

from leagues import views

urlpatterns = [
    path("leagues/", views.league_list, name="league-list"),
    path("leagues/players/<int:pk>/", views.player_history, name="league-history"),
    path("leagues/<slug:slug>/", views.league_table, name="league-table"),
    path("leagues/<slug:slug>/join/", views.league_join, name="league-join"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
]
