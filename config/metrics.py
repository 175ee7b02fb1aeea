"""Prometheus metrics (prometheus-client): what the processes count as they work, and what
the database and broker say at scrape time. `GET /metrics` with
`Authorization: Bearer <METRICS_TOKEN>` (404 while `METRICS_TOKEN` is unset).

Two kinds, because web, worker and beat are separate processes:

- **Counted where it happens**: requests and their latency, open sockets (web); moves
  (web for people, workers for bots and timeouts), bot reply time, matches finished, failed
  jobs (workers). With `PROMETHEUS_MULTIPROC_DIR` set, every process on a machine writes
  its values to files there and a scrape of any web process there adds them up
  (prometheus-client's multiprocess mode; `make run` sets it). A machine with workers but
  no web process serves the same on `METRICS_PORT` (`serve`, started by each worker).
  Without it, a scrape sees the answering process only.
- **Read at scrape time** (`StoreCollector`): outbox jobs due and the age of the oldest,
  the Celery queue's depth, each heartbeat's age. Whatever process answers, these are the
  whole site's, from the database and broker every process shares.
"""

import logging
import os
import secrets
import time

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.http import Http404, HttpResponse
from django.utils import timezone
from django.utils.decorators import sync_and_async_middleware
from django.views.decorators.cache import never_cache
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import REGISTRY

logger = logging.getLogger(__name__)

REQUESTS = Counter("knock_http_requests", "HTTP requests answered.", ["method", "view", "status"])
REQUEST_SECONDS = Histogram(
    "knock_http_request_seconds",
    "Time to answer an HTTP request.",
    ["method", "view"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
SOCKETS = Gauge(
    "knock_open_sockets",
    "WebSockets open now, per web process.",
    ["socket"],
    multiprocess_mode="liveall",
)
MOVES = Counter("knock_moves", "Moves stored.", ["variant", "by"])
BOT_REPLY_SECONDS = Histogram(
    "knock_bot_reply_seconds",
    "From a bot's turn coming up to its move stored (a room's bot pause not counted).",
    ["variant"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
)
MATCHES_FINISHED = Counter(
    "knock_matches_finished", "Matches finalized, by outcome.", ["variant", "outcome"]
)
JOB_FAILURES = Counter(
    "knock_job_failures", "Runs of outbox jobs that failed (they run again later).", ["task"]
)


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def registry() -> CollectorRegistry:
    """What a scrape reads: every process's values on this machine in multiprocess mode,
    else this process's, and the store's gauges."""
    if multiprocess_dir() is None:
        return REGISTRY
    merged = CollectorRegistry()
    multiprocess.MultiProcessCollector(merged)
    merged.register(StoreCollector())
    return merged


class StoreCollector:
    """Gauges read from the database and broker at each scrape (a few indexed queries)."""

    def describe(self):
        """Nothing: the registry then never collects at import, before the database is up."""
        return []

    def collect(self):
        from django.db.models import Count, Min

        from config.ops.models import Heartbeat
        from outbox import services as outbox
        from outbox.models import Job

        now = timezone.now()
        due = Job.objects.filter(available_at__lte=now).aggregate(
            n=Count("pk"), oldest=Min("available_at")
        )
        waiting = GaugeMetricFamily("knock_outbox_jobs_due", "Outbox jobs due and not done.")
        waiting.add_metric([], due["n"])
        yield waiting
        oldest = GaugeMetricFamily(
            "knock_outbox_oldest_due_seconds", "How long the oldest due outbox job has waited."
        )
        oldest.add_metric([], (now - due["oldest"]).total_seconds() if due["oldest"] else 0)
        yield oldest
        depth = GaugeMetricFamily(
            "knock_celery_queue_depth", "Messages waiting in the queue.", labels=["queue"]
        )
        try:
            depth.add_metric([outbox.queue_name()], outbox.queue_depth())
        except outbox.broker_errors() as exc:
            logger.warning("metrics: the broker did not answer: %s", exc)
        else:
            yield depth
        ages = GaugeMetricFamily(
            "knock_heartbeat_age_seconds",
            "Seconds since each worker and beat process last beat.",
            labels=["role", "name"],
        )
        for role, name, beat_at in Heartbeat.objects.values_list("role", "name", "beat_at"):
            ages.add_metric([role, name], (now - beat_at).total_seconds())
        yield ages


if multiprocess_dir() is None:
    REGISTRY.register(StoreCollector())


@never_cache
def metrics(request):
    """The scrape. A wrong or missing token is 401; with no METRICS_TOKEN the endpoint
    does not exist (404)."""
    expected = settings.METRICS_TOKEN
    if not expected:
        raise Http404
    scheme, _sep, given = request.headers.get("Authorization", "").partition(" ")
    if scheme != "Bearer" or not secrets.compare_digest(given.strip(), expected):
        response = HttpResponse(
            "A bearer token is needed.\n", status=401, content_type="text/plain"
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)


METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}  # any other: "other"


@sync_and_async_middleware
def middleware(get_response):
    """Counts and times every request, labelled by its URL pattern's name (a bounded set);
    async under ASGI, so it adds no thread hop there."""
    if iscoroutinefunction(get_response):

        async def timed(request):
            begun = time.perf_counter()
            response = await get_response(request)
            _record(request, response, begun)
            return response

    else:

        def timed(request):
            begun = time.perf_counter()
            response = get_response(request)
            _record(request, response, begun)
            return response

    return timed


def _record(request, response, begun: float) -> None:
    match = request.resolver_match
    view = (match.view_name or match.route) if match else "unmatched"
    method = request.method if request.method in METHODS else "other"
    REQUEST_SECONDS.labels(method, view).observe(time.perf_counter() - begun)
    REQUESTS.labels(method, view, str(response.status_code)).inc()


def serve(port: int) -> None:
    """This machine's counters on their own port (a thread), for a machine with workers
    and no web process; no token: keep the port internal."""
    if multiprocess_dir() is None:
        # A prefork worker's tasks run in its pool processes: alone, this one counted none.
        logger.warning(
            "METRICS_PORT without PROMETHEUS_MULTIPROC_DIR: the tasks' counts are missing"
        )
    try:
        start_http_server(port, registry=registry())
    except OSError as exc:
        # Another worker of this machine serves there: the same folder, the same sums.
        logger.info("metrics: port %s not taken here (%s); another worker serves it", port, exc)
        return
    logger.info("metrics on port %s", port)
