"""The Celery application: settings come from Django's (CELERY_* names), tasks from each app."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("knock")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
