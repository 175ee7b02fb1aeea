"""Django admin: entries inline, filters, and the actions that call the services."""

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.messages import get_messages

from tests.factories import UserFactory
from tests.tournaments.helpers import bots, open_tournament, organiser, register_all
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def act(client, action: str, *tournaments):
    return client.post(
        "/admin/tournaments/tournament/",
        {"action": action, ACTION_CHECKBOX_NAME: [t.pk for t in tournaments]},
        follow=True,
    )


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_actions_open_start_and_cancel_through_the_services(admin_client):
    by = organiser()
    draft = services.tournament_create(organiser=by, name="Draft Cup", variant="gin")
    opened = act(admin_client, "open_registration", draft)
    assert messages_of(opened) == ["1 tournament opened."]
    draft.refresh_from_db()
    assert draft.status == Tournament.Status.REGISTRATION
    register_all(draft, bots(4))
    act(admin_client, "start_now", draft)
    draft.refresh_from_db()
    assert draft.status == Tournament.Status.RUNNING
    refused = act(admin_client, "start_now", draft)
    assert "cannot start" in refused.content.decode()
    [refusal] = messages_of(refused)
    assert refusal.startswith("Draft Cup: ")
    cancelled = act(admin_client, "cancel", draft)
    assert messages_of(cancelled) == ["1 tournament cancelled."]
    draft.refresh_from_db()
    assert draft.status == Tournament.Status.CANCELLED


def test_change_page_lists_entries_and_the_list_filters(admin_client):
    tournament = open_tournament(name="Inline Cup")
    register_all(tournament, bots(3))
    page = admin_client.get(f"/admin/tournaments/tournament/{tournament.pk}/change/")
    assert page.status_code == 200
    assert page.content.decode().count("Greedy Bot") >= 3
    filtered = admin_client.get("/admin/tournaments/tournament/?status__exact=registration")
    assert "Inline Cup" in filtered.content.decode()
    assert admin_client.get("/admin/tournaments/table/").status_code == 200


def test_adding_in_admin_validates_the_settings(admin_client):
    base = {
        "name": "Admin Cup",
        "organiser": UserFactory().pk,
        "variant": "gin",
        "opt_gin_target": 150,
        "table_size": 4,
        "advance": 2,
        "best_of": 1,
        "seeding": "rating",
        "min_level": 1,
        "entry_fee": 0,
        "show_up_seconds": 300,
        "turn_seconds": 60,
        "min_entries": 2,
        "seed": "s",
        "prizes-TOTAL_FORMS": 0,
        "prizes-INITIAL_FORMS": 0,
        "entries-TOTAL_FORMS": 0,
        "entries-INITIAL_FORMS": 0,
    }
    refused = admin_client.post("/admin/tournaments/tournament/add/", base)
    assert "Gin Rummy seats exactly 2 players" in refused.content.decode()
    created = admin_client.post(
        "/admin/tournaments/tournament/add/", {**base, "table_size": 2, "advance": 1}
    )
    assert created.status_code == 302
    assert Tournament.objects.get(name="Admin Cup").status == Tournament.Status.DRAFT
    options = Tournament.objects.get(name="Admin Cup").options
    assert options["target"] == 150 and "jokers" not in options
    chosen = Tournament.objects.get(name="Admin Cup").seed
    assert chosen != "s" and len(chosen) == 32  # the posted seed is ignored: a secret one


def test_staff_never_see_or_set_a_tournaments_seed_before_it_ends(admin_client):
    """Every deal of a tournament derives from its seed: whoever knew it before the end
    could know every hand."""
    tournament = open_tournament(name="Secret Cup", show_up_seconds=0)
    url = f"/admin/tournaments/tournament/{tournament.pk}/change/"
    assert tournament.seed not in admin_client.get(url).content.decode()
    register_all(tournament, bots(4))
    services.tournament_start(tournament_id=tournament.pk)
    page = admin_client.get(url).content.decode()
    assert tournament.seed not in page and "secret until the tournament ends" in page
    for listing in ("/admin/tournaments/tournament/", "/admin/tournaments/table/"):
        assert tournament.seed not in admin_client.get(listing).content.decode()
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    assert tournament.seed in admin_client.get(url).content.decode()


def test_the_list_counts_entries_before_and_after_the_draw(admin_client):
    """A tournament with 10 registered players never shows 0 entries."""
    waiting = open_tournament(name="Ten Cup")
    register_all(waiting, bots(10))
    drawn = open_tournament(name="Four Cup", show_up_seconds=0, by=waiting.organiser)
    register_all(drawn, bots(4))
    services.tournament_start(tournament_id=drawn.pk)
    page = admin_client.get("/admin/tournaments/tournament/")
    listing = page.context["cl"].result_list
    counts = {t.name: page.context["cl"].model_admin.entries(t) for t in listing}
    assert counts == {"Ten Cup": 10, "Four Cup": 4}
    assert '<td class="field-entries">10</td>' in page.content.decode()


def test_the_admin_carries_the_sites_name_and_logo(admin_client):
    page = admin_client.get("/admin/").content.decode()
    assert "Knock admin" in page and "site/favicon.svg" in page
    assert "Django administration" not in page and "Django site admin" not in page


def test_only_the_admin_grants_a_sponsor_budget_and_organiser_play(admin_client):
    """Both fields are on the admin's form (and on no organiser's): a budget lowered below
    the prizes it pays is refused by the prize pool's check."""
    base = {
        "name": "Sponsored Cup",
        "organiser": organiser().pk,
        "variant": "gin",
        "opt_gin_target": 150,
        "table_size": 2,
        "advance": 1,
        "best_of": 1,
        "seeding": "rating",
        "min_level": 1,
        "entry_fee": 0,
        "show_up_seconds": 300,
        "turn_seconds": 60,
        "min_entries": 2,
        "sponsor_coins": 300,
        "organiser_may_play": "on",
        "prizes-TOTAL_FORMS": 0,
        "prizes-INITIAL_FORMS": 0,
        "entries-TOTAL_FORMS": 0,
        "entries-INITIAL_FORMS": 0,
    }
    too_big = admin_client.post(
        "/admin/tournaments/tournament/add/", {**base, "sponsor_coins": 10**18}
    )
    assert too_big.status_code == 200 and "at most" in too_big.content.decode()
    assert admin_client.post("/admin/tournaments/tournament/add/", base).status_code == 302
    tournament = Tournament.objects.get(name="Sponsored Cup")
    assert (tournament.sponsor_coins, tournament.organiser_may_play) == (300, True)
    services.tournament_update(
        tournament_id=tournament.pk,
        by=tournament.organiser,
        prizes=[{"placement": 1, "coins": 300}],
    )
    url = f"/admin/tournaments/tournament/{tournament.pk}/change/"
    lowered = admin_client.post(
        url,
        {
            **base,
            "sponsor_coins": 100,
            "prizes-TOTAL_FORMS": 0,
            "prizes-INITIAL_FORMS": 0,
        },
    )
    assert lowered.status_code == 200
    assert "prize pool holds 100" in lowered.content.decode()
    assert Tournament.objects.get(pk=tournament.pk).sponsor_coins == 300
