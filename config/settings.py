"""Knock settings: one module, every deployment difference read from the environment.

Defaults give a one-machine setup with no servers to install (SQLite and a filesystem
broker, config/broker.py, under var/); production sets DATABASE_URL, CELERY_BROKER_URL,
SECRET_KEY, DEBUG=0 and ALLOWED_HOSTS. See README.md.
"""

import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from celery.schedules import crontab
from csp.constants import NONCE, NONE, SELF
from django.conf.locale import LANG_INFO
from django.core.exceptions import ImproperlyConfigured

from config.env import (
    CACHE_SCHEMES,
    env_admins,
    env_bool,
    env_int,
    env_list,
    env_rates,
    env_str,
    parse_broker_url,
    parse_cache_url,
    parse_database_url,
)
from config.logs import logging_config, sentry_init

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("KNOCK_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", default=True)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (generate one with "
            "`python -c 'import secrets; print(secrets.token_urlsafe(64))'`)"
        )
    SECRET_KEY = "django-insecure-knock-development-key-never-use-in-production"

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"] if DEBUG else []
)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "config.admin_guard.AdminConfig",  # django.contrib.admin, guarding every secret
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",  # read once by gameplay 0012, which moves its keys over
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "csp",
    "outbox",
    "gameplay",
    "tournaments",
    "leagues",
    "config.ops",
]

MIDDLEWARE = [
    "config.metrics.middleware",  # first: it times everything below
    "django.middleware.security.SecurityMiddleware",
    "config.security.CSPMiddleware",  # before anything renders a page that needs its nonce
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After sessions (the language a player chose is in a cookie and on their account),
    # before common (a 404 page is in the visitor's language).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "config.preferences.PreferencesMiddleware",  # the account's language, kept at login
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, so it sees the response of a login it locked out and answers 429 instead.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
        },
    },
]

DATABASES = {
    "default": parse_database_url(env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'knock.sqlite3'}"))
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Worker and web server share the file: wait for locks instead of failing at once.
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # A file, not shared-cache memory, so a test's in-process worker threads wait for
    # locks (the timeout above) instead of failing at once; one per test run.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")}
elif DATABASE_POOL_MAX := env_int("DATABASE_POOL_MAX", 0):
    # An ASGI server runs each request's sync code in a thread of its own, and a persistent
    # connection per thread piles up idle backends (15 parallel requests left 17 behind).
    # Here the process's threads share at most DATABASE_POOL_MAX connections, borrowed for a
    # request and given back at its end; more requests wait for one. `make run` sets it
    # for its web server. Celery workers leave it unset: one persistent connection each.
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django's pool requires it
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": DATABASE_POOL_MAX,
        "timeout": 30,
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Languages: a visitor gets the one their browser asks for (Accept-Language), else
# English; the header's switcher sets a cookie and, for a signed-in player, their
# account's language (gameplay.signals applies it at login). English is the msgids; every
# other language is the catalogue under locale/ (locale/<code>/LC_MESSAGES/django.po), so
# adding one is makemessages, translating and compilemessages, no code (docs/operations.md,
# "Languages"). en-IN is English with India's number grouping (1,00,000).
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("en-in", "English (India)"),
    *sorted(
        (code, LANG_INFO.get(code, {}).get("name_local", code))
        for code in (
            path.parent.parent.name.lower().replace("_", "-")
            for path in LOCALE_PATHS[0].glob("*/LC_MESSAGES/django.po")
        )
    ),
]
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
# The table's JavaScript, styles and card art (no build step; whitenoise serves them).
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT.mkdir(exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "config.storage.StaticFilesStorage"  # hashed, module imports too
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"

# --- Mail (password resets, admins' notices) ------------------------------------------
# With EMAIL_HOST set, mail goes out over SMTP; without it, it is printed to the web
# process's console (demo and development: the reset link is in the log).
EMAIL_HOST = env_str("EMAIL_HOST")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 587)
    EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=EMAIL_PORT == 587)
    EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", default=EMAIL_PORT == 465)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Knock <knock@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Content-Security-Policy (django-csp) -----------------------------------------
