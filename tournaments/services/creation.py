"""Creating a tournament, and changing its settings and prizes until the draw."""

from __future__ import annotations

import secrets
from itertools import pairwise
from urllib.parse import urlsplit

from django.conf import settings as django_settings
from django.db import transaction
from django.utils.translation import gettext as _

from config.errors import Conflict, DomainError, NotAllowed
from config.text import refuse_hidden
from engine import variants
from gameplay import selectors as gameplay_selectors
from gameplay.models import BALANCE_MAX
from tournaments import bracket as bk
from tournaments.formats.tiebreaks import TIEBREAKS
from tournaments.models import Prize, Tournament
from tournaments.services.common import BEFORE_START, _check_organiser, _lock, can_organise

EDITABLE = (
    "name",
    "options",
    "best_of",
    "final_best_of",
    "seeding",
    "third_place",
    "registration_opens_at",
    "registration_closes_at",
    "check_in_opens_at",
    "check_in_closes_at",
    "starts_at",
    "max_entries",
    "min_entries",
    "min_level",
    "show_up_seconds",
    "turn_seconds",
    "spectators_allowed",
    "grand_final",
    "swiss_rounds",
    "tiebreaks",
    "place_points",
    "groups",
    "group_advance",
    "second_stage",
    "group_stage",
)


# One definition of each bound: the form's fields, the API's serializer and the checks
# below all read these (inclusive).
BOUNDS = {
    "swiss_rounds": (1, 30),
    "groups": (1, 64),
    "group_advance": (1, 64),
    "min_entries": (2, 65536),
}


def _refuse(field: str, message: str):
    """A refusal that names the field it concerns (the form shows it there; the API's
    error carries it in `details`)."""
    return DomainError(message, code="invalid_settings", details={"field": field})


def _check_startable(values: dict) -> None:
    """Refuse a two-stage event that cannot start with the most entries it admits."""
    most = values.get("max_entries")
    if values.get("format") != Tournament.Format.TWO_STAGE or most is None:
        return
    groups = values.get("groups") or 1
    if 2 * groups > most:
        raise _refuse(
            "groups",
            f"{groups} groups need at least {2 * groups} entries; at most {most} can enter.",
        )
    smallest = most // groups
    if (values.get("group_advance") or 2) > smallest:
        raise _refuse(
            "group_advance",
            f"With at most {most} entries in {groups} groups, a group may have only "
            f"{smallest}: no more than {smallest} can go through from each.",
        )


def validate_settings(values: dict) -> None:
    """Refuse settings no tournament can run with, in words an organiser can act on."""
    refuse_hidden(values.get("name") or "")
    try:
        variant = variants.get(values["variant"])
        values["options"] = variant.validate_options(values.get("options") or {})
        bk.validate(2, values["table_size"], values["advance"])
    except ValueError as exc:
        raise DomainError(str(exc), code="invalid_settings") from exc
    # A table may play short-handed, down to one more player than go through.
    if (
        not variant.min_players
        <= values["advance"] + 1
        <= values["table_size"]
        <= (variant.max_players)
    ):
        label = _(variant.title)
        seats = (
            f"exactly {variant.min_players}"
            if variant.min_players == variant.max_players
            else f"{variant.min_players} to {variant.max_players}"
        )
        raise DomainError(
            f"{label} seats {seats} players a table; tables of {values['table_size']} "
            f"with {values['advance']} going through need another variant.",
            code="invalid_settings",
        )
    for field in ("best_of", "final_best_of"):
        n = values.get(field)
        if n is not None and not (1 <= n <= 9 and n % 2 == 1):
            raise DomainError(f"{field} must be odd, from 1 to 9.", code="invalid_settings")
    if values.get("third_place") and values["table_size"] != 2:
        raise DomainError(
            _("A third-place match exists only for head-to-head tables."), code="invalid_settings"
        )
    _validate_format(values)
    if values.get("max_entries") is not None and values["max_entries"] < 2:
        raise DomainError(_("A tournament needs room for two entries."), code="invalid_settings")
    fewest, most = values.get("min_entries", 2), values.get("max_entries")
    low, high = BOUNDS["min_entries"]
    if not low <= fewest <= high or (most is not None and fewest > most):
        raise _refuse(
            "min_entries",
            _("The fewest entries to start is from %(low)s to %(high)s, and at most max_entries.")
            % {"low": low, "high": high},
        )
    _check_startable(values)
    if values.get("turn_seconds", 60) < 5:
        raise DomainError(_("Turns last at least 5 seconds."), code="invalid_settings")
    order = [
        ("registration_opens_at", "registration_closes_at"),
        ("registration_closes_at", "starts_at"),
        ("check_in_opens_at", "check_in_closes_at"),
        ("check_in_closes_at", "starts_at"),
    ]
    for early, late in order:
        a, b = values.get(early), values.get(late)
        if a is not None and b is not None and a > b:
            raise DomainError(
                _("%(early)s must not be after %(late)s.") % {"early": early, "late": late},
                code="invalid_settings",
            )


