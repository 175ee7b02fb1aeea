from django.urls import path

from gameplay import api

urlpatterns = [
    path("auth/register/", api.RegisterView.as_view(), name="api-register"),
    path("auth/token/", api.TokenView.as_view(), name="api-token"),
    path("rooms/", api.RoomList.as_view(), name="api-rooms"),
    path("rooms/<int:pk>/play/", api.RoomPlay.as_view(), name="api-room-play"),
    path("me/", api.Me.as_view(), name="api-me"),
    path("me/tokens/", api.MyTokens.as_view(), name="api-me-tokens"),
    path("me/tokens/<int:pk>/", api.MyToken.as_view(), name="api-me-token"),
    path("me/title/", api.MeTitle.as_view(), name="api-me-title"),
    path("me/matches/", api.MyMatches.as_view(), name="api-me-matches"),
    path("me/queue/", api.QueueLeave.as_view(), name="api-me-queue"),
    path("players/<int:pk>/", api.PlayerDetail.as_view(), name="api-player"),
    path("matches/live/", api.LiveMatches.as_view(), name="api-matches-live"),
    path("matches/<int:pk>/", api.MatchDetail.as_view(), name="api-match"),
    path("matches/<int:pk>/document/", api.MatchDocumentView.as_view(), name="api-match-document"),
    path("matches/<int:pk>/actions/", api.MatchActions.as_view(), name="api-match-actions"),
    path("matches/<int:pk>/resign/", api.MatchResign.as_view(), name="api-match-resign"),
    path("matches/<int:pk>/abort/", api.MatchAbort.as_view(), name="api-match-abort"),
    path("matches/<int:pk>/next-hand/", api.MatchNextHand.as_view(), name="api-match-next-hand"),
]
