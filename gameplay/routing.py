"""WebSocket routes, mounted by config/asgi.py."""

from django.urls import path

from gameplay.consumers import MatchConsumer

websocket_urlpatterns = [
    path("ws/matches/<int:match_id>/", MatchConsumer.as_asgi()),
]
