"""A run's claim and delete commit without waiting for the WAL flush, and only they do."""

import pytest
from django.db import connection, transaction
from django.utils import timezone

from outbox import services
from outbox.models import Job

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


def test_the_claim_and_the_delete_leave_the_sessions_durable_commits_alone():
    now = timezone.now()
    job = Job.objects.create(
        task="tests.outbox.remember", args=[1], available_at=now, created_at=now
    )
    assert synchronous_commit() == "on"
    assert services.job_start(job_id=job.pk)
    assert synchronous_commit() == "on"  # SET LOCAL: it ended with the claim's own commit
    services.job_done(job_id=job.pk)
    assert synchronous_commit() == "on"
    assert not Job.objects.filter(pk=job.pk).exists()
    assert not services._running([job.pk])  # the delete let the lock go


def test_inside_a_callers_transaction_its_commit_stays_durable():
    now = timezone.now()
    job = Job.objects.create(
        task="tests.outbox.remember", args=[2], available_at=now, created_at=now
    )
    with transaction.atomic():
        assert services.job_start(job_id=job.pk)
        assert synchronous_commit() == "on"  # the caller's commit, and all it wrote
    assert synchronous_commit() == "on"
    services.job_done(job_id=job.pk)
