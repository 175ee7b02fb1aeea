"""Tournament pages; reads come from selectors, no business logic here."""

from django.shortcuts import get_object_or_404, render

from tournaments import selectors
from tournaments.models import Tournament

LIVE = (Tournament.Status.RUNNING, Tournament.Status.CHECK_IN, Tournament.Status.REGISTRATION)


def tournament_list(request):
    rows = list(selectors.tournaments())
    groups = [
        ("Running", [t for t in rows if t.status == Tournament.Status.RUNNING]),
        (
            "Taking registrations",
            [t for t in rows if t.status in ("registration", "check_in", "ready")],
        ),
        ("Finished", [t for t in rows if t.status == Tournament.Status.FINISHED]),
        ("Cancelled", [t for t in rows if t.status == Tournament.Status.CANCELLED]),
    ]
    return render(request, "tournaments/list.html", {"groups": groups})


def tournament_detail(request, pk: int):
    """The whole bracket; while live, the page re-fetches its bracket part every few seconds."""
    tournament = get_object_or_404(selectors.tournaments(), pk=pk)
    context = {
        "tournament": tournament,
        "bracket": selectors.bracket(tournament),
        "live": tournament.status in LIVE,
    }
    if request.GET.get("part") == "bracket":
        return render(request, "tournaments/_bracket.html", context)
    context["placements"] = selectors.placements(tournament, limit=64)
    if tournament.status != Tournament.Status.FINISHED:
        context["entries"] = selectors.entries(tournament)
    return render(request, "tournaments/detail.html", context)
