"""Signing in: by a username in any case or compatibility form, and by API token over
HTTP and the sockets.

Names are unique whatever their case (migration 0004) and stored NFKC-normalised, so
"ALICE" and a fullwidth "Alice" (U+FF21) can only mean the account "Alice"; Django's ModelBackend
would look them up exactly and refuse them.
"""

import unicodedata

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
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


class SocketTokenMiddleware(BaseMiddleware):
    """Inside Channels' session middleware: a socket that brings an API token is that
    token's user (or anonymous, refused like one, when the key is bad), whatever its
    cookie says; the consumers then authorize it exactly as a session."""

    async def __call__(self, scope, receive, send):
        key, subprotocol = socket_key(scope)
        if key is not None:
            found = await database_sync_to_async(services.api_token_user)(key) if key else None
            scope = {
                **scope,
                "user": found[0] if found else AnonymousUser(),
                "knock_subprotocol": subprotocol,
            }
        return await super().__call__(scope, receive, send)
