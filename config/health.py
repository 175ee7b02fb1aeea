"""Health for load balancers and `make run`: can we reach the database and the broker, and
are the Celery workers and beat alive (their heartbeats, config/ops/heartbeats.py)?

200 with every check "ok", or 503 with each failing check saying what is wrong: to
anyone, only the kind (`"database": "error"`, `"workers": "stale"`), since exception text
names hosts, ports and roles and heartbeats name machines; staff signed in also see the
detail (`"workers": "stale: celery@host last seen 42 s ago"`). HEAD answers as GET does.

`?only=database,broker` runs just those checks: what a web process's own liveness probe
should ask, so a dead worker marks the workers unhealthy, not every web process.
"""

import logging

from django.db import DatabaseError, connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from config.celery import app as celery_app
from config.ops import heartbeats

logger = logging.getLogger(__name__)


class Unhealthy(Exception):
    """A check's finding, reported as its message (not as an error with a class name);
    the message starts with its kind (`stale: ...`), all that anonymous callers see."""


def check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


def check_broker() -> str:
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, timeout=3)
    return "ok"


def check_heartbeats(role: str):
    def check() -> str:
        problem = heartbeats.problems(role)
        if problem:
            raise Unhealthy(problem)
        return "ok"

    return check


CHECKS = {
    "database": check_database,
    "broker": check_broker,
    "workers": check_heartbeats(heartbeats.WORKER),
    "beat": check_heartbeats(heartbeats.BEAT),
}


def _staff(request) -> bool:
    """Whether the caller may see details. Reading who is signed in needs the database,
    which may be what failed: then the answer is no (the database check says why)."""
    try:
        return request.user.is_staff
    except DatabaseError:
        return False


@never_cache
@require_safe
def healthz(request):
    names = [name for name in request.GET.get("only", "").split(",") if name] or list(CHECKS)
    unknown = sorted(set(names) - set(CHECKS))
    if unknown:
        return JsonResponse(
            {
                "error": {
                    "code": "unknown_check",
                    "message": f"No such check: {', '.join(unknown)}.",
                    "details": {"checks": list(CHECKS)},
                }
            },
            status=400,
        )
    detailed = _staff(request)
    report, healthy = {}, True
    for name in names:
        check = CHECKS[name]
        try:
            report[name] = check()
        except Unhealthy as finding:
            logger.warning("healthz: %s: %s", name, finding)
            report[name] = str(finding) if detailed else str(finding).partition(":")[0]
            healthy = False
        except Exception as exc:  # any failure is the answer, reported, not raised
            logger.warning("healthz: %s check failed: %s", name, exc)
            report[name] = f"error: {exc.__class__.__name__}: {exc}" if detailed else "error"
            healthy = False
    return JsonResponse(report, status=200 if healthy else 503)
