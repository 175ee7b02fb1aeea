"""axe-core over every page a person reaches, at a desktop and a phone width: no violation
of impact serious or critical under the WCAG 2 A and AA rules (2.0 and 2.1), nor the rule
that a control's visible text is part of its accessible name.

axe (tests/vendor/axe-core/axe.min.js) is run through the DevTools protocol
(page.evaluate), which the site's Content-Security-Policy does not govern: the policy stays
as it is served, and a CSP report in the console fails the test as on any page.

One set of data (a live table of every variant, a finished match, tournaments open,
running and finished in three formats, a league, ratings) is built per width, and each page
is a subtest, visited by a logged-out or a logged-in browser context kept for the whole
width. A failure lists every violation: rule, impact, the elements' selectors and why.
"""

from datetime import timedelta
from pathlib import Path

import celery.app.task
import pytest
from django.contrib.auth.models import Permission
from django.contrib.auth.tokens import default_token_generator
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from engine import gin
from engine.cards import parse
from gameplay import games
from gameplay import services as gameplay
from gameplay.models import Match, Rating
from tests.factories import (
    AchievementFactory,
    BotPlayerFactory,
    LevelFactory,
    PlayerFactory,
    RoomFactory,
)
from tests.gameplay import test_table_page as table_page
from tests.leagues.conftest import make_league, start
from tests.tournaments.helpers import bots, drive, open_tournament, organiser, register_all
from tournaments import services as tournaments

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
asgi_server = table_page.asgi_server

AXE = (Path(__file__).parents[1] / "vendor" / "axe-core" / "axe.min.js").read_text()
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
RUN_AXE = """async (tags) => {
  const results = await axe.run(document, {
    runOnly: {type: "tag", values: tags},
    rules: {"label-content-name-mismatch": {enabled: true}},
    resultTypes: ["violations"],
  });
  return {
    passed: results.passes.length,
    violations: results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => ({target: n.target.join(" "), summary: n.failureSummary})),
      })),
  };
}"""
# The phone is the narrowest common one (360 px): no page may scroll sideways there either.
WIDTHS = {"desktop": (1280, 800), "phone": (360, 780)}
SIDEWAYS = """() => {
  const width = document.documentElement.clientWidth;
  const over = document.documentElement.scrollWidth - width;
  if (over <= 0) return null;
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "")
    + (typeof e.className === "string" && e.className ? "." + e.className.trim().split(/ +/).join(".") : "");
  const wide = [...document.querySelectorAll("body *")]
    .filter((e) => e.getBoundingClientRect().right > width + 1 && e.children.length === 0)
    .slice(0, 5)
    .map((e) => name(e.parentElement) + " > " + name(e));
  return {over, elements: [...new Set(wide)]};
}"""  # noqa: E501 (a script)


@pytest.fixture
def no_workers(monkeypatch):
    """Nothing goes to the broker: the data is built here, and bots move only when asked."""
    monkeypatch.setattr(celery.app.task.Task, "apply_async", lambda *args, **kwargs: None)


def choose(game, seat: int) -> dict:
    """A sensible Gin move: knock when allowed, draw from the stock, else the best discard."""
    legal = game.legal_actions(seat)
    kinds = {action["type"]: action for action in legal}
    for kind in ("big_gin", "gin", "knock", "pass"):
        if kind in kinds:
            return kinds[kind]
    if "draw" in kinds:
        return next(a for a in legal if a.get("source") == "stock")
    card, _ = gin.best_discard(parse(" ".join(game.view(seat)["hand"])))
    wanted = {"type": "discard", "card": str(card)}
    return wanted if wanted in legal else kinds["discard"]


def play_out(match: Match, player) -> Match:
    """The person's moves chosen by `choose`, the bot's by the bot, to the match's end."""
    for _ in range(1000):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            break
        seat = match.seats.get(player=player).index
        if match.to_move == seat:
            action = choose(games.load(match), seat)
            gameplay.match_act(match_id=match.pk, player=player, seq=match.seq, action=action)
        else:
            gameplay.match_play_bots(match_id=match.pk)
    gameplay.match_finalize(match_id=match.pk)
    match.refresh_from_db()
    return match


def live_match(variant: str, options: dict, player) -> Match:
    """A match at the person's turn (the bot's moves before it played)."""
    match = gameplay.match_create(
        variant=variant, options=options, players=[player, BotPlayerFactory()]
    )
    gameplay.match_play_bots(match_id=match.pk)
    return match


