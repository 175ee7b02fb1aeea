"""Server-rendered pages. Thin: reads come from gameplay.selectors, shaping stays here."""

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from config.errors import DomainError
from config.params import MAX_ID, ascii_int
from config.parsers import MAX_JSON_DEPTH, json_depth_exceeds
from config.preferences import TIME_ZONE_AGE, TIME_ZONE_COOKIE
from config.security import RateLimit
from engine import variants
from engine import verify as engine_verify
from gameplay import profile, rating_scale, selectors, services
from gameplay.forms import ClientSeedForm, EmailForm, SignupForm, TimeZoneForm
from gameplay.models import Match, Rating, Room
from gameplay.table_context import context_of

CHART_WIDTH = 240
CHART_HEIGHT = 60
CHART_PAD = 4
RECENT_MATCHES = 10


def signup(request):
    """Create an account with the API's rules (gameplay.services.player_register), then
    sign in and go to the new profile."""
    if request.user.is_authenticated:
        return redirect("me")
    form = SignupForm(request.POST or None)
    if request.method == "POST":
        # The API's `register` rate, on the same count as POST /api/auth/register/.
        limit = RateLimit("register")
        if not limit.check(request):
            minutes = limit.minutes()
            messages.error(
                request,
                _("Too many sign-ups from here. Try again in %(minutes)s min.")
                % {"minutes": minutes},
            )
            return render(request, "registration/signup.html", {"form": SignupForm()}, status=429)
        if form.is_valid():
            data = form.cleaned_data
            try:
                # The API's own service: the same username and password rules and words.
                player = services.player_register(
                    username=data["username"], password=data["password1"], email=data["email"]
                )
            except DomainError as exc:
                form.explain(exc)
            else:
                services.player_set_language(player=player, language=get_language())
                login(request, player.user, backend="gameplay.backends.CaseInsensitiveModelBackend")
                messages.success(
                    request, _("Welcome to Knock, %(name)s!") % {"name": player.display_name}
                )
                return redirect("player-profile", player_id=player.pk)
    return render(request, "registration/signup.html", {"form": form})


def lobby(request):
    """Every active room, locked ones marked for the viewer (anonymous viewers: level 1),
    with Play buttons, the player's place in a queue and the table they sit at; then the
    live games anyone may watch (`selectors.live_games`)."""
    player = selectors.player_of_user(request.user)
    return render(
        request,
        "gameplay/lobby.html",
        {
            "player": player,
            "level": player.level if player else 1,
            "rooms": selectors.rooms_for(player),
            "table": selectors.active_match_of(player) if player else None,
            "queued": selectors.queue_entry_of(player) if player else None,
            "next_seed": services.player_next_seed_commitment(player=player) if player else None,
            "live_games": selectors.live_games(),
        },
    )


