"""Usernames are NFKC-normalised, unique whatever their case, visible, and not the bots'."""

import unicodedata

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from gameplay import services
from gameplay.usernames import UsernameError, normalize_username

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-passphrase"


def register(client, username: str):
    return client.post(
        "/api/auth/register/", {"username": username, "password": PASSWORD}, format="json"
    )


def test_names_differing_only_in_case_are_one_name(api_client):
    assert register(api_client, "Alice").status_code == 201
    taken = register(api_client, "alice")
    assert taken.status_code == 409
    assert taken.json()["error"]["code"] == "username_taken"


def test_compatibility_forms_are_the_name_they_look_like(api_client):
    created = register(api_client, "\uff21lice")  # a fullwidth A
    assert created.status_code == 201
    assert created.json()["username"] == "Alice"
    assert register(api_client, "ALICE").status_code == 409
    assert normalize_username(" \ufb01sh ") == "fish"  # the fi ligature, trimmed


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("ali\u200bce", "U+200B"),  # zero-width space
        ("ali\u200dce", "U+200D"),  # zero-width joiner
        ("\ufeffalice", "U+FEFF"),  # byte order mark
        ("alice\u202egnp.exe", "U+202E"),  # right-to-left override
        ("ali\u2066ce", "U+2066"),  # left-to-right isolate
        ("ali\x07ce", "U+0007"),
        ("ali\nce", "U+000A"),
    ],
)
def test_invisible_direction_and_control_characters_are_refused_by_name(api_client, name, found):
    response = register(api_client, name)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_username"
    assert "invisible" in error["message"] and found in error["message"]
    assert not get_user_model().objects.exists()


@pytest.mark.parametrize("name", ["ali ce", "alice!", "<alice>", "al/ice"])
def test_other_punctuation_is_refused_with_the_rule(api_client, name):
    response = register(api_client, name)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_username"
    assert "letters, digits" in error["message"]


@pytest.mark.parametrize("name", ["bot-greedy-1", "Bot-Expert-12", "\uff42ot-greedy-3"])
def test_the_bots_names_are_kept_for_the_bots(api_client, name):
    response = register(api_client, name)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "reserved_username"


def test_names_outside_the_bots_pattern_are_fine(api_client):
    for name in ("botany", "bot-lover", "robot-1", "über_spieler", "ana.maria+1@x"):
        assert register(api_client, name).status_code == 201, name


def test_null_characters_are_refused_before_the_name_is_read(api_client):
    response = register(api_client, "ali\x00ce")
    assert response.status_code == 400
    assert "username" in response.json()["error"]["details"]
    with pytest.raises(UsernameError, match="U\\+0000"):
        normalize_username("ali\x00ce")


def test_too_long_a_name_after_normalising_is_refused(api_client):
    response = register(api_client, "\u3392" * 60)  # 60 characters, NFKC spells each "MHz"
    assert response.status_code == 400
    assert "at most 150" in response.json()["error"]["message"]


