"""Whole deals per second for Basic, Indian and Dummy Rummy with greedy bots (issues 4, 17).

Run::

    .venv/bin/python -m benchmarks.variants_bench            # 2, 4 and 6 players, ~1 minute
    .venv/bin/python -m benchmarks.variants_bench --quick    # fewer deals

A deal is one Basic hand (until someone goes out or a stalemate), one Indian deal (until a
valid declaration, everyone but one drops, or a stalemate) or one Dummy hand (until someone
goes out or a stalemate; cut-in windows offered to the other seats' bots as `Variant.play`
does), played from a fresh seed through the public interface (`bot_out_of_turn`,
`bot_action`, `apply`), so the figure includes move validation.
Each line also prints the mean moves per deal and how the deals ended.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from engine import variants


def deals_per_second(name: str, players: int, deals: int) -> tuple[float, float, Counter]:
    v = variants.get(name)
    options = {"basic": {"target": 1}, "indian": {"format": "points"}}.get(name, {})
    moves = 0
    kinds: Counter = Counter()
    start = time.perf_counter()
    for i in range(deals):
        g = v.new(players, f"bench-{name}-{players}-{i}", options)
        while g.hand_number == 1 and not g.over:
            for other in g.out_of_turn_seats():
                action = v.bot_out_of_turn(g, other, "greedy")
                if action is not None:
                    g.apply(action, other)
                    moves += 1
            seat = g.to_move
            g.apply(v.bot_action(g, seat, "greedy"), seat)
            moves += 1
        kinds[g.last_hand["kind"]] += 1
    elapsed = time.perf_counter() - start
    return deals / elapsed, moves / deals, kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer deals per table size")
    args = parser.parse_args()
    deals = (
        {"basic": 60, "indian": 20, "dummy": 40}
        if args.quick
        else {"basic": 400, "indian": 120, "dummy": 300}
    )
    print(f"{'variant':8} {'players':>7} {'deals':>6} {'deals/s':>9} {'moves/deal':>11}  endings")
    for name in ("basic", "indian", "dummy"):
        v = variants.get(name)
        for players in [p for p in (2, 3, 4, 6) if v.min_players <= p <= v.max_players]:
            if name != "dummy" and players == 3:
                continue
            rate, moves, kinds = deals_per_second(name, players, deals[name])
            ends = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
            print(f"{name:8} {players:>7} {deals[name]:>6} {rate:>9.1f} {moves:>11.1f}  {ends}")


if __name__ == "__main__":
    main()
