"""Engine speed against RLCard's Gin Rummy, on the same hands, in the same run (issue 3).

Run (RLCard is the `bench` extra: ``.venv/bin/pip install rlcard==1.2.0``)::

    .venv/bin/python -m benchmarks.engine_bench            # full run, a few minutes
    .venv/bin/python -m benchmarks.engine_bench --quick    # smaller samples

It prints microseconds per call for both engines and the ratio against each goal:
(a) least deadwood of a 10-card hand, >= 10x on random and >= 15x on meld-rich hands;
(b) best discard of an 11-card hand, >= 10x on both; (c) whole hands played by random
agents, >= 20x RLCard's environment (and hands per second with greedy bots). Both engines
must agree on every deadwood they compute; any disagreement is listed and the exit code is 1.

`gin.best_arrangement` returns the exact optimal layout as suit masks and builds the meld and
deadwood lists when first read; the "melds+deadwood built" line times that too, for honesty.
Timing alternates between the engines in small chunks and reports medians of the per-chunk
ratios, so load from other processes on the machine hits both alike.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time

from engine import cards, gin, variants

GOALS = {
    "deadwood random": 10,
    "deadwood meld-rich": 15,
    "discard random": 10,
    "discard meld-rich": 10,
    "hands random agents": 20,
}


def random_hands(rng: random.Random, n: int, size: int) -> list[list[cards.Card]]:
    deck = cards.deck()
    return [rng.sample(deck, size) for _ in range(n)]


def meld_rich_hands(rng: random.Random, n: int, size: int) -> list[list[cards.Card]]:
    """Hands drawn from four consecutive ranks in all suits: overlapping sets and runs, and
    four-of-a-kinds that only a split can use well (the hard case for a meld search)."""
    out = []
    for _ in range(n):
        low = rng.randrange(1, 11)
        pool = [c for c in cards.deck() if low <= c.rank < low + 4]
        out.append(rng.sample(pool, size))
    return out


def _rl_modules():
    from rlcard.games.gin_rummy.utils import melding
    from rlcard.games.gin_rummy.utils import utils as rl_utils

    return melding, rl_utils


def rl_deadwood(hand, melding, rl_utils) -> int:
    """RLCard's least deadwood of 10 cards: its best meld clusters, then its count."""
    best = melding.get_best_meld_clusters(hand)
    if not best:
        return sum(map(rl_utils.get_deadwood_value, hand))
    return rl_utils.get_deadwood_count(hand, best[0])


def rl_discard(hand, melding, rl_utils) -> int:
    """RLCard's least deadwood after discarding from 11 cards, from its meld clusters the way
    its judge finds knock cards: per cluster, the unmelded cards minus the worst of them."""
    values = list(map(rl_utils.get_deadwood_value, hand))
    best = sum(values) - max(values)
    for cluster in melding.get_meld_clusters(hand):
        melded = {id(c) for pile in cluster for c in pile}
        dead = [rl_utils.get_deadwood_value(c) for c in hand if id(c) not in melded]
        best = min(best, sum(dead) - max(dead) if dead else 0)
    return best


CHUNK = 100
#: Our chunk is timed this many times (and averaged) so that both engines' timed stretches
#: last about as long, and the scheduler's slices on a busy machine hit both alike.
OUR_REPEATS = 10


def _timed(fn, items) -> tuple[float, list]:
    """Seconds for ``fn`` over ``items``, with the cyclic GC paused as `timeit` does, so
    neither engine pays for collections the other's garbage set off."""
    gc.disable()
    try:
        start = time.perf_counter()
        results = list(map(fn, items))
        return time.perf_counter() - start, results
    finally:
        gc.enable()


def bench_hands(label, hands, ours, value, theirs, repeat: int, failures: list) -> float:
    """Time both engines chunk by chunk: 100 hands of ours (run ``OUR_REPEATS`` times and
    averaged), then the same 100 of RLCard's; ``repeat`` passes over the sample. Adjacent chunks
    see the same machine load, so the ratio reported is the median of the per-chunk ratios;
    the per-call times are medians too. ``value`` reads the deadwood from our result (RLCard's
    functions return it directly)."""
    melding, rl_utils = _rl_modules()
    rl_deck = {str(c): c for c in rl_utils.get_deck()}
    rl_hands = [[rl_deck[str(c)] for c in h] for h in hands]

    def rl_call(h):
        return theirs(h, melding, rl_utils)

    ratios, our_times, rl_times = [], [], []
    for _ in range(repeat):
        our_values, rl_values = [], []
        for i in range(0, len(hands), CHUNK):
            chunk = hands[i : i + CHUNK]
            ours_s, got = _timed(ours, chunk)
            for _ in range(OUR_REPEATS - 1):
                ours_s += _timed(ours, chunk)[0]
            ours_s /= OUR_REPEATS
            rl_s, want = _timed(rl_call, rl_hands[i : i + CHUNK])
            our_values += got
            rl_values += want
            n = len(got)
            our_times.append(ours_s / n * 1e6)
            rl_times.append(rl_s / n * 1e6)
            ratios.append(rl_s / ours_s)
    our_values = list(map(value, our_values))
    for h, a, b in zip(hands, our_values, rl_values, strict=True):
        if a != b:
            failures.append(f"{label}: {cards.text(h)}: knock engine {a}, RLCard {b}")
    ratio = statistics.median(ratios)
    our_us = statistics.median(our_times)
    rl_us = statistics.median(rl_times)
    print(f"{label:28s} knock {our_us:8.2f} us   RLCard {rl_us:8.2f} us   ratio {ratio:6.1f}x")
    return ratio


