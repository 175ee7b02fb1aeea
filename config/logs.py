"""One log format for every process (web, worker, beat), plain or JSON lines.

`LOG_FORMAT=json` writes one JSON object a line (time, level, logger, message, and the
context below, `exc` with a traceback), for a log collector; the default is one plain line
each. The formatter is the standard library's with a few lines here rather than a
dependency: the shape is small and fixed.

Context carried by every line:

- web: `request_id`, from the request's `X-Request-ID` when it is a sane token (a proxy's
  or a client's), else a new one; the response carries it back. `RequestIdMiddleware`
  wraps the whole ASGI application (config/asgi.py), so uvicorn's access line, Django's
  and the app's lines and a socket's lines all carry it;
- worker: `task`, `task_id` and the ids the task was given (`match_ids`, `tournament_id`,
  ...), set from Celery's task signals (config/celery.py) while the task runs.
"""

import inspect
import json
import logging
import logging.config
import re
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime

from django.core.exceptions import ImproperlyConfigured

context: ContextVar[dict] = ContextVar("knock_log_context", default={})  # noqa: B039 - never mutated

REQUEST_ID_HEADER = b"x-request-id"
_SANE_REQUEST_ID = re.compile(rb"[A-Za-z0-9._:-]{1,128}")


class ContextFilter(logging.Filter):
    """Puts the current context on each record (`record.context`, a dict)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.context = context.get()
        return True


class PlainFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(where)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        fields = getattr(record, "context", {})
        record.where = "".join(f" {name}={value}" for name, value in fields.items())
        return super().format(record)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
            **getattr(record, "context", {}),
        }
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def logging_config(*, log_format: str, level: str) -> dict:
    """settings.LOGGING: everything to stderr, where process managers collect it."""
    if log_format not in {"plain", "json"}:
        raise ImproperlyConfigured(f"LOG_FORMAT must be plain or json, got {log_format!r}")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "context": {"()": ContextFilter},
            "require_debug_false": {"()": "django.utils.log.RequireDebugFalse"},
        },
        "formatters": {
            "plain": {"()": PlainFormatter},
            "json": {"()": JsonFormatter},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": log_format,
                "filters": ["context"],
            },
            # Django's own: errors of requests mailed to ADMINS when DEBUG is off.
            "mail_admins": {
                "level": "ERROR",
                "filters": ["require_debug_false"],
                "class": "django.utils.log.AdminEmailHandler",
            },
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # Each replaces the logger's own handlers (Django's unformatted console line,
            # uvicorn's formats): their lines reach the root's handler, in this format.
            "django": {"handlers": ["mail_admins"], "level": level},
            "django.db.backends": {"level": "WARNING"},
            # uvicorn's are replaced when it loads the application (Django's set-up).
            "uvicorn": {"handlers": [], "level": level, "propagate": True},
            "uvicorn.access": {"handlers": [], "level": level, "propagate": True},
        },
    }


def configure(config: dict) -> None:
    """settings.LOGGING_CONFIG: apply `config`, and log Python's warnings through it too
    (else they reach stderr in a format of their own)."""
    logging.config.dictConfig(config)
    logging.captureWarnings(True)


def task_context(task, args, kwargs) -> dict:
    """The context of a task run: its name, id, and the ids among its arguments."""
    fields = {"task": task.name, "task_id": task.request.id}
    try:
        bound = inspect.signature(task.run).bind_partial(*(args or ()), **(kwargs or {}))
    except TypeError:  # arguments the task will refuse itself; its name and id still help
        return fields
    for name, value in bound.arguments.items():
        if name.endswith(("_id", "_ids")):
            fields[name] = list(value) if isinstance(value, tuple) else value
    return fields


def request_id_of(scope: dict) -> str:
    for name, value in scope.get("headers", ()):
        if name == REQUEST_ID_HEADER and _SANE_REQUEST_ID.fullmatch(value):
            return value.decode()
    return uuid.uuid4().hex


class RequestIdMiddleware:
    """ASGI middleware: every HTTP request and socket runs with its `request_id` in the log
    context, and an HTTP response carries it back in `X-Request-ID`."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] not in {"http", "websocket"}:
            return await self.app(scope, receive, send)
        request_id = request_id_of(scope)
        token = context.set({"request_id": request_id})

        async def send_with_id(message):
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0] != REQUEST_ID_HEADER]
                message = {
                    **message,
                    "headers": [*headers, (REQUEST_ID_HEADER, request_id.encode())],
                }
            await send(message)

        try:
            return await self.app(scope, receive, send_with_id)
        finally:
            context.reset(token)


def sentry_init(dsn: str, *, environment: str) -> None:
    """Report errors (unhandled exceptions, ERROR log lines) of web, workers and beat to
    Sentry; no personal data (send_default_pii off), no tracing."""
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,
    )
