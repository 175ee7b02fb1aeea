"""Django admin for gameplay: every page loads, and the actions go through the services."""

import re

import pytest
from django.contrib import admin
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from gameplay import services
from gameplay.models import (
    BALANCE_MAX,
    CoinEntry,
    FairPlaySignal,
    HouseAccount,
    Match,
    PlayerTitle,
    RewardGrant,
    Room,
)
from tests.factories import (
    AchievementFactory,
    LevelFactory,
    PlayerFactory,
    RewardFactory,
    RoomFactory,
    TitleFactory,
)

pytestmark = pytest.mark.django_db


def finished_match() -> Match:
    """A real bot match, played and finalized through the services."""
    bots = services.bot_players(kind="greedy", count=2)
    match = services.match_create(variant="gin", options={"target": 10}, players=bots)
    services.match_play_bots(match_id=match.pk)
    assert services.match_finalize(match_id=match.pk)
    match.refresh_from_db()
    return match


@pytest.fixture
def gameplay_rows():
    """At least one row of every model the admin shows, so change pages load too."""
    LevelFactory(number=1, xp_required=0)
    LevelFactory(number=2, xp_required=20, title=TitleFactory())
    AchievementFactory(reward=RewardFactory(coins=5))
    RoomFactory()
    player = PlayerFactory()
    services.api_token_create(user=player.user, name="bot")
    services.house_book(account=HouseAccount.HOUSE, amount=5, reason="rake", key="rake")
    match = finished_match()
    FairPlaySignal.objects.create(
        kind=FairPlaySignal.Kind.EXPERT_AGREEMENT,
        player=player,
        evidence={"decisions": 200, "agreements": 200},
        matches=[match.pk],
        updated_at=timezone.now(),
    )
    return match


def gameplay_admins():
    return [
        (model, model_admin)
        for model, model_admin in admin.site._registry.items()
        if model._meta.app_label == "gameplay"
    ]


def test_every_gameplay_admin_page_loads(admin_client, admin_user, rf, gameplay_rows):
    registered = {model.__name__ for model, _ in gameplay_admins()}
    assert {"Player", "Level", "Room", "Title", "Achievement", "Reward", "Match", "Rating"} <= (
        registered
    )
    request = rf.get("/")
    request.user = admin_user
    for model, model_admin in gameplay_admins():
        info = model._meta.app_label, model._meta.model_name
        changelist = reverse("admin:{}_{}_changelist".format(*info))
        assert admin_client.get(changelist).status_code == 200, changelist
        if model_admin.search_fields:
            assert admin_client.get(changelist, {"q": "bot"}).status_code == 200, changelist
        add = admin_client.get(reverse("admin:{}_{}_add".format(*info)))
        expected = 200 if model_admin.has_add_permission(request) else 403
        assert add.status_code == expected, (model.__name__, add.status_code)
        row = model.objects.order_by("pk").first()
        assert row is not None, f"no {model.__name__} row to open"
        change = admin_client.get(reverse("admin:{}_{}_change".format(*info), args=[row.pk]))
        assert change.status_code == 200, model.__name__


def test_match_admin_is_read_only_and_shows_the_move_log(admin_client, gameplay_rows):
    match = gameplay_rows
    url = reverse("admin:gameplay_match_change", args=[match.pk])
    page = admin_client.get(url).content.decode()
    assert "move log" in page.lower()
    assert match.seed in page  # revealed: the match is over
    assert 'name="_save"' not in page
    assert admin_client.post(url, {}).status_code == 403


def test_an_active_match_keeps_its_seed_secret_in_admin(admin_client):
    bots = services.bot_players(kind="greedy", count=2)
    match = services.match_create(variant="gin", options={}, players=bots)
    page = admin_client.get(reverse("admin:gameplay_match_change", args=[match.pk]))
    assert match.seed not in page.content.decode()
    assert "secret until the match ends" in page.content.decode()


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def grant_form(admin_client, players):
    changelist = reverse("admin:gameplay_player_changelist")
    selected = [player.pk for player in players]
    form = admin_client.post(changelist, {"action": "grant_reward", "_selected_action": selected})
    assert form.status_code == 200
    assert b"Grant reward" in form.content
    return changelist, selected, form.context["form"]["grant_id"].value()


