"""A player's language and time zone applied to their pages.

At sign-in (gameplay.signals.apply_preferences) the account's language and time zone are
put on the request; this middleware writes them in their cookies (Django's language
cookie, which LocaleMiddleware reads, and `knock_tz`), so no request pays a query for
them. The time zone cookie comes first from the browser (static/site/timezone.js); every
request activates the zone it names, so times on pages read in it (the API keeps ISO 8601
with offsets).
"""

import zoneinfo

from django.conf import settings
from django.utils import timezone

TIME_ZONE_COOKIE = "knock_tz"
TIME_ZONE_AGE = 365 * 24 * 3600


def valid_zone(name: str) -> zoneinfo.ZoneInfo | None:
    if not name or len(name) > 64:
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


class PreferencesMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        zone = valid_zone(request.COOKIES.get(TIME_ZONE_COOKIE, ""))
        if zone is not None:
            timezone.activate(zone)
        else:
            timezone.deactivate()
        response = self.get_response(request)
        zone_name = getattr(request, "knock_time_zone", "")
        if valid_zone(zone_name) is not None:
            response.set_cookie(TIME_ZONE_COOKIE, zone_name, max_age=TIME_ZONE_AGE, samesite="Lax")
        language = getattr(request, "knock_language", "")
        if language and language in dict(settings.LANGUAGES):
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                language,
                max_age=settings.LANGUAGE_COOKIE_AGE,
                path=settings.LANGUAGE_COOKIE_PATH,
                domain=settings.LANGUAGE_COOKIE_DOMAIN,
                secure=settings.LANGUAGE_COOKIE_SECURE,
                httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                samesite=settings.LANGUAGE_COOKIE_SAMESITE,
            )
        return response
