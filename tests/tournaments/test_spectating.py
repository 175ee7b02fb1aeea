"""A tournament open to spectators (issue 27): the organiser's form offers it, its page
lists the tables in play with a Watch link, and the lobby's live games name it."""

import re
from unittest import mock

import pytest

from gameplay import selectors as gameplay_selectors
from gameplay import tasks
from tests.factories import PlayerFactory
from tests.tournaments.helpers import bots, open_tournament, organiser, register_all
from tests.tournaments.test_honest_form import FORM
from tournaments import selectors, services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def running(name: str, **settings) -> Tournament:
    with mock.patch.object(tasks.play_bots, "delay"):
        cup = open_tournament(name=name, show_up_seconds=0, **settings)
        register_all(cup, bots(4))
        services.tournament_start(tournament_id=cup.pk)
        for table_id in services.waiting_tables(tournament_id=cup.pk, limit=10):
            services.table_start(table_id=table_id)
    return cup


def test_the_form_offers_and_saves_the_spectator_setting(client):
    by = organiser()
    client.force_login(by)
    page = client.get("/tournaments/new/").content.decode()
    assert 'name="spectators_allowed"' in page and "Open the tables to spectators" in page
    client.post("/tournaments/new/", {**FORM, "spectators_allowed": "on"})
    cup = Tournament.objects.get(name=FORM["name"])
    assert cup.spectators_allowed is True
    edit = client.get(f"/tournaments/{cup.pk}/edit/").content.decode()
    [box] = re.findall(r'<input[^>]*name="spectators_allowed"[^>]*>', edit)
    assert "checked" in box


def test_its_page_lists_the_tables_in_play_to_watch(client, django_assert_max_num_queries):
    cup = running("Open Cup", spectators_allowed=True)
    shut = running("Shut Cup")
    assert selectors.tables_in_play(shut) == []
    with django_assert_max_num_queries(2):
        in_play = selectors.tables_in_play(cup)
    assert len(in_play) == 2 and all(len(t["players"]) == 2 for t in in_play)
    client.force_login(PlayerFactory().user)
    page = client.get(f"/tournaments/{cup.pk}/").content.decode()
    section = page.split('id="in-play"')[1].split("</section>")[0]
    assert "Tables in play" in section
    for table in in_play:
        assert f'href="/matches/{table["match"]}/"' in section
        assert client.get(f"/matches/{table['match']}/").status_code == 200
    assert 'id="in-play"' not in client.get(f"/tournaments/{shut.pk}/").content.decode()


def test_the_lobby_names_the_tournament_of_a_live_game(client):
    cup = running("Open Cup", spectators_allowed=True)
    running("Shut Cup")
    live = gameplay_selectors.live_games()
    assert len(live) == 2 and {m.where for m in live} == {"Open Cup"}
    page = client.get("/rooms/").content.decode()
    assert "Open Cup" in page and "Shut Cup" not in page
    assert cup.spectators_allowed
