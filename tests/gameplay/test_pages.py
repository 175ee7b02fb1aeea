"""The lobby and the player profile: in Chromium, and with their query counts pinned."""

import re
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from engine import variants
from gameplay import games, profile, services
from gameplay.models import Match, Seat
from gameplay.views import line_chart
from tests.factories import (
    AchievementFactory,
    LevelFactory,
    PlayerFactory,
    RoomFactory,
    TitleFactory,
)

SECTION_TEMPLATES = Path(__file__).parent / "page_templates"
# Today's counts for a signed-in viewer (session and user are two of them), without other
# apps' profile sections; they must not grow with the rows shown, or a query is in a loop.
# The lobby: + the table the player sits at, + their place in a queue, + its live games
# (matches, their seats, the tournaments naming them: selectors.live_games).
LOBBY_MAX_QUERIES = 9
PROFILE_MAX_QUERIES = 12


def play_match(player, opponent, seed: str, target: int = 10) -> Match:
    """A real match to the end through the services; the human moves as the greedy bot."""
    match = services.match_create(
        variant="gin", options={"target": target}, players=[player, opponent], seed=seed
    )
    while True:
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            return match
        seat = Seat.objects.get(match=match, index=match.to_move)
        action = variants.get("gin").bot_action(games.load(match), seat.index, bot="greedy")
        services.match_act(match_id=match.pk, player=player, seq=match.seq, action=action)


def progression():
    """Levels 1-3 (level 2 grants a title) and achievements: one unlocked by a first
    match, one far off, one hidden."""
    LevelFactory(number=1, xp_required=0)
    LevelFactory(number=2, xp_required=10, title=TitleFactory(name="Apprentice"))
    LevelFactory(number=3, xp_required=5000)
    AchievementFactory(name="First Deal", metric="matches_played", threshold=1)
    AchievementFactory(name="Veteran", metric="matches_played", threshold=100)
    AchievementFactory(name="Secret Thing", metric="matches_played", threshold=50, hidden=True)


MUTED = "rgb(95, 102, 115)"  # --muted, #5f6673 (static/site/site.css)


def lobby_rooms():
    RoomFactory(name="Beginners", min_level=1)
    RoomFactory(name="Club", min_level=3, entry_fee=25)
    RoomFactory(name="Masters", min_level=10)
    RoomFactory(name="Closed", min_level=1, active=False)