@login_required
@require_POST
def room_play(request, room_id: int):
    """The lobby's Play buttons: the same service as POST /api/rooms/<id>/play/. A player
    already at as many tables as the room allows stays in the lobby, told to leave a table
    first (the lobby links to it)."""
    player = services.player_for_user(request.user)
    room = Room.objects.filter(pk=room_id, active=True).first()
    if room is None:
        raise Http404("No such room.")
    table = services.room_table_full(player=player, room=room)
    if table is not None:
        messages.warning(
            request,
            _(
                "You are already at a table in this room. Leave it first (Resign, or Call off "
                "before its first move), then sit at another."
            ),
        )
        return redirect("lobby")
    try:
        outcome = services.room_play(
            player=player,
            room=room,
            opponent=request.POST.get("opponent", ""),
            client_seed=request.POST.get("client_seed", ""),
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    if isinstance(outcome, Match):
        return redirect("match-table", match_id=outcome.pk)
    return redirect("lobby")


@login_required
def account(request):
    """Your account: the email a reset link goes to, your client seed, and a way to
    change your password."""
    player = services.player_for_user(request.user)
    zoning = request.POST.get("form") == "time_zone"
    zone_form = TimeZoneForm(
        request.POST if zoning else None,
        initial={"time_zone": player.time_zone or timezone.get_current_timezone_name()},
    )
    if zoning and zone_form.is_valid():
        zone = services.player_set_time_zone(
            player=player, time_zone=zone_form.cleaned_data["time_zone"]
        )
        messages.success(request, _("Times now read in %(zone)s.") % {"zone": zone})
        response = redirect("account")
        response.set_cookie(TIME_ZONE_COOKIE, zone, max_age=TIME_ZONE_AGE, samesite="Lax")
        return response
    seeding = request.POST.get("form") == "client_seed"
    seed_form = ClientSeedForm(
        request.POST if seeding else None, initial={"client_seed": player.client_seed}
    )
    if seeding and seed_form.is_valid():
        try:
            seed = services.player_set_client_seed(
                player=player, client_seed=seed_form.cleaned_data["client_seed"]
            )
        except DomainError as exc:
            seed_form.add_error("client_seed", exc.message)
        else:
            messages.success(
                request,
                _("Your client seed is saved.") if seed else _("Your browser picks your seeds."),
            )
            return redirect("account")
    form = EmailForm(
        request.POST if request.method == "POST" and not seeding and not zoning else None,
        initial={"email": request.user.email},
    )
    if request.method == "POST" and not seeding and not zoning and form.is_valid():
        try:
            email = services.user_set_email(user=request.user, email=form.cleaned_data["email"])
        except DomainError as exc:
            form.add_error("email", exc.message)
        else:
            messages.success(
                request,
                _("Reset links go to %(email)s.") % {"email": email}
                if email
                else _("Email removed."),
            )
            return redirect("account")
    context = {
        "form": form,
        "seed_form": seed_form,
        "zone_form": zone_form,
        "next_seed": services.player_next_seed_commitment(player=player),
        "tokens": selectors.api_tokens_of(request.user),
    }
    return render(request, "registration/account.html", context)


@login_required
@require_POST
def account_token_revoke(request, token_id: int):
    """The account page's "Revoke" button beside one of your API tokens."""
    try:
        services.api_token_revoke(user=request.user, token_id=token_id)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The token is revoked: it works no more."))
    return redirect(reverse("account") + "#api-tokens")


@require_POST
def language_set(request):
    """The header's language buttons: Django's set_language (it checks the code and the
    `next` address, and sets the cookie), and for a signed-in player the account's
    language too, so it follows them to other browsers."""
    response = set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language in dict(settings.LANGUAGES):
        services.player_set_language(
            player=services.player_for_user(request.user), language=language
        )
    return response


@login_required
@require_POST
def queue_leave(request):
    if services.queue_leave(player=services.player_for_user(request.user)):
        messages.info(request, _("You left the queue."))
    return redirect("lobby")


@login_required
def queue_status(request):
    """What the lobby's queue panel polls: still waiting, or the table that was made."""
    player = services.player_for_user(request.user)
    entry = selectors.queue_entry_of(player)
    table = None if entry else selectors.active_match_of(player)
    return JsonResponse(
        {
            "queued": entry is not None,
            "room": entry.room.name if entry else None,
            "since": entry.created_at.isoformat() if entry else None,
            "table": reverse("match-table", args=[table.pk]) if table else None,
        }
    )


# The longest document /verify/ replays. The longest matches the default rooms produce are
# Basic Rummy's at four seats: about 2,200 moves and 250,000 characters (measured over bot
# matches of every variant), replayed in 0.06 s. The bounds leave four times that, and keep
# the page about a megabyte; a longer document (a room with a raised target) is checked
# offline with `python -m engine.verify`, which has no bound.
VERIFY_MAX_CHARS = 1_000_000
VERIFY_MAX_MOVES = 10_000


def verify(request):
    """Check a finished match by id (?match=) or a pasted document (POST): every hand's
    deal, every move's legality and the result, by `engine.verify`, the check anyone can
    also run on their own machine. Public: no sign-in needed, so it is bounded (413 past
    VERIFY_MAX_CHARS or VERIFY_MAX_MOVES) and throttled per client (the `verify` rate)."""
    raw_id = request.GET.get("match", "").strip()
    context = {"report": None, "pasted": "", "match_id": raw_id, "lines": []}
    if request.method != "POST" and not raw_id:
        return render(request, "gameplay/verify.html", context)
    limit = RateLimit("verify")
    if not limit.check(request):
        message = _("Too many checks from here. Try again in %(minutes)d min.")
        return _verify_refused(request, context, message % {"minutes": limit.minutes()}, 429)
    if request.method == "POST":
        too_long = _("This document is longer than %(chars)s characters: check it offline.")
        too_long %= {"chars": f"{VERIFY_MAX_CHARS:,}"}
        length = ascii_int(request.META.get("CONTENT_LENGTH") or "0")
        if length is None or length > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            return _verify_refused(request, context, too_long, 413)
        pasted = request.POST.get("document", "")
        if len(pasted) > VERIFY_MAX_CHARS:
            return _verify_refused(request, context, too_long, 413)
        context["pasted"] = pasted
        try:
            document = json.loads(pasted)
        except RecursionError:
            document = None
        except ValueError as exc:
            return _verify_refused(request, context, _("This is not JSON: %s") % exc, 400)
        if document is None or json_depth_exceeds(document, MAX_JSON_DEPTH):
            message = _("This document nests deeper than %(depth)d levels.")
            return _verify_refused(request, context, message % {"depth": MAX_JSON_DEPTH}, 400)
    else:
        match_id = ascii_int(raw_id)
        if match_id is None:
            message = _("A match number is written in the digits 0-9, at most %(max)d.")
            return _verify_refused(request, context, message % {"max": MAX_ID}, 400)
        match = selectors.match_finished(match_id)
        if match is None:
            report = engine_verify.Report(False, [], _("No finished match %d.") % match_id)
            return render(request, "gameplay/verify.html", {**context, "report": report})
        document = selectors.match_document(match)
    moves = document.get("moves") if isinstance(document, dict) else None
    if isinstance(moves, list) and len(moves) > VERIFY_MAX_MOVES:
        message = _("This match has more than %(moves)s moves: check it offline.")
        return _verify_refused(request, context, message % {"moves": f"{VERIFY_MAX_MOVES:,}"}, 413)
    report = engine_verify.check(document)
    context |= {"report": report, "lines": [_verify_line(line) for line in report.lines]}
    return render(request, "gameplay/verify.html", context)


def _verify_refused(request, context: dict, problem: str, status: int):
    """The page again, saying why nothing was checked."""
    report = engine_verify.Report(False, [], problem)
    context = {**context, "report": report, "pasted": context["pasted"][:VERIFY_MAX_CHARS]}
    return render(request, "gameplay/verify.html", context, status=status)


def _verify_line(line: str) -> dict:
    """One line of the check, with the kind of line it is, for the page's layout."""
    text = line.strip()
    kind = "move" if text.startswith("move ") else "deal" if line.startswith("  ") else "head"
    return {"text": text, "kind": kind}


def match_table(request, match_id: int):
    """The live table: the seat's view and the players' public profiles, as JSON data for
    static/table/main.js (no inline script: json_script is data, not code), which loads
    the variant's own module, static/table/variants/<variant>.js, named here.

    A match that is over is public, logged out too (its seed and moves are published then,
    so a bracket's game links work for anyone); a running one asks strangers to log in,
    then shows it only to its seats and to spectators it allows."""
    player = selectors.player_of_user(request.user)
    match = selectors.match_watchable(match_id, player)
    running = match is None or match.status == Match.Status.ACTIVE
    if not request.user.is_authenticated and running:
        return redirect_to_login(request.get_full_path())
    if match is None:
        raise Http404("No such match.")
    seats = sorted(match.seats.all(), key=lambda seat: seat.index)
    ratings = dict(
        Rating.objects.filter(
            player_id__in=[seat.player_id for seat in seats], variant=match.variant
        ).values_list("player_id", "ordinal")
    )
    profiles = [
        {
            "seat": seat.index,
            "name": seat.player.display_name,
            "title": seat.player.displayed_title.name if seat.player.displayed_title else "",
            "level": seat.player.level,
            "rating": rating_scale.displayed(ratings.get(seat.player_id)),
            "bot": seat.player.is_bot,
            "profile": reverse("player-profile", args=[seat.player_id]),
        }
        for seat in seats
    ]
    event = context_of(match)
    return render(
        request,
        "gameplay/table.html",
        {
            "match": match,
            "event": event,
            "table_data": {
                "match": match.pk,
                "view": selectors.match_view(match, player),
                "players": profiles,
                "room": match.room.name if match.room else "",
                # The socket is for people signed in; a logged-out reader of a match that
                # is over has nothing to wait for.
                "socket": f"/ws/matches/{match.pk}/" if request.user.is_authenticated else "",
                "api": reverse("api-match", args=[match.pk]),
                "actions": reverse("api-match-actions", args=[match.pk]),
                "controls": {
                    "resign": reverse("api-match-resign", args=[match.pk]),
                    "abort": reverse("api-match-abort", args=[match.pk]),
                    "next_hand": reverse("api-match-next-hand", args=[match.pk]),
                },
                # The table rests between hands (the overlay holds the next deal).
                "rest_seconds": settings.KNOCK_NEXT_HAND_SECONDS,
                "document": reverse("api-match-document", args=[match.pk]),
                "verify": f"{reverse('verify')}?match={match.pk}",
                "lobby": reverse("lobby"),
                # A tournament's or league's table leads back there after the result.
                "back": {"url": event["url"], "label": event["back"]} if event else None,
                "variant_module": static(f"table/variants/{match.variant}.js"),
            },
        },
    )


@login_required
def me(request):
    # Staff accounts get their player on first visit, as the API's /me/ does.
    return redirect("player-profile", player_id=services.player_for_user(request.user).pk)


def player_profile(request, player_id: int):
    player = selectors.player_profile(player_id)
    if player is None:
        raise Http404("No such player.")
    histories = selectors.rating_histories(player)
    ratings = [
        {"rating": rating, "chart": line_chart(histories.get(rating.variant, []))}
        for rating in selectors.ratings_of(player)
    ]
    return render(
        request,
        "gameplay/profile.html",
        {
            "player": player,
            "is_me": request.user.is_authenticated and request.user.pk == player.user_id,
            "progress": selectors.level_progress(player),
            "ratings": ratings,
            "titles": selectors.titles_of(player),
            "achievements": selectors.achievements_of(player),
            "matches": recent_matches(player),
            "sections": profile.render_sections(player, request),
        },
    )


def recent_matches(player) -> list[dict]:
    """The player's latest matches with their own seat, the opponents and the result in
    words ("Won 100-64 against Ada")."""
    rows = []
    # The cached engine state is a pickle per match; the list never needs it.
    for match in selectors.matches_of(player)[:RECENT_MATCHES]:
        seats = sorted(match.seats.all(), key=lambda seat: seat.index)
        mine = next(seat for seat in seats if seat.player_id == player.pk)
        others = [seat for seat in seats if seat.player_id != player.pk]
        rows.append(
            {
                "match": match,
                "seat": mine,
                "opponents": [seat.player for seat in others],
                "outcome": match_outcome(match, mine, others),
            }
        )
    return rows


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _match_score(match, mine, others) -> str:
    """ "100-64"; where the lowest total wins, said so, as "0-25" would read backwards."""
    if mine.score is None or any(seat.score is None for seat in others):
        return ""
    if variants.get(match.variant).lower_score_wins(match.options):
        return _("with %(mine)s penalty points to %(others)s") % {
            "mine": mine.score,
            "others": ", ".join(str(seat.score) for seat in others),
        }
    return "-".join(str(score) for score in [mine.score, *(seat.score for seat in others)])


def match_outcome(match, mine, others) -> dict:
    """How a match went for one seat, in words, and its kind (won, lost, other)."""
    if match.status == Match.Status.ACTIVE:
        return {"kind": "live", "verb": "Playing", "score": ""}
    if match.status == Match.Status.DISPUTED:
        return {"kind": "other", "verb": "Disputed", "score": ""}
    if match.status == Match.Status.ABORTED:
        return {"kind": "other", "verb": _("Called off"), "score": ""}
    score = _match_score(match, mine, others)
    if len(others) > 1:  # a table of three or more: a place, then everyone's score
        verb = "Won" if mine.placement == 1 else f"Finished {_ordinal(mine.placement or 0)}"
        kind = "won" if mine.placement == 1 else "other"
    elif mine.placement == 1 and others and others[0].placement == 1:
        verb, kind = "Drew", "other"
    elif mine.placement == 1:
        verb, kind = "Won", "won"
    else:
        verb, kind = "Lost", "lost"
    if mine.forfeited:
        verb, kind = f"{verb} (forfeited)", "lost"
    elif not mine.forfeited and any(seat.forfeited for seat in others) and kind == "won":
        verb = "Won (opponent forfeited)"
    return {"kind": kind, "verb": verb, "score": score}


def line_chart(values: list[float]) -> dict | None:
    """An SVG path through `values`, scaled to the chart box (newest on the right); none
    before two values, as one point would draw a flat line that says nothing."""
    if len(values) < 2:
        return None
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    inner_w = CHART_WIDTH - 2 * CHART_PAD
    inner_h = CHART_HEIGHT - 2 * CHART_PAD
    step = inner_w / (len(values) - 1)
    points = [
        (CHART_PAD + i * step, CHART_PAD + inner_h - (value - low) / span * inner_h)
        for i, value in enumerate(values)
    ]
    path = "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in points)
    return {
        "path": path,
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "low": low,
        "high": high,
        "last": points[-1],
        "count": len(values),
    }
