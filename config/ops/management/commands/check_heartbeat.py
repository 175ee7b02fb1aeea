"""`python manage.py check_heartbeat worker|beat`: the container health check of a worker
or beat, which serve no HTTP. It reads the heartbeat the process itself writes
(config/ops/heartbeats.py), so a beat whose loop stopped turns unhealthy too."""

import socket

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from config.ops import heartbeats
from config.ops.models import Heartbeat

#: The name each role's process gives its heartbeat by default (a worker's Celery node name).
DEFAULT_NAMES = {heartbeats.WORKER: "celery@{host}", heartbeats.BEAT: "beat@{host}"}


class Command(BaseCommand):
    help = "Exit 1 unless this machine's worker or beat has sent a fresh heartbeat."

    def add_arguments(self, parser):
        parser.add_argument("role", choices=sorted(DEFAULT_NAMES))
        parser.add_argument(
            "--name", help="the process's heartbeat name (default: celery@HOST or beat@HOST)"
        )

    def handle(self, *args, role, name, **options):
        name = name or DEFAULT_NAMES[role].format(host=socket.gethostname())
        row = Heartbeat.objects.filter(role=role, name=name).only("beat_at").first()
        if row is None:
            raise CommandError(f"{name}: no heartbeat")
        age = (timezone.now() - row.beat_at).total_seconds()
        if age > settings.KNOCK_HEARTBEAT_STALE_SECONDS:
            raise CommandError(f"{name}: stale, last seen {age:.0f} s ago")
        self.stdout.write(f"{name}: ok, last seen {age:.0f} s ago")
