"""`GET /api/`: the API's own index, so a client (or a person) starts from one address.

Built from the URL patterns themselves: every endpoint without a path parameter is
listed by its name with its absolute address, plus the templates of the others, so the
index cannot fall behind the routes.
"""

from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

API_PREFIX = "api/"


def _api_routes() -> list[tuple[str, str]]:
    """(name, route) of every named pattern under /api/, in the order they are declared."""
    routes = []

    def walk(patterns, prefix: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern) and pattern.name:
                routes.append((pattern.name, route))

    for top in get_resolver().url_patterns:
        if isinstance(top, URLResolver) and str(top.pattern) == API_PREFIX:
            walk(top.url_patterns, API_PREFIX)
    return routes


class ApiIndex(APIView):
    """Where everything in the API is: collections by name, and the per-object routes."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: dict})
    def get(self, request):
        endpoints, per_object = {}, {}
        for name, route in _api_routes():
            short = name.removeprefix("api-")
            if short == "index":
                continue
            if "<" in route:
                per_object[short] = "/" + route
            else:
                endpoints[short] = request.build_absolute_uri("/" + route)
        return Response(
            {
                "endpoints": endpoints,
                "per_object": per_object,
                "authentication": "Token (POST auth/token/, listed at me/tokens/) or a session",
                "errors": {"error": {"code": "...", "message": "...", "details": None}},
            }
        )
