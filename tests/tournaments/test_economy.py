"""No organiser prints money: prizes come from the pool of entry fees held (less the
house's rake) plus an admin's sponsor budget, bounded, of awardable titles and rewards,
and an organiser does not play in their own event unless an admin allows it."""

from datetime import timedelta

import pytest

from config.errors import NotAllowed
from engine import variants
from gameplay import games
from gameplay import services as gameplay
from gameplay.models import BALANCE_MAX, CoinEntry, HouseAccount, Match
from gameplay.selectors import ledger_differences
from tests.factories import LevelFactory, PlayerFactory, RewardFactory, TitleFactory
from tests.gameplay.helpers import auth
from tests.tournaments.helpers import (
    FAST_GIN,
    admin_organiser,
    humans,
    open_tournament,
    organiser,
    register_all,
)
from tournaments import services
from tournaments.models import Entry, Prize, Tournament

pytestmark = pytest.mark.django_db

# The organiser's form for a free two-player gin cup, prizes left to each test.
FORM = {
    "name": "Form Cup",
    "variant": "gin",
    "seeding": "random",
    "table_size": "2",
    "advance": "1",
    "best_of": "1",
    "min_level": "1",
    "entry_fee": "0",
    "show_up_seconds": "120",
    "turn_seconds": "30",
}


def as_user(client, user):
    client.force_authenticate(user=user)
    return client


def create(client, user, **body):
    values = {"name": "Pool Cup", "variant": "gin", "options": FAST_GIN, **body}
    return as_user(client, user).post("/api/tournaments/", values, format="json")


def refused(response, code: str, status: int = 400) -> None:
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code


def play_through(tournament: Tournament) -> Tournament:
    """Play a tournament of people to its end: every move is the greedy bot's choice,
    made through the service a person's move goes through."""
    for _ in range(50):
        for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=1000):
            services.table_start(table_id=table_id)
        active = list(
            Match.objects.filter(
                status=Match.Status.ACTIVE, tournament_table__table__tournament=tournament
            ).values_list("pk", flat=True)
        )
        if not active:
            break
        for match_id in active:
            play_people(match_id)
            gameplay.match_finalize(match_id=match_id)
            services.table_match_finished(match_id=match_id)
    tournament.refresh_from_db()
    return tournament


def play_people(match_id: int) -> None:
    match = Match.objects.get(pk=match_id)
    players = {seat.index: seat.player for seat in match.seats.select_related("player")}
    variant = variants.get(match.variant)
    while match.status == Match.Status.ACTIVE:
        seat = match.to_move
        action = variant.bot_action(games.load(match), seat, "greedy")
        match = gameplay.match_act(
            match_id=match_id, player=players[seat], seq=match.seq, action=action
        )


def pool_balance(tournament: Tournament) -> int:
    """What the tournament's pool holds, checked against its rows."""
    account = HouseAccount.objects.get(code=services.pool_account(tournament.pk))
    assert account.coins == sum(account.entries.values_list("amount", flat=True))
    return account.coins


# --- the prize pool ----------------------------------------------------------------------------


def test_prizes_from_nothing_are_refused_and_the_organisers_jackpot_is_gone(api_client):
    """Issue 24's organiser won 2,147,483,500 coins from a prize with no pool behind it."""
    by = organiser()
    jackpot = create(api_client, by, prizes=[{"placement": 1, "coins": 2_147_483_500}])
    refused(jackpot, "prizes_exceed_pool")
    assert jackpot.json()["error"]["details"] == {"prizes": 2_147_483_500, "pool": 0}
    # A full tournament of 16 at 5 coins holds 80: a table within it is accepted.
    fits = create(
        api_client, by, entry_fee=5, max_entries=16, prizes=[{"placement": 1, "coins": 80}]
    )
    assert fits.status_code == 201, fits.content
    too_much = create(
        api_client, by, entry_fee=5, max_entries=16, prizes=[{"placement": 1, "coins": 81}]
    )
    refused(too_much, "prizes_exceed_pool")
    assert Tournament.objects.count() == 1


def test_a_pool_past_the_balance_bound_is_refused_at_creation(api_client):
    by = organiser()
    big = 2**31 - 1
    response = create(
        api_client, by, entry_fee=big, max_entries=big, prizes=[{"placement": 1, "coins": 1}]
    )
    refused(response, "invalid_prizes")
    assert str(BALANCE_MAX) in response.json()["error"]["message"]
    assert not Tournament.objects.exists()


def test_the_pool_is_checked_again_when_the_cap_on_entries_falls(api_client):
    by = organiser()
    made = create(
        api_client, by, entry_fee=10, max_entries=8, prizes=[{"placement": 1, "coins": 60}]
    )
    pk = made.json()["id"]
    lowered = as_user(api_client, by).patch(
        f"/api/tournaments/{pk}/", {"max_entries": 4}, format="json"
    )
    refused(lowered, "prizes_exceed_pool")
    assert Tournament.objects.get(pk=pk).max_entries == 8
    bigger = as_user(api_client, by).patch(
        f"/api/tournaments/{pk}/", {"prizes": [{"placement": 1, "coins": 81}]}, format="json"
    )
    refused(bigger, "prizes_exceed_pool")
    assert list(Tournament.objects.get(pk=pk).prizes.values_list("coins", flat=True)) == [60]