def _validate_format(values: dict) -> None:
    form = values.get("format") or Tournament.Format.SINGLE
    if form not in Tournament.Format.values:
        raise DomainError(f"Unknown format {form!r}.", code="invalid_settings")
    if form == Tournament.Format.DOUBLE and (
        values["table_size"] != 2 or values.get("third_place")
    ):
        raise DomainError(
            _(
                "Double elimination is played head-to-head, without a third-place match "
                "(the losers' bracket decides third place)."
            ),
            code="invalid_settings",
        )
    if form == Tournament.Format.TWO_STAGE and (
        values["table_size"] != 2 or values.get("third_place")
    ):
        raise DomainError(
            _("Two-stage events are played head-to-head, without a third-place match."),
            code="invalid_settings",
        )
    for field in ("groups", "group_advance", "swiss_rounds"):
        n, (low, high) = values.get(field), BOUNDS[field]
        if n is not None and not low <= n <= high:
            bounds = {"field": field, "low": low, "high": high}
            text = _("%(field)s must be from %(low)s to %(high)s.") % bounds
            if field == "swiss_rounds":
                text = _("A Swiss event plays %(low)s to %(high)s rounds (swiss_rounds).") % bounds
            raise _refuse(field, text)
    points = values.get("place_points") or []
    if points and (
        len(points) > values["table_size"]
        or any(not isinstance(p, int | float) or not 0 <= p <= 1000 for p in points)
        or any(a < b for a, b in pairwise(points))
    ):
        raise DomainError(
            _(
                "Points by place go from first place down, never rising, one per seat at most, "
                "each from 0 to 1000."
            ),
            code="invalid_settings",
        )
    keys = values.get("tiebreaks") or []
    if any(key not in TIEBREAKS for key in keys) or len(set(keys)) != len(keys):
        raise DomainError(
            f"Tie-breaks are chosen once each from {', '.join(TIEBREAKS)}.",
            code="invalid_settings",
        )
    if values.get("second_stage", "single") not in Tournament.SecondStage.values:
        raise DomainError(
            _("The second stage is 'single' or 'double' elimination."), code="invalid_settings"
        )
    if values.get("second_stage", "single") != "single" and form != Tournament.Format.TWO_STAGE:
        raise DomainError(
            _("A second stage belongs to two-stage events only."), code="invalid_settings"
        )
    group_stage = values.get("group_stage", "round_robin")
    if group_stage not in Tournament.GroupStage.values:
        raise DomainError(
            _("The group stage is 'round_robin' or 'swiss'."), code="invalid_settings"
        )
    if group_stage != "round_robin" and form != Tournament.Format.TWO_STAGE:
        raise DomainError(
            _("A group stage belongs to two-stage events only."), code="invalid_settings"
        )
    if values.get("grand_final", "reset") not in Tournament.GrandFinal.values:
        raise DomainError(_("The grand final is 'simple' or 'reset'."), code="invalid_settings")


# `Prize.coins` is a 32-bit column; a pool may hold more, shared out among places.
PRIZE_COINS_MAX = 2**31 - 1


def rake_of(fees: int) -> int:
    """The house's share of the entry fees held (`KNOCK_TOURNAMENT_RAKE_PERCENT`)."""
    return fees * django_settings.KNOCK_TOURNAMENT_RAKE_PERCENT // 100


def planned_pool(values: dict) -> int:
    """The prize pool a full tournament holds: every place's fee (two entries when there
    is no cap) less the rake, plus the sponsor budget an admin granted."""
    fees = (values.get("entry_fee") or 0) * (values.get("max_entries") or 2)
    return fees - rake_of(fees) + (values.get("sponsor_coins") or 0)


