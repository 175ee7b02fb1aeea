"""Ranking 100,000 standings rows across 1,000 divisions in PostgreSQL (issue 7).

Run (PostgreSQL only; it builds and drops a database of its own)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/knock \
        .venv/bin/python -m benchmarks.league_bench

The bound: after a round moves everyone's totals, `leagues.services.standings_rank`
re-ranks every division of a season in at most 2 seconds (median of ``--repeat`` rounds),
with a query count that does not depend on the row count (checked against a tenth of the
rows). The naive peer loads each division, ranks it with the pure
`standings.rank_standings` and saves row by row, as a per-row recompute would; it runs on
``--naive-divisions`` divisions and is scaled to the full table, and the ratio is printed.
Exit code 1 when the bound is missed.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402

from competition import standings  # noqa: E402
from gameplay.models import Player  # noqa: E402
from leagues import services  # noqa: E402
from leagues.models import Division, League, Season, Standing  # noqa: E402

BOUND_SECONDS = 2.0


def build(divisions: int, per_division: int, seed: int) -> tuple[Season, Season]:
    """Two seasons of random tables with many ties: the full one and a tenth of it."""
    rng = random.Random(seed)
    count = divisions * per_division
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"bench-{i}") for i in range(count)
    )
    players = Player.objects.bulk_create(
        Player(user=user, display_name=user.username) for user in users
    )
    league = League.objects.create(name="Bench", slug="bench", variant="gin")
    ladder = Division.objects.bulk_create(
        Division(league=league, tier=t, name=f"D{t}", size=per_division, promote=0, relegate=0)
        for t in range(1, divisions + 1)
    )
    seasons = []
    for number, share in ((1, divisions), (2, divisions // 10)):
        season = Season.objects.create(
            league=league,
            number=number,
            status=Season.Status.CLOSED,
            starts_at=timezone.now(),
        )
        rows = []
        for index, player in enumerate(players[: share * per_division]):
            won, drawn, lost = rng.randint(0, 20), rng.randint(0, 5), rng.randint(0, 20)
            rows.append(
                Standing(
                    season=season,
                    division=ladder[index // per_division],
                    player=player,
                    played=won + drawn + lost,
                    won=won,
                    drawn=drawn,
                    lost=lost,
                    points=3 * won + drawn,
                    game_for=rng.randint(0, 400),
                    game_against=rng.randint(0, 400),
                    rating=round(rng.uniform(-5, 40), 1),
                )
            )
        Standing.objects.bulk_create(rows, batch_size=10_000)
        seasons.append(season)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return seasons[0], seasons[1]


def play_a_round(season: Season, seed: int) -> None:
    """Untimed: everyone's totals move as after a round, then vacuum as autovacuum would."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT setseed(%s)", [seed / 1000])
        cursor.execute(
            "UPDATE leagues_standing SET points = points + floor(random() * 4)::int, "
            "game_for = game_for + floor(random() * 40)::int WHERE season_id = %s",
            [season.pk],
        )
        cursor.execute("VACUUM ANALYZE leagues_standing")


def timed_rank(season: Season) -> tuple[float, int]:
    with CaptureQueriesContext(connection) as queries:
        began = time.perf_counter()
        services.standings_rank(season=season)
        seconds = time.perf_counter() - began
    return seconds, len(queries.captured_queries)


def naive(season: Season, divisions: int) -> float:
    """Per division: load, rank in Python, then one UPDATE per row."""
    tiebreakers = season.league.tiebreakers
    began = time.perf_counter()
    for division_id in (
        Standing.objects.filter(season=season)
        .values_list("division_id", flat=True)
        .distinct()
        .order_by("division_id")[:divisions]
    ):
        rows = list(Standing.objects.filter(season=season, division_id=division_id))
        ranked = standings.rank_standings([services._row(r) for r in rows], tiebreakers=tiebreakers)
        rank_of = {r.player: r.rank for r in ranked}
        for row in rows:
            row.previous_rank, row.rank = row.rank, rank_of[row.player_id]
            row.save(update_fields=["previous_rank", "rank"])
    return time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--divisions", type=int, default=1000)
    parser.add_argument("--per-division", type=int, default=100)
    parser.add_argument("--naive-divisions", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        print("league_bench measures PostgreSQL: set DATABASE_URL=postgres://...")
        return 2
    connection.settings_dict["TEST"]["NAME"] = "knock_league_bench"
    original = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        full, tenth = build(args.divisions, args.per_division, args.seed)
        rows = Standing.objects.filter(season=full).count()
        services.standings_rank(season=full)  # the season start ranks everyone once
        runs = []
        for run in range(args.repeat):
            play_a_round(full, run)
            runs.append(timed_rank(full))
        seconds = statistics.median(s for s, _ in runs)
        queries = {q for _, q in runs}
        _, tenth_queries = timed_rank(tenth)
        naive_sample = naive(full, args.naive_divisions)
        naive_full = naive_sample * args.divisions / args.naive_divisions
    finally:
        connection.creation.destroy_test_db(original, verbosity=0)
    print(f"rows {rows:,} in {args.divisions:,} divisions")
    print(
        f"set-based rank (one window-function UPDATE): median {seconds:.3f}s over "
        f"{args.repeat} runs, best {min(s for s, _ in runs):.3f}s, bound {BOUND_SECONDS}s"
    )
    print(f"queries: {sorted(queries)} for {rows:,} rows, {tenth_queries} for {rows // 10:,} rows")
    print(
        f"naive per-row recompute: {naive_sample:.2f}s for {args.naive_divisions} divisions, "
        f"{naive_full:.1f}s scaled to {args.divisions}"
    )
    print(f"ratio naive / set-based: {naive_full / seconds:.0f}x")
    ok = seconds <= BOUND_SECONDS and queries == {tenth_queries}
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
