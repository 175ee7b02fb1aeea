"""Private events and entry conditions (issue 31): invitations by link, code and list, a
rating band and rated matches, co-organisers, and no-show bans an admin can lift."""

from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.utils import timezone
from rest_framework.test import APIClient

from gameplay.models import Rating
from tests.factories import PlayerFactory
from tests.tournaments.helpers import bots, open_tournament, organiser, register_all
from tournaments import services
from tournaments.models import Entry, NoShow, NoShowBan, Table

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=user)
    return client


def conditions(tournament, body):
    return api(tournament.organiser).put(
        f"/api/tournaments/{tournament.pk}/entry-conditions/", body, format="json"
    )


def register(player, tournament, **body):
    return api(player.user).post(f"/api/tournaments/{tournament.pk}/register/", body, format="json")


def test_an_invite_only_event_admits_the_code_and_the_list_and_refuses_a_stranger():
    tournament = open_tournament()
    friend, stranger, guest = PlayerFactory(), PlayerFactory(), PlayerFactory()
    answer = conditions(
        tournament, {"invite_only": True, "invited": [friend.user.username.upper()]}
    )
    assert answer.status_code == 200, answer.json()
    code = answer.json()["invite_code"]
    assert len(code) == 8 and answer.json()["invited"] == [friend.user.username]
    refused = register(stranger, tournament)
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "invitation_required")
    assert register(stranger, tournament, code="WRONG123").status_code == 403
    assert not Entry.objects.filter(player=stranger).exists()
    assert register(friend, tournament).status_code == 201
    assert register(guest, tournament, code=code).status_code == 201
    renewed = services.tournament_new_invite_code(
        tournament_id=tournament.pk, by=tournament.organiser
    )
    assert renewed.invite_code != code
    assert register(stranger, tournament, code=code).status_code == 403
    # Bots are the house's: the organiser fills seats with them whatever the conditions.
    register_all(tournament, bots(1))


def test_the_invitation_link_carries_its_code_to_the_register_button(client):
    tournament = open_tournament()
    conditions(tournament, {"invite_only": True})
    tournament.refresh_from_db()
    player = PlayerFactory()
    client.force_login(player.user)
    page = f"/tournaments/{tournament.pk}/"
    closed = client.get(page).content.decode()
    assert "This tournament is by invitation" in closed
    assert f'action="{page}register/"' not in closed
    assert client.get(f"{page}?code={tournament.invite_code}").status_code == 200
    # The page's refreshes and the button come without the code: the session keeps it.
    assert "by invitation" not in client.get(f"{page}?part=you").content.decode()
    client.post(f"{page}register/")
    assert Entry.objects.filter(player=player, tournament=tournament).exists()


def test_a_rating_band_and_rated_matches_are_checked_in_the_tournaments_game():
    tournament = open_tournament()
    answer = conditions(
        tournament,
        {"invite_only": False, "min_rating": 1400, "max_rating": 1700, "min_rated_matches": 3},
    )
    assert answer.status_code == 200
    newcomer, strong, regular = PlayerFactory(), PlayerFactory(), PlayerFactory()
    Rating.objects.create(
        player=strong, variant="gin", mu=40, sigma=2, ordinal=34, rated_matches=50
    )
    Rating.objects.create(player=regular, variant="gin", mu=26, sigma=6, ordinal=8, rated_matches=9)
    Rating.objects.create(
        player=newcomer, variant="basic", mu=30, sigma=3, ordinal=21, rated_matches=9
    )
    few = register(newcomer, tournament)
    assert (few.status_code, few.json()["error"]["code"]) == (403, "too_few_rated_matches")
    high = register(strong, tournament)
    assert (high.status_code, high.json()["error"]["code"]) == (403, "rating_out_of_band")
    assert "2180" in high.json()["error"]["message"]
    assert register(regular, tournament).status_code == 201


