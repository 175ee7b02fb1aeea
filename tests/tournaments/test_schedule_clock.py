"""Scheduled tournaments move by the clock alone (issue 31): beat's `run_schedule` finds the
due ones, an outbox job takes each step, the clock moved by freezegun. Too few entries at
the start cancels, refunds and tells the entrants."""

from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from config.notices import notices_for
from gameplay.models import CoinEntry, Player
from tests.tournaments.helpers import bots, humans, organiser, register_all
from tournaments import services, tasks
from tournaments.models import Entry, Round, Tournament

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


def scheduled(**settings) -> Tournament:
    values = {
        "name": "Clockwork Cup",
        "variant": "gin",
        "options": {"target": 10},
        "show_up_seconds": 0,
        "registration_opens_at": T0 + HOUR,
        "check_in_opens_at": T0 + 2 * HOUR,
        "check_in_closes_at": T0 + 3 * HOUR,
        "starts_at": T0 + 4 * HOUR,
        **settings,
    }
    return services.tournament_create(organiser=organiser(), **values)


@pytest.fixture
def tick(django_capture_on_commit_callbacks):
    """One beat of `run_schedule`; the jobs it commits run then, in process (eager)."""

    def run() -> list[int]:
        with django_capture_on_commit_callbacks(execute=True):
            return tasks.run_schedule()

    return run


def status(tournament: Tournament) -> str:
    tournament.refresh_from_db()
    return tournament.status


def test_a_scheduled_tournament_moves_through_every_state_by_the_clock_alone(eager_tasks, tick):
    with freeze_time(T0) as clock:
        tournament = scheduled()
        assert tick() == []
        assert status(tournament) == Tournament.Status.DRAFT
        clock.move_to(T0 + HOUR)
        assert tick() == [tournament.pk]
        assert status(tournament) == Tournament.Status.REGISTRATION
        field = bots(4)
        register_all(tournament, field)
        clock.move_to(T0 + 2 * HOUR - timedelta(seconds=1))
        assert tick() == []
        clock.move_to(T0 + 2 * HOUR)
        tick()
        assert status(tournament) == Tournament.Status.CHECK_IN
        assert tournament.draw_commitment  # registration closed: the draw is committed
        for bot in field[:3]:
            services.entry_check_in(tournament_id=tournament.pk, player=bot)
        clock.move_to(T0 + 3 * HOUR)
        tick()
        assert status(tournament) == Tournament.Status.READY
        assert Entry.objects.get(tournament=tournament, player=field[3]).status == "dropped"
        assert tick() == []  # nothing due until the start
        clock.move_to(T0 + 4 * HOUR)
        assert tick() == [tournament.pk]
        tournament.refresh_from_db()
        assert tournament.started_at == T0 + 4 * HOUR
        assert tournament.entries_count == 3
        assert Round.objects.filter(tournament=tournament, number=1).count() == 1
        assert tournament.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED)
        assert tick() == []  # started once: nothing more is due


def test_one_late_tick_takes_every_step_that_came_due_in_order(eager_tasks, tick):
    with freeze_time(T0 + 5 * HOUR):
        tournament = scheduled(check_in_opens_at=None, check_in_closes_at=None)
        register_all(tournament, [])  # nobody: opened, then cancelled at once
        assert services.tournament_advance(tournament_id=tournament.pk) == [
            "open_registration",
            "cancelled",
        ]
        assert status(tournament) == Tournament.Status.CANCELLED


def test_too_few_entries_at_the_start_cancels_refunds_and_tells_them(eager_tasks, tick):
    with freeze_time(T0) as clock:
        tournament = scheduled(entry_fee=30, min_entries=3, check_in_opens_at=None)
        clock.move_to(T0 + HOUR)
        tick()
        players = humans(2, coins=100)
        register_all(tournament, players)
        assert [Player.objects.get(pk=p.pk).coins for p in players] == [70, 70]
        clock.move_to(T0 + 4 * HOUR)
        tick()
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.CANCELLED
        assert tournament.cancel_reason == "too_few_entries"
        assert [Player.objects.get(pk=p.pk).coins for p in players] == [100, 100]
        assert CoinEntry.objects.filter(amount=30, key__contains="refund").count() == 2
        texts = [n["text"] for n in notices_for(Player.objects.get(pk=players[0].pk))]
        assert any("Clockwork Cup" in text and "cancelled" in text for text in texts), texts
        assert tick() == []
