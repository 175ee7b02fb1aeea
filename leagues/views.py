"""League pages: the list, a football-style table per division, histories, the leaderboard."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from gameplay import selectors as gameplay_selectors
from gameplay.models import Player, variant_choices
from gameplay.services import player_for_user
from leagues import selectors, services
from leagues.models import Fixture, League

LEADERBOARD_PAGE = 50


def league_list(request):
    return render(request, "leagues/list.html", {"leagues": selectors.leagues()})


def league_table(request, slug: str):
    """One division's table; ``?season=`` picks the season, ``?division=`` the tier."""
    league = get_object_or_404(League, slug=slug)
    seasons = list(selectors.seasons_of(league))
    ladder = selectors.divisions_of(league)
    season = _pick(seasons, request.GET.get("season"), lambda s: s.number)
    division = _pick(ladder, request.GET.get("division"), lambda d: d.tier)
    lines = selectors.division_table(season, division, ladder) if season and division else []
    player = gameplay_selectors.player_of_user(request.user)
    fixture = selectors.next_fixture(player) if player else None
    if fixture is not None and fixture.round.season.league_id != league.pk:
        fixture = None
    return render(
        request,
        "leagues/table.html",
        {
            "last_move": next(iter(selectors.moves_of(player, league=league)), None),
            "fixture": fixture,
            "fixture_opponents": [
                seat.player for seat in fixture.seats.all() if seat.player_id != player.pk
            ]
            if fixture
            else [],
            "league": league,
            "seasons": seasons,
            "season": season,
            "ladder": ladder,
            "division": division,
            "lines": lines,
            # Before a second round there is no earlier place to compare: no column.
            "show_moves": any(line.movement is not None for line in lines),
            "membership": selectors.membership_of(league, player),
            "next_season": selectors.next_season(seasons),
            "running": next((s for s in seasons if s.status == "running"), None),
            "bottom": ladder[-1] if ladder else None,
        },
    )


@login_required
@require_POST
def league_join(request, slug: str):
    """Join the league (the service the API's POST /api/leagues/<id>/join/ calls)."""
    league = get_object_or_404(League, slug=slug)
    membership = services.league_join(league=league, player=player_for_user(request.user))
    upcoming = selectors.next_season(list(selectors.seasons_of(league)))
    words = {"league": league.name, "division": membership.division.name}
    if upcoming:
        words.update(season=upcoming.number, day=date_format(upcoming.starts_at, "j M Y"))
        text = _(
            "You are in %(league)s: you play in %(division)s from season %(season)s, "
            "starting %(day)s."
        )
    else:
        text = _("You are in %(league)s: you play in %(division)s from the next season.")
    messages.success(request, text % words)
    return redirect("league-table", slug=league.slug)


def _pick(items: list, wanted: str | None, number):
    """The item whose number is ``wanted``; the first when nothing is asked for."""
    if not wanted:
        return items[0] if items else None
    for item in items:
        if str(number(item)) == wanted:
            return item
    raise Http404(_("No such season or division."))


def player_history(request, pk: int):
    player = get_object_or_404(Player, pk=pk)
    return render(
        request,
        "leagues/history.html",
        {"player": player, "history": selectors.player_history(player.pk)},
    )


def leaderboard(request):
    variant = request.GET.get("variant", "gin")
    if variant not in dict(variant_choices()):
        raise Http404(_("No such variant."))
    # People only unless asked: the house's bots would fill most of the board.
    bots = request.GET.get("bots") == "1"
    page = Paginator(selectors.leaderboard(variant, bots=bots), LEADERBOARD_PAGE).get_page(
        request.GET.get("page")
    )
    me = gameplay_selectors.player_of_user(request.user)
    return render(
        request,
        "leagues/leaderboard.html",
        {
            "variant": variant,
            "variants": variant_choices(),
            "bots": bots,
            "me_id": me.pk if me else None,
            "page": page,
            "min_matches": selectors.LEADERBOARD_MIN_MATCHES,
            "active_days": selectors.LEADERBOARD_ACTIVE_DAYS,
        },
    )


def profile_section(player) -> dict | None:
    """The player's league seasons on their profile page (gameplay.profile registry)."""
    history = list(selectors.player_history(player.pk))
    if not history:
        return None
    return {
        "title": "Leagues",
        "template": "leagues/_history.html",
        "context": {"history": history},
    }


def table_context(match) -> dict | None:
    """A league fixture's season, division and round at its table (gameplay.table_context
    registry); one query."""
    fixture = (
        Fixture.objects.select_related("round__season__league", "round__division")
        .filter(match=match)
        .first()
    )
    if fixture is None:
        return None
    round_ = fixture.round
    league = round_.season.league
    return {
        "event": league.name,
        "detail": _("Season %(season)s · %(division)s · round %(n)s")
        % {"season": round_.season.number, "division": round_.division.name, "n": round_.number},
        "url": reverse("league-table", args=[league.slug]),
        "back": _("Back to the league"),
    }
