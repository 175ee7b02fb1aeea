"""Numbers, counts and ordinals in the reader's language (gameplay.templatetags.knock):
CLDR's grouping through Babel (India's 1,00,000 in Hindi and en-IN), plurals and
ordinals from the catalogue, never English string tricks."""

import pytest
from django.core.management import call_command
from django.template import Context, Template
from django.utils import translation

from gameplay.templatetags.knock import coins_words, number, ordinal_words


@pytest.fixture(scope="module", autouse=True)
def catalogues():
    call_command("compilemessages", verbosity=0)


@pytest.mark.parametrize(
    ("language", "shown"),
    [("en", "1,234,567"), ("en-in", "12,34,567"), ("hi", "12,34,567")],
)
def test_numbers_are_grouped_as_the_language_groups_them(language, shown):
    with translation.override(language):
        assert number(1234567) == shown


def test_coins_take_the_plural_of_the_language_and_the_indian_grouping():
    with translation.override("en"):
        assert coins_words(1) == "1 coin"
        assert coins_words(100000) == "100,000 coins"
    with translation.override("en-in"):
        assert coins_words(100000) == "1,00,000 coins"
    with translation.override("hi"):
        assert coins_words(1) == "1 कॉइन"
        assert coins_words(100000) == "1,00,000 कॉइन्स"


def test_ordinals_come_from_the_catalogue():
    with translation.override("en"):
        assert [ordinal_words(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101)] == [
            "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st",
        ]  # fmt: skip
    with translation.override("hi"):
        assert ordinal_words(4) == "4वाँ"


def test_the_coins_tag_reads_grouped_on_a_page():
    with translation.override("hi"):
        html = Template("{% load knock %}{% coins 250000 %}").render(Context())
    assert html == "2,50,000 कॉइन्स"


@pytest.mark.django_db
def test_the_api_says_its_message_in_the_clients_language_and_keeps_its_code(api_client):
    ok = {"username": "bob", "password": "a-long-passphrase"}
    assert api_client.post("/api/auth/register/", ok, format="json").status_code == 201
    english = api_client.post("/api/auth/register/", ok, format="json")
    hindi = api_client.post("/api/auth/register/", ok, format="json", HTTP_ACCEPT_LANGUAGE="hi")
    assert english.status_code == hindi.status_code == 409
    assert english.json()["error"]["code"] == hindi.json()["error"]["code"] == "username_taken"
    assert english.json()["error"]["message"] == "That username is taken."
    assert hindi.json()["error"]["message"] == "यह यूज़रनेम पहले से लिया जा चुका है।"
    assert hindi["Content-Language"] == "hi"
