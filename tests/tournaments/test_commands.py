"""`simulate_tournament` and the demo data, end to end."""

import io
import json

import pytest
from django.core.management import call_command

from tournaments import demo
from tournaments.models import Entry, TableMatch, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def simulate(*args: str) -> tuple[dict, str]:
    out = io.StringIO()
    call_command("simulate_tournament", *args, stdout=out)
    text = out.getvalue()
    return json.loads(text.strip().splitlines()[-1]), text


def test_simulate_eagerly_prints_the_bracket_and_a_json_summary_last():
    summary, text = simulate("--players", "6", "--variant", "gin", "--seed", "7", "--eager")
    assert summary["status"] == "finished"
    assert (summary["players"], summary["rounds"], summary["matches"]) == (6, 3, 5)
    assert summary["validated_matches"] == 5
    assert (summary["byes"], summary["walkovers"]) == (2, 0)  # seeds 1 and 2 have byes
    assert summary["champion"] and summary["seconds"] > 0
    assert "Final" in text and "Quarter-finals" in text
    simulate("--players", "6", "--variant", "gin", "--seed", "7", "--eager", "--json")
    first, second = Tournament.objects.order_by("pk")
    assert draw(first) == draw(second)  # the draw seed fixes the draw
    server_seeds = {m.match.seed for t in (first, second) for m in matches_of(t)}
    assert len(server_seeds) == 10  # every match draws its own server seed


def draw(tournament: Tournament) -> list[int]:
    """Each entry's seed in the draw, in registration order."""
    return list(
        Entry.objects.filter(tournament=tournament)
        .order_by("registered_at", "pk")
        .values_list("seed", flat=True)
    )


def matches_of(tournament: Tournament):
    return TableMatch.objects.filter(table__tournament=tournament).select_related("match")


def test_simulate_through_a_worker_on_the_broker(celery_test_queue):
    summary, text = simulate("--players", "4", "--seed", "3", "--json", "--workers", "2")
    assert summary["status"] == "finished"
    assert summary["validated_matches"] == summary["matches"] == 3
    assert text.count("\n") == 1  # --json: the summary alone


def test_simulate_multi_player_tables_and_refuses_bad_shapes():
    summary, _ = simulate(
        "--players",
        "9",
        "--variant",
        "basic",
        "--table-size",
        "3",
        "--advance",
        "1",
        "--target",
        "20",
        "--eager",
        "--json",
    )
    assert (summary["rounds"], summary["matches"], summary["champion"] is not None) == (2, 4, True)
    with pytest.raises(Exception, match="Gin Rummy seats exactly 2 players"):
        simulate("--players", "8", "--table-size", "4", "--advance", "2", "--eager")


def test_demo_builds_a_finished_64_player_tournament_and_an_open_one_once():
    demo.build(log=lambda message: None)
    finished = Tournament.objects.get(name=demo.FINISHED)
    assert (finished.status, finished.entries_count) == ("finished", 64)
    assert Entry.objects.get(tournament=finished, status="champion").placement == 1
    assert TableMatch.objects.filter(table__tournament=finished).count() == 64  # + third place
    taking = Tournament.objects.get(name=demo.OPEN)
    assert taking.status == "registration"
    assert taking.entries.count() == 10
    dummy_cup = Tournament.objects.get(name=demo.DUMMY)
    assert (dummy_cup.variant, dummy_cup.status) == ("dummy", "finished")
    demo.build(log=lambda message: None)
    assert Tournament.objects.count() == 3


def test_simulate_a_double_elimination_through_a_worker(celery_test_queue):
    summary, _ = simulate(
        "--players", "4", "--format", "double", "--seed", "5", "--json", "--workers", "2"
    )
    assert (summary["status"], summary["format"]) == ("finished", "double")
    assert summary["champion"] is not None
    assert summary["rounds"] == 6  # winners' 2, losers' 2, grand final and its reset
    # 2n - 2 matches, or 2n - 1 when the losers' champion forces the reset.
    assert summary["matches"] in (6, 7)
    assert summary["validated_matches"] == summary["matches"]


def test_simulate_a_two_stage_event_eagerly():
    summary, _ = simulate(
        "--players",
        "6",
        "--format",
        "two-stage",
        "--groups",
        "2",
        "--group-advance",
        "2",
        "--seed",
        "4",
        "--eager",
        "--json",
    )
    assert (summary["status"], summary["format"]) == ("finished", "two_stage")
    # Two groups of three play three rounds (one sits out each); four go on to a bracket.
    assert summary["rounds"] == 3 + 2
    assert summary["matches"] == summary["validated_matches"] == 6 + 3
    assert summary["champion"] is not None


def test_simulate_a_swiss_event_eagerly():
    summary, text = simulate("--players", "5", "--format", "swiss", "--seed", "2", "--eager")
    assert (summary["status"], summary["format"], summary["rounds"]) == ("finished", "swiss", 3)
    assert summary["matches"] == summary["validated_matches"] == 6  # two games a round
    assert (summary["byes"], summary["walkovers"]) == (3, 0)  # the bye, once a round
    assert " bye: " in text and " walkover:" not in text
    assert summary["champion"] is not None and "Round 3" in text


def test_simulate_swiss_groups_then_a_double_elimination_bracket_eagerly():
    summary, text = simulate(
        "--players", "10", "--format", "two-stage", "--groups", "2", "--group-stage", "swiss",
        "--swiss-rounds", "3", "--second-stage", "double", "--seed", "3", "--eager",
    )  # fmt: skip
    assert (summary["status"], summary["format"]) == ("finished", "two_stage")
    # Two groups of five: three Swiss rounds of two games and a bye in each group; then a
    # double bracket of four: winners' 2 + 1, losers' 1 + 1, the grand final (and reset).
    assert summary["rounds"] == 3 + 6
    assert summary["byes"] == 6 and summary["walkovers"] == 0
    assert summary["matches"] == summary["validated_matches"] in (12 + 6, 12 + 7)
    assert summary["champion"] is not None
    for text_ in ("Group round 3", "Winners' final", "Losers' final", "Grand final"):
        assert text_ in text
