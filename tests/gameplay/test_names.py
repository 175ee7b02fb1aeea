"""Names others read carry no hidden characters (issue 24): tournaments, leagues and
their divisions, titles, rewards, achievements and rooms refuse control, zero-width and
direction characters, with the form's error or a 400, behind every door."""

import pytest
from django.urls import reverse

from config.errors import DomainError
from gameplay.models import Title
from leagues import services as leagues
from tests.tournaments.helpers import open_tournament, organiser
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

HIDDEN = ["\u202e", "\u202a", "\u2066", "\u2069", "\u200e", "\u200f", "\u200b", "\x07", "\x1b"]


@pytest.mark.parametrize("character", HIDDEN)
def test_the_tournament_api_refuses_a_name_with_a_hidden_character(api_client, character):
    by = organiser()
    api_client.force_authenticate(by)
    created = api_client.post(
        "/api/tournaments/", {"name": f"Cup{character}gniw", "variant": "gin"}, format="json"
    )
    assert created.status_code == 400 and created.json()["error"]["code"] == "invalid_name"
    assert not Tournament.objects.exists()
    tournament = open_tournament(by=by)
    renamed = api_client.patch(
        f"/api/tournaments/{tournament.pk}/", {"name": f"{character}Cup"}, format="json"
    )
    assert renamed.status_code == 400
    tournament.refresh_from_db()
    assert tournament.name == "Test Cup"


def test_the_organisers_form_shows_the_refusal_by_the_name(client):
    client.force_login(organiser())
    body = {"name": "Cup\u202eniw", "variant": "gin", "table_size": "2", "advance": "1"}
    answer = client.post("/tournaments/new/", body)
    assert answer.status_code == 200
    assert "U+202E" in answer.context["form"].errors["name"][0]
    assert not Tournament.objects.exists()


def test_league_and_division_names_are_refused_by_the_service():
    divisions = [{"name": "Gold", "size": 4, "promote": 1, "relegate": 1}]
    for name, division in (("League\u2066", "Gold"), ("League", "Gold\u200f")):
        with pytest.raises(DomainError) as refused:
            leagues.league_create(
                name=name, variant="gin", divisions=[{**divisions[0], "name": division}]
            )
        assert refused.value.code == "invalid_name"
    league = leagues.league_create(
        name="Ligue d'\u00e9t\u00e9 \U0001f3c6", variant="gin", divisions=divisions
    )
    assert league.name.endswith("\U0001f3c6")  # accents and emoji are visible


def test_the_admin_forms_refuse_hidden_characters_in_names(admin_client):
    answer = admin_client.post(
        reverse("admin:gameplay_title_add"),
        {"name": "Leg\u202eend", "code": "legend", "metric": "", "threshold": ""},
    )
    assert answer.status_code == 200
    assert "name" in answer.context["adminform"].form.errors
    assert not Title.objects.exists()
