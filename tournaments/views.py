"""Tournament pages: reading them, a player's buttons and the organiser's. No business
logic here: every button calls the service the API calls, and a refusal (DomainError) is
shown as a message with the service's own words."""

import re
from collections import Counter

from csp.constants import NONE
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_POST

from config.errors import DomainError
from config.params import ascii_int
from gameplay import selectors as gameplay_selectors
from gameplay.services import player_for_user
from gameplay.templatetags.knock import ordinal_words
from tournaments import exports, selectors, services, words
from tournaments.forms import TournamentForm
from tournaments.models import Entry, Table, TableMatch, Tournament, Webhook

LIVE = (Tournament.Status.RUNNING, Tournament.Status.CHECK_IN, Tournament.Status.REGISTRATION)


def tournament_list(request):
    rows = list(selectors.visible_to(request.user))
    groups = [
        (_("Running"), [t for t in rows if t.status == Tournament.Status.RUNNING]),
        (
            _("Taking registrations"),
            [t for t in rows if t.status in ("registration", "check_in", "ready")],
        ),
        (_("Finished"), [t for t in rows if t.status == Tournament.Status.FINISHED]),
        (_("Cancelled"), [t for t in rows if t.status == Tournament.Status.CANCELLED]),
    ]
    drafts = [t for t in rows if t.status == Tournament.Status.DRAFT]
    return render(
        request,
        "tournaments/list.html",
        {
            "groups": groups,
            "drafts": drafts,
            "can_create": services.can_organise(request.user),
        },
    )


def _visible(request, pk: int) -> Tournament:
    return get_object_or_404(selectors.visible_to(request.user), pk=pk)


# Each format draws its structure in a partial of its own; the knock-out's is the default.
BRACKET_TEMPLATES = {
    Tournament.Format.DOUBLE: "tournaments/_bracket_double.html",
    Tournament.Format.SWISS: "tournaments/_swiss.html",
    Tournament.Format.TWO_STAGE: "tournaments/_two_stage.html",
}


@xframe_options_exempt  # framing is allowed by the CSP's frame-ancestors, per tournament
def embed(request, pk: int):
    """The bracket and placements alone, for the sites the organiser allows to frame it
    (`Tournament.embed_origins`; none may by default). Public events only: a draft is 404,
    and a framed page carries no login (the session cookie is SameSite=Lax)."""
    tournament = get_object_or_404(selectors.visible_to(None), pk=pk)
    bracket = selectors.bracket(tournament)
    response = render(
        request,
        "tournaments/embed.html",
        {
            "tournament": tournament,
            "bracket": bracket,
            "bracket_template": BRACKET_TEMPLATES.get(
                tournament.format, "tournaments/_bracket.html"
            ),
            "drawing": bracket_drawing(bracket),
            "live": tournament.status in LIVE,
            "placements": selectors.placements(tournament, limit=8),
        },
    )
    response._csp_replace = {"frame-ancestors": tournament.embed_origins or [NONE]}
    return response


def _names(text: str) -> list[str]:
    """Usernames typed one a line or separated by commas."""
    return [name.strip() for name in re.split(r"[,\n]", text[:20_000]) if name.strip()]


def _optional_number(request, name: str, high: int) -> int | bool | None:
    """A whole number from the form, None when empty, False when it is not one."""
    raw = request.POST.get(name, "").strip()
    if not raw:
        return None
    value = ascii_int(raw, low=0, high=high)
    return False if value is None else value


@login_required
@require_POST
def entry_conditions(request, pk: int):
    """The organiser's entry conditions: invitation only, invited names, a rating band,
    a number of rated matches."""
    _visible(request, pk)
    numbers = {
        name: _optional_number(request, name, high)
        for name, high in (
            ("min_rating", 10_000),
            ("max_rating", 10_000),
            ("min_rated_matches", 100_000),
        )
    }
    if any(value is False for value in numbers.values()):
        messages.error(request, _("Ratings and matches are whole numbers."))
        return _back(pk)
    _attempt(
        request,
        _("Entry conditions saved."),
        services.tournament_set_entry_conditions,
        tournament_id=pk,
        by=request.user,
        invite_only=request.POST.get("invite_only") == "on",
        invited=_names(request.POST.get("invited", "")),
        min_rating=numbers["min_rating"],
        max_rating=numbers["max_rating"],
        min_rated_matches=numbers["min_rated_matches"] or 0,
    )
    return _back(pk)


