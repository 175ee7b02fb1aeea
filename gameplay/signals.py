"""Receivers of Django's own signals (gameplay's own announcements are in events.py)."""

import hashlib


def trace_login(sender, request, user, **kwargs) -> None:
    """Every sign-in (the site's form and the API's token) leaves the address and a hash of
    the client's user agent, for the fair-play signal of accounts sharing one at a table."""
    from gameplay import services
    from gameplay.models import Player

    player = Player.objects.filter(user=user).first()
    if request is None or player is None:
        return  # staff with no player profile sit at no table
    agent = request.META.get("HTTP_USER_AGENT", "")
    services.login_trace_record(
        player=player,
        address=request.META.get("REMOTE_ADDR"),
        fingerprint=hashlib.sha256(agent.encode()).hexdigest()[:32] if agent else "",
    )


def apply_preferences(sender, request, user, **kwargs) -> None:
    """At sign-in, the account's language wins over the browser's: it is activated for
    this response and kept in the language cookie (config.preferences.PreferencesMiddleware
    writes it)."""
    from gameplay.models import Player

    if request is None:
        return
    language = Player.objects.filter(user=user).values_list("language", flat=True).first()
    if language:
        request.knock_language = language
