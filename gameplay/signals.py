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
    """At sign-in, the account's language and time zone win over the browser's: they go
    in their cookies (config.preferences.PreferencesMiddleware writes them). An account
    with no time zone yet keeps the one the browser sent (its knock_tz cookie)."""
    from config.preferences import TIME_ZONE_COOKIE, valid_zone
    from gameplay.models import Player

    if request is None:
        return
    row = Player.objects.filter(user=user).values_list("pk", "language", "time_zone").first()
    if row is None:
        return
    pk, language, zone = row
    if language:
        request.knock_language = language
    if zone:
        request.knock_time_zone = zone
        return
    sent = getattr(request, "COOKIES", {}).get(TIME_ZONE_COOKIE, "")
    if valid_zone(sent) is not None:
        Player.objects.filter(pk=pk).update(time_zone=sent)
