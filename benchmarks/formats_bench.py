"""Scale of the pure format logic (issue 18): pairing and bracket building at 4,096 entries.

Run (no database, no broker: these are the pure functions the services will call)::

    .venv/bin/python -m benchmarks.formats_bench [--players 4096] [--rounds 12] [--repeat 3]

It prints, each against the 2 s bound (ratio = seconds / bound, under 1 passes):

* one Swiss round paired for ``--players`` head-to-head players: the slowest round of a whole
  event of ``--rounds`` rounds with random results (wins, losses and draws) between rounds,
  so late rounds with crowded score groups and past meetings are measured, not just round one;
* the same for ``--players`` players at four-seat tables (points 3-1-0-0);
* building a ``--players``-entry double-elimination bracket (with a reset), beside the
  single-elimination draw of `tournaments.bracket` for the same field, and playing the whole
  double elimination out (advancement and placings), for scale.

Each figure is the best of ``--repeat`` runs of the same call (setup not timed). Exit code 1
when a bound is missed. Note the machine's load (``uptime``) beside the numbers.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

from tournaments.bracket import build_bracket
from tournaments.formats.double import build_double, play_out
from tournaments.formats.swiss import Game, pair_round
from tournaments.formats.swiss_tables import TableGame, pair_tables

BOUND_SECONDS = 2.0


def best_of(repeat: int, fn):
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def swiss_event(players: int, rounds: int, repeat: int) -> tuple[float, int, int]:
    """Slowest round's pairing time, that round, and repeats over the whole event."""
    rng = random.Random(18)
    field = list(range(players))
    games: list[Game] = []
    worst, worst_round, repeats = 0.0, 0, 0
    for rnd in range(1, rounds + 1):
        seconds, pairing = best_of(repeat, lambda g=games: pair_round(field, g))
        if seconds > worst:
            worst, worst_round = seconds, rnd
        repeats += len(pairing.repeats)
        games += [Game(rnd, a, b, rng.choice((1.0, 0.0, 0.5))) for a, b in pairing.pairs]
        if pairing.bye is not None:
            games.append(Game(rnd, pairing.bye, None))
    return worst, worst_round, repeats


def tables_event(players: int, rounds: int, repeat: int) -> tuple[float, int, int]:
    """Slowest round's seating time at four-seat tables, that round, and the repeat cost."""
    rng = random.Random(18)
    field = list(range(players))
    games: list[TableGame] = []
    worst, worst_round, cost = 0.0, 0, 0
    for rnd in range(1, rounds + 1):
        seconds, seating = best_of(repeat, lambda g=games: pair_tables(field, g, table_size=4))
        if seconds > worst:
            worst, worst_round = seconds, rnd
        cost += seating.repeat_cost
        for table in seating.tables:
            order = list(table)
            rng.shuffle(order)
            games.append(TableGame(rnd, table, tuple(order)))
        games += [TableGame(rnd, (e,), (e,)) for e in seating.sitting_out]
    return worst, worst_round, cost


def line(label: str, seconds: float, note: str = "") -> bool:
    ok = seconds < BOUND_SECONDS
    print(
        f"{label:<52} {seconds:8.3f} s   ratio {seconds / BOUND_SECONDS:6.3f}"
        f"   {'ok' if ok else 'OVER'}{('   ' + note) if note else ''}"
    )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--table-rounds", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.players
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs")
    print(f"bound: {BOUND_SECONDS} s per call; ratio = seconds / bound")
    ok = True
    worst, rnd, repeats = swiss_event(n, args.rounds, args.repeat)
    ok &= line(
        f"Swiss round, {n:,} head-to-head players",
        worst,
        f"slowest of {args.rounds} rounds: round {rnd}; repeat pairings: {repeats}",
    )
    worst, rnd, cost = tables_event(n, args.table_rounds, args.repeat)
    ok &= line(
        f"Swiss round, {n:,} players at four-seat tables",
        worst,
        f"slowest of {args.table_rounds} rounds: round {rnd}; repeat cost: {cost}",
    )
    seconds, double = best_of(args.repeat, lambda: build_double(n))
    ok &= line(
        f"double-elimination bracket, {n:,} entries", seconds, f"{len(double.matches()):,} matches"
    )
    single, bracket = best_of(args.repeat, lambda: build_bracket(n))
    line(
        f"  beside: single-elimination bracket, {n:,} entries",
        single,
        f"{sum(len(r) for r in bracket.rounds):,} matches; double/single {seconds / single:.1f}x",
    )
    rng = random.Random(18)
    played, outcome = best_of(
        1, lambda: play_out(double, list(range(1, n + 1)), lambda m, pair: rng.choice(pair))
    )
    line(
        f"  for scale: double elimination played out, {n:,}",
        played,
        f"{outcome.match_count:,} matches (2n - 2 = {2 * n - 2:,}, +1 if the reset is played)",
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
