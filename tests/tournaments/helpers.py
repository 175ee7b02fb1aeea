"""Building tournaments through the services, the way organisers and players do."""

from django.contrib.auth.models import Permission

from gameplay import services as gameplay
from gameplay.models import Match
from tests.factories import PlayerFactory, UserFactory
from tournaments import services
from tournaments.models import Table, Tournament

FAST_GIN = {"target": 10}


def organiser(username: str = "organiser"):
    user = UserFactory(username=username)
    user.user_permissions.add(Permission.objects.get(codename="organise_tournament"))
    return type(user).objects.get(pk=user.pk)  # a fresh instance: the permission cache is empty


def admin_organiser(username: str = "admin-organiser"):
    """A superuser: the only kind of organiser who may grant a sponsor budget."""
    user = UserFactory(username=username, is_superuser=True, is_staff=True)
    return type(user).objects.get(pk=user.pk)


def open_tournament(by=None, **settings) -> Tournament:
    by = by or organiser()
    values = {"name": "Test Cup", "variant": "gin", "options": FAST_GIN, **settings}
    tournament = services.tournament_create(organiser=by, **values)
    return services.tournament_open_registration(tournament_id=tournament.pk, by=by)


def bots(count: int):
    return gameplay.bot_players(kind="greedy", count=count)


def humans(count: int, coins: int = 0):
    players = PlayerFactory.create_batch(count)
    for player in players:
        if coins:
            gameplay.coins_book(player_id=player.pk, amount=coins, reason="test", key="seed-coins")
        player.refresh_from_db()
    return players


def register_all(tournament: Tournament, players) -> None:
    for player in players:
        services.entry_register(tournament_id=tournament.pk, player=player)


def play_match(match_id: int) -> None:
    """What the Celery tasks do for one match, in this thread: bots play, finalize, advance."""
    gameplay.match_play_bots(match_id=match_id)
    gameplay.match_finalize(match_id=match_id)
    services.table_match_finished(match_id=match_id)


def lose(tournament: Tournament, player) -> None:
    """`player` resigns their current match (a forfeit), and the bracket moves on."""
    from django.db import transaction

    from gameplay.models import Match, Seat

    seat = Seat.objects.get(
        player=player, match__status=Match.Status.ACTIVE, match__tournament_table__isnull=False
    )
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=seat.match_id)
        gameplay.match_forfeit(match=match, seat_index=seat.index, reason="resigned")
    gameplay.match_finalize(match_id=seat.match_id)
    services.table_match_finished(match_id=seat.match_id)


def drive(tournament: Tournament, *, rounds: int = 100) -> Tournament:
    """Run every bot match of a tournament to the end, as the workers would."""
    from gameplay.models import Match

    for _ in range(rounds):
        for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=10_000):
            services.table_start(table_id=table_id)
        active = list(
            Match.objects.filter(
                tournament_table__table__tournament=tournament, status=Match.Status.ACTIVE
            ).values_list("pk", flat=True)
        )
        if not active:
            break
        for match_id in active:
            play_match(match_id)
    tournament.refresh_from_db()
    return tournament


def disputed_first_table(tournament: Tournament) -> Table:
    """Play the first table's match, cut the last move from its stored log and finalize:
    the replay no longer reaches the stored result, so finalize disputes it."""
    table = tournament.tables.get(round_number=1, position=0)
    services.table_start(table_id=table.pk)
    match = table.matches.get().match
    gameplay.match_play_bots(match_id=match.pk)
    match.refresh_from_db()
    Match.objects.filter(pk=match.pk).update(log=match.log[:-1])
    gameplay.match_finalize(match_id=match.pk)
    services.table_match_finished(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.DISPUTED
    return table
