"""Liveness for load balancers and `make run`: can we reach the database and the broker?"""

import logging

from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from config.celery import app as celery_app

logger = logging.getLogger(__name__)


def check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


def check_broker() -> str:
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, timeout=3)
    return "ok"


CHECKS = {"database": check_database, "broker": check_broker}


@never_cache
@require_GET
def healthz(request):
    report, healthy = {}, True
    for name, check in CHECKS.items():
        try:
            report[name] = check()
        except Exception as exc:  # any failure is the answer, reported, not raised
            logger.warning("healthz: %s check failed: %s", name, exc)
            report[name] = f"error: {exc.__class__.__name__}: {exc}"
            healthy = False
    return JsonResponse(report, status=200 if healthy else 503)
