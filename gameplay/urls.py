from django.contrib.auth.views import PasswordResetView
from django.urls import path

from gameplay import views
from gameplay.forms import LimitedPasswordResetForm

urlpatterns = [
    path("accounts/signup/", views.signup, name="signup"),
    path(
        "accounts/password_reset/",
        PasswordResetView.as_view(form_class=LimitedPasswordResetForm),
        name="password_reset",
    ),
    path("accounts/settings/", views.account, name="account"),
    path(
        "accounts/tokens/<int:token_id>/revoke/",
        views.account_token_revoke,
        name="account-token-revoke",
    ),
    path("language/", views.language_set, name="language-set"),
    path("rooms/", views.lobby, name="lobby"),
    path("rooms/<int:room_id>/play/", views.room_play, name="room-play"),
    path("rooms/queue/leave/", views.queue_leave, name="queue-leave"),
    path("rooms/queue/status/", views.queue_status, name="queue-status"),
    path("me/", views.me, name="me"),
    path("matches/<int:match_id>/", views.match_table, name="match-table"),
    path("players/<int:player_id>/", views.player_profile, name="player-profile"),
    path("verify/", views.verify, name="verify"),
]