# --- in the browser --------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_lobby_shows_open_and_locked_rooms_for_the_player(page, login):
    lobby_rooms()
    PlayerFactory(user__username="ada", level=3, coins=100)  # enough for the Club's fee
    login("ada")
    page.goto("/rooms/")
    assert page.title() == "Lobby · Knock"
    open_rooms = page.locator("tr.room.open td:first-child").all_inner_texts()
    locked = page.locator("tr.room.locked")
    assert open_rooms == ["Beginners", "Club"]
    assert locked.locator("td:first-child").all_inner_texts() == ["Masters"]
    assert "unlocks at level 10" in locked.inner_text()
    assert page.locator("tr.room", has_text="Club").inner_text().count("25 coins") == 1
    # Locked rows read in the muted colour (5.9:1), not faded to an unreadable 3:1.
    assert locked.evaluate("row => getComputedStyle(row).color") == MUTED
    assert "Closed" not in page.content()
    assert page.locator(".login-hint").count() == 0
    # Stacked on a phone, each cell still says which column it is.
    page.set_viewport_size({"width": 375, "height": 800})
    seats = page.locator("tr.room.open td[data-label=Seats]").first
    assert "Seats" in seats.evaluate("td => getComputedStyle(td, '::before').content")
    assert page.locator("table.rooms thead").is_hidden()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_profile_shows_progress_ratings_titles_achievements_and_matches(page, login, eager_tasks):
    progression()
    player = PlayerFactory(user__username="grace", display_name="Grace")
    bot = services.bot_players(kind="greedy", count=1)[0]
    for number in range(3):
        play_match(player, bot, seed=f"profile-{number}")
    player.refresh_from_db()
    assert player.level == 2

    login("grace")
    page.goto("/me/")
    assert page.url.endswith(f"/players/{player.pk}/")
    assert page.locator("h1").inner_text() == "Grace"

    level = page.locator("section.level")
    assert "Level 2" in level.inner_text()
    assert "to level 3" in level.inner_text()
    expected = round((player.xp - 10) / (5000 - 10) * 100)
    assert page.locator("#level-progress").get_attribute("value") == str(expected)

    chart = page.locator(".rating[data-variant=gin] svg.rating-chart")
    assert chart.count() == 1
    path = chart.locator("path").get_attribute("d")
    assert path.startswith("M") and path.count("L") == 2  # three rated matches
    assert "provisional" in page.locator(".rating[data-variant=gin]").inner_text()

    assert page.locator("section.titles li.title").all_inner_texts()[0].startswith("Apprentice")
    assert page.locator(".displayed-title").inner_text() == "Apprentice"

    unlocked = page.locator("li.achievement.unlocked")
    assert unlocked.count() == 1 and "First Deal" in unlocked.inner_text()
    veteran = page.locator("li.achievement.locked", has_text="Veteran")
    assert "3 / 100" in veteran.inner_text()
    assert veteran.evaluate("li => getComputedStyle(li).color") == MUTED
    secret = page.locator("li.achievement.locked", has_text="Hidden achievement")
    assert secret.count() == 1
    assert "Secret Thing" not in page.content()

    rows = page.locator("ul.matches li.match")
    assert rows.count() == 3
    # In words: "Won 10-4 against Greedy Bot 1" (or Lost, Drew), every one a rated gin match.
    for text in rows.all_inner_texts():
        assert re.match(rf"(Won|Lost|Drew) \d+-\d+ against {bot.display_name}", text), text
    gin = page.locator(".rating[data-variant=gin] .rating-figure").inner_text()
    # The displayed scale around 1500, not the raw ordinal, grouped as English groups it.
    assert re.fullmatch(r"1,\d{3}", gin), gin
    page.locator("ul.matches a", has_text=bot.display_name).first.click()
    page.wait_for_url(f"**/players/{bot.pk}/")
    assert page.locator("h1").inner_text().startswith(bot.display_name)


# --- without a browser -----------------------------------------------------------------


@pytest.mark.django_db
def test_anonymous_lobby_shows_rooms_as_for_level_one_with_a_login_hint(client):
    lobby_rooms()
    response = client.get("/rooms/")
    assert response.status_code == 200
    assert [(room.name, room.locked) for room in response.context["rooms"]] == [
        ("Beginners", False),
        ("Club", True),
        ("Masters", True),
    ]
    assert b"login-hint" in response.content
    assert b"unlocks at level 3" in response.content


@pytest.mark.django_db(transaction=True)
def test_a_new_players_profile_reads_as_words_not_placeholders(client, eager_tasks):
    """No levels defined, no achievements, one rated match: no full bar claiming the top
    level, no developer wording, one link to the account, and a sentence in place of a
    chart that would be a flat line through one point."""
    player = PlayerFactory(user__username="noor", display_name="Noor")
    play_match(player, services.bot_players(kind="greedy", count=1)[0], seed="first")
    client.force_login(player.user)
    page = client.get(f"/players/{player.pk}/").content.decode()
    assert "after 1 rated match" in page
    assert '<svg class="rating-chart"' not in page
    assert "The rating chart appears after two rated matches." in page
    assert "highest level" not in page and 'id="level-progress"' not in page
    assert "There is no level above this one yet." in page
    assert "There are no achievements to earn yet." in page
    assert page.count(f'href="{reverse("account")}"') == 1  # the header's, not a second one


def test_the_rating_chart_needs_two_points():
    assert line_chart([]) is None and line_chart([1500.0]) is None
    chart = line_chart([1500.0, 1520.0])
    assert chart["count"] == 2 and chart["path"].count("L") == 1


@pytest.mark.django_db
def test_the_lobby_shortens_the_seed_commitment_and_leaves_the_api_path_to_the_docs(client):
    player = PlayerFactory()
    client.force_login(player.user)
    response = client.get("/rooms/")
    commitment = response.context["next_seed"]
    page = response.content.decode()
    assert len(commitment) == 64
    assert f"<code>{commitment[:16]}…</code>" in page  # short in the sentence...
    assert f'<code class="wrap">{commitment}</code></details>' in page  # ...whole on demand
    assert "POST /api/rooms" not in page and 'href="/api/docs/"' in page


