"""Fill a database with demo data so every page has something to show (`make run`).

Each app owns its part of the demo in an optional `<app>/demo.py` exposing
`build(log)`, built through its own services; this command only finds and calls them,
so gameplay never imports tournaments or leagues.
"""

import importlib
import importlib.util

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from gameplay import demo
from gameplay.models import Player

DEMO_ADMIN_USERNAME = "admin"
DEMO_ADMIN_PASSWORD = "knock-demo"


class Command(BaseCommand):
    help = "Create the demo admin account and each app's demo data (DEBUG only; idempotent)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--site-url",
            default="http://127.0.0.1:8000",
            help="the address the site is served at, for the links printed at the end",
        )

    def handle(self, *args, **options):
        if not settings.DEBUG:
            raise CommandError(
                "load_demo only runs in demo mode (DEBUG=1); it creates a known login."
            )
        self._ensure_admin()
        for config in apps.get_app_configs():
            module_name = f"{config.name}.demo"
            if importlib.util.find_spec(module_name) is None:
                continue
            importlib.import_module(module_name).build(log=self._log)
        self._print_logins(options["site_url"].rstrip("/"))

    def _ensure_admin(self) -> None:
        user_model = get_user_model()
        if not user_model.objects.filter(username=DEMO_ADMIN_USERNAME).exists():
            user_model.objects.create_superuser(
                DEMO_ADMIN_USERNAME, "admin@example.com", DEMO_ADMIN_PASSWORD
            )

    def _print_logins(self, site: str) -> None:
        demo_player = Player.objects.get(user__username=demo.DEMO_USERNAME)
        for line in (
            f"Site:        {site}/  (tournaments {site}/tournaments/, leagues {site}/leagues/)",
            f"Demo admin:  {site}/admin/  username {DEMO_ADMIN_USERNAME!r}  "
            f"password {DEMO_ADMIN_PASSWORD!r}",
            f"Demo player: {site}/players/{demo_player.pk}/  "
            f"username {demo.DEMO_USERNAME!r}  password {demo.DEMO_PASSWORD!r}",
        ):
            self.stdout.write(self.style.SUCCESS(line))

    def _log(self, message: str) -> None:
        self.stdout.write(message)