def build_site() -> tuple[object, list[tuple[str, str, str, str]]]:
    """The player and the pages: (name, who: anon or player, path, selector to wait for)."""
    for number in range(1, 4):
        LevelFactory(number=number)
    AchievementFactory(name="First match", threshold=1)
    AchievementFactory(name="Hundred matches", threshold=100)
    RoomFactory(name="Quick Gin", options={"target": 10})
    RoomFactory(name="High Table", min_level=3)
    RoomFactory(name="Indian 13", variant="indian", options={})
    # The lobby's live games (issue 27): one running match open to spectators.
    watched = RoomFactory(name="Open Gin", options={"target": 10}, spectators_allowed=True)
    gameplay.match_create(
        variant="gin", options=watched.options, players=PlayerFactory.create_batch(2), room=watched
    )

    player = PlayerFactory(user__username="asha")
    player.user.user_permissions.add(Permission.objects.get(codename="organise_tournament"))
    finished = play_out(live_match("gin", {"target": 10}, player), player)
    rivals = PlayerFactory.create_batch(3)
    Rating.objects.filter(player=player).update(rated_matches=3, last_rated_at=timezone.now())
    for rank, rival in enumerate(rivals):
        Rating.objects.create(
            player=rival, variant="gin", mu=25 - rank, sigma=3, ordinal=16 - rank,
            rated_matches=5, last_rated_at=timezone.now(),
        )  # fmt: skip
    tables = {
        variant: live_match(variant, options, player)
        for variant, options in [
            ("gin", {"target": 100}), ("indian", {}), ("basic", {}), ("dummy", {}),
            ("indian21", {}),
        ]
    }  # fmt: skip

    by = organiser("olga")
    soon = timezone.now() + timedelta(days=2)
    open_cup = open_tournament(by=by, name="Diwali Cup", starts_at=soon, entry_fee=0)
    checking = open_tournament(by=by, name="Evening Gin", show_up_seconds=600)
    tournaments.entry_register(tournament_id=checking.pk, player=player)
    tournaments.tournament_open_check_in(tournament_id=checking.pk, by=by)
    own = open_tournament(by=player.user, name="Asha's Cup", starts_at=soon)
    register_all(own, bots(3))
    # Invite-only and embeddable: the organiser's panel shows its link and code boxes.
    tournaments.tournament_set_entry_conditions(
        tournament_id=own.pk, by=player.user, invite_only=True
    )
    tournaments.tournament_set_embed_origins(
        tournament_id=own.pk, by=player.user, origins=["https://club.example"]
    )
    knockout = open_tournament(by=by, name="Knockout Gin", show_up_seconds=0)
    register_all(knockout, bots(8))
    tournaments.tournament_start(tournament_id=knockout.pk)
    drive(knockout, rounds=1)
    swiss = open_tournament(
        by=by, name="Swiss Gin", format="swiss", show_up_seconds=0,
        tiebreaks=["sonneborn_berger"],
    )  # fmt: skip
    register_all(swiss, bots(5))
    tournaments.tournament_start(tournament_id=swiss.pk)
    drive(swiss)
    double = open_tournament(by=by, name="Double Gin", format="double", show_up_seconds=0)
    register_all(double, bots(4))
    tournaments.tournament_start(tournament_id=double.pk)
    drive(double, rounds=2)

    # Open to spectators: its page lists its tables in play (issue 27).
    watched_cup = open_tournament(
        by=by, name="Open Gin Cup", show_up_seconds=0, spectators_allowed=True
    )
    register_all(watched_cup, bots(4))
    tournaments.tournament_start(tournament_id=watched_cup.pk)
    for table_id in tournaments.waiting_tables(tournament_id=watched_cup.pk, limit=10):
        tournaments.table_start(table_id=table_id)

    league = make_league(name="Monsoon League")
    start(league, [player, *BotPlayerFactory.create_batch(3)])

    t = "/tournaments"
    pages = [
        ("home", "anon", "/", "main"),
        ("sign-up", "anon", "/accounts/signup/", "#id_username"),
        ("login", "anon", "/accounts/login/", "#id_username"),
        ("password-reset", "anon", "/accounts/password_reset/", "form"),
        ("password-reset-sent", "anon", "/accounts/password_reset/done/", "main"),
        ("password-reset-complete", "anon", "/accounts/reset/done/", "main"),
        ("password-reset-confirm", "anon", reset_link(rivals[1].user), "#id_new_password1"),
        ("tournaments-anon", "anon", f"{t}/", "main"),
        ("bracket-anon", "anon", f"{t}/{knockout.pk}/", ".bracket, .btable"),
        ("result-anon", "anon", f"/matches/{finished.pk}/", "#result:not([hidden])"),
        ("home-player", "player", "/", ".live-notice"),
        ("lobby", "player", "/rooms/", "tr.room"),
        *(
            (f"{variant}-table", "player", f"/matches/{match.pk}/", "#conn[data-state='live']")
            for variant, match in tables.items()
        ),
        ("result", "player", f"/matches/{finished.pk}/", "#result:not([hidden])"),
        ("tournaments", "player", f"{t}/", "main"),
        ("tournament-open", "player", f"{t}/{open_cup.pk}/", "#player-panel"),
        ("tournament-check-in", "player", f"{t}/{checking.pk}/", "#check-in"),
        ("tournament-knockout", "player", f"{t}/{knockout.pk}/", ".bracket, .btable"),
        ("tournament-swiss", "player", f"{t}/{swiss.pk}/", "table.standings"),
        ("tournament-double", "player", f"{t}/{double.pk}/", ".double-bracket"),
        ("tournament-spectated", "player", f"{t}/{watched_cup.pk}/", "#in-play"),
        ("tournament-organiser", "player", f"{t}/{own.pk}/", "main"),
        ("tournament-new", "player", f"{t}/new/", "#id_name"),
        ("tournament-edit", "player", f"{t}/{own.pk}/edit/", "#id_name"),
        ("tournament-embed", "anon", f"{t}/{knockout.pk}/embed/", "body"),
        ("leagues", "player", "/leagues/", "main"),
        ("league", "player", f"/leagues/{league.slug}/", "table.league-table"),
        ("league-history", "player", f"/leagues/players/{player.pk}/", "main"),
        ("leaderboard", "player", "/leaderboard/", "table.leaderboard"),
        ("profile", "player", f"/players/{player.pk}/", "main"),
        ("rival-profile", "player", f"/players/{rivals[0].pk}/", "main"),
        ("account", "player", "/accounts/settings/", "main"),
        ("password-change", "player", "/accounts/password_change/", "form"),
        ("password-changed", "player", "/accounts/password_change/done/", "main"),
        ("api", "player", "/api/", "body"),
        ("api-docs", "player", "/api/docs/", ".swagger-ui .info"),
        ("verify", "player", f"/verify/?match={finished.pk}", "main"),
    ]
    return player, pages


