"""A name that looks like a player's name is refused (UTS #39's confusables skeleton), on
the API, the site and the admin, and two look-alikes racing each other cannot both land."""

import importlib

import pytest
from django.contrib.auth import get_user_model
from django.db import connections

from config.errors import Conflict
from gameplay import services
from gameplay.models import Player
from gameplay.usernames import skeleton
from tests.concurrency import at_once

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-passphrase"
CYRILLIC_A = "\u0430"


def register(client, username: str):
    return client.post(
        "/api/auth/register/", {"username": username, "password": PASSWORD}, format="json"
    )


@pytest.mark.parametrize(
    ("taken", "look_alike"),
    [
        ("paypal", f"p{CYRILLIC_A}ypal"),  # one Cyrillic letter among Latin ones
        ("ada", f"{CYRILLIC_A}d{CYRILLIC_A}"),  # a whole name of look-alike letters
        ("kamal", "kama1"),  # a digit one for a letter l
        ("Bob", "\u13f4ob"),  # Cherokee letter BE
        ("anil", "ANI1"),  # case and a look-alike at once
    ],
)
def test_a_name_that_looks_like_a_taken_one_is_refused_and_nothing_is_made(
    api_client, taken, look_alike
):
    assert register(api_client, taken).status_code == 201
    refused = register(api_client, look_alike)
    assert refused.status_code == 409, refused.json()
    error = refused.json()["error"]
    assert error["code"] == "username_confusable"
    assert taken in error["message"]
    assert get_user_model().objects.count() == 1


@pytest.mark.parametrize(
    ("first", "second"),
    [("राम", "रामा"), ("José", "Jose"), ("प्रिया", "प्रियां"), ("முருகன்", "முருகா")],
)
def test_names_that_differ_visibly_are_both_accepted(api_client, first, second):
    assert register(api_client, first).status_code == 201
    assert register(api_client, second).status_code == 201, register(api_client, second).json()


def test_the_sign_up_page_says_so_at_the_username(client):
    services.player_register(username="paypal", password=PASSWORD)
    response = client.post(
        "/accounts/signup/",
        {"username": f"p{CYRILLIC_A}ypal", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 200
    assert response.context["form"].errors["username"] == [
        "That username looks too much like paypal, a player's name already."
    ]


def test_admins_cannot_create_or_rename_to_a_look_alike_and_a_rename_moves_the_skeleton(
    admin_client,
):
    services.player_register(username="paypal", password=PASSWORD)
    form = {"username": f"p{CYRILLIC_A}ypal", "password1": PASSWORD, "password2": PASSWORD}
    response = admin_client.post("/admin/auth/user/add/", form)
    assert "looks too much like paypal" in response.content.decode()
    bob = services.player_register(username="bob", password=PASSWORD)
    url = f"/admin/auth/user/{bob.user.pk}/change/"
    change = {
        "username": "PAYPA1",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
        "is_active": "on",
    }
    assert "looks too much like paypal" in admin_client.post(url, change).content.decode()
    change["username"] = "robert"
    assert admin_client.post(url, change).status_code == 302
    bob.refresh_from_db()
    assert bob.name_skeleton == skeleton("robert")
    assert register(admin_client, "rob" + "ert".upper()).status_code == 409  # the new name
    services.refuse_look_alike(skeleton("bob"))  # the old one is free again


def test_the_migration_gives_existing_players_their_skeletons():
    ada = services.player_register(username="ada", password=PASSWORD)
    Player.objects.filter(pk=ada.pk).update(name_skeleton="")
    migration = importlib.import_module("gameplay.migrations.0020_player_name_skeleton")
    from django.apps import apps

    migration.fill_skeletons(apps, None)
    ada.refresh_from_db()
    assert ada.name_skeleton == "ada"
    with pytest.raises(Conflict):
        services.refuse_look_alike(skeleton(f"{CYRILLIC_A}da"))


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_look_alikes_signing_up_at_once_leave_one_account():
    names = ["paypal", f"p{CYRILLIC_A}ypal", "PAYPA1", f"p{CYRILLIC_A}yp{CYRILLIC_A}l"]
    for _ in range(3):
        results = at_once(
            *[lambda n=n: services.player_register(username=n, password=PASSWORD) for n in names],
            refusals=(Conflict,),
        )
        made = [r for r in results if isinstance(r, Player)]
        assert len(made) == 1, results
        assert all(r.code == "username_confusable" for r in results if isinstance(r, Conflict))
        get_user_model().objects.all().delete()
    connections.close_all()