# Only the site's own files run; inline <script> and <style> carry the response's nonce
# (nonce="{{ request.csp_nonce }}"); inline event handlers and style="" attributes never
# apply. connect-src also gets ws: and wss: of the request's host (config.security).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:"],  # Swagger UI's and the admin's icons are data: URLs
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# --- Login lock-out (django-axes): every login form and the API's token endpoint ------
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # refuses a locked-out login before checking it
    "gameplay.backends.CaseInsensitiveModelBackend",  # "ALICE" signs in as Alice
]
AXES_FAILURE_LIMIT = 5  # failed logins of one username from one address...
AXES_COOLOFF_TIME = timedelta(minutes=15)  # ...lock it out from there for this long
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]  # a stranger cannot lock you out
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # no start-up banner in every command; failures still log warnings
AXES_USERNAME_CALLABLE = "config.security.login_username"
AXES_CLIENT_IP_CALLABLE = "config.security.client_ip"  # the address the rate limits use
AXES_LOCKOUT_CALLABLE = "config.security.lockout_response"

# --- Security: on by default whenever DEBUG is off -------------------------------
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
if env_bool("SECURE_PROXY_SSL_HEADER", default=False):
    # Only behind a proxy that sets this header itself (docker-compose, a load balancer).
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]

# --- Upload limits: Django's defaults, stated; the API answers 413 and 400 past them ----
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440  # bytes of a request body (files excepted)
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000

# --- API -------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first, so an anonymous API call gets 401 with WWW-Authenticate, not 403.
        "gameplay.backends.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "config.renderers.BrowsableAPIRenderer",  # DRF's, under the site's CSP
    ],
    "DEFAULT_PAGINATION_CLASS": "config.api.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "config.schema.AutoSchema",
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    # Every view has a limit per player (or per address when anonymous); views with a
    # throttle_scope have a tighter one of their own as well. Counts live in the cache.
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
        "rest_framework.throttling.ScopedRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": "120/min",
        "user": "600/min",
        "login": "10/min",  # POST /api/auth/token/, per address
        "register": "10/hour",  # POST /api/auth/register/, per address
        "play": "10/min",  # POST /api/rooms/{id}/play/, per player
        "verify": "20/min",  # checks on /verify/ (a replay each), per address
        "reset_client": "10/hour",  # password-reset mails asked for from one address
        "reset_address": "3/hour",  # password-reset mails to one email address
    }
    | env_rates("API_RATE_LIMITS"),
    # Proxies in front that append to X-Forwarded-For; 0 trusts only REMOTE_ADDR.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Knock API",
    "DESCRIPTION": "Rummy tournaments, leagues and engine-validated matches.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No deep links: Swagger UI draws each as a link inside the operation's button, a
    # control nested in a control that keyboards and screen readers cannot tell apart.
    "SWAGGER_UI_SETTINGS": {"deepLinking": False},
    # A match's status appears in summaries and in views: one enum, named once.
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": "gameplay.models.Match.Status",
        "WebhookEventEnum": "tournaments.models.Webhook.Event",
    },
}

# --- Celery ----------------------------------------------------------------------
BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_URL = parse_broker_url(env_str("CELERY_BROKER_URL", "filesystem://"))
if CELERY_BROKER_URL.startswith("filesystem://"):
    # Never kombu's own filesystem transport: its readers can see half-written files and
    # its consumers lose what they hold when killed (config/broker.py).
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
    for sub in ("queue", "processed", "control", "claims"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "claims_folder": str(BROKER_DIR / "claims"),
        "store_processed": False,
    }
    _default_backend = f"file://{VAR_DIR / 'celery-results'}"
    (VAR_DIR / "celery-results").mkdir(parents=True, exist_ok=True)