def reset_link(user) -> str:
    """The link a password reset email carries."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return f"/accounts/reset/{uid}/{default_token_generator.make_token(user)}/"


def report(violations: list[dict]) -> str:
    """Each rule broken, and every element that breaks it with axe's last word on why."""
    lines = []
    for v in violations:
        lines.append(f"  {v['id']} ({v['impact']}): {v['help']}")
        lines += [f"    {n['target']}: {n['summary'].splitlines()[-1].strip()}" for n in v["nodes"]]
    return "\n".join(lines)


def assert_axe_clean(page, where: str) -> None:
    page.evaluate(AXE)
    found = page.evaluate(RUN_AXE, TAGS)
    assert found["passed"], f"{where}: axe checked nothing"
    assert not found["violations"], f"{where}:\n{report(found['violations'])}"


@pytest.mark.parametrize("width", WIDTHS)
def test_no_serious_or_critical_axe_violation_on_any_page(
    width, browser, asgi_server, no_workers, subtests
):
    player, pages = build_site()
    width_px, height_px = WIDTHS[width]
    contexts, problems = {}, []
    for who in ("anon", "player"):
        context = browser.new_context(
            base_url=asgi_server, viewport={"width": width_px, "height": height_px}
        )
        contexts[who] = context.new_page()
        contexts[who].on(
            "console",
            lambda message: (
                problems.append(message.text) if "Content Security Policy" in message.text else None
            ),
        )
        contexts[who].on("pageerror", lambda error: problems.append(str(error)))
    log_in = contexts["player"]
    log_in.goto("/accounts/login/?next=/")
    log_in.fill("#id_username", player.user.username)
    log_in.fill("#id_password", "correct-horse-battery")
    log_in.click("form.card button[type=submit]")
    log_in.wait_for_load_state()

    for name, who, path, ready in pages:
        with subtests.test(page=name):
            page = contexts[who]
            page.goto(path)
            page.wait_for_selector(ready, timeout=15_000)
            assert_axe_clean(page, f"{name} ({path}) at {width}")
            sideways = page.evaluate(SIDEWAYS)
            assert sideways is None, f"{name} ({path}) scrolls sideways at {width_px}: {sideways}"
    with subtests.test(page="logged-out"):  # last: the player's context is done with then
        page = contexts["player"]
        page.locator("header.site button", has_text="Log out").click()
        page.wait_for_url("**/accounts/logout/")
        assert_axe_clean(page, f"logged-out at {width}")
    for page in contexts.values():
        page.context.close()
    assert not problems, f"the site's CSP refused something, or a script failed: {problems}"


def test_the_first_tab_shows_the_skip_link_and_enter_jumps_to_the_content(page, shoot):
    """A keyboard user's first Tab lands on "Skip to the content", drawn on screen while
    focused (it sits above the page otherwise), and Enter puts focus on the main content."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/leaderboard/")
    link = page.locator("a.skip-link")
    assert not in_view(link)
    page.keyboard.press("Tab")
    assert link.evaluate("(node) => node === document.activeElement")
    assert in_view(link)
    assert link.inner_text() == "Skip to the content"
    shoot("skip-link")
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"
    assert not in_view(link)


def in_view(locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] > 0
