"""The ASGI application: Django's HTTP handler and the WebSockets, the live table's
(gameplay/routing.py) and every page's notices (config/consumers.py).

Served by uvicorn (`python manage.py serve`, and the benchmarks); uvicorn needs the
`websockets` package for WebSocket connections. Sockets authenticate with the session
cookie, and must then come from one of ALLOWED_HOSTS (checked against their Origin), or
with an API token (`gameplay.backends.SocketTokenMiddleware`: apps and bots).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django is set up before anything imports models (the consumers do).
django_application = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import path  # noqa: E402

from config.consumers import NoticeConsumer  # noqa: E402
from config.logs import RequestIdMiddleware  # noqa: E402
from gameplay.backends import SocketTokenMiddleware  # noqa: E402
from gameplay.routing import websocket_urlpatterns  # noqa: E402

sockets = URLRouter([*websocket_urlpatterns, path("ws/notices/", NoticeConsumer.as_asgi())])
# Every request's and socket's log lines carry its request id (config/logs.py).
application = RequestIdMiddleware(
    ProtocolTypeRouter(
        {
            "http": django_application,
            "websocket": SocketTokenMiddleware(
                with_token=sockets,
                with_session=AllowedHostsOriginValidator(AuthMiddlewareStack(sockets)),
            ),
        }
    )
)
