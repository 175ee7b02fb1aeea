"""What needs a signed-in player now, for the notice every page shows: check-in open, a
table ready, a match on, a promotion or relegation of the last week. Read by the polled
endpoint (config.views.notices) and pushed by the notice socket (config.consumers); it
sits above the apps, as the home page does, because gameplay never imports tournaments
or leagues."""

from django.urls import reverse
from django.utils.translation import gettext as _

from leagues import selectors as league_selectors
from tournaments import selectors as tournament_selectors


def notices_for(player) -> list[dict]:
    found = []
    for entry in tournament_selectors.entries_of_player(player) if player else []:
        tournament = entry.tournament
        page = reverse("tournament-detail", args=[tournament.pk])
        seat = tournament_selectors.seat_of(entry)
        if seat and seat["match"]:
            url = reverse("match-table", args=[seat["match"]])
            text = _("Your match in %(name)s is on.") % {"name": tournament.name}
            found.append(("match", seat["match"], text, url))
        elif seat and seat["table"].status == "waiting" and not seat["seat"].present:
            text = _("Your table in %(name)s is ready: take your seat.") % {"name": tournament.name}
            found.append(("table", seat["table"].pk, text, page))
        elif tournament.status == "check_in" and entry.checked_in_at is None:
            text = _("Check-in is open for %(name)s.") % {"name": tournament.name}
            found.append(("check-in", tournament.pk, text, page))
    for tournament in tournament_selectors.cancelled_of_player(player) if player else []:
        page = reverse("tournament-detail", args=[tournament.pk])
        if tournament.cancel_reason == "too_few_entries":
            text = _("%(name)s was cancelled: too few players entered. Any fee is refunded.")
        else:
            text = _("%(name)s was cancelled by its organiser. Any fee is refunded.")
        found.append(("cancelled", tournament.pk, text % {"name": tournament.name}, page))
    for move in league_selectors.moves_of(player, days=league_selectors.MOVES_NEWS_DAYS):
        league, now_in = move["league"], move["now_in"]
        words = {
            "league": league.name,
            "division": now_in.name if now_in else _("a new division"),
            "season": move["season"].number + 1,
        }
        if move["up"]:
            text = _("Promoted in %(league)s: you play in %(division)s from season %(season)s.")
        else:
            text = _("Relegated in %(league)s: you play in %(division)s from season %(season)s.")
        text %= words
        url = reverse("league-table", args=[league.slug])
        found.append(("league-move", move["standing"].pk, text, url))
    return [
        {"key": f"{kind}-{ident}", "text": text, "url": url} for kind, ident, text, url in found
    ]