def test_the_database_refuses_a_second_name_in_another_case():
    services.player_register(username="Bob", password=PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.create(username="bOB")


@pytest.mark.django_db(transaction=True)
def test_the_migration_renames_later_accounts_whose_names_differ_only_in_case(capsys):
    before, after = (
        ("gameplay", "0003_move_log_text"),
        (
            "gameplay",
            "0004_username_unique_ignoring_case",
        ),
    )
    executor = MigrationExecutor(connection)
    executor.migrate([before])
    try:
        old = executor.loader.project_state([before]).apps.get_model("auth", "User")
        first = old.objects.create(username="Alice")
        second = old.objects.create(username="alice")
        third = old.objects.create(username="ALICE")
        squatter = old.objects.create(username=f"alice-{second.pk}")
        other = old.objects.create(username="bob")
        executor = MigrationExecutor(connection)
        executor.migrate([after])
        names = dict(get_user_model().objects.values_list("pk", "username"))
    finally:
        # Back to the latest schema, whatever migrations came after this one: later tests
        # share the database.
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert names[first.pk] == "Alice"
    assert names[second.pk] == f"alice-{second.pk}-2"
    assert names[third.pk] == f"ALICE-{third.pk}"
    assert names[squatter.pk] == f"alice-{second.pk}"
    assert names[other.pk] == "bob"
    assert f"now 'ALICE-{third.pk}'" in capsys.readouterr().out


@pytest.mark.parametrize("typed", ["alice", "ALICE", "\uff21lice"])
def test_signing_in_takes_the_name_in_any_case_or_compatibility_form(api_client, client, typed):
    register(api_client, "Alice")
    token = api_client.post("/api/auth/token/", {"username": typed, "password": PASSWORD})
    assert token.status_code == 200 and token.json()["token"]
    page = client.post("/accounts/login/", {"username": typed, "password": PASSWORD})
    assert page.status_code == 302
    assert client.get("/api/me/").json()["display_name"] == "Alice"


def test_a_wrong_password_is_refused_whatever_the_case(api_client):
    register(api_client, "Alice")
    response = api_client.post("/api/auth/token/", {"username": "alice", "password": "nope"})
    assert response.status_code == 400


def admin_user_form(admin_client, url: str, username: str):
    return admin_client.post(
        url, {"username": username, "password1": PASSWORD, "password2": PASSWORD}
    )


@pytest.mark.parametrize(
    ("name", "message"),
    [("alice", "That username is taken."), ("ali\u200bce", "U+200B"), ("bot-greedy-9", "bots")],
)
def test_admins_creating_an_account_obey_the_username_rules(admin_client, name, message):
    services.player_register(username="Alice", password=PASSWORD)
    response = admin_user_form(admin_client, "/admin/auth/user/add/", name)
    assert response.status_code == 200  # the form again, with the error
    assert message in response.content.decode()
    assert get_user_model().objects.count() == 2  # Alice and the admin


def test_admins_renaming_an_account_obey_the_username_rules(admin_client):
    services.player_register(username="Alice", password=PASSWORD)
    bob = services.player_register(username="Bob", password=PASSWORD).user
    url = f"/admin/auth/user/{bob.pk}/change/"
    form = {
        "username": "ALICE",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
        "is_active": "on",
    }
    assert "That username is taken." in admin_client.post(url, form).content.decode()
    form["username"] = "\uff42ob"  # Bob keeps his own name in another form: allowed
    assert admin_client.post(url, form).status_code == 302
    bob.refresh_from_db()
    assert bob.username == "bob"


# Names that need combining marks (vowel signs, virama), as Indian names in their own
# scripts do: Devanagari, Tamil, Bengali, Telugu; and names written with none.
NAMES_WITH_MARKS = ["राम", "राहुल", "प्रिया", "முருகன்", "সৌরভ", "శ్రీనివాస్", "कमल", "José", "王伟"]


@pytest.mark.parametrize("name", NAMES_WITH_MARKS)
def test_names_of_every_script_with_their_combining_marks_are_accepted(api_client, name):
    response = register(api_client, name)
    assert response.status_code == 201, response.json()
    assert response.json()["username"] == unicodedata.normalize("NFKC", name)


@pytest.mark.parametrize("name", ["\u093e", "\u0301abc", "a.\u0301b"])
def test_a_combining_mark_must_follow_a_letter_or_digit(api_client, name):
    response = register(api_client, name)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_username"


def test_the_site_and_the_admin_take_a_devanagari_name(client, admin_client):
    response = client.post(
        "/accounts/signup/",
        {"username": "राहुल", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert admin_user_form(admin_client, "/admin/auth/user/add/", "प्रिया").status_code == 302
    assert set(get_user_model().objects.values_list("username", flat=True)) >= {"राहुल", "प्रिया"}