@login_required
@require_POST
def new_invite_code(request, pk: int):
    _visible(request, pk)
    _attempt(
        request,
        _("A new invitation code: the old link no longer works."),
        services.tournament_new_invite_code,
        tournament_id=pk,
        by=request.user,
    )
    return _back(pk)


@login_required
@require_POST
def co_organisers(request, pk: int):
    _visible(request, pk)
    _attempt(
        request,
        _("Co-organisers saved."),
        services.tournament_set_co_organisers,
        tournament_id=pk,
        by=request.user,
        usernames=_names(request.POST.get("co_organisers", "")),
    )
    return _back(pk)


@login_required
@require_POST
def embed_origins(request, pk: int):
    """The organiser's list of sites that may frame the embeddable bracket, one a line."""
    _visible(request, pk)
    _attempt(
        request,
        _("The sites that may embed this tournament are saved."),
        services.tournament_set_embed_origins,
        tournament_id=pk,
        by=request.user,
        origins=request.POST.get("origins", "")[:2000].splitlines()[:50],
    )
    return _back(pk)


def export_csv(request, pk: int, kind: str):
    """Entries, results or standings as a spreadsheet file (tournaments.exports)."""
    tournament = _visible(request, pk)
    if kind not in exports.KINDS:
        raise Http404("No such export.")
    response = HttpResponse(exports.as_csv(tournament, kind), content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="knock-{pk}-{kind}.csv"'
    return response


def export_json(request, pk: int):
    """The whole event as one JSON document (tournaments.exports)."""
    response = JsonResponse(exports.as_document(_visible(request, pk)))
    response["Content-Disposition"] = f'attachment; filename="knock-{pk}.json"'
    return response


def tournament_detail(request, pk: int):
    """The whole bracket; while live, the page re-fetches its bracket part every few seconds."""
    tournament = _visible(request, pk)
    bracket = selectors.bracket(tournament)
    context = {
        "tournament": tournament,
        "bracket": bracket,
        "bracket_template": BRACKET_TEMPLATES.get(tournament.format, "tournaments/_bracket.html"),
        "drawing": bracket_drawing(bracket),
        "live": tournament.status in LIVE,
        "rules": selectors.rules_of(tournament),
    }
    if request.GET.get("part") == "bracket":
        return render(request, context["bracket_template"], context)
    if request.GET.get("part") == "you":
        context.update(_player_panel(request, tournament))
        return render(request, "tournaments/_player_panel.html", context)
    if request.GET.get("part") == "entries":
        context["entries"] = selectors.entries(tournament)
        if services.can_run(request.user, tournament):
            context["organiser"] = _organiser_panel(tournament, context["bracket"])
        return render(request, "tournaments/_entries.html", context)
    context["in_play"] = selectors.tables_in_play(tournament)
    context["placements"] = placement_rows(
        selectors.placements(tournament, limit=64), context["bracket"]
    )
    if tournament.status != Tournament.Status.FINISHED:
        context["entries"] = selectors.entries(tournament)
    context.update(_player_panel(request, tournament))
    if services.can_run(request.user, tournament):
        context["organiser"] = _organiser_panel(tournament, context["bracket"])
    return render(request, "tournaments/detail.html", context)


def bracket_drawing(bracket: dict) -> dict:
    """The bracket arranged for drawing, the way Challonge draws one.

    A tree bracket (every table sends its players to one next table) becomes nested nodes,
    the final at the root: each node is drawn beside the tables that feed it, so CSS alone
    centres it between them and draws the connector lines. A bracket whose tables feed
    several next tables has no tree: it is drawn round by round in columns, each table
    saying which tables it is fed by. A third-place table sits below the final.
    """
    rounds = bracket["rounds"]
    if not rounds:
        return {"heads": [], "tree": None, "columns": [], "extras": [], "width": ""}
    # A final is the last round's one main table; Swiss rounds and group stages have none.
    finals = [t for t in rounds[-1]["tables"] if not t["third_place"]]
    root = finals[0] if len(finals) == 1 else None
    # A double elimination's winners' or losers' bracket ends in a side's final, which
    # crowns nobody: drawn as the tree's root, but neither "Final" nor a champion.
    crowns = bracket.get("side") not in ("W", "L")
    # A grand final reset that was not needed is decided empty: the champion won the
    # grand final before it, and is crowned there.
    unneeded = root is not None and root["status"] == Table.Status.DONE and not root["seats"]
    by_ref, parents = {}, {}
    for rnd in rounds:
        for table in rnd["tables"]:
            table["is_final"] = crowns and table is root
            table["label"] = _table_label(table)
            table["best_of"] = rnd["best_of"]
            done = table["status"] == Table.Status.DONE
            unfilled = 0 if done else max(0, table["capacity"] - len(table["seats"]))
            table["open_seats"] = range(unfilled)
            for seat in table["seats"]:
                crowned = table["is_final"] or (crowns and unneeded and seat.get("crowned"))
                seat["champion"] = bool(done and crowned and seat["finish"] == 1)
                seat["out"] = done and not (seat["advanced"] or seat["champion"])
                # At a table of three or more, the finishing order says who went through.
                many = len(table["seats"]) > 2
                seat["place"] = ordinal_words(seat["finish"]) if many and seat["finish"] else ""
            by_ref[(table["round"], table["position"])] = table
            for feeder in table["feeders"]:
                if not table["third_place"]:
                    parents.setdefault(tuple(feeder), []).append(table)
    mains = [t for rnd in rounds for t in rnd["tables"] if not t["third_place"]]
    # A tree: tables feed on (no Swiss round or group stage does), each to one next table.
    is_tree = bool(parents) and all(
        len(parents.get((t["round"], t["position"]), [])) <= 1 for t in mains
    )
    final = root
    for table in mains:
        table["from"] = ", ".join(str(position + 1) for _feeder, position in table["feeders"])

    def steps(table: dict, out: list) -> list:
        """The tree as a flat list the template renders in one loop (no recursion): open a
        node (and its column of feeders), its feeders' steps, close them, then its table."""
        children = [by_ref[tuple(f)] for f in table["feeders"] if tuple(f) in by_ref]
        out.append({"kind": "open", "table": table, "fed": bool(children)})
        for child in children:
            steps(child, out)
        if children:
            out.append({"kind": "end"})
        out.append({"kind": "table", "table": table, "fed": bool(children)})
        return out

    heads = [
        {"name": words.round_title(r["name"]), "best_of": r["best_of"], "number": r["number"]}
        for r in rounds
    ]
    return {
        "heads": heads,
        "tree": steps(final, []) if is_tree and final else None,
        "columns": [] if is_tree and final else rounds,
        "extras": [t for t in rounds[-1]["tables"] if t["third_place"]],
        "spacers": range(len(rounds) - 1),
        "width": _column_width(rounds),
    }


# A name breaks only between words: at a space, or after a hyphen.
_WORD_BREAKS = re.compile(r"\s+|(?<=-)")


def _column_width(rounds: list[dict]) -> str:
    """The bracket's column width class: the longest word of any name widens every column
    (the round headers stay over their tables) rather than be broken in the middle."""
    longest = max(
        (
            len(word)
            for rnd in rounds
            for table in rnd["tables"]
            for seat in table["seats"]
            for word in _WORD_BREAKS.split(str(seat["player"]))
        ),
        default=0,
    )
    if longest > 19:
        return "cols-widest"
    if longest > 14:
        return "cols-wide"
    return ""


def _table_label(table: dict) -> str:
    if table["third_place"]:
        return _("Third place")
    if table["is_final"]:
        return _("Final")
    return _("Table %(n)s") % {"n": table["position"] + 1}


def result_words(
    entry: Entry,
    n_rounds: int,
    third_match: bool = False,
    form: str = Tournament.Format.SINGLE,
    group_rounds: int = 0,
    losers_rounds: dict[int, str] | None = None,
) -> str:
    """An entry's result in words: the champion as champion, the final's loser as
    runner-up, everyone else by the round they went out in (in double elimination, the
    losers' round: `Entry.out_round` holds it; in a two-stage event, the group stage or
    the knock-out's round after its `group_rounds`; `losers_rounds` names the losers'
    rounds of a double-elimination bracket, a two-stage event's second stage included)."""
    if entry.status == Entry.Status.CHAMPION or entry.placement == 1:
        return _("Champion")
    if entry.status == Entry.Status.DISQUALIFIED:
        return _("Disqualified")
    if form == Tournament.Format.SWISS:
        if not entry.placement:
            return ""
        return _("%(place)s in the standings") % {"place": ordinal_words(entry.placement)}
    out_round = (entry.out_round or 0) - group_rounds
    if form == Tournament.Format.TWO_STAGE and entry.out_round and out_round <= 0:
        return _("Out in the group stage")
    if form == Tournament.Format.DOUBLE or (form == Tournament.Format.TWO_STAGE and losers_rounds):
        if entry.placement == 2:
            return _("Runner-up")
        if out_round <= 0:
            return ""
        return words.out_in((losers_rounds or {}).get(out_round, f"Losers' round {out_round}"))
    n_rounds -= group_rounds
    if entry.placement == 2 and out_round == n_rounds:
        return _("Runner-up")
    if entry.placement and out_round == n_rounds:  # a final table of three or more
        return _("%(place)s in the Final") % {"place": ordinal_words(entry.placement)}
    if entry.placement == 3 and third_match:
        return _("Third place (won the third-place match)")
    if out_round > 0:
        return words.out_in(services.round_name(out_round, n_rounds))
    return entry.get_status_display()


def placement_rows(entries: list[Entry], bracket: dict) -> list[dict]:
    n_rounds = len(bracket["rounds"])
    third_match = any(t["third_place"] for r in bracket["rounds"] for t in r["tables"])
    form = bracket["format"]
    groups = len(bracket["stages"][0]["rounds"]) if "stages" in bracket else 0
    losers = {r["side_round"]: r["name"] for r in bracket["rounds"] if r["side"] == "L"}
    shared = Counter(e.placement for e in entries)
    return [
        {
            "entry": e,
            "outcome": result_words(e, n_rounds, third_match, form, groups, losers),
            "joint": shared[e.placement] > 1,  # both semi-final losers are 3rd: "=3"
        }
        for e in entries
    ]


def profile_section(player) -> dict | None:
    """The player's tournaments on their profile (gameplay.profile registry): one query."""
    entries = selectors.tournaments_of_player(player)
    if not entries:
        return None
    rows = []
    for entry in entries:
        tournament = entry.tournament
        shape = services.bracket_of(tournament) if tournament.entries_count else None
        n_rounds = shape.n_rounds if shape else 0
        groups = getattr(shape, "n_group_rounds", 0)  # a two-stage event's group rounds
        losers = None
        if getattr(shape, "double", False):  # a two-stage event's double-elimination stage
            losers = {
                side_round: shape.knockout.round_name(number)
                for number, (side, side_round) in enumerate(shape.knockout.sides, start=1)
                if side == "L"
            }
        outcome = result_words(
            entry, n_rounds, tournament.third_place, tournament.format, groups, losers
        )
        champion = entry.status == Entry.Status.CHAMPION or entry.placement == 1
        rows.append({"entry": entry, "outcome": outcome, "champion": champion})
    return {
        "title": _("Tournaments"),
        "template": "tournaments/_profile.html",
        "context": {"rows": rows},
    }


def _invite_code(request, pk: int) -> str:
    """The invitation code this visitor brought to an invite-only event: from the link
    (`?code=`), kept in their session so the page's refreshes and the register button
    carry it."""
    key = f"tournament-invite:{pk}"
    code = request.GET.get("code", "")[:16]
    if code and hasattr(request, "session"):
        request.session[key] = code
    return code or (request.session.get(key, "") if hasattr(request, "session") else "")


def _player_panel(request, tournament: Tournament) -> dict:
    """What the signed-in player may do here now, for the page's buttons."""
    player = gameplay_selectors.player_of_user(request.user)
    entry = selectors.entry_of(tournament, player)
    status = tournament.status
    active = entry is not None and entry.status in services.ACTIVE_ENTRY
    full = tournament.max_entries is not None and tournament.entered >= tournament.max_entries
    can_register = status in services.OPEN_FOR_ENTRIES and (
        entry is None or entry.status == Entry.Status.WITHDRAWN
    )
    code = _invite_code(request, tournament.pk)
    refusal = services.entry_refusal(tournament, player, code) if can_register and player else None
    return {
        "player": player,
        "entry": entry,
        "seat": selectors.seat_of(entry),
        "can_register": can_register and refusal is None,
        "refusal": refusal.message if refusal else "",
        "full": full,
        "can_withdraw": (active and status in services.STARTABLE)
        or (entry is not None and entry.status == Entry.Status.PLAYING),
        "can_check_in": status == Tournament.Status.CHECK_IN
        and active
        and entry.checked_in_at is None,
    }


def _organiser_panel(tournament: Tournament, bracket: dict) -> dict:
    status = tournament.status
    over = status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
    disputed = [table for rnd in bracket["rounds"] for table in rnd["tables"] if table["disputed"]]
    return {
        "editable": status in services.BEFORE_START,
        "open_registration": status == Tournament.Status.DRAFT,
        "open_check_in": status == Tournament.Status.REGISTRATION,
        "close_check_in": status == Tournament.Status.CHECK_IN,
        "start": status in services.STARTABLE,
        "cancel": not over,
        "fees": selectors.held_fees(tournament),
        # Nobody is disqualified from a tournament that is over.
        "disqualifiable": () if over else (*services.ACTIVE_ENTRY, Entry.Status.PLAYING),
        "seeding": tournament.seeding == Tournament.Seeding.MANUAL
        and status in services.BEFORE_START,
        "disputed": disputed,
        "webhooks": selectors.webhooks_with_deliveries(tournament),
        "invited": ", ".join(
            tournament.invited.order_by("user__username").values_list("user__username", flat=True)
        ),
        "co_organisers": ", ".join(
            tournament.co_organisers.order_by("username").values_list("username", flat=True)
        ),
        "webhook_events": Webhook.Event.choices,
    }


def _back(tournament_id: int):
    return redirect("tournament-detail", pk=tournament_id)


def _attempt(request, done: str, call, **kwargs):
    """Run a service; its refusal becomes an error message, success `done`."""
    try:
        result = call(**kwargs)
    except DomainError as exc:
        messages.error(request, exc.message)
        return None
    messages.success(request, done)
    return result or True


# --- a player's buttons --------------------------------------------------------------------


@login_required
@require_POST
def register(request, pk: int):
    _visible(request, pk)
    try:
        entry = services.entry_register(
            tournament_id=pk, player=player_for_user(request.user), code=_invite_code(request, pk)
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return _back(pk)
    paid = (
        " "
        + ngettext("%(n)s coin entry fee paid.", "%(n)s coins entry fee paid.", entry.fee_paid)
        % {"n": entry.fee_paid}
        if entry.fee_paid
        else ""
    )
    if entry.status == Entry.Status.WAITLISTED:
        messages.info(request, _("The tournament is full: you are on the waiting list.") + paid)
    else:
        messages.success(request, _("You are in.") + paid)
    return _back(pk)


@login_required
@require_POST
def withdraw(request, pk: int):
    tournament = _visible(request, pk)
    player = player_for_user(request.user)
    entry = selectors.entry_of(tournament, player)
    # Before the draw the fee comes back; once playing, withdrawing forfeits it.
    held = entry.fee_paid if entry and tournament.status in services.STARTABLE else 0
    refund = (
        " " + ngettext("%(n)s coin refunded.", "%(n)s coins refunded.", held) % {"n": held}
        if held
        else ""
    )
    _attempt(
        request,
        _("You withdrew.") + refund,
        services.entry_withdraw,
        tournament_id=pk,
        player=player,
    )
    return _back(pk)


@login_required
@require_POST
def check_in(request, pk: int):
    _visible(request, pk)
    _attempt(
        request,
        _("Checked in: you will be seated when the tournament starts."),
        services.entry_check_in,
        tournament_id=pk,
        player=player_for_user(request.user),
    )
    return _back(pk)


@login_required
@require_POST
def take_seat(request, pk: int, table_id: int):
    """Show up at your bracket table; once it starts, go straight to the live table."""
    _visible(request, pk)
    get_object_or_404(Table, pk=table_id, tournament_id=pk)
    player = player_for_user(request.user)
    table = _attempt(
        request,
        _("You took your seat."),
        services.table_show_up,
        table_id=table_id,
        player=player,
        client_seed=request.POST.get("client_seed", ""),
    )
    if table:
        seat = selectors.seat_of(selectors.entry_of(table.tournament, player))
        if seat and seat["match"]:
            return redirect("match-table", match_id=seat["match"])
        messages.info(request, _("Your match starts as soon as everyone at the table is seated."))
    return _back(pk)


# --- the organiser's ---------------------------------------------------------------------------


def _cancelled(tournament: Tournament) -> str:
    """What cancelling refunds, read just before: the fees held, as the question put it."""
    fees = selectors.held_fees(tournament)
    if not fees["entries"]:
        return _("Cancelled. No fees were held, so nothing was refunded.")
    coins, players = fees["coins"], fees["entries"]
    refunded = ngettext("%(n)s coin refunded", "%(n)s coins refunded", coins) % {"n": coins}
    return ngettext(
        "Cancelled. %(refunded)s to %(n)s player.",
        "Cancelled. %(refunded)s to %(n)s players.",
        players,
    ) % {"refunded": refunded, "n": players}


# Each action's service and what to say when it is done (a callable reads the tournament first).
ACTIONS = {
    "open-registration": (
        services.tournament_open_registration,
        gettext_lazy("Registration is open."),
    ),
    "open-check-in": (services.tournament_open_check_in, gettext_lazy("Check-in is open.")),
    "close-check-in": (services.tournament_close_check_in, gettext_lazy("Check-in is closed.")),
    "start": (
        services.tournament_start,
        gettext_lazy("The tournament has started: the bracket is drawn."),
    ),
    "cancel": (services.tournament_cancel, _cancelled),
}


@login_required
@require_POST
def manage(request, pk: int, action: str):
    tournament = _visible(request, pk)
    if action not in ACTIONS:
        raise Http404(_("No such action."))
    call, done = ACTIONS[action]
    if callable(done):
        done = done(tournament)
    _attempt(request, done, call, tournament_id=pk, by=request.user)
    return _back(pk)


@login_required
@require_POST
def webhook_add(request, pk: int):
    """The organiser's new webhook: an address and the events ticked (none ticked: all)."""
    _visible(request, pk)
    _attempt(
        request,
        _("Webhook added. Its deliveries are signed with the secret shown below it."),
        services.webhook_add,
        tournament_id=pk,
        by=request.user,
        url=request.POST.get("url", "").strip()[:501],
        events=request.POST.getlist("events")[:10],
    )
    return _back(pk)


@login_required
@require_POST
def webhook_remove(request, pk: int, webhook_id: int):
    _visible(request, pk)
    webhook = get_object_or_404(Webhook, pk=webhook_id, tournament_id=pk)
    _attempt(
        request,
        _("Webhook removed."),
        services.webhook_remove,
        webhook_id=webhook.pk,
        by=request.user,
    )
    return _back(pk)


@login_required
@require_POST
def disqualify(request, pk: int, entry_id: int):
    _visible(request, pk)
    entry = get_object_or_404(Entry.objects.select_related("player"), pk=entry_id, tournament_id=pk)
    _attempt(
        request,
        _("%(name)s is disqualified.") % {"name": entry.player.display_name},
        services.entry_disqualify,
        entry_id=entry.pk,
        by=request.user,
    )
    return _back(pk)


@login_required
@require_POST
def set_seed(request, pk: int, entry_id: int):
    """Manual seeding: the organiser's seed for one entry (empty clears it). Whose it is
    comes first: nobody else learns how the value would have been read."""
    tournament = _visible(request, pk)
    if not services.can_run(request.user, tournament):
        messages.error(request, _("Only this tournament's organiser may do that."))
        return _back(pk)
    entry = get_object_or_404(Entry.objects.select_related("player"), pk=entry_id, tournament_id=pk)
    raw = request.POST.get("seed", "").strip()
    seed = ascii_int(raw, low=1, high=65536) if raw else None
    if raw and seed is None:
        messages.error(request, _("A seed is a whole number from 1 (the best) up."))
        return _back(pk)
    _attempt(
        request,
        _("%(name)s is seed %(seed)s.") % {"name": entry.player.display_name, "seed": seed}
        if seed
        else _("Seed cleared."),
        services.entry_set_seed,
        entry_id=entry.pk,
        seed=seed,
        by=request.user,
    )
    return _back(pk)


@login_required
@require_POST
def replay(request, pk: int, table_id: int):
    _visible(request, pk)
    get_object_or_404(Table, pk=table_id, tournament_id=pk)
    _attempt(
        request,
        _("The disputed match is set aside; the table plays it again."),
        services.table_replay,
        table_id=table_id,
        by=request.user,
    )
    return _back(pk)


@login_required
def tournament_create(request):
    if not services.can_organise(request.user):
        raise PermissionDenied(_("Creating tournaments needs the organiser permission."))
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            tournament = services.tournament_create(organiser=request.user, **form.settings())
        except DomainError as exc:
            form.explain(exc.message, (exc.details or {}).get("field"))
        else:
            messages.success(
                request,
                _("Draft saved. Only you and staff see it until you open registration."),
            )
            return redirect("tournament-detail", pk=tournament.pk)
    return render(request, "tournaments/form.html", {"form": form, "tournament": None})


@login_required
def tournament_edit(request, pk: int):
    tournament = _visible(request, pk)
    if not services.can_run(request.user, tournament):
        raise PermissionDenied(_("Only this tournament's organiser may change it."))
    if tournament.status not in services.BEFORE_START:
        messages.error(request, _("The tournament has started: its settings are fixed."))
        return _back(pk)
    form = TournamentForm(request.POST or None, tournament=tournament)
    if request.method == "POST" and form.is_valid():
        try:
            services.tournament_update(tournament_id=pk, by=request.user, **form.settings())
        except DomainError as exc:
            form.explain(exc.message, (exc.details or {}).get("field"))
        else:
            messages.success(request, _("Saved."))
            return _back(pk)
    return render(request, "tournaments/form.html", {"form": form, "tournament": tournament})


def table_context(match) -> dict | None:
    """A tournament match's event at its table (gameplay.table_context registry): the
    tournament, the round as the page says it and the game of its best-of; one query."""
    at = (
        TableMatch.objects.select_related("table__tournament", "table__round")
        .filter(match=match)
        .first()
    )
    if at is None:
        return None
    tournament, round_ = at.table.tournament, at.table.round
    detail = words.round_title(round_.name)
    if round_.best_of > 1:
        detail = _("%(round)s · game %(n)s of %(best_of)s") % {
            "round": detail,
            "n": at.number,
            "best_of": round_.best_of,
        }
    return {
        "event": tournament.name,
        "detail": detail,
        "url": reverse("tournament-detail", args=[tournament.pk]),
        "back": _("Back to the tournament"),
    }
