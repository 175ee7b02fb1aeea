"""The embeddable bracket (issue 31, "Integrations"): framed by the sites the organiser
allows and refused by the others, public events only, no login needed."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from rest_framework.test import APIClient

from tests.factories import PlayerFactory
from tests.tournaments.helpers import bots, open_tournament, organiser, play_match, register_all
from tournaments import services

pytestmark = pytest.mark.django_db


def frame_ancestors(answer) -> str:
    policy = answer["Content-Security-Policy"]
    return next(part for part in policy.split(";") if "frame-ancestors" in part).strip()


def test_the_embed_page_is_framed_only_where_the_organiser_says(client):
    by = organiser()
    tournament = open_tournament(by=by, name="Club Night")
    url = f"/tournaments/{tournament.pk}/embed/"
    closed = client.get(url)
    assert closed.status_code == 200 and "Club Night" in closed.content.decode()
    assert frame_ancestors(closed) == "frame-ancestors 'none'"
    assert "X-Frame-Options" not in closed
    services.tournament_set_embed_origins(
        tournament_id=tournament.pk,
        by=by,
        origins=["https://club.example", "HTTP://Localhost:8080/", ""],
    )
    opened = client.get(url)
    assert frame_ancestors(opened) == "frame-ancestors http://localhost:8080 https://club.example"
    # Every other page still refuses every frame.
    page = client.get(f"/tournaments/{tournament.pk}/")
    assert frame_ancestors(page) == "frame-ancestors 'none'"
    assert page["X-Frame-Options"] == "DENY"


def test_a_draft_has_no_embed_page_even_for_its_organiser(client):
    by = organiser()
    draft = services.tournament_create(organiser=by, name="Draft", variant="gin")
    client.force_login(by)
    assert client.get(f"/tournaments/{draft.pk}/embed/").status_code == 404


@pytest.mark.parametrize(
    "origin",
    [
        "javascript:alert(1)",
        "https://club.example/path",
        "https://club.example?x=1",
        "https://user:pw@club.example",
        "ftp://club.example",
        "https://club example",
        "https://clüb.example",
        "https://club.example:99999",
        "'none'",
        "https://club.example; script-src *",
    ],
)
def test_a_hostile_origin_is_refused_and_nothing_changes(origin):
    by = organiser()
    tournament = open_tournament(by=by)
    client = APIClient()
    client.force_authenticate(user=by)
    url = f"/api/tournaments/{tournament.pk}/embed-origins/"
    answer = client.put(url, {"origins": ["https://ok.example", origin]}, format="json")
    assert answer.status_code == 400, answer.json()
    assert answer.json()["error"]["code"] in ("invalid_origin", "invalid")
    tournament.refresh_from_db()
    assert tournament.embed_origins == []


def test_only_the_organiser_sets_the_origins_over_the_api():
    tournament = open_tournament()
    url = f"/api/tournaments/{tournament.pk}/embed-origins/"
    stranger = APIClient()
    stranger.force_authenticate(user=PlayerFactory().user)
    assert stranger.put(url, {"origins": ["https://a.example"]}, format="json").status_code == 403
    owner = APIClient()
    owner.force_authenticate(user=tournament.organiser)
    answer = owner.put(url, {"origins": ["https://a.example"]}, format="json")
    assert answer.json() == {"origins": ["https://a.example"]}
    too_many = [f"https://{n}.example" for n in range(11)]
    assert owner.put(url, {"origins": too_many}, format="json").status_code == 400


def parent_site(embed_url: str) -> ThreadingHTTPServer:
    """Another site, on a port of its own: a page that frames `embed_url`."""
    page = f'<!doctype html><title>Club</title><iframe src="{embed_url}" width="800" height="600">'

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page.encode())

        def log_message(self, *args):
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_allowed_site_frames_the_bracket_and_another_is_refused(browser, live_server):
    by = organiser()
    tournament = open_tournament(by=by, name="Framed Cup")
    register_all(tournament, bots(4))
    embed_url = f"{live_server.url}/tournaments/{tournament.pk}/embed/"
    allowed, other = parent_site(embed_url), parent_site(embed_url)
    try:
        services.tournament_set_embed_origins(
            tournament_id=tournament.pk,
            by=by,
            origins=[f"http://127.0.0.1:{allowed.server_port}"],
        )
        context = browser.new_context()
        refusals = []
        page = context.new_page()
        page.on("console", lambda message: refusals.append(message.text))
        page.goto(f"http://127.0.0.1:{allowed.server_port}/")
        framed = page.frame_locator("iframe")
        assert framed.get_by_role("heading", name="Framed Cup").is_visible(timeout=10_000)
        assert not [text for text in refusals if "frame-ancestors" in text]

        page.goto(f"http://127.0.0.1:{other.server_port}/")
        page.wait_for_timeout(1500)
        child = page.frames[1]
        assert "Framed Cup" not in child.content()
        assert [text for text in refusals if "frame-ancestors" in text]
        context.close()
    finally:
        allowed.shutdown()
        other.shutdown()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_broker")
def test_the_embedded_bracket_follows_play_without_reloading_the_page(page):
    """No timed reload (WCAG 2.2.1): static/tournaments/embed.js re-fetches the bracket
    every 30 s (the page's clock is Playwright's, so the test need not wait them)."""
    tournament = open_tournament(name="Live Cup", show_up_seconds=0)
    register_all(tournament, bots(4))
    services.tournament_start(tournament_id=tournament.pk)
    page.clock.install()
    page.goto(f"/tournaments/{tournament.pk}/embed/")
    assert not page.locator("meta[http-equiv=refresh]").count()
    page.evaluate("() => { window.stillHere = true; }")
    assert not page.locator(".btable[data-status='done']").count()
    first = tournament.tables.get(round_number=1, position=0)
    services.table_start(table_id=first.pk)
    play_match(first.matches.get().match_id)
    page.clock.run_for(31_000)
    page.wait_for_selector(".btable[data-status='done']", timeout=10_000)
    assert page.evaluate("() => window.stillHere === true")
