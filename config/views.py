from django.http import JsonResponse
from django.shortcuts import render
from django.views.defaults import server_error as html_server_error

from config.api import api_server_error
from config.notices import notices_for
from gameplay import selectors as gameplay_selectors
from leagues import selectors as league_selectors
from leagues.models import Season
from tournaments import selectors as tournament_selectors


def server_error(request, *args, **kwargs):
    """Errors under /api/ keep the API's JSON shape; pages get Django's HTML page."""
    if request.path.startswith("/api/"):
        return api_server_error(request)
    return html_server_error(request, *args, **kwargs)


def home(request):
    """What is on for the signed-in player (their live table, their tournaments, their
    league places) and what anyone can enter. The home page sits above the apps, so it
    reads each app's selectors (gameplay never imports tournaments or leagues)."""
    player = gameplay_selectors.player_of_user(request.user)
    context = {"player": player, "open_tournaments": tournament_selectors.open_for_entries()}
    if player is not None:
        entries = tournament_selectors.entries_of_player(player)
        context.update(
            {
                "table": gameplay_selectors.active_match_of(player),
                "progress": gameplay_selectors.level_progress(player),
                "ratings": gameplay_selectors.ratings_of(player),
                "my_tournaments": [
                    {"entry": e, "seat": tournament_selectors.seat_of(e)} for e in entries
                ],
                "fixture": league_selectors.next_fixture(player),
                "standings": [
                    row
                    for row in league_selectors.player_history(player.pk)[:5]
                    if row.season.status == Season.Status.RUNNING
                ],
            }
        )
        fixture = context["fixture"]
        context["fixture_opponents"] = (
            [seat.player for seat in fixture.seats.all() if seat.player_id != player.pk]
            if fixture
            else []
        )
        mine = {e.tournament_id for e in entries}
        context["open_tournaments"] = [t for t in context["open_tournaments"] if t.pk not in mine]
    return render(request, "home.html", context)


def notices(request):
    """The player's notices as JSON, for static/site/notices.js: its fallback when the
    notice socket is down, and the whole story where no socket can be served."""
    player = gameplay_selectors.player_of_user(request.user)
    return JsonResponse({"notices": notices_for(player)})
