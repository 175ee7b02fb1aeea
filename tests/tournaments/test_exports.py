"""Exports (issue 31, "Integrations"): entries, results and standings as CSV and the
whole event as JSON, for whoever may see the tournament, with no secret in them."""

import csv
import io

import pytest

from tests.factories import PlayerFactory
from tests.tournaments.helpers import bots, drive, open_tournament, organiser, register_all
from tournaments import services
from tournaments.models import Entry, Tournament

pytestmark = pytest.mark.django_db


def rows(answer) -> list[dict]:
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/csv")
    assert answer["Content-Disposition"].startswith("attachment;")
    return list(csv.DictReader(io.StringIO(answer.content.decode())))


def test_a_finished_tournament_exports_its_entries_results_standings_and_document(client):
    tournament = open_tournament(show_up_seconds=0)
    players = bots(4)
    players[0].display_name = '=HYPERLINK("http://x")'
    players[0].save()
    register_all(tournament, players)
    services.tournament_start(tournament_id=tournament.pk)
    drive(tournament)
    page = f"/tournaments/{tournament.pk}/"
    assert f"{page}export/results.csv" in client.get(page).content.decode()

    entries = rows(client.get(f"{page}export/entries.csv"))
    assert len(entries) == 4
    assert {'\'=HYPERLINK("http://x")'} <= {row["player"] for row in entries}
    results = rows(client.get(f"{page}export/results.csv"))
    assert len(results) == 3 * 2  # three matches of two seats
    assert {row["round"] for row in results} == {"1", "2"}
    standings = rows(client.get(f"{page}export/standings.csv"))
    champion = Entry.objects.get(tournament=tournament, status="champion")
    assert standings[0]["placement"] == "1"
    assert standings[0]["player"].lstrip("'") == champion.player.display_name

    document = client.get(f"{page}export.json").json()
    assert document["format"] == "knock-tournament/1"
    assert document["tournament"]["draw_seed"] == Tournament.objects.get(pk=tournament.pk).seed
    assert len(document["results"]) == 6 and document["standings"][0]["placement"] == 1
    assert document["bracket"]["rounds"]
    assert client.get(f"{page}export/secrets.csv").status_code == 404


def test_a_draft_exports_nothing_to_others_and_a_running_event_hides_its_draw_seed(client):
    by = organiser()
    draft = services.tournament_create(organiser=by, name="Draft", variant="gin")
    for url in (
        f"/tournaments/{draft.pk}/export/entries.csv",
        f"/tournaments/{draft.pk}/export.json",
    ):
        assert client.get(url).status_code == 404
    client.force_login(PlayerFactory().user)
    assert client.get(f"/tournaments/{draft.pk}/export.json").status_code == 404
    client.force_login(by)
    assert client.get(f"/tournaments/{draft.pk}/export.json").status_code == 200
    open_event = open_tournament(by=by)
    register_all(open_event, bots(2))
    document = client.get(f"/tournaments/{open_event.pk}/export.json").json()
    assert document["tournament"]["draw_seed"] is None
    assert Tournament.objects.get(pk=open_event.pk).seed not in str(document)
