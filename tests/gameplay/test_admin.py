"""Django admin for gameplay: every page loads, and the actions go through the services."""

import re

import pytest
from django.contrib import admin
from django.contrib.messages import get_messages
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from gameplay import services
from gameplay.models import (
    BALANCE_MAX,
    CoinEntry,
    FairPlaySignal,
    HouseAccount,
    Level,
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
    assert messages_of(done) == ["Granted Gift to 2 players."]
    for player in (ada, bob):
        player.refresh_from_db()
        assert player.coins == 40
        grant = RewardGrant.objects.get(player=player)
        assert grant.key == f"admin:{admin_user.pk}:{grant_id.replace('-', '')}"
        assert grant.reason == "Community event"
        assert PlayerTitle.objects.filter(player=player, title=title).exists()
        assert CoinEntry.objects.get(player=player).reason == "Community event"

    again = admin_client.post(changelist, submit, follow=True)  # the same form, twice
    assert messages_of(again) == ["Granted Gift to 0 players; 2 already had this grant."]
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
        "Granted Gift to 1 player.",
        "Not granted to 1 player whose balance it would overflow.",
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


@pytest.fixture(scope="module")
def catalogues():
    call_command("compilemessages", verbosity=0)


def test_an_admin_reading_hindi_sees_the_actions_and_their_results_in_hindi(
    admin_client, catalogues
):
    players = PlayerFactory.create_batch(3)
    changelist = reverse("admin:gameplay_player_changelist")
    hindi = {"HTTP_ACCEPT_LANGUAGE": "hi"}
    page = admin_client.get(changelist, **hindi).content.decode()
    assert "चुने गए खिलाड़ियों को फ़ेयर-प्ले जाँच के लिए चिह्नित करें" in page
    assert "Mark the selected players for a fair-play review" not in page
    marked = admin_client.post(
        changelist,
        {"action": "mark_for_review", "_selected_action": [p.pk for p in players]},
        follow=True,
        **hindi,
    )
    assert messages_of(marked) == ["3 खिलाड़ियों को चिह्नित किया गया।"]
    assert "3 खिलाड़ियों को चिह्नित किया गया।" in marked.content.decode()
    # English, and one player: the singular, not "player(s)".
    english = admin_client.post(
        changelist,
        {"action": "clear_mark", "_selected_action": [players[0].pk]},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert messages_of(english) == ["Cleared 1 mark."]
    assert "Clear the fair-play mark of the selected players" in english.content.decode()


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


# --- the admin answers no question about a secret (issue 24) ----------------------------

# Fields whose names sound secret but are public: client seeds (published from the start),
# idempotency keys, a draw's seeding method and entry numbers, axes' hashed session keys.
PUBLIC_LOOKALIKES = {
    "auth.user.last_login",
    "axes.accessattempt.get_data",
    "axes.accessattempt.post_data",
    "axes.accesslog.logout_time",
    "axes.accesslog.session_hash",
    "gameplay.player.client_seed",
    "gameplay.coinentry.key",
    "gameplay.xpentry.key",
    "gameplay.houseentry.key",
    "gameplay.rewardgrant.key",
    "gameplay.match.client_seeds",
    "gameplay.queueentry.client_seed",
    "tournaments.tournament.seeding",
    "tournaments.entry.manual_seed",
    "tournaments.entry.seed",
    "tournaments.tableseat.seed",
    "tournaments.tableseat.client_seed",
    "tournaments.webhookdelivery.key",  # what an event is about ("match:812"), shown
}
LOOKUPS = ["", "__lt", "__gte", "__startswith", "__contains", "__regex", "__isnull"]


def test_every_field_that_sounds_secret_is_declared_secret_or_known_public():
    """A new seed, state, log, key or token field is a decision, not an accident."""
    import re

    from django.apps import apps

    from config.admin_guard import secret_fields

    sounds_secret = re.compile(r"seed|state|log|secret|key|token|password|hash|session|data")
    undecided = [
        f"{model._meta.label_lower}.{field.name}"
        for model in apps.get_models()
        for field in model._meta.get_fields()
        if not field.is_relation
        and sounds_secret.search(field.name)
        and field.name not in secret_fields(model)
        and f"{model._meta.label_lower}.{field.name}" not in PUBLIC_LOOKALIKES
    ]
    assert undecided == []
    assert secret_fields(Match) == {"seed", "seat_seeds", "state", "log"}


def secret_paths(model, depth: int = 2, prefix: str = "") -> list[str]:
    """Every lookup path from the model to a secret field, through up to `depth` relations
    (forward and reverse)."""
    from config.admin_guard import secret_fields

    paths = [prefix + name for name in sorted(secret_fields(model))]
    if depth:
        for field in model._meta.get_fields():
            if field.is_relation and field.related_model is not None:
                paths += secret_paths(field.related_model, depth - 1, f"{prefix}{field.name}__")
    return paths


@pytest.fixture
def secrets_in_play(admin_user):
    """A running match with a person seated, her next seed, a tournament before its draw
    and an API token: every kind of secret, with rows a filter on it would pick out."""
    from gameplay.models import Player
    from tests.tournaments.helpers import open_tournament
    from tournaments.models import Tournament

    person = PlayerFactory()
    match = services.match_create(
        variant="gin", options={}, players=[person, *services.bot_players(kind="greedy", count=1)]
    )
    finished_match()
    tournament = open_tournament(seeding="random")
    token, key = services.api_token_create(user=person.user, name="phone")
    match.refresh_from_db()
    person = Player.objects.get(pk=person.pk)
    tournament = Tournament.objects.get(pk=tournament.pk)
    assert match.status == Match.Status.ACTIVE and match.seat_seeds and tournament.seed
    return [
        match.seed,
        *(seed for seed in match.seat_seeds if seed),
        person.next_seed,
        tournament.seed,
        key,
        token.digest,
        token.password_stamp,
        admin_user.password,
    ]


def listed(response) -> list:
    return [row.pk for row in response.context["cl"].result_list]


def test_no_changelist_filters_searches_or_orders_by_a_secret(admin_client, secrets_in_play):
    """Every registered admin (the libraries' too), every path to a secret field, direct
    and through relations, with several lookups: 400, never an answer."""
    from config.admin_guard import SecretGuard, reaches_secret

    seed = secrets_in_play[0]
    checked = 0
    for model, model_admin in admin.site._registry.items():
        assert isinstance(model_admin, SecretGuard), model
        changelist = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        unfiltered = admin_client.get(changelist)
        assert unfiltered.status_code == 200, changelist
        for path in secret_paths(model):
            for lookup in LOOKUPS if "__" not in path else ["__lt", "__startswith", "__isnull"]:
                value = "0" if lookup == "__isnull" else seed[:1]
                answer = admin_client.get(changelist, {path + lookup: value})
                assert answer.status_code == 400 or listed(answer) == listed(unfiltered), (
                    changelist,
                    path + lookup,
                )
                checked += 1
        for path in secret_paths(model, depth=0):
            assert admin_client.get(changelist, {"_to_field": path}).status_code == 400
        columns = unfiltered.context["cl"].list_display
        for index, column in enumerate(columns):
            ordered = admin_client.get(changelist, {"o": str(index)})
            assert ordered.status_code == 200, (changelist, column)
            cl = ordered.context["cl"]
            assert not any(
                reaches_secret(model, str(item))
                for item in cl.get_ordering(ordered.wsgi_request, cl.root_queryset)
            ), (changelist, column)
        # A search for the secret itself finds what a search for nonsense finds.
        if model_admin.get_search_fields(unfiltered.wsgi_request):
            for secret in secrets_in_play:
                found = admin_client.get(changelist, {"q": secret})
                assert listed(found) == listed(admin_client.get(changelist, {"q": "f" * 64}))
        assert admin_client.get(changelist, {"_facets": "1"}).status_code == 200
        page = unfiltered.content.decode()
        assert not any(secret in page for secret in secrets_in_play), changelist
    assert checked > 300


def test_the_running_matchs_change_form_and_history_show_no_secret(admin_client, secrets_in_play):
    match = Match.objects.get(status=Match.Status.ACTIVE)
    person = match.seats.get(player__is_bot=False).player
    from tournaments.models import Tournament

    tournament = Tournament.objects.get()
    pages = [
        reverse("admin:gameplay_match_change", args=[match.pk]),
        reverse("admin:gameplay_match_history", args=[match.pk]),
        reverse("admin:gameplay_player_change", args=[person.pk]),
        reverse("admin:gameplay_player_history", args=[person.pk]),
        reverse("admin:tournaments_tournament_change", args=[tournament.pk]),
        reverse("admin:tournaments_tournament_history", args=[tournament.pk]),
        reverse("admin:gameplay_apitoken_changelist"),
    ]
    for url in pages:
        answer = admin_client.get(url)
        assert answer.status_code == 200, url
        assert not any(secret in answer.content.decode() for secret in secrets_in_play), url
    shown = admin_client.get(pages[0]).content.decode()
    assert shown.count("secret until the match ends") == 2  # the seed and the move log
    form = admin_client.get(pages[4]).context["adminform"].form
    assert "seed" not in form.fields


# --- levels: XP strictly rising, and players follow a change (issue 27) ----------------


def level_form(admin_client, number: int, xp: int, pk: int | None = None):
    url = (
        reverse("admin:gameplay_level_change", args=[pk])
        if pk
        else reverse("admin:gameplay_level_add")
    )
    return admin_client.post(url, {"number": number, "xp_required": xp, "title": ""})


def test_a_level_needing_less_xp_than_the_one_below_is_refused(admin_client):
    for number in (1, 2, 3):
        LevelFactory(number=number)  # 0, 100, 200 XP
    player = PlayerFactory(xp=150, level=2)
    response = level_form(admin_client, 4, 50)
    assert (
        response.status_code == 200 and "more XP than level 3 (200)." in response.content.decode()
    )
    between = level_form(admin_client, 5, 200)  # not above level 3's either
    assert between.status_code == 200
    player.refresh_from_db()
    assert player.level == 2 and not Level.objects.filter(number__gte=4).exists()


def test_players_follow_a_change_or_removal_of_levels(admin_client):
    *_, three = (LevelFactory(number=n) for n in (1, 2, 3))  # 0, 100, 200 XP
    player = PlayerFactory(xp=150, level=2)
    assert level_form(admin_client, 3, 140, pk=three.pk).status_code == 302
    player.refresh_from_db()
    assert player.level == 3  # 150 XP now reaches level 3
    admin_client.post(reverse("admin:gameplay_level_delete", args=[three.pk]), {"post": "yes"})
    player.refresh_from_db()
    assert player.level == 2
