"""Who may enter and who may run a tournament: invite-only events (a code and a list of
invited people), a rating band and a number of rated matches, co-organisers, and the
no-show bans that keep a person who keeps missing their tables out of the next events.

`entry_refusal` is what registration asks; the rest are the organiser's settings and the
record of no-shows, which the bracket writes when a show-up deadline passes.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.errors import DomainError, NotAllowed, NotFound
from gameplay.models import Player, Rating
from gameplay.rating_scale import displayed
from tournaments.models import NoShow, NoShowBan, Tournament
from tournaments.services.common import _check_organiser, _lock

INVITED_MAX = 500
CO_ORGANISERS_MAX = 10
RATING_MAX = 10_000


def new_invite_code() -> str:
    """Eight letters and digits, none that read alike (no 0/O, 1/I/L)."""
    alphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
    return "".join(secrets.choice(alphabet) for _ in range(8))


def _names(usernames: list[str]) -> set[str]:
    """The usernames typed, lowercased; one no username could be (a control character, a
    NUL that PostgreSQL would refuse) names nobody."""
    names = {name.strip().lower() for name in usernames if name.strip()}
    for name in names:
        if not name.isprintable() or len(name) > 150:
            raise DomainError(
                _("No player is called %(name)s.")
                % {"name": name[:150].encode("unicode_escape").decode()},
                code="unknown_player",
            )
    return names


def _players_named(usernames: list[str], limit: int) -> list[Player]:
    """The people with these usernames, matched without regard to case, as they log in."""
    names = _names(usernames)
    if len(names) > limit:
        raise DomainError(_("At most %(count)d names.") % {"count": limit}, code="too_many_names")
    found = list(
        Player.objects.annotate(name=Lower("user__username"))
        .filter(name__in=names, is_bot=False)
        .select_related("user")
    )
    missing = sorted(names - {player.name for player in found})
    if missing:
        raise DomainError(
            _("No player is called %(name)s.") % {"name": missing[0][:150]}, code="unknown_player"
        )
    return found


def tournament_set_entry_conditions(
    *,
    tournament_id: int,
    by,
    invite_only: bool,
    invited: list[str] = (),
    min_rating: int | None = None,
    max_rating: int | None = None,
    min_rated_matches: int = 0,
) -> Tournament:
    """Who may register from now on (who has registered stays). An invite-only event gets
    its code the first time; `invited` lists usernames admitted without it."""
    for value in (min_rating, max_rating):
        if value is not None and not 0 <= value <= RATING_MAX:
            raise DomainError(
                _("A rating is from 0 to %(max)d.") % {"max": RATING_MAX}, code="invalid_rating"
            )
    if min_rating is not None and max_rating is not None and min_rating > max_rating:
        raise DomainError(
            _("The lowest rating allowed is above the highest."), code="invalid_rating"
        )
    if not 0 <= min_rated_matches <= 100_000:
        raise DomainError(
            _("Rated matches are a number from 0 to 100,000."), code="invalid_rated_matches"
        )
    people = _players_named(list(invited), INVITED_MAX)
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        tournament.invite_only = invite_only
        if invite_only and not tournament.invite_code:
            tournament.invite_code = new_invite_code()
        tournament.min_rating, tournament.max_rating = min_rating, max_rating
        tournament.min_rated_matches = min_rated_matches
        tournament.save(
            update_fields=[
                "invite_only",
                "invite_code",
                "min_rating",
                "max_rating",
                "min_rated_matches",
            ]
        )
        tournament.invited.set(people)
    return tournament


def tournament_new_invite_code(*, tournament_id: int, by) -> Tournament:
    """A fresh code: the old one (and the links carrying it) stop working."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        tournament.invite_code = new_invite_code()
        tournament.save(update_fields=["invite_code"])
    return tournament