def our_hands(bot: str, hands: int, first_seed: int) -> float:
    """Seconds to play ``hands`` whole hands through the variant interface (legal actions,
    bot choice, apply), in matches started from consecutive seeds."""
    v = variants.get("gin")
    played = 0
    seed = first_seed
    start = time.perf_counter()
    while played < hands:
        seed += 1
        g = v.new(2, f"bench-{seed}", {})
        while not g.over and played < hands:
            number = g.hand_number
            while g.hand_number == number and not g.over:
                seat = g.to_move
                g.apply(v.bot_action(g, seat, bot), seat)
            played += 1
    return time.perf_counter() - start


def rl_hands(env, hands: int) -> float:
    """Seconds for RLCard's environment to play ``hands`` hands with its random agents."""
    start = time.perf_counter()
    for _ in range(hands):
        env.run(is_training=False)
    return time.perf_counter() - start


def hands_per_second(rounds: int, ours_per_round: int, rl_per_round: int):
    """Alternate rounds of whole hands (ours, then RLCard's); medians of the rates and of the
    per-round ratios, for the same reason as in `bench_hands`."""
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("gin-rummy", config={"seed": 1})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(2)])
    ours, theirs, ratios = [], [], []
    for r in range(rounds):
        our_rate = ours_per_round / our_hands("random", ours_per_round, r * 10_000)
        rl_rate = rl_per_round / rl_hands(env, rl_per_round)
        ours.append(our_rate)
        theirs.append(rl_rate)
        ratios.append(our_rate / rl_rate)
    return statistics.median(ours), statistics.median(theirs), statistics.median(ratios)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller samples")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    n = 500 if args.quick else 2000
    repeat = 2 if args.quick else 3
    rng = random.Random(args.seed)
    failures: list[str] = []
    ratios = {}

    def points(arr):
        return arr.deadwood_points

    def discard_points(result):
        return result[1].deadwood_points

    def materialised(arr):
        return sum(min(c.rank, 10) for c in arr.deadwood) + 0 * len(arr.melds)

    def with_lists(h):
        arr = gin.best_arrangement(h)
        arr.melds  # noqa: B018 - building the lists is what this line times
        arr.deadwood  # noqa: B018
        return arr

    print(
        f"hands per sample: {n}, timed in alternating chunks of {CHUNK}, {repeat} passes; "
        "same hands for both engines; medians"
    )
    # The engine memoises small things it meets again and again (the set choices of each
    # pattern of three- and four-of-a-kinds, the runs of each melded suit mask); warm them on
    # a separate sample, never on the hands that are timed, as a running server would be.
    warm = random.Random(args.seed + 1)
    for make in (random_hands, meld_rich_hands):
        for h in make(warm, n, 10):
            with_lists(h)
        for h in make(warm, n, 11):
            gin.best_discard(h)[1].melds  # noqa: B018 - fills the caches
    ratios["deadwood random"] = bench_hands(
        "deadwood random",
        random_hands(rng, n, 10),
        gin.best_arrangement,
        points,
        rl_deadwood,
        repeat,
        failures,
    )
    ratios["deadwood meld-rich"] = bench_hands(
        "deadwood meld-rich",
        meld_rich_hands(rng, n, 10),
        gin.best_arrangement,
        points,
        rl_deadwood,
        repeat,
        failures,
    )
    bench_hands(
        "  same, melds+deadwood built",
        random_hands(rng, n, 10),
        with_lists,
        materialised,
        rl_deadwood,
        repeat,
        failures,
    )
    ratios["discard random"] = bench_hands(
        "discard random",
        random_hands(rng, n, 11),
        gin.best_discard,
        discard_points,
        rl_discard,
        repeat,
        failures,
    )
    ratios["discard meld-rich"] = bench_hands(
        "discard meld-rich",
        meld_rich_hands(rng, n, 11),
        gin.best_discard,
        discard_points,
        rl_discard,
        repeat,
        failures,
    )
    rounds = 5 if args.quick else 15
    our_rate, rl_rate, ratio = hands_per_second(rounds, 100, 8)
    greedy_rate = 500 / our_hands("greedy", 500, 0)
    ratios["hands random agents"] = ratio
    print(
        f"{'hands, random agents':28s} knock {our_rate:8.0f}/s   RLCard {rl_rate:8.1f}/s   "
        f"ratio {ratio:6.1f}x"
    )
    print(f"{'hands, greedy bots':28s} knock {greedy_rate:8.0f}/s")
    print()
    for name, goal in GOALS.items():
        verdict = "ok" if ratios[name] >= goal else "BELOW GOAL"
        print(f"goal {name:22s} >= {goal:2d}x: {ratios[name]:6.1f}x  {verdict}")
    print(f"deadwood disagreements with RLCard: {len(failures)}")
    for line in failures[:20]:
        print("  " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
