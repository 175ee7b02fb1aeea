"""League pages: the list, a football-style table per division, histories, the leaderboard."""

from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, render

from gameplay.models import VARIANT_CHOICES, Player
from leagues import selectors
from leagues.models import League

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
    return render(
        request,
        "leagues/table.html",
        {
            "league": league,
            "seasons": seasons,
            "season": season,
            "ladder": ladder,
            "division": division,
            "lines": lines,
        },
    )


def _pick(items: list, wanted: str | None, number):
    """The item whose number is ``wanted``; the first when nothing is asked for."""
    if not wanted:
        return items[0] if items else None
    for item in items:
        if str(number(item)) == wanted:
            return item
    raise Http404("No such season or division.")


def player_history(request, pk: int):
    player = get_object_or_404(Player, pk=pk)
    return render(
        request,
        "leagues/history.html",
        {"player": player, "history": selectors.player_history(player.pk)},
    )


def leaderboard(request):
    variant = request.GET.get("variant", "gin")
    if variant not in dict(VARIANT_CHOICES):
        raise Http404("No such variant.")
    page = Paginator(selectors.leaderboard(variant), LEADERBOARD_PAGE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "leagues/leaderboard.html",
        {
            "variant": variant,
            "variants": VARIANT_CHOICES,
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