def test_grant_reward_action_grants_through_the_service_once(admin_client, admin_user):
    title = TitleFactory(name="Patron")
    reward = RewardFactory(name="Gift", coins=40, title=title)
    ada, bob = PlayerFactory(), PlayerFactory()
    changelist, selected, grant_id = grant_form(admin_client, [ada, bob])
    submit = {
        "action": "grant_reward",
        "_selected_action": selected,
        "apply": "Grant reward",
        "reward": reward.pk,
        "reason": "Community event",
        "grant_id": grant_id,
    }
    done = admin_client.post(changelist, submit, follow=True)
    assert done.redirect_chain == [(changelist, 302)]
    assert messages_of(done) == ["Granted Gift to 2 player(s)."]
    for player in (ada, bob):
        player.refresh_from_db()
        assert player.coins == 40
        grant = RewardGrant.objects.get(player=player)
        assert grant.key == f"admin:{admin_user.pk}:{grant_id.replace('-', '')}"
        assert grant.reason == "Community event"
        assert PlayerTitle.objects.filter(player=player, title=title).exists()
        assert CoinEntry.objects.get(player=player).reason == "Community event"

    again = admin_client.post(changelist, submit, follow=True)  # the same form, twice
    assert messages_of(again) == ["Granted Gift to 0 player(s); 2 already had this grant."]
    assert RewardGrant.objects.count() == 2
    ada.refresh_from_db()
    assert ada.coins == 40

    _, _, fresh_id = grant_form(admin_client, [ada])  # a new form is a new grant
    admin_client.post(changelist, {**submit, "_selected_action": [ada.pk], "grant_id": fresh_id})
    ada.refresh_from_db()
    assert ada.coins == 80


def test_grant_reward_past_a_full_balance_is_refused_by_name_not_a_500(admin_client):
    reward = RewardFactory(name="Gift", coins=40)
    full, other = PlayerFactory(), PlayerFactory()
    services.coins_book(player_id=full.pk, amount=BALANCE_MAX - 1, reason="test", key="full")
    changelist, selected, grant_id = grant_form(admin_client, [full, other])
    submit = {
        "action": "grant_reward",
        "_selected_action": selected,
        "apply": "Grant reward",
        "reward": reward.pk,
        "reason": "Community event",
        "grant_id": grant_id,
    }
    done = admin_client.post(changelist, submit, follow=True)
    assert sorted(messages_of(done)) == [
        "Granted Gift to 1 player(s).",
        "Not granted to 1 player(s) whose balance it would overflow.",
    ]
    full.refresh_from_db()
    assert full.coins == BALANCE_MAX - 1 and not RewardGrant.objects.filter(player=full).exists()
    assert RewardGrant.objects.filter(player=other).exists()


def test_grant_reward_form_needs_a_reward(admin_client):
    player = PlayerFactory()
    changelist, selected, grant_id = grant_form(admin_client, [player])
    response = admin_client.post(
        changelist,
        {
            "action": "grant_reward",
            "_selected_action": selected,
            "apply": "Grant reward",
            "reason": "x",
            "grant_id": grant_id,
        },
    )
    assert response.status_code == 200
    assert response.context["form"].errors["reward"]
    assert not RewardGrant.objects.exists()


def test_reverify_action_reports_each_match(admin_client, gameplay_rows):
    good = gameplay_rows
    bad = finished_match()
    tampered = {**bad.result, "scores": [score + 1 for score in bad.result["scores"]]}
    Match.objects.filter(pk=bad.pk).update(result=tampered)
    active = services.match_create(
        variant="gin", options={}, players=services.bot_players(kind="greedy", count=2)
    )
    response = admin_client.post(
        reverse("admin:gameplay_match_changelist"),
        {"action": "reverify", "_selected_action": [good.pk, bad.pk, active.pk]},
        follow=True,
    )
    messages = {m.message: m.level_tag for m in get_messages(response.wsgi_request)}
    assert messages == {
        f"Match {good.pk}: the replay reproduces the stored result.": "success",
        f"Match {bad.pk}: replayed result differs from the stored result": "error",
        f"Match {active.pk} is still being played.": "warning",
    }
    bad.refresh_from_db()
    assert bad.status == Match.Status.FINISHED  # reporting only: nothing is rewritten