elif CELERY_BROKER_URL.startswith(("redis", "rediss")):
    _default_backend = CELERY_BROKER_URL
else:
    _default_backend = f"file://{VAR_DIR / 'celery-results'}"
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", _default_backend)
CELERY_RESULT_EXPIRES = timedelta(days=1)
# Tasks report through the rows they change; a caller that wants a return value asks
# for it with apply_async(..., ignore_result=False).
CELERY_TASK_IGNORE_RESULT = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 120)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 150)
if CELERY_BROKER_URL.startswith(("redis", "rediss")):
    # Redis hands a message a worker took and never acknowledged (the worker died) to
    # another after this; kombu's default is an hour. It outlasts the longest a live
    # worker holds one (the hard time limit, a retry's countdown), so a running task is
    # never handed out twice. Outbox jobs do not wait for it: the relay republishes them.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 2 * CELERY_TASK_TIME_LIMIT)
    }
# The queue tasks go to and workers consume (a test run's workers get one of their own).
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = 5
CELERY_TIMEZONE = TIME_ZONE
# Celery's fix-up then closes database connections only every 500th task; config/celery.py
# closes them as Django does (CONN_MAX_AGE, broken connections).
CELERY_DB_REUSE_MAX = 500
# Beat records its heartbeat from its own loop (config/ops/heartbeats.py).
CELERY_BEAT_SCHEDULER = "config.ops.heartbeats:BeatScheduler"
# Workers and beat write a heartbeat this often; /healthz calls one older than the
# second number stale and answers 503 naming it.
KNOCK_HEARTBEAT_SECONDS = 5
KNOCK_HEARTBEAT_STALE_SECONDS = env_int("KNOCK_HEARTBEAT_STALE_SECONDS", 30)

# --- Metrics (config/metrics.py): GET /metrics with "Authorization: Bearer <token>" -----
METRICS_TOKEN = env_str("METRICS_TOKEN", "")  # unset: no /metrics at all
METRICS_PORT = env_int("METRICS_PORT", 0)  # a worker serves its machine's counters there

# --- API tokens and sockets (gameplay.models.ApiToken, config/sockets.py) -------------
KNOCK_API_TOKEN_DAYS = env_int("KNOCK_API_TOKEN_DAYS", 90)  # 0: tokens never expire
# Frames a client may send per socket, (per second, burst) by frame type; "other" is every
# type not listed and frames that are not JSON. The table page sends one act at a time
# and re-reads over HTTP; a bot client may act as often as the API lets it (600 a minute);
# the notice socket only listens.
KNOCK_SOCKET_LIMITS = {
    "match": {"act": (10, 20), "resync": (1, 3), "other": (1, 3)},
    "notices": {"other": (1, 3)},
}
CELERY_BEAT_SCHEDULE: dict = {
    "celery-result-cleanup": {"task": "celery.backend_cleanup", "schedule": crontab(minute=17)},
}

# --- Cache: rate-limit counts, shared by every web process ------------------------
# Redis at CACHE_URL, else the Redis broker's (keys prefixed "knock"), else files in var/:
# the embedded default's processes share one machine, so they share the files.
if env_str("CACHE_URL"):
    _cache = parse_cache_url(env_str("CACHE_URL"))
elif urlsplit(CELERY_BROKER_URL).scheme in CACHE_SCHEMES:
    _cache = parse_cache_url(CELERY_BROKER_URL, name="CELERY_BROKER_URL")
else:
    _cache = {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(VAR_DIR / "cache"),
        "KEY_PREFIX": "knock",
        "OPTIONS": {"MAX_ENTRIES": 10_000},
    }
CACHES = {"default": _cache}

