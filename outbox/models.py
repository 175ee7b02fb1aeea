from django.db import models


class Job(models.Model):
    """A task that must run, written in the transaction whose change calls for it.

    The row lives until a delivery of the task has run to the end; until then the relay
    publishes it again whenever `available_at` has passed and no worker is running it.
    """

    task = models.CharField(max_length=200, help_text="The registered Celery task name.")
    args = models.JSONField(default=list)
    available_at = models.DateTimeField(
        help_text="When the relay publishes it, unless it is done or running."
    )
    attempts = models.PositiveIntegerField(
        default=0, help_text="Publications by the relay and failed runs; sets the backoff."
    )
    published_at = models.DateTimeField(
        null=True, blank=True, help_text="Its last message; empty while it has none to wait for."
    )
    started_at = models.DateTimeField(
        null=True, blank=True, help_text="When a run of it began; empty again if that run failed."
    )
    created_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["available_at"], name="outbox_job_due")]

    def __str__(self) -> str:
        return f"job {self.pk}: {self.task}{tuple(self.args)}"
