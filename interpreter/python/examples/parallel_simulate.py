"""Distributed simulation from Python: a series of seeded games split over processes.

    python interpreter/python/examples/parallel_simulate.py goofspiel --players 2 --games 20000

Game ``i`` of the series starts from seed ``seed + i`` and its decisions come from a Python
random generator seeded the same way, so a game's result depends on its index alone: the
games can be played in any process, in any order, and the summary is the same. The script
plays the series once in this process and once over ``--processes`` worker processes
(``multiprocessing``: each worker loads the game once, then plays chunks of game indices),
checks the two summaries are equal and prints the games per second of each and the
speed-up. The decisions are made in Python on purpose (a stand-in for a Python agent); for
engine-only speed see ``rulebook simulate``.

The same shape scales out with any pool of workers (Ray, Dask, a job array): give each worker
the game, the configuration and a range of game indices, and add up what they return.
"""

import argparse
import json
import multiprocessing
import os
import random
import sys
import time

import rulebook

_GAME = None


def _load(config):
    global _GAME
    _GAME = rulebook.load(config["game"], players=config["players"], options=config["options"])


def play_range(config, first, last):
    """Plays games ``first..last`` (indices of the series) with random decisions; returns the
    wins by seat, the summed returns by seat and the decisions taken."""
    if _GAME is None:
        _load(config)
    players = _GAME.players
    wins, returns, decisions = [0] * players, [0.0] * players, 0
    for i in range(first, last):
        seed = config["seed"] + i
        rng = random.Random(seed)
        s = _GAME.new_game(seed=seed)
        while not s.is_over():
            seat = s.current_players()[0]
            s.apply(seat, rng.randrange(len(s.legal_actions(seat))))
            decisions += 1
        for p in s.winners():
            wins[p] += 1
        for p, r in enumerate(s.returns()):
            returns[p] += r
    return wins, returns, decisions


def _play_chunk(args):
    return play_range(*args)


def _add(total, part):
    wins, returns, decisions = part
    return (
        [a + b for a, b in zip(total[0], wins)],
        [a + b for a, b in zip(total[1], returns)],
        total[2] + decisions,
    )


def run(config, processes, chunk):
    """Plays the whole series on ``processes`` processes (1: in this one); returns the summary
    and the seconds it took."""
    games, players = config["games"], config["players"]
    total = ([0] * players, [0.0] * players, 0)
    started = time.perf_counter()
    if processes == 1:
        total = _add(total, play_range(config, 0, games))
    else:
        chunks = [(config, a, min(a + chunk, games)) for a in range(0, games, chunk)]
        # fork is cheapest where it exists; each worker loads the game once either way.
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        ctx = multiprocessing.get_context(method)
        with ctx.Pool(processes, initializer=_load, initargs=(config,)) as pool:
            for part in pool.imap_unordered(_play_chunk, chunks):
                total = _add(total, part)
    seconds = time.perf_counter() - started
    wins, returns, decisions = total
    # Sums in a fixed order of chunks differ from one order to another in the last bits: round.
    summary = {"wins": wins, "mean_returns": [round(r / games, 9) for r in returns], "decisions": decisions}
    return summary, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", nargs="?", default="goofspiel", help="a game folder or a bundled game's name")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--chunk", type=int, default=0, help="games per task (default: games / (4 x processes))")
    args = parser.parse_args(argv)
    config = {
        "game": args.game,
        "players": args.players,
        "options": dict(o.split("=", 1) for o in args.option),
        "games": args.games,
        "seed": args.seed,
    }
    chunk = args.chunk or max(1, args.games // (4 * args.processes))
    one, t1 = run(config, 1, chunk)
    many, tn = run(config, args.processes, chunk)
    if one != many:
        print(f"the summaries differ:\n  one process: {one}\n  {args.processes} processes: {many}", file=sys.stderr)
        return 1
    print(json.dumps(many))
    print(f"1 process: {args.games / t1:.0f} games/s ({t1:.2f} s)")
    print(f"{args.processes} processes: {args.games / tn:.0f} games/s ({tn:.2f} s)")
    print(f"speed-up: {t1 / tn:.2f}x on {args.processes} processes ({os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