def test_prize_xp_is_bounded(api_client, settings):
    settings.KNOCK_TOURNAMENT_PRIZE_XP_MAX = 500
    by = organiser()
    refused(create(api_client, by, prizes=[{"placement": 1, "xp": 2_000_400}]), "invalid_prizes")
    assert create(api_client, by, prizes=[{"placement": 1, "xp": 500}]).status_code == 201


def test_a_sponsor_budget_and_organiser_play_are_for_admins_only(api_client):
    by = organiser()
    # The API has no such fields: what an organiser sends is not stored.
    made = create(
        api_client,
        by,
        sponsor_coins=10**6,
        organiser_may_play=True,
        prizes=[{"placement": 1, "coins": 1000}],
    )
    refused(made, "prizes_exceed_pool")
    made = create(api_client, by, sponsor_coins=10**6, organiser_may_play=True)
    tournament = Tournament.objects.get(pk=made.json()["id"])
    assert (tournament.sponsor_coins, tournament.organiser_may_play) == (0, False)
    # The service refuses them from anyone but an admin.
    with pytest.raises(NotAllowed) as denied:
        services.tournament_create(organiser=by, name="Gift", variant="gin", sponsor_coins=5)
    assert denied.value.code == "admins_only"
    sponsored = services.tournament_create(
        organiser=admin_organiser(),
        name="Sponsored",
        variant="gin",
        sponsor_coins=500,
        prizes=[{"placement": 1, "coins": 500}],
    )
    assert sponsored.sponsor_coins == 500


def test_the_organiser_form_shows_the_pool_refusal_by_the_prizes(client):
    by = organiser()
    client.force_login(by)
    page = client.post(
        "/tournaments/new/", {**FORM, "prize_0_placement": "1", "prize_0_coins": "1000"}
    )
    assert page.status_code == 200
    assert "prize pool holds 0" in page.content.decode()
    assert not Tournament.objects.exists()


# --- awardable titles and rewards ------------------------------------------------------------


def test_only_awardable_titles_and_rewards_can_be_prizes(api_client, client):
    by = organiser()
    legend = TitleFactory(name="Legend")  # admin-only: not marked awardable
    level_title = TitleFactory(name="Grandmaster", awardable_by_organisers=True)
    LevelFactory(number=20, xp_required=100_000, title=level_title)
    medal = TitleFactory(name="Cup Medal", awardable_by_organisers=True)
    bag = RewardFactory(name="Goodie bag", awardable_by_organisers=True)
    secret = RewardFactory(name="Staff pick")
    level_bag = RewardFactory(name="Shortcut", awardable_by_organisers=True, title=level_title)
    for prize in (
        {"title": legend.pk},
        {"title": level_title.pk},
        {"reward": secret.pk},
        {"reward": level_bag.pk},
    ):
        refused(create(api_client, by, prizes=[{"placement": 1, **prize}]), "not_awardable")
    assert not Tournament.objects.exists()
    fine = create(api_client, by, prizes=[{"placement": 1, "title": medal.pk, "reward": bag.pk}])
    assert fine.status_code == 201, fine.content
    # The form offers only what may be chosen, and refuses the rest as its own error.
    client.force_login(by)
    form = client.get("/tournaments/new/").content.decode()
    assert "Cup Medal" in form and "Goodie bag" in form
    assert "Legend" not in form and "Grandmaster" not in form and "Staff pick" not in form
    page = client.post(
        "/tournaments/new/",
        {**FORM, "prize_0_placement": "1", "prize_0_title": str(legend.pk)},
    )
    assert page.status_code == 200
    assert "prize_0_title" in page.context["form"].errors
    assert Tournament.objects.count() == 1


# --- organisers do not play their own events -----------------------------------------------


def test_an_organiser_cannot_enter_their_own_tournament_unless_an_admin_allows(api_client):
    by = organiser()
    own = PlayerFactory(user=by)
    tournament = open_tournament(by=by)
    response = auth(api_client, own).post(f"/api/tournaments/{tournament.pk}/register/")
    refused(response, "organiser_may_not_play", 403)
    assert not Entry.objects.filter(tournament=tournament).exists()
    Tournament.objects.filter(pk=tournament.pk).update(organiser_may_play=True)  # the admin
    allowed = auth(api_client, own).post(f"/api/tournaments/{tournament.pk}/register/")
    assert allowed.status_code == 201


# --- paying from the pool ------------------------------------------------------------------


