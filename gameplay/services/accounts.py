"""Players: registering people, a profile for any user, and the reusable bot players."""

import secrets
import zoneinfo
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from config.errors import Conflict, DomainError, NotFound
from engine import fair
from gameplay import games
from gameplay.models import ApiToken, HouseAccount, Player
from gameplay.services.progression import coins_book, house_book
from gameplay.usernames import UsernameError, bot_username, normalize_username, skeleton


def player_register(*, username: str, password: str, email: str = "") -> Player:
    """A new person's account and player (the API's sign-up makes them a token next).
    `email` is optional; it is where a password reset link goes."""
    user_model = get_user_model()
    email = _checked_email(email)
    try:
        username = normalize_username(username)
    except UsernameError as exc:
        raise DomainError(str(exc), code=exc.code) from None
    # The case-insensitive unique index on usernames is the last line (a race ends there).
    if user_model.objects.filter(username__iexact=username).exists():
        raise Conflict(_("That username is taken."), code="username_taken")
    name_skeleton = skeleton(username)
    refuse_look_alike(name_skeleton)
    user = user_model(username=username, email=email)
    try:
        validate_password(password or "", user=user)
    except ValidationError as exc:
        raise DomainError(
            _("The password is too weak."), code="invalid_password", details=exc.messages
        ) from exc
    try:
        with transaction.atomic():
            _lock_look_alikes(name_skeleton)
            refuse_look_alike(name_skeleton)  # again, now no look-alike can sign up at once
            user.set_password(password)
            user.save()
            player = Player.objects.create(
                user=user, display_name=username[:40], name_skeleton=name_skeleton
            )
            _grant_starting_coins(player)
    except IntegrityError:
        raise Conflict(_("That username is taken."), code="username_taken") from None
    return player


def _grant_starting_coins(player: Player) -> None:
    """`KNOCK_STARTING_COINS` for a new person, issued by the house (which may go below
    zero, as for sponsor budgets), booked once per player by their keys."""
    grant = settings.KNOCK_STARTING_COINS
    if not grant:
        return
    coins_book(player_id=player.pk, amount=grant, reason="Starting grant", key="starting-grant")
    player.refresh_from_db(fields=["coins"])
    house_book(
        account=HouseAccount.HOUSE,
        amount=-grant,
        reason=f"Starting grant, player {player.pk}",
        key=f"starting-grant:{player.pk}",
    )


# pg_advisory_xact_lock's first key for names (ASCII "NAME"); the outbox has its own space.
NAME_LOCK_SPACE = 0x4E414D45