@pytest.mark.parametrize(
    "body",
    [
        {"invite_only": True, "min_rating": 1800, "max_rating": 1200},
        {"invite_only": True, "min_rating": -5},
        {"invite_only": True, "min_rating": 10**12},
        {"invite_only": True, "invited": ["nobody-by-this-name"]},
        {"invite_only": True, "invited": ["x"] * 501},
        {"invite_only": "maybe"},
        {"invite_only": True, "min_rated_matches": 10**9},
    ],
)
def test_hostile_entry_conditions_are_refused_and_change_nothing(body):
    tournament = open_tournament()
    answer = conditions(tournament, body)
    assert answer.status_code == 400, answer.json()
    tournament.refresh_from_db()
    assert (tournament.invite_only, tournament.min_rating, tournament.invite_code) == (
        False,
        None,
        "",
    )


def test_a_co_organiser_runs_the_event_but_cannot_change_who_runs_it():
    tournament = open_tournament()
    helper = organiser("helper")
    other = PlayerFactory()
    url = f"/api/tournaments/{tournament.pk}/co-organisers/"
    assert api(helper).post(f"/api/tournaments/{tournament.pk}/open-check-in/").status_code == 403
    assert (
        api(other.user).put(url, {"co_organisers": [helper.username]}, format="json").status_code
        == 403
    )
    saved = api(tournament.organiser).put(url, {"co_organisers": [helper.username]}, format="json")
    assert saved.json() == {"co_organisers": [helper.username]}
    assert api(helper).post(f"/api/tournaments/{tournament.pk}/open-check-in/").status_code == 200
    refused = api(helper).put(url, {"co_organisers": [other.user.username]}, format="json")
    assert refused.status_code == 403
    assert list(tournament.co_organisers.values_list("username", flat=True)) == ["helper"]


def miss_a_table(player):
    """`player` enters a tournament with a bot and does not show up by the deadline."""
    tournament = open_tournament(show_up_seconds=60)
    services.entry_register(tournament_id=tournament.pk, player=player)
    register_all(tournament, bots(1))
    services.tournament_start(tournament_id=tournament.pk)
    table_id = Table.objects.get(tournament=tournament, status="waiting").pk
    later = timezone.now() + timedelta(minutes=5)
    services.table_deadline(table_id=table_id, now=later)
    assert Table.objects.get(pk=table_id).walkover
    return tournament


def test_two_missed_tables_bar_a_player_from_the_next_two_events_unless_an_admin_lifts_it(
    admin_client,
):
    player = PlayerFactory()
    miss_a_table(player)
    assert NoShow.objects.filter(player=player).count() == 1
    assert not NoShowBan.objects.exists()
    miss_a_table(player)
    ban = NoShowBan.objects.get(player=player)
    assert (ban.misses, ban.events_left) == (2, 2)
    barred = register(player, open_tournament())
    assert (barred.status_code, barred.json()["error"]["code"]) == (403, "barred_no_show")
    assert "2 more tournaments" in barred.json()["error"]["message"]
    for _ in range(2):  # two events start while the ban runs
        event = open_tournament(show_up_seconds=0)
        register_all(event, bots(2))
        services.tournament_start(tournament_id=event.pk)
    ban.refresh_from_db()
    assert ban.events_left == 0
    assert register(player, open_tournament()).status_code == 201
    # Missing again starts a new count; an admin lifts the next ban at once.
    miss_a_table(player)
    miss_a_table(player)
    ban = NoShowBan.objects.filter(player=player).latest("pk")
    assert ban.active
    answer = admin_client.post(
        "/admin/tournaments/noshowban/", {"action": "lift", "_selected_action": [ban.pk]}
    )
    assert answer.status_code == 302
    assert [str(m) for m in get_messages(answer.wsgi_request)] == ["1 ban lifted."]
    ban.refresh_from_db()
    assert not ban.active and ban.lifted_by is not None
    assert register(player, open_tournament()).status_code == 201