def test_a_whole_organiser_tournament_pays_fees_held_less_the_rake(settings):
    settings.KNOCK_TOURNAMENT_RAKE_PERCENT = 10
    players = humans(4, coins=25)
    tournament = open_tournament(
        by=organiser(),
        entry_fee=25,
        max_entries=4,
        show_up_seconds=0,
        seeding="random",
        prizes=[{"placement": 1, "coins": 60}, {"placement": 2, "coins": 30}],
    )
    register_all(tournament, players)
    assert pool_balance(tournament) == 100
    services.tournament_start(tournament_id=tournament.pk)
    assert play_through(tournament).status == Tournament.Status.FINISHED
    paid = CoinEntry.objects.filter(key__startswith=f"tournament:{tournament.pk}:prize")
    assert sorted(paid.values_list("amount", flat=True)) == [30, 60]  # = 100 held - 10 rake
    house = HouseAccount.objects.get(code=HouseAccount.HOUSE)
    assert house.coins == 10
    assert pool_balance(tournament) == 0
    assert (
        sum(p.coins for p in type(players[0]).objects.filter(pk__in=[p.pk for p in players])) == 90
    )
    assert ledger_differences() == []


def test_fewer_entries_than_planned_scale_every_prize_to_the_pool():
    players = humans(2, coins=10)
    tournament = open_tournament(
        entry_fee=10,
        max_entries=8,
        show_up_seconds=0,
        prizes=[{"placement": 1, "coins": 60}, {"placement": 2, "coins": 20}],
    )
    register_all(tournament, players)
    services.tournament_start(tournament_id=tournament.pk)
    assert play_through(tournament).status == Tournament.Status.FINISHED
    paid = CoinEntry.objects.filter(key__startswith=f"tournament:{tournament.pk}:prize")
    assert sorted(paid.values_list("amount", flat=True)) == [5, 15]  # 80 wanted, 20 held
    assert pool_balance(tournament) == 0
    assert ledger_differences() == []


def test_a_prize_the_winner_cannot_hold_finishes_the_tournament_at_the_deadline():
    """Issue 24's wedge: `DataError: integer out of range` in `table_deadline`, rolled
    back and retried by the sweep for good. The prize goes to the house instead."""
    rich, other = humans(2, coins=10)
    gameplay.coins_book(player_id=rich.pk, amount=BALANCE_MAX - 15, reason="test", key="rich")
    tournament = open_tournament(
        entry_fee=10, max_entries=2, seeding="manual", prizes=[{"placement": 1, "coins": 20}]
    )
    register_all(tournament, [rich, other])
    for seed, player in enumerate((rich, other), start=1):
        entry = Entry.objects.get(tournament=tournament, player=player)
        services.entry_set_seed(entry_id=entry.pk, seed=seed, by=None)
    services.tournament_start(tournament_id=tournament.pk)
    final = tournament.tables.get()
    services.table_show_up(table_id=final.pk, player=rich)
    final.refresh_from_db()
    assert services.table_deadline(table_id=final.pk, now=final.deadline + timedelta(seconds=1))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    rich.refresh_from_db()
    assert rich.coins == BALANCE_MAX - 15  # paid the fee; the prize of 20 did not fit
    assert HouseAccount.objects.get(code=HouseAccount.HOUSE).coins == 20
    assert pool_balance(tournament) == 0
    assert ledger_differences() == []


def test_cancelling_refunds_the_pool_to_zero():
    players = humans(3, coins=10)
    by = organiser()
    tournament = open_tournament(by=by, entry_fee=10, max_entries=4)
    register_all(tournament, players)
    services.tournament_cancel(tournament_id=tournament.pk, by=by)
    assert pool_balance(tournament) == 0
    assert all(
        p.coins == 10 for p in type(players[0]).objects.filter(pk__in=[p.pk for p in players])
    )
    assert ledger_differences() == []


def test_a_prize_row_past_the_pool_is_capped_at_the_deadline_not_wedged():
    """The wedge as issue 24 saw it: a prize of 2,147,483,500 coins paid in
    `table_deadline` overflowed the integer column; rolled back, it was retried forever.
    A prize row the admin's inline wrote past the pool is paid from the pool alone."""
    winner, absent = humans(2, coins=10)
    tournament = open_tournament(entry_fee=10, max_entries=2, seeding="manual")
    Prize.objects.create(tournament=tournament, placement=1, coins=2_147_483_500)
    register_all(tournament, [winner, absent])
    for seed, player in enumerate((winner, absent), start=1):
        entry = Entry.objects.get(tournament=tournament, player=player)
        services.entry_set_seed(entry_id=entry.pk, seed=seed, by=None)
    gameplay.coins_book(player_id=winner.pk, amount=200, reason="test", key="savings")
    services.tournament_start(tournament_id=tournament.pk)
    final = tournament.tables.get()
    services.table_show_up(table_id=final.pk, player=winner)
    final.refresh_from_db()
    services.table_deadline(table_id=final.pk, now=final.deadline + timedelta(seconds=1))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    winner.refresh_from_db()
    assert winner.coins == 200 + 20  # the pool: both fees
    assert ledger_differences() == []