# --- Live table (Django Channels; gameplay/live.py) ---------------------------------
# Every process that pushes or serves sockets shares a Redis channel layer when Redis is
# configured (REDIS_URL, else a Redis broker); the embedded default keeps an in-memory
# layer per process, and each web process's watcher polls the watched matches instead.
REDIS_URL = env_str("REDIS_URL") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else ""
)
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                # redis-py refuses a 101st connection in use at once (MaxConnectionsError):
                # every socket of a web process reconnecting after a restart joins its group
                # and announces itself at the same moment, and the 101st failed its connect.
                # And its default read timeout (5 s) is the layer's own wait for a message
                # (BZPOPMIN, 5 s): when Redis answered a little late, the read timed out
                # and the socket waiting for its group's messages was closed with an error.
                "hosts": [{"address": REDIS_URL, "max_connections": 2000, "socket_timeout": 30}],
                "prefix": env_str("CHANNELS_PREFIX", "knock"),
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
KNOCK_LIVE = {
    "poll_seconds": 5.0 if REDIS_URL else 0.25,
    # The Redis Pub/Sub channel that carries every committed move's version to the web
    # processes (gameplay/live.py). Pub/Sub ignores database numbers: the name carries
    # REDIS_URL's, so sites that share a Redis server apart by number stay apart here too.
    "feed": f"{env_str('CHANNELS_PREFIX', 'knock')}.live.moves."
    + (urlsplit(REDIS_URL).path.strip("/") or "0"),
    # The Pub/Sub channel that carries "these players have news" to the notice sockets.
    "notice_feed": f"{env_str('CHANNELS_PREFIX', 'knock')}.live.notices."
    + (urlsplit(REDIS_URL).path.strip("/") or "0"),
    # How often a notice socket (config/consumers.py) reads its player's notices again on
    # its own: the only way news reaches it in the embedded default (a worker process
    # cannot reach a web process); with Redis, services push and this is a safety net.
    "notice_seconds": 30.0 if REDIS_URL else 2.0,
    # Threads (each with a database connection) for the sockets of one web process.
    "db_threads": env_int("KNOCK_LIVE_DB_THREADS", 4),
}

# --- Logs and errors: one format for every process (config/logs.py) --------------
# LOG_FORMAT=json for one JSON object a line; each line carries the request id (web) or
# the task and its ids (workers).
LOGGING_CONFIG = "config.logs.configure"
LOGGING = logging_config(
    log_format=env_str("LOG_FORMAT", "plain"), level=env_str("LOG_LEVEL", "INFO")
)
# Who gets mail about errors and disputed matches: "Ann <ann@example.com>, bob@example.com".
ADMINS = env_admins("ADMINS")
# Error reports to Sentry, only when SENTRY_DSN is set (web, worker and beat alike).
if SENTRY_DSN := env_str("SENTRY_DSN", ""):
    sentry_init(SENTRY_DSN, environment=env_str("SENTRY_ENVIRONMENT", "production"))

