"""Who a client is, for rate limits and login lock-outs, and what a locked-out client sees;
the Content-Security-Policy's one per-request part.

DRF's throttles and django-axes must agree on the client's address, so both read it here.
"""

import hashlib
import unicodedata

from csp.middleware import CSPMiddleware as BaseCSPMiddleware
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import JsonResponse
from django.shortcuts import render
from rest_framework import exceptions, status
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from config.api import error_body


def client_ip(request) -> str:
    """REMOTE_ADDR, or with REST_FRAMEWORK["NUM_PROXIES"] trusted proxies in front, the
    address the outermost of them saw; X-Forwarded-For is never trusted beyond that."""
    return BaseThrottle().get_ident(request)


class RateLimit(SimpleRateThrottle):
    """One of REST_FRAMEWORK's rates (`scope`) applied outside DRF, to a page or a mail:
    counted per client address, the API's own key, or per `key` when one is given (an
    email address)."""

    def __init__(self, scope: str, key: str | None = None):
        self.scope, self.key = scope, key
        super().__init__()

    def get_cache_key(self, request, view):
        if self.key is None:
            ident = self.get_ident(request)
        else:
            ident = hashlib.sha256(self.key.encode()).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def check(self, request) -> bool:
        return self.allow_request(request, None)

    def minutes(self) -> int:
        """The wait, in whole minutes, for a person to read."""
        return max(1, round((self.wait() or 60) / 60))


# Django's User.username; django-axes stores the name in a column of 255 characters.
USERNAME_MAX_LENGTH = 150


def login_username(request, credentials: dict) -> str:
    """Failed logins count per username as sign-in reads it, NFKC-normalised and whatever
    its case ("Ada", "ada" and its fullwidth spelling are one), on the site, the admin and the
    API alike; a name past the longest username is cut there (no account has a longer
    one), so axes never stores more than its column holds."""
    name = (credentials or {}).get("username") or ""
    if not isinstance(name, str):
        name = str(name)
    return unicodedata.normalize("NFKC", name).strip().casefold()[:USERNAME_MAX_LENGTH]


def lockout_seconds() -> int:
    return int(settings.AXES_COOLOFF_TIME.total_seconds())


LOCKED_OUT_MESSAGE = "Too many failed logins. Try again in {minutes} minutes."


def lockout_message() -> str:
    return LOCKED_OUT_MESSAGE.format(minutes=lockout_seconds() // 60)


class LockedOut(exceptions.APIException):
    """An API login refused because django-axes locked the username out from this address."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = "locked_out"

    def __init__(self):
        super().__init__(lockout_message())
        self.wait = lockout_seconds()  # DRF's handler sends it as Retry-After


def lockout_response(request, original_response=None, credentials=None):
    """django-axes' answer to a locked-out login: 429 with Retry-After, as JSON under /api/
    and as a page elsewhere (the site's and the admin's login forms)."""
    if request.path.startswith("/api/"):
        response = JsonResponse(error_body("locked_out", lockout_message()), status=429)
    else:
        response = render(
            request,
            "registration/locked_out.html",
            {"message": lockout_message()},
            status=429,
        )
    response["Retry-After"] = str(lockout_seconds())
    return response


class CSPMiddleware(BaseCSPMiddleware):
    """django-csp's middleware, adding the site's own host over ws: and wss: to connect-src
    for the live table's WebSocket (browsers before CSP Level 3 do not read 'self' so)."""

    def get_policy_parts(self, request, response, report_only=False):
        parts = super().get_policy_parts(request, response, report_only)
        try:
            host = request.get_host()
        except DisallowedHost:
            return parts  # the answer is the 400 for the bad host: 'self' alone is enough
        parts.update = {**(parts.update or {}), "connect-src": [f"ws://{host}", f"wss://{host}"]}
        return parts