def tournament_set_co_organisers(*, tournament_id: int, by, usernames: list[str]) -> Tournament:
    """The people who run the event beside its organiser; only the organiser (or a
    superuser) changes this list."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if not (by.is_superuser or tournament.organiser_id == by.pk):
            raise NotAllowed(
                _("Only the tournament's organiser chooses its co-organisers."),
                code="not_organiser",
            )
        names = _names(usernames)
        if len(names) > CO_ORGANISERS_MAX:
            raise DomainError(
                _("At most %(count)d names.") % {"count": CO_ORGANISERS_MAX},
                code="too_many_names",
            )
        users = list(
            get_user_model().objects.annotate(name=Lower("username")).filter(name__in=names)
        )
        missing = sorted(names - {user.name for user in users})
        if missing:
            raise DomainError(
                _("No player is called %(name)s.") % {"name": missing[0][:150]},
                code="unknown_player",
            )
        tournament.co_organisers.set([u for u in users if u.pk != tournament.organiser_id])
    return tournament


def entry_refusal(tournament: Tournament, player: Player, code: str = "") -> DomainError | None:
    """Why `player` may not register for `tournament` now, or None. Bots are the house's:
    they enter what their organiser puts them in."""
    if player.is_bot:
        return None
    ban = (
        NoShowBan.objects.filter(player=player, events_left__gt=0, lifted_at__isnull=True)
        .order_by("-pk")
        .first()
    )
    if ban is not None:
        return NotAllowed(
            ngettext(
                "You missed %(misses)d tables without showing up; you may enter again once "
                "%(events)d more tournament has started.",
                "You missed %(misses)d tables without showing up; you may enter again once "
                "%(events)d more tournaments have started.",
                ban.events_left,
            )
            % {"misses": ban.misses, "events": ban.events_left},
            code="barred_no_show",
        )
    if tournament.invite_only:
        invited = tournament.invited.filter(pk=player.pk).exists()
        if not invited and not (code and secrets.compare_digest(code, tournament.invite_code)):
            return NotAllowed(
                _("This tournament is by invitation: ask its organiser for the link."),
                code="invitation_required",
            )
    if (tournament.min_rating, tournament.max_rating, tournament.min_rated_matches) == (
        None,
        None,
        0,
    ):
        return None
    rating = Rating.objects.filter(player=player, variant=tournament.variant).first()
    shown = displayed(rating.ordinal if rating else 0.0)
    played = rating.rated_matches if rating else 0
    if played < tournament.min_rated_matches:
        return NotAllowed(
            ngettext(
                "This tournament needs %(count)d rated match of its game; you have %(played)d.",
                "This tournament needs %(count)d rated matches of its game; you have %(played)d.",
                tournament.min_rated_matches,
            )
            % {"count": tournament.min_rated_matches, "played": played},
            code="too_few_rated_matches",
        )
    if tournament.min_rating is not None and shown < tournament.min_rating:
        return NotAllowed(
            _("This tournament is for ratings of %(min)d and up; yours is %(rating)d.")
            % {"min": tournament.min_rating, "rating": shown},
            code="rating_out_of_band",
        )
    if tournament.max_rating is not None and shown > tournament.max_rating:
        return NotAllowed(
            _("This tournament is for ratings up to %(max)d; yours is %(rating)d.")
            % {"max": tournament.max_rating, "rating": shown},
            code="rating_out_of_band",
        )
    return None


def no_shows_record(*, tournament_id: int, player_ids: list[int], now: datetime) -> int:
    """Record who missed a show-up deadline (once per tournament and person) and bar who
    has now missed `KNOCK_NO_SHOW_BAN["misses"]` not yet counted towards a ban; returns
    the bans. Called under the table locks of the deadline that passed."""
    rule = settings.KNOCK_NO_SHOW_BAN
    if not player_ids:
        return 0
    NoShow.objects.bulk_create(
        [NoShow(player_id=pk, tournament_id=tournament_id, at=now) for pk in player_ids],
        ignore_conflicts=True,
    )
    if not rule["misses"]:
        return 0
    bans = 0
    # The player rows order two deadlines passing at once for one person: one bans.
    list(Player.objects.select_for_update().filter(pk__in=player_ids).order_by("pk"))
    for player_id in sorted(set(player_ids)):
        uncounted = NoShow.objects.filter(player_id=player_id, ban__isnull=True)
        misses = uncounted.count()
        if misses >= rule["misses"]:
            ban = NoShowBan.objects.create(
                player_id=player_id, events_left=rule["events"], misses=misses
            )
            uncounted.update(ban=ban)
            bans += 1
    return bans


def no_show_bans_count_down(*, started: Tournament) -> int:
    """A tournament started: every ban running then has one event fewer to wait."""
    return NoShowBan.objects.filter(
        events_left__gt=0, lifted_at__isnull=True, created_at__lt=started.started_at
    ).update(events_left=F("events_left") - 1)


def no_show_ban_lift(*, ban_id: int, by) -> NoShowBan:
    """An admin's pardon."""
    with transaction.atomic():
        ban = NoShowBan.objects.select_for_update().filter(pk=ban_id).first()
        if ban is None:
            raise NotFound(_("No such ban."), code="not_found")
        if ban.lifted_at is None:
            ban.lifted_at, ban.lifted_by = timezone.now(), by
            ban.save(update_fields=["lifted_at", "lifted_by"])
    return ban