def validate_prizes(values: dict, prizes) -> None:
    """Refuse a prize table the pool cannot pay, XP past the bound, or a title or reward
    that admins have not made awardable by organisers (level titles never are)."""
    places = [p["placement"] for p in prizes]
    if len(set(places)) != len(places) or any(p < 1 for p in places):
        raise DomainError(_("Each placement has at most one prize."), code="invalid_prizes")
    pool = planned_pool(values)
    if pool > BALANCE_MAX:
        raise DomainError(
            _("The prize pool may hold at most %(max)s coins.") % {"max": BALANCE_MAX},
            code="invalid_prizes",
        )
    if any((p.get("coins") or 0) > PRIZE_COINS_MAX for p in prizes):
        raise DomainError(
            _("A prize carries at most %(max)s coins.") % {"max": PRIZE_COINS_MAX},
            code="invalid_prizes",
        )
    coins = sum(p.get("coins") or 0 for p in prizes)
    if coins > pool:
        raise DomainError(
            _(
                "The prizes add up to %(coins)s coins; the prize pool holds %(pool)s (entry "
                "fees of a full tournament less the house's share, plus any sponsor budget)."
            )
            % {"coins": coins, "pool": pool},
            code="prizes_exceed_pool",
            details={"prizes": coins, "pool": pool},
        )
    xp_max = django_settings.KNOCK_TOURNAMENT_PRIZE_XP_MAX
    if any((p.get("xp") or 0) > xp_max for p in prizes):
        raise DomainError(
            _("A prize carries at most %(max)s XP.") % {"max": xp_max}, code="invalid_prizes"
        )
    titles = {_pk(p, "title") for p in prizes} - {None}
    rewards = {_pk(p, "reward") for p in prizes} - {None}
    if titles - set(gameplay_selectors.awardable_titles().values_list("pk", flat=True)) or (
        rewards - set(gameplay_selectors.awardable_rewards().values_list("pk", flat=True))
    ):
        raise DomainError(
            _("Only titles and rewards that admins made awardable can be prizes."),
            code="not_awardable",
        )


def _pk(prize: dict, field: str) -> int | None:
    """A prize's title or reward as an id, given as a row (the API) or as an id (forms)."""
    value = prize.get(field)
    return value.pk if value is not None else prize.get(f"{field}_id")


def tournament_create(*, organiser, name: str, variant: str, prizes=(), **settings) -> Tournament:
    """A draft tournament with its prizes; the organiser opens registration when ready."""
    if not can_organise(organiser):
        raise NotAllowed(
            _("Creating tournaments needs the organiser permission."), code="not_organiser"
        )
    if (settings.get("sponsor_coins") or settings.get("organiser_may_play")) and not (
        organiser.is_superuser
    ):
        raise NotAllowed(
            _("Only admins grant a sponsor budget or let an organiser play."),
            code="admins_only",
        )
    values = {
        "name": name,
        "variant": variant,
        "table_size": 2,
        "advance": 1,
        "best_of": 1,
        **settings,
    }
    validate_settings(values)
    validate_prizes(values, prizes)
    values["seed"] = values.get("seed") or secrets.token_hex(32)
    with transaction.atomic():
        tournament = Tournament.objects.create(organiser=organiser, **values)
        _store_prizes(tournament, prizes)
    return tournament


def _store_prizes(tournament: Tournament, prizes) -> None:
    Prize.objects.filter(tournament=tournament).delete()
    Prize.objects.bulk_create(Prize(tournament=tournament, **p) for p in prizes)


def tournament_update(*, tournament_id: int, by, prizes=None, **changes) -> Tournament:
    """Change settings before the draw; the shape (variant, table size) is fixed at creation."""
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise DomainError(
            f"These cannot change after creation: {', '.join(sorted(unknown))}.",
            code="not_editable",
        )
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        if tournament.status not in BEFORE_START:
            raise Conflict(_("The tournament has started."), code="already_started")
        values = {f.name: getattr(tournament, f.name) for f in Tournament._meta.concrete_fields}
        values.update(changes)
        validate_settings(values)
        if prizes is None:
            prizes = list(
                tournament.prizes.values("placement", "coins", "xp", "title_id", "reward_id")
            )
        else:
            _store_prizes(tournament, prizes)
        # The pool changes with the cap on entries, so the prizes are checked again.
        validate_prizes(values, prizes)
        for field, value in changes.items():
            setattr(tournament, field, values[field] if field == "options" else value)
        tournament.save()
    return tournament


EMBED_ORIGINS_MAX = 10


def _origin(text: str) -> str:
    """`text` as a web origin (scheme://host[:port], lowercased), or DomainError."""
    parts = urlsplit(text.strip())
    try:
        port = parts.port
    except ValueError:
        port = -1
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or port == -1
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username
        or parts.password
        or not all(c.isascii() and (c.isalnum() or c in ".-") for c in parts.hostname)
    ):
        raise DomainError(
            _("%(origin)s is not a site address such as https://club.example.")
            % {"origin": text.strip()[:100]},
            code="invalid_origin",
        )
    return f"{parts.scheme}://{parts.hostname}" + (f":{port}" if port else "")


def tournament_set_embed_origins(*, tournament_id: int, by, origins: list[str]) -> Tournament:
    """The sites that may frame the tournament's embeddable bracket; any time, even live."""
    if len(origins) > EMBED_ORIGINS_MAX:
        raise DomainError(
            _("At most %(count)d sites may embed a tournament.") % {"count": EMBED_ORIGINS_MAX},
            code="invalid_origin",
        )
    cleaned = sorted({_origin(origin) for origin in origins if origin.strip()})
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        tournament.embed_origins = cleaned
        tournament.save(update_fields=["embed_origins"])
    return tournament
