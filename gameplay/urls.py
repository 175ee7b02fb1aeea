from django.urls import path

from gameplay import views

urlpatterns = [
    path("", views.home, name="home"),
    path("rooms/", views.lobby, name="lobby"),
    path("me/", views.me, name="me"),
    path("matches/<int:match_id>/", views.match_table, name="match-table"),
    path("players/<int:player_id>/", views.player_profile, name="player-profile"),
]