def room_data(**changes):
    data = {
        "name": "New room",
        "variant": "gin",
        "seats": 2,
        "min_level": 1,
        "entry_fee": 0,
        "turn_seconds": 60,
        "max_timeouts": 3,
        "bots_allowed": "on",
        "bot_pause_ms": 1000,
        "claim_seconds": 3,
        "max_tables_per_player": 1,
        "active": "on",
    }
    return data | changes


def test_room_admin_checks_the_room_against_the_engine(admin_client):
    add = reverse("admin:gameplay_room_add")
    bad_seats = admin_client.post(add, room_data(seats=3))
    assert "gin needs 2 to 2 players" in bad_seats.context["adminform"].form.errors["seats"][0]
    # Options are fields from the engine's metadata, with its ranges and help: no JSON.
    form = admin_client.get(add).context["adminform"].form
    assert "options" not in form.fields
    target = form.fields["opt_gin_target"]
    assert (target.min_value, target.max_value) == (1, 10000)
    assert "match ends when a player reaches this" in target.help_text.lower()
    scoring = form.fields["opt_basic_scoring"]
    assert scoring.choices == [("winner", "winner"), ("penalty", "penalty")]
    out_of_range = admin_client.post(add, room_data(opt_gin_knock_limit=11))
    assert "opt_gin_knock_limit" in out_of_range.context["adminform"].form.errors
    assert not Room.objects.exists()
    # Only the chosen game's options count; an empty one is the game's default.
    chosen = room_data(opt_gin_target=50, opt_basic_jokers=2)
    assert admin_client.post(add, chosen).status_code == 302
    room = Room.objects.get()
    assert room.options["target"] == 50 and "jokers" not in room.options
    change = reverse("admin:gameplay_room_change", args=[room.pk])
    assert admin_client.get(change).context["adminform"].form.initial["opt_gin_target"] == 50
    dummy = room_data(name="Dummy four", variant="dummy", seats=4, claim_seconds=5)
    assert admin_client.post(add, dummy).status_code == 302
    assert Room.objects.get(name="Dummy four").claim_seconds == 5


def test_room_changelist_edits_level_and_active_in_place(admin_client):
    room = RoomFactory(min_level=1, active=True)
    response = admin_client.post(
        reverse("admin:gameplay_room_changelist"),
        {
            "form-TOTAL_FORMS": 1,
            "form-INITIAL_FORMS": 1,
            "form-0-id": room.pk,
            "form-0-min_level": 4,
            "_save": "Save",
        },
    )
    assert response.status_code == 302
    room.refresh_from_db()
    assert (room.min_level, room.active) == (4, False)


@pytest.mark.django_db(transaction=True)
def test_the_same_grant_sent_twice_at_once_grants_once(admin_user):
    """Two submissions of one grant form at the same instant (a double click on a slow
    page): PostgreSQL's row lock lets one grant and the other find it granted."""
    from django.test import Client

    from gameplay.models import XpEntry
    from tests.concurrency import at_once

    reward = RewardFactory(name="Bonus", coins=25, xp=30)
    ada, bob = PlayerFactory(), PlayerFactory()
    clients = [Client(), Client()]
    for client in clients:
        client.force_login(admin_user)
    changelist, selected, grant_id = grant_form(clients[0], [ada, bob])
    submit = {
        "action": "grant_reward",
        "_selected_action": selected,
        "apply": "Grant reward",
        "reward": reward.pk,
        "reason": "Launch party",
        "grant_id": grant_id,
    }
    answers = at_once(*(lambda c=c: c.post(changelist, submit, follow=True) for c in clients))
    said = [message for answer in answers for message in messages_of(answer)]
    # The two requests may each take a player first: between them, each player once.
    granted = [int(re.match(r"Granted Bonus to (\d+) player", m).group(1)) for m in said]
    assert sum(granted) == 2, said
    assert RewardGrant.objects.count() == 2
    for player in (ada, bob):
        player.refresh_from_db()
        assert player.coins == 25
        assert CoinEntry.objects.filter(player=player).count() == 1
        assert XpEntry.objects.filter(player=player).count() == 1
