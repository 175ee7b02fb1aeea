"""Typed readers for environment variables.

Settings call these so that a bad value stops start-up with a message naming the
variable, instead of surfacing later as an obscure connection error.
"""

import os
from email.utils import getaddresses
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off", ""}

BROKER_SCHEMES = {
    "redis",
    "rediss",
    "redis+socket",
    "amqp",
    "amqps",
    "pyamqp",
    "filesystem",
    "memory",
}


def env_str(name: str, default: str | None = None) -> str | None:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_admins(name: str) -> list[tuple[str, str]]:
    """Django's ADMINS from `Ann <ann@example.com>, bob@example.com` (name optional)."""
    raw = os.environ.get(name, "")
    admins = []
    for display, address in getaddresses([raw]) if raw.strip() else []:
        local, _, domain = address.partition("@")
        if not local or "." not in domain:
            raise ImproperlyConfigured(
                f"{name} must list addresses like 'Ann <ann@example.com>, bob@example.com', "
                f"got {raw!r}"
            )
        admins.append((display or address, address))
    return admins


def parse_database_url(url: str, *, name: str = "DATABASE_URL") -> dict:
    """Parse a database URL into Django's DATABASES entry."""
    try:
        config = dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
    except (ValueError, KeyError) as exc:
        raise ImproperlyConfigured(f"{name} is not a valid database URL ({url!r}): {exc}") from exc
    if not config.get("ENGINE"):
        raise ImproperlyConfigured(f"{name} has an unsupported scheme: {url!r}")
    if config["ENGINE"] != "django.db.backends.sqlite3" and not config.get("NAME"):
        raise ImproperlyConfigured(f"{name} does not name a database: {url!r}")
    return config


def env_rates(name: str) -> dict[str, str]:
    """Comma-separated `scope=N/period` pairs (`login=20/min,play=30/min`) for DRF's throttles."""
    rates = {}
    for item in env_list(name, []):
        scope, _, rate = (part.strip() for part in item.partition("="))
        count, _, period = rate.partition("/")
        if not scope or not count.isdigit() or period[:1] not in {"s", "m", "h", "d"}:
            raise ImproperlyConfigured(
                f"{name} must be scope=N/period pairs such as login=20/min, got {item!r}"
            )
        rates[scope] = rate
    return rates


CACHE_SCHEMES = {"redis", "rediss"}


def parse_cache_url(url: str, *, name: str = "CACHE_URL") -> dict:
    """A Redis URL as Django's CACHES entry; keys are prefixed so they never meet Celery's."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} is not a valid Redis URL ({url!r}): {exc}") from exc
    if parts.scheme not in CACHE_SCHEMES or not parts.hostname:
        raise ImproperlyConfigured(f"{name} must be a redis:// or rediss:// URL, got {url!r}")
    return {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": url,
        "KEY_PREFIX": "knock",
        # A Redis that stops answering fails requests within seconds instead of hanging them.
        "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
    }


def parse_broker_url(url: str, *, name: str = "CELERY_BROKER_URL") -> str:
    """Check a Celery broker URL's shape; the broker itself is checked by /healthz."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} is not a valid broker URL ({url!r}): {exc}") from exc
    if parts.scheme not in BROKER_SCHEMES:
        known = ", ".join(sorted(BROKER_SCHEMES))
        raise ImproperlyConfigured(
            f"{name} has an unsupported scheme {parts.scheme!r} in {url!r}; use one of {known}"
        )
    if parts.scheme not in {"filesystem", "memory"} and not parts.hostname:
        raise ImproperlyConfigured(f"{name} does not name a host: {url!r}")
    return url
