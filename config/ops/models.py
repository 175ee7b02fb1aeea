from django.db import models


class Heartbeat(models.Model):
    """The latest sign of life of one Celery worker or beat process (config/ops/heartbeats.py).

    One row per process name; a process that stops cleanly deletes its row, so a row
    that is not refreshed belongs to a process that died (or a machine that went away:
    delete its row in the admin once it is retired).
    """

    class Role(models.TextChoices):
        WORKER = "worker"
        BEAT = "beat"

    name = models.CharField(max_length=255, primary_key=True)
    role = models.CharField(max_length=10, choices=Role.choices)
    pid = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    beat_at = models.DateTimeField()

    class Meta:
        ordering = ["role", "name"]

    def __str__(self) -> str:
        return self.name
