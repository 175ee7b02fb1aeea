"""Signing in: by a username in any case or compatibility form, and by API token over
HTTP and the sockets.

Names are unique whatever their case (migration 0004) and stored NFKC-normalised, so
"ALICE" and a fullwidth "Alice" (U+FF21) can only mean the account "Alice"; Django's ModelBackend
would look them up exactly and refuse them.
"""

import unicodedata

from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import AnonymousUser
from django.utils.translation import gettext as _
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from gameplay import services


class CaseInsensitiveModelBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        user_model = get_user_model()
        if username is None:
            username = kwargs.get(user_model.USERNAME_FIELD)
        if username is None or password is None:
            return None
        name = unicodedata.normalize("NFKC", username).strip()
        try:
            user = user_model._default_manager.get(username__iexact=name)
        except user_model.DoesNotExist:
            user_model().set_password(password)  # the same work as a match: no timing oracle
            return None
        if user.check_password(password) and self.user_can_authenticate(user):
            return user
        return None


class ApiTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>` with the keys of `gameplay.models.ApiToken`: several per
    person, hashed, expiring, revoked by a password change (DRF's own token is one plain key
    per person for ever)."""

    def authenticate_credentials(self, key):
        found = services.api_token_user(key)
        if found is None:
            raise AuthenticationFailed(_("Invalid or expired token."))
        return found


# A socket's token, for clients that cannot set headers (a browser's WebSocket): offer the
# subprotocols `knock.token` and the key; the server accepts `knock.token`.
TOKEN_SUBPROTOCOL = "knock.token"


def socket_key(scope) -> tuple[str | None, str | None]:
    """The API key a socket's handshake carries, and the subprotocol to accept with it:
    an `Authorization: Token <key>` header (apps and bots), or the subprotocol pair."""
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            keyword, _sep, key = value.decode("latin-1").partition(" ")
            if keyword == ApiTokenAuthentication.keyword and key.strip():
                return key.strip(), None
    protocols = list(scope.get("subprotocols") or [])
    if TOKEN_SUBPROTOCOL in protocols:
        at = protocols.index(TOKEN_SUBPROTOCOL)
        key = protocols[at + 1] if at + 1 < len(protocols) else ""
        return key, TOKEN_SUBPROTOCOL
    return None, None


class SocketTokenMiddleware:
    """Sockets that bring an API token go to `with_token` as that token's user (or as
    anonymous, refused like one, when the key is bad), with no session and no Origin check:
    a key is no ambient credential a third-party page could ride on, and apps and bots send
    no Origin. Every other socket goes to `with_session` (the Origin check and the session).
    The consumers then authorize both alike."""

    def __init__(self, *, with_token, with_session):
        self.with_token, self.with_session = with_token, with_session

    async def __call__(self, scope, receive, send):
        key, subprotocol = socket_key(scope)
        if key is None:
            return await self.with_session(scope, receive, send)
        found = await database_sync_to_async(services.api_token_user)(key) if key else None
        scope = {
            **scope,
            "user": found[0] if found else AnonymousUser(),
            "knock_subprotocol": subprotocol,
        }
        return await self.with_token(scope, receive, send)