# --- Knock gameplay ----------------------------------------------------------------
# Shown as provisional while OpenSkill's uncertainty is above this (it starts at 25/3):
# about the first 10 rated matches. Measured with Plackett-Luce, alternating results: sigma
# is 7.2 after 5 matches against newcomers, 6.5 after 10 and 6.2 after 12 (5.4 after 10
# against settled players); 5.0 kept a rating provisional for 28 matches.
KNOCK_RATING_PROVISIONAL_SIGMA = 6.5
# Bots' pause before each turn at a tournament or league table with a person (a room's
# tables use the room's bot_pause_ms): the pace a person can follow.
KNOCK_EVENT_BOT_PAUSE_MS = env_int("KNOCK_EVENT_BOT_PAUSE_MS", 1000)
# After each hand of a table with a person, the table rests (the showdown in an overlay, no
# turn clock, bots waiting) until every person pressed "Next hand" or this many seconds
# passed; 0: the next hand goes on at once (tables of bots only always do).
KNOCK_NEXT_HAND_SECONDS = env_int("KNOCK_NEXT_HAND_SECONDS", 15)
# XP for what happens in a finished match (admins tune levels; these tune the pace).
KNOCK_XP = {"played": 10, "won": 30, "hand_won": 2, "gin": 10, "big_gin": 25, "undercut": 10}
# Tournament prizes (tournaments.services.finish): the house keeps this percentage of the
# entry fees held (booked to the `house` account), and no prize carries more XP than this.
# Organisers' webhooks (tournaments/services/webhooks.py): each attempt's time limit, the
# attempts before a delivery is marked failed, endpoints per tournament, and whether an
# endpoint may be on a private network (a closed deployment; the tests' local server).
KNOCK_WEBHOOKS = {
    "timeout_seconds": 5.0,
    "attempts": 8,
    "per_tournament": 5,
    "allow_private": env_bool("KNOCK_WEBHOOKS_ALLOW_PRIVATE", False),
}
# A person who misses this many show-up deadlines (since their last ban) may not enter the
# next `events` tournaments to start; misses 0: no bans. Admins lift a ban in the admin.
KNOCK_NO_SHOW_BAN = {
    "misses": env_int("KNOCK_NO_SHOW_BAN_MISSES", 2),
    "events": env_int("KNOCK_NO_SHOW_BAN_EVENTS", 2),
}
KNOCK_TOURNAMENT_RAKE_PERCENT = env_int("KNOCK_TOURNAMENT_RAKE_PERCENT", 0)
if not 0 <= KNOCK_TOURNAMENT_RAKE_PERCENT <= 100:
    raise ImproperlyConfigured("KNOCK_TOURNAMENT_RAKE_PERCENT must be from 0 to 100")
KNOCK_TOURNAMENT_PRIZE_XP_MAX = env_int("KNOCK_TOURNAMENT_PRIZE_XP_MAX", 1000)
# Coins a person gets on signing up, issued by the house account, so a newcomer can pay a
# room's entry fee; 0: none.
KNOCK_STARTING_COINS = env_int("KNOCK_STARTING_COINS", 500)
if not 0 <= KNOCK_STARTING_COINS <= 10**9:
    raise ImproperlyConfigured("KNOCK_STARTING_COINS must be from 0 to 1000000000")
# Fair-play signals (gameplay.services.fairplay): when a running tally is worth an admin's
# look. Greedy bots agree with the expert on 79% of their real choices (985 decisions of 20
# gin matches), a person copying the expert on every one of them.
KNOCK_FAIR_PLAY = {
    "expert_min_decisions": 200,  # real choices (more than one legal action) counted first
    "expert_agreement": 0.95,  # share of those equal to the expert bot's choice
    "pair_min_meetings": 10,  # matches two people played together before a pair is judged
    "pair_win_share": 0.9,  # one side winning this share of them: possible chip dumping
    "shared_client_min_tables": 1,  # tables shared with a common address or fingerprint
}
KNOCK_MATCHMAKING = {
    "base_window": 2.0,  # ordinal points either side at once
    "widen_per_second": 0.25,  # the window grows while a player waits
    "bot_fill_after_seconds": 30,  # rooms with bots allowed fill empty seats after this
}
CELERY_BEAT_SCHEDULE |= {
    "gameplay-pair-queued-players": {
        "task": "gameplay.tasks.pair_queued_players",
        "schedule": 5.0,
    },
    "gameplay-sweep-turn-deadlines": {
        "task": "gameplay.tasks.sweep_turn_deadlines",
        "schedule": 10.0,
    },
}
CELERY_BEAT_SCHEDULE |= {
    "leagues-open-due-rounds": {"task": "leagues.tasks.open_due_rounds", "schedule": 30.0},
    "leagues-sweep": {"task": "leagues.tasks.sweep_leagues", "schedule": 60.0},
}
CELERY_BEAT_SCHEDULE |= {
    "tournaments-run-schedule": {"task": "tournaments.tasks.run_schedule", "schedule": 15.0},
    "tournaments-enforce-deadlines": {
        "task": "tournaments.tasks.enforce_deadlines",
        "schedule": 10.0,
    },
}
