"""`python manage.py serve`: what `make run` runs after migrating.

Starts, under config/ops/supervisor.py, the three processes Knock needs on one machine:

- web: uvicorn serving `config.asgi` (HTTP and the live table's WebSockets; its command
  line, forwarded headers trusted only with NUM_PROXIES, is config/ops/web.py), its
  PostgreSQL connections shared through a pool of `DATABASE_POOL_MAX` (default 4): the
  ASGI handler runs each request in a thread of its own, and without the pool every
  thread kept a connection (settings);
- worker: a Celery worker (bots, deadlines, brackets, results);
- beat: Celery beat (the periodic sweeps).

Each is an ordinary command a production process manager could run on its own. They
share `PROMETHEUS_MULTIPROC_DIR` (default `var/metrics/`, emptied at each start), so
`/metrics` of the web process counts the worker's moves too (config/metrics.py).
"""

import os
import socket
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from config.ops.supervisor import Program, Supervisor
from config.ops.web import uvicorn_argv


class Command(BaseCommand):
    help = "Run the web server, a Celery worker and beat; restart any that dies; stop on Ctrl-C."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--concurrency", type=int, default=2, help="Celery worker processes")
        parser.add_argument(
            "--stop-timeout",
            type=float,
            default=10.0,
            help="seconds the programs get to stop before they are killed",
        )

    def handle(self, *args, host, port, concurrency, stop_timeout, **options):
        _check_port_free(host, port)
        _fresh_metrics_dir()
        supervisor = Supervisor(programs(host, port, concurrency), stop_timeout=stop_timeout)
        raise SystemExit(supervisor.run())


def _fresh_metrics_dir() -> None:
    """The processes' metric files start empty: a dead process's would count for ever."""
    folder = Path(
        os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(settings.VAR_DIR / "metrics"))
    )
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        stale.unlink()


#: Connections the web server's threads share when the database is PostgreSQL.
WEB_DATABASE_POOL_MAX = "4"


def programs(host: str, port: int, concurrency: int) -> list[Program]:
    python = sys.executable
    celery = [python, "-m", "celery", "-A", "config"]
    if settings.LOGGING["handlers"]["console"]["formatter"] == "json":
        celery.append("--quiet")  # JSON lines only: no start-up banners
    web_env = {"DATABASE_POOL_MAX": WEB_DATABASE_POOL_MAX} | os.environ
    return [
        Program(
            "web",
            uvicorn_argv(host=host, port=port),
            env=web_env,
        ),
        Program(
            "worker",
            [
                *celery,
                "worker",
                "--loglevel",
                "INFO",
                "--concurrency",
                str(concurrency),
                # One worker: no peers to synchronise with at start or to gossip with.
                "--without-mingle",
                "--without-gossip",
            ],
        ),
        Program(
            "beat",
            [
                *celery,
                "beat",
                "--loglevel",
                "INFO",
                "--schedule",
                str(Path(settings.VAR_DIR) / "celerybeat-schedule"),
            ],
        ),
    ]


def _check_port_free(host: str, port: int) -> None:
    """Fail at once with a clear message instead of restarting the web server forever."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise CommandError(
                f"cannot listen on {host}:{port} ({exc.strerror}); stop whatever uses it "
                "or choose another port (make run PORT=8001)"
            ) from exc
