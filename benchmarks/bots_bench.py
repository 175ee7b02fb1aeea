"""Bot strength: Gin's expert must beat greedy, and greedy must beat random, significantly;
Dummy's planner must beat greedy (`--variant dummy`); Indian 21-card's expert must beat
greedy and its greedy must beat random (`--variant indian21`).

Run::

    .venv/bin/python -m benchmarks.bots_bench                # 3,000 hands per pairing
    .venv/bin/python -m benchmarks.bots_bench --hands 2000
    .venv/bin/python -m benchmarks.bots_bench --variant dummy --matches 400
    nice -n 10 .venv/bin/python -m benchmarks.bots_bench --variant indian21 --matches 60
    nice -n 10 .venv/bin/python -m benchmarks.bots_bench --variant indian21 --matches 300 \
        --pairs expert:greedy
    nice -n 10 .venv/bin/python -m benchmarks.bots_bench --variant indian21 --matches 100 \
        --pairs expert:greedy --first 100

Indian 21-card is measured by two-player Points matches (one deal each), seats swapped every
match; it also prints how often a deal ends in a declaration, how many turns it takes, and
each bot's CPU time per decision (p50, p99). `--pairs` picks the pairings (default
expert:greedy,greedy:random; greedy:greedy measures the seat that plays first) and `--first`
the number of the first match's seed, so runs on separate cores add up to one sample.

Dummy is measured by whole two-player matches of twelve hands (`max_hands` 12), seats
swapped every match: a match ranks contracts completed, then the lowest penalty points, so
single hands (who goes out) would miss most of it. Shared first places are draws.

Each pairing plays single hands from fresh seeds, swapping seats every hand so both bots
deal equally often. It prints the first bot's share of the decided hands with a 95% Wilson
confidence interval, draws, and points per hand; the exit code is 1 unless every interval
lies above 50%.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from engine import variants

PAIRINGS = (("expert", "greedy"), ("greedy", "random"), ("expert", "random"))
DUMMY_PAIRINGS = (("planner", "greedy"), ("greedy", "random"))
INDIAN21_PAIRINGS = "expert:greedy,greedy:random"
Z95 = 1.959964


def wilson(wins: int, n: int) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (sound near 0 and 1, unlike p +- 2se)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
    return centre - half, centre + half


def play_hands(first: str, second: str, hands: int) -> dict:
    v = variants.get("gin")
    wins = [0, 0]
    points = [0, 0]
    draws = 0
    for i in range(hands):
        bots = (first, second) if i % 2 == 0 else (second, first)
        g = v.new(2, f"bots-{first}-{second}-{i // 2}", {})
        while g.hand_number == 1 and not g.over:
            seat = g.to_move
            g.apply(v.bot_action(g, seat, bots[seat]), seat)
        last = g.last_hand
        if last["winner"] is None:
            draws += 1
            continue
        side = 0 if bots[last["winner"]] == first else 1
        wins[side] += 1
        points[side] += last["points"]
    return {"wins": wins, "points": points, "draws": draws}


def play_dummy_matches(first: str, second: str, matches: int) -> dict:
    v = variants.get("dummy")
    wins = [0, 0]
    points = [0, 0]
    draws = 0
    for i in range(matches):
        bots = [first, second] if i % 2 == 0 else [second, first]
        result = v.play(2, f"bots-dummy-{first}-{second}-{i // 2}", bots, {"max_hands": 12}).result
        mine = 0 if bots[0] == first else 1
        for seat in (0, 1):
            points[0 if seat == mine else 1] += result["scores"][seat]
        if result["winner"] is None:
            draws += 1
        else:
            wins[0 if result["winner"] == mine else 1] += 1
    return {"wins": wins, "points": points, "draws": draws}


def play_indian21_matches(first: str, second: str, matches: int, start: int = 0) -> dict:
    v = variants.get("indian21")
    wins = [0, 0]
    points = [0, 0]
    draws = declared = turns = 0
    times: dict[str, list[float]] = {first: [], second: []}
    for i in range(start, start + matches):
        bots = [first, second] if i % 2 == 0 else [second, first]
        game = v.new(2, f"bots-indian21-{first}-{second}-{i // 2}", {})
        while not game.over:
            seat = game.to_move
            clock = time.process_time()
            action = v.bot_action(game, seat, bots[seat])
            times[bots[seat]].append(time.process_time() - clock)
            game.apply(action, seat)
        result = game.result
        mine = 0 if bots[0] == first else 1
        for seat in (0, 1):
            points[0 if seat == mine else 1] += result["scores"][seat]
        declared += result["stats"][0]["declarations"] + result["stats"][1]["declarations"]
        turns += sum(1 for m in game.moves if m["action"]["type"] in ("discard", "declare"))
        if result["winner"] is None:
            draws += 1
        else:
            wins[0 if result["winner"] == mine else 1] += 1
    return {
        "wins": wins,
        "points": points,
        "draws": draws,
        "declared": declared,
        "turns": turns,
        "times": times,
    }


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def indian21_main(matches: int, pairs: str = INDIAN21_PAIRINGS, first_match: int = 0) -> int:
    ok = True
    for pair in pairs.split(","):
        first, second = pair.split(":")
        start = time.perf_counter()
        r = play_indian21_matches(first, second, matches, first_match)
        decided = sum(r["wins"])
        low, high = wilson(r["wins"][0], decided)
        better = low > 0.5
        # The same bot in both seats measures the seat: the one that plays first.
        who = first if first != second else "seat 0"
        if first != second:
            ok &= better
        clock = "  ".join(
            f"{bot} ms/decision p50 {1000 * _percentile(ts, 0.5):.1f} "
            f"p99 {1000 * _percentile(ts, 0.99):.1f}"
            for bot, ts in r["times"].items()
        )
        print(
            f"indian21 {first:>6} vs {second:<6} matches {matches}  decided {decided}  "
            f"draws {r['draws']}  {who} wins {r['wins'][0] / max(1, decided):6.1%}  "
            f"95% CI [{low:6.1%}, {high:6.1%}]  points/match "
            f"{r['points'][0] / matches:6.1f} vs {r['points'][1] / matches:6.1f}  "
            f"declared {r['declared'] / matches:5.1%}  turns/match {r['turns'] / matches:5.1f}  "
            f"{clock}  ({time.perf_counter() - start:.0f}s)",
            flush=True,
        )
    return 0 if ok else 1


def dummy_main(matches: int) -> int:
    ok = True
    for first, second in DUMMY_PAIRINGS:
        start = time.perf_counter()
        r = play_dummy_matches(first, second, matches)
        decided = sum(r["wins"])
        low, high = wilson(r["wins"][0], decided)
        better = low > 0.5
        ok &= better
        print(
            f"dummy {first:>7} vs {second:<6} matches {matches}  decided {decided}  "
            f"draws {r['draws']}  {first} wins {r['wins'][0] / decided:6.1%}  "
            f"95% CI [{low:6.1%}, {high:6.1%}]  penalty points/match "
            f"{r['points'][0] / matches:6.1f} vs {r['points'][1] / matches:6.1f}  "
            f"{'significant' if better else 'NOT significant'}  "
            f"({time.perf_counter() - start:.0f}s)",
            flush=True,
        )
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=("gin", "dummy", "indian21"), default="gin")
    parser.add_argument("--hands", type=int, default=3000, help="hands per pairing (>= 2000)")
    parser.add_argument(
        "--matches", type=int, default=400, help="Dummy or Indian 21-card matches per pairing"
    )
    parser.add_argument(
        "--pairs", default=INDIAN21_PAIRINGS, help="Indian 21-card pairings, first:second,..."
    )
    parser.add_argument("--first", type=int, default=0, help="Indian 21-card first match number")
    args = parser.parse_args(argv)
    if args.variant == "dummy":
        return dummy_main(args.matches)
    if args.variant == "indian21":
        return indian21_main(args.matches, args.pairs, args.first)
    ok = True
    for first, second in PAIRINGS:
        start = time.perf_counter()
        r = play_hands(first, second, args.hands)
        decided = sum(r["wins"])
        low, high = wilson(r["wins"][0], decided)
        share = r["wins"][0] / decided
        per_hand = (r["points"][0] - r["points"][1]) / args.hands
        better = low > 0.5
        ok &= better
        print(
            f"{first:>6} vs {second:<6} hands {args.hands}  decided {decided}  draws {r['draws']}  "
            f"{first} wins {share:6.1%}  95% CI [{low:6.1%}, {high:6.1%}]  "
            f"net points/hand {per_hand:+6.2f}  "
            f"{'significant' if better else 'NOT significant'}  "
            f"({time.perf_counter() - start:.0f}s)",
            flush=True,
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
