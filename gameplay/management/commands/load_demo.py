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

DEMO_ADMIN_USERNAME = "admin"
DEMO_ADMIN_PASSWORD = "knock-demo"


class Command(BaseCommand):
    help = "Create the demo admin account and each app's demo data (DEBUG only; idempotent)."

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

    def _ensure_admin(self) -> None:
        user_model = get_user_model()
        if not user_model.objects.filter(username=DEMO_ADMIN_USERNAME).exists():
            user_model.objects.create_superuser(
                DEMO_ADMIN_USERNAME, "admin@example.com", DEMO_ADMIN_PASSWORD
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo admin: http://127.0.0.1:8000/admin/  "
                f"username {DEMO_ADMIN_USERNAME!r}  password {DEMO_ADMIN_PASSWORD!r}"
            )
        )

    def _log(self, message: str) -> None:
        self.stdout.write(message)