@pytest.mark.django_db
def test_me_needs_a_login(client):
    response = client.get("/me/")
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/")


@pytest.mark.django_db
def test_me_gives_staff_without_a_player_their_profile(admin_client, admin_user):
    response = admin_client.get("/me/")
    assert response.status_code == 302
    assert response.url == reverse("player-profile", args=[admin_user.player.pk])


@pytest.mark.django_db
def test_unknown_player_is_404(client):
    assert client.get("/players/999999/").status_code == 404


@pytest.mark.django_db
def test_profile_sections_from_other_apps(client, settings):
    settings.TEMPLATES = [
        {**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], SECTION_TEMPLATES]}
    ]
    player = PlayerFactory(display_name="Lin")

    def trophies(shown):
        if shown.pk != player.pk:
            return None
        return {
            "title": "Trophy cabinet",
            "template": "gameplay_tests/section.html",
            "context": {"trophies": ["Spring Cup"]},
        }

    profile.register_section(trophies)
    profile.register_section(trophies)  # ready() running twice adds it once
    try:
        shown = client.get(f"/players/{player.pk}/").content.decode()
        other = client.get(f"/players/{PlayerFactory().pk}/").content.decode()
    finally:
        profile.unregister_section(trophies)
    assert shown.count("Trophy cabinet") == 1
    assert "Spring Cup held by Lin" in shown
    assert "Trophy cabinet" not in other


@pytest.mark.django_db
def test_lobby_query_count_stays_flat(client, django_assert_max_num_queries):
    player = PlayerFactory(level=3)
    client.force_login(player.user)
    lobby_rooms()
    with django_assert_max_num_queries(LOBBY_MAX_QUERIES):
        assert client.get("/rooms/").status_code == 200
    for number in range(20):
        room = RoomFactory(name=f"Extra {number}", min_level=number, spectators_allowed=True)
        services.match_create(
            variant="gin", options={}, players=PlayerFactory.create_batch(2), room=room
        )
    with django_assert_max_num_queries(LOBBY_MAX_QUERIES):
        response = client.get("/rooms/")
    assert len(response.context["rooms"]) == 23
    assert len(response.context["live_games"]) == 20


@pytest.mark.django_db(transaction=True)
def test_profile_query_count_stays_flat(
    client, eager_tasks, monkeypatch, django_assert_max_num_queries
):
    progression()
    player = PlayerFactory()
    bots = services.bot_players(kind="greedy", count=4)
    play_match(player, bots[0], seed="flat-0")
    url = f"/players/{player.pk}/"
    client.force_login(player.user)

    def queries_with_and_without_sections():
        """All queries counted; gameplay's own, without other apps' sections, pinned."""
        with CaptureQueriesContext(connection) as everything:
            assert client.get(url).status_code == 200
        with monkeypatch.context() as patch:
            patch.setattr(profile, "_sections", [])
            with django_assert_max_num_queries(PROFILE_MAX_QUERIES):
                response = client.get(url)
        return len(everything), response

    few, _ = queries_with_and_without_sections()
    for number, bot in enumerate(bots):
        play_match(player, bot, seed=f"flat-{number + 1}")
    for number in range(5):
        AchievementFactory(metric="gins", threshold=number + 1)
    many, response = queries_with_and_without_sections()
    assert len(response.context["matches"]) == 5
    assert many == few


@pytest.mark.django_db
def test_the_profile_says_penalty_points_and_links_every_match(client):
    """Won 0-25 read backwards in lower-wins games; and no row led to its match."""
    players = PlayerFactory.create_batch(2)
    indian = services.match_create(variant="indian", options={}, players=players)
    Match.objects.filter(pk=indian.pk).update(status=Match.Status.FINISHED)
    Seat.objects.filter(match=indian, index=0).update(score=0, placement=1)
    Seat.objects.filter(match=indian, index=1).update(score=25, placement=2)
    page = client.get(f"/players/{players[0].pk}/").content.decode()
    row = re.search(r'<li class="match spread" data-match="\d+">(.*?)</li>', page, re.S)[1]
    text = " ".join(re.sub(r"<[^>]+>", " ", row).split())
    assert "Won with 0 penalty points to 25 against" in text, text
    assert f'href="{reverse("match-table", args=[indian.pk])}"' in row
