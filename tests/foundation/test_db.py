"""config.db.bulk_update and bulk_insert write exactly what Django's bulk_update and bulk_create
write, in one statement."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config.db import MAX_BOUND_PARAMS, bulk_insert, bulk_update
from gameplay.models import Match

pytestmark = pytest.mark.django_db

FIELDS = ["log", "seq", "to_move", "state", "turn_deadline", "status", "result", "finished_at"]


def matches(count: int) -> list[Match]:
    return Match.objects.bulk_create(
        Match(variant="gin", options={}, players=2, seed=f"s{i}", commitment="c", state=b"")
        for i in range(count)
    )


def changed(match: Match, i: int) -> Match:
    """Every kind of column the services store: JSON (list, object, null), bytes, nullable
    integers and timestamps, text."""
    match.log = [{"seat": i % 2, "action": {"type": "discard", "card": "AS"}}] * i
    match.seq = i
    match.to_move = None if i % 2 else 1
    match.state = bytes([i, 0, 255]) * i
    match.turn_deadline = None if i % 3 else datetime(2026, 11, 30, 12, i, tzinfo=UTC)
    match.status = Match.Status.FINISHED if i % 2 else Match.Status.ACTIVE
    match.result = None if i % 4 == 0 else {"winner": i % 2, "scores": [i, 0], "quote": "it's"}
    match.finished_at = datetime(2026, 11, 30, 13, i, tzinfo=UTC) if i % 2 else None
    return match


def stored(ids: list[int]) -> list[tuple]:
    rows = Match.objects.filter(pk__in=ids).order_by("pk").values_list(*FIELDS)
    return [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row) for row in rows]


def test_bulk_update_matches_djangos_in_one_statement():
    ours, djangos = matches(6), matches(6)
    with CaptureQueriesContext(connection) as queries:
        bulk_update([changed(m, i) for i, m in enumerate(ours)], FIELDS)
    Match.objects.bulk_update([changed(m, i) for i, m in enumerate(djangos)], FIELDS)
    assert stored([m.pk for m in ours]) == stored([m.pk for m in djangos])
    assert len(queries) == 1


def test_bulk_update_of_nothing_sends_nothing():
    with CaptureQueriesContext(connection) as queries:
        bulk_update([], FIELDS)
    assert len(queries) == 0


def test_bulk_update_refuses_the_same_row_twice():
    [match] = matches(1)
    with pytest.raises(ValueError, match="same row twice"):
        bulk_update([match, match], ["seq"])


@pytest.mark.postgres
def test_bulk_update_of_more_values_than_a_statement_binds_still_writes_them_all():
    """Values are bound apart from the statement, up to the protocol's 65,535 a statement;
    past that they are quoted into its text, as Django does."""
    many = matches(MAX_BOUND_PARAMS // 3 + 1)
    for i, match in enumerate(many):
        match.seq, match.to_move = i, i % 2
    with CaptureQueriesContext(connection) as queries:
        bulk_update(many, ["seq", "to_move"])
    assert len(queries) == 1
    rows = Match.objects.filter(pk__in=[m.pk for m in many]).order_by("pk")
    assert list(rows.values_list("seq", "to_move")) == [(i, i % 2) for i in range(len(many))]


@pytest.mark.parametrize(
    "before, added",
    [
        ([], [{"seat": 0, "action": {"type": "draw", "source": "stock"}}]),
        ([{"seat": 1, "action": {"type": "pass"}}], [{"seat": 0, "action": {"note": "é ,]["}}]),
        ([{"seat": 1, "action": {"type": "pass"}}], []),
        ([], []),
    ],
)
def test_bulk_update_appends_to_a_json_list_without_sending_it_back(before, added):
    """`append` adds to what the row holds (the move log is compact JSON text), whatever the
    instance holds: the services leave the log unread."""
    match, other = matches(2)
    Match.objects.filter(pk__in=[match.pk, other.pk]).update(log=before)
    match.seq, other.seq = 7, 8
    stale = Match.objects.defer("log").get(pk=match.pk)
    stale.seq = 7
    with CaptureQueriesContext(connection) as queries:
        bulk_update([stale, other], ["seq"], append={"log": [added, [{"seat": 1}]]})
    # PostgreSQL appends in the UPDATE itself; SQLite has no `||` for JSON lists, so the
    # embedded default reads the stored lists first, then writes them whole.
    assert len(queries) == (1 if connection.vendor == "postgresql" else 2)
    assert Match.objects.get(pk=match.pk).log == before + added
    assert Match.objects.get(pk=other.pk).log == [*before, {"seat": 1}]
    assert Match.objects.get(pk=match.pk).seq == 7


def new_match(i: int) -> Match:
    return changed(
        Match(variant="gin", options={"target": i}, players=2, seed=f"n{i}", commitment="c"), i
    )


def test_bulk_insert_stores_what_bulk_create_stores_and_gives_the_ids():
    ours, djangos = [new_match(i) for i in range(1, 9)], [new_match(i) for i in range(1, 9)]
    with CaptureQueriesContext(connection) as queries:
        bulk_insert(ours)
    assert len(queries) == 1
    Match.objects.bulk_create(djangos)
    assert all(m.pk and not m._state.adding for m in ours)
    assert stored([m.pk for m in ours]) == stored([m.pk for m in djangos])
    assert [m.created_at is not None for m in ours] == [True] * 8  # auto_now_add, as Django
    options = dict(Match.objects.filter(pk__in=[m.pk for m in ours]).values_list("pk", "options"))
    assert [options[m.pk] for m in ours] == [{"target": i} for i in range(1, 9)]


def test_bulk_insert_of_nothing_sends_nothing():
    with CaptureQueriesContext(connection) as queries:
        bulk_insert([])
    assert len(queries) == 0


@pytest.mark.postgres
def test_bulk_insert_of_more_values_than_a_statement_binds_writes_them_all():
    count = MAX_BOUND_PARAMS // (len(Match._meta.concrete_fields) - 1) + 5  # all but the id
    objs = [new_match(i % 50) for i in range(count)]
    with CaptureQueriesContext(connection) as queries:
        bulk_insert(objs)
    assert len(queries) == 2  # one statement per as many rows as it can bind
    assert Match.objects.filter(pk__in=[m.pk for m in objs]).count() == count