def _lock_look_alikes(name_skeleton: str) -> None:
    """Serialise sign-ups of one skeleton until the transaction ends, so two look-alike
    names racing each other cannot both pass the check (PostgreSQL; SQLite has one writer)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [NAME_LOCK_SPACE, name_skeleton]
            )


def refuse_look_alike(name_skeleton: str, *, user=None) -> None:
    """Conflict when a player other than `user` has a name that looks the same (UTS #39's
    confusables: U+0430, the Cyrillic a, for a Latin "a", "rn" for "m", "1" for "l")."""
    others = Player.objects.filter(name_skeleton=name_skeleton)
    if user is not None:
        others = others.exclude(user=user)
    look_alike = others.select_related("user").first()
    if look_alike is not None:
        raise Conflict(
            _("That username looks too much like %(name)s, a player's name already.")
            % {"name": look_alike.user.get_username()},
            code="username_confusable",
        )


# A person's live tokens at most: making one more drops the oldest, so a client that asks
# for a token at every start cannot pile them up.
API_TOKENS_MAX = 20


def api_token_create(*, user, name: str = "") -> tuple[ApiToken, str]:
    """A new API token for `user` and its key, the only time the key is seen. It expires
    after `KNOCK_API_TOKEN_DAYS` (0: never); stale ones (expired, or made under an earlier
    password) and those past `API_TOKENS_MAX` are deleted."""
    key = secrets.token_hex(32)
    days = settings.KNOCK_API_TOKEN_DAYS
    now = timezone.now()
    with transaction.atomic():
        token = ApiToken.objects.create(
            user=user,
            digest=ApiToken.digest_of(key),
            prefix=key[:8],
            name=name.strip()[:60],
            password_stamp=ApiToken.stamp_of(user),
            expires_at=now + timedelta(days=days) if days else None,
        )
        mine = ApiToken.objects.filter(user=user)
        mine.filter(Q(expires_at__lte=now) | ~Q(password_stamp=token.password_stamp)).delete()
        extra = mine.order_by("-created_at", "-pk").values_list("pk", flat=True)[API_TOKENS_MAX:]
        mine.filter(pk__in=list(extra)).delete()
    return token, key


def api_token_user(key: str) -> tuple | None:
    """The (user, token) a key stands for, or None when it is unknown, expired, revoked by a
    password change, or its user is inactive."""
    token = ApiToken.objects.select_related("user").filter(digest=ApiToken.digest_of(key)).first()
    if token is None or not token.user.is_active:
        return None
    if token.expires_at is not None and token.expires_at <= timezone.now():
        return None
    if not secrets.compare_digest(token.password_stamp, ApiToken.stamp_of(token.user)):
        return None
    return token.user, token


def api_token_revoke(*, user, token_id: int) -> None:
    """Delete one of `user`'s tokens; another person's is not found."""
    deleted, _rows = ApiToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise NotFound(_("No such token."))


def _checked_email(email: str) -> str:
    email = (email or "").strip()
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise DomainError(_("That is not an email address."), code="invalid_email") from None
    return email


def user_set_email(*, user, email: str) -> str:
    """Set (or, empty, remove) the address a password reset link goes to."""
    user.email = _checked_email(email)
    user.save(update_fields=["email"])
    return user.email


def player_set_client_seed(*, player: Player, client_seed: str) -> str:
    """The player's own client seed for the matches they sit down at from now on; empty
    to go back to a random one per match (their browser's, or the server's)."""
    client_seed = client_seed.strip()
    if client_seed:
        try:
            fair.check_client_seed(client_seed)
        except ValueError as exc:
            raise DomainError(str(exc), code="invalid_client_seed") from exc
    Player.objects.filter(pk=player.pk).update(client_seed=client_seed)
    player.client_seed = client_seed
    return client_seed


def player_set_language(*, player: Player, language: str) -> str:
    """The language the player's pages and messages are in from now on (a code of
    settings.LANGUAGES); empty to follow their browser's."""
    if language and language not in dict(settings.LANGUAGES):
        raise DomainError(_("Knock is not available in that language."), code="invalid_language")
    Player.objects.filter(pk=player.pk).update(language=language)
    player.language = language
    return language


def player_set_time_zone(*, player: Player, time_zone: str) -> str:
    """The IANA time zone the player's pages show times in from now on."""
    try:
        zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise DomainError(_("That is not a time zone."), code="invalid_time_zone") from None
    Player.objects.filter(pk=player.pk).update(time_zone=time_zone)
    player.time_zone = time_zone
    return time_zone


def player_for_user(user) -> Player:
    """The user's profile, created on first use (admins and staff get one too)."""
    name = user.get_username()
    player, _ = Player.objects.get_or_create(
        user=user, defaults={"display_name": name[:40], "name_skeleton": skeleton(name)}
    )
    return player


def bot_players(*, kind: str, count: int) -> list[Player]:
    """`count` distinct bot players of one kind, created once and reused."""
    user_model = get_user_model()
    bots = []
    for number in range(1, count + 1):
        username = bot_username(kind, number)
        user, _ = user_model.objects.get_or_create(username=username)
        bot, _ = Player.objects.get_or_create(
            user=user,
            defaults={
                "display_name": f"{kind.title()} Bot {number}",
                "name_skeleton": skeleton(username),
                "is_bot": True,
                "bot_kind": kind,
            },
        )
        bots.append(bot)
    return bots


def player_next_seed_commitment(*, player: Player) -> str:
    """The commitment of the server seed the player's next match will use, shown to them
    before they send a client seed; the seed is drawn here the first time it is asked for."""
    if not player.next_seed:
        drawn = games.new_seed()
        if Player.objects.filter(pk=player.pk, next_seed="").update(next_seed=drawn):
            player.next_seed = drawn
        else:  # another request drew it first
            player.next_seed = Player.objects.values_list("next_seed", flat=True).get(pk=player.pk)
    return fair.commitment(player.next_seed)
