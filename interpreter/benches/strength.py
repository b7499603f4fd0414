#!/usr/bin/env python3
"""Bot strength table: one bot at seat P1 against other bots, win rate with a 95% Wilson interval.

Runs `rulebook simulate ... --json` for each configuration and prints one Markdown row per run
(the table in interpreter/BOTS.md was made with it). Usage:

    python3 interpreter/benches/strength.py [--jobs 2] [--quick] [CONFIG...]

A CONFIG is `GAME;PLAYERS;GAMES;P1_BOT;OTHERS_BOT` (bots as `--bot` takes them, e.g.
`mcts:iterations=100`). Without configs it runs the bundled set below. The seed is fixed, so a
row is reproduced exactly (for any --jobs).
"""

import json
import math
import subprocess
import sys
import time

RULEBOOK = "./target/release/rulebook"

# (game, players, games, P1 bot, other seats' bot)
DEFAULT = [
    ("goofspiel", 2, 200, "mcts:iterations=200", "random"),
    ("goofspiel", 4, 100, "mcts:iterations=200", "random"),
    ("goofspiel", 8, 50, "mcts:iterations=200", "random"),
    ("goofspiel", 2, 100, "mcts:iterations=2000", "mcts:iterations=200"),
    ("goofspiel", 2, 200, "greedy", "random"),
    ("goofspiel", 2, 100, "mcts:iterations=200", "greedy"),
    ("flaschenteufel", 3, 20, "mcts:iterations=100", "random"),
    ("flaschenteufel", 4, 20, "mcts:iterations=100", "random"),
    ("flaschenteufel", 4, 20, "greedy", "random"),
    ("mille-grazie", 2, 20, "mcts:iterations=100", "random"),
    ("mille-grazie", 3, 20, "mcts:iterations=100", "random"),
    ("mille-grazie", 4, 16, "mcts:iterations=100", "random"),
    ("adel-verpflichtet", 2, 16, "mcts:iterations=100", "random"),
    ("adel-verpflichtet", 3, 16, "mcts:iterations=100", "random"),
    ("adel-verpflichtet", 4, 12, "mcts:iterations=100", "random"),
    ("adel-verpflichtet", 5, 12, "mcts:iterations=100", "random"),
    ("adel-verplicht", 3, 12, "mcts:iterations=100", "random"),
    ("adel-verplicht", 6, 10, "mcts:iterations=100", "random"),
    ("club-degli-spendaccioni", 2, 12, "mcts:iterations=100", "random"),
    ("club-degli-spendaccioni", 4, 10, "mcts:iterations=100", "random"),
]


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (shared wins count as their share)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def run(game: str, players: int, games: int, p1: str, others: str, jobs: int) -> str:
    cmd = [RULEBOOK, "simulate", game, "-p", str(players), "-n", str(games), "--seed", "7",
           "--jobs", str(jobs), "--json", "--bot", f"P1={p1}", "--bot", others]
    started = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    elapsed = time.time() - started
    if out.returncode != 0:
        return f"| {game} | {players} | {p1} | {others} | failed: {out.stderr.strip().splitlines()[0]} |"
    s = json.loads(out.stdout)
    n = s["games"]
    wins = s["win_rate_by_seat"][0] * n
    lo, hi = wilson(wins, n)
    fair = 1 / players
    return (f"| {game} | {players} | {p1} | {others} | {n} | {wins / n:.0%} | {lo:.0%}–{hi:.0%} "
            f"| {fair:.0%} | {elapsed / n:.1f} s |")


def main() -> None:
    args = sys.argv[1:]
    jobs = 1
    if "--jobs" in args:
        i = args.index("--jobs")
        jobs = int(args[i + 1])
        del args[i:i + 2]
    configs = DEFAULT
    if args:
        configs = []
        for a in args:
            g, p, n, p1, others = a.split(";")
            configs.append((g, int(p), int(n), p1, others))
    print("| game | players | P1 | other seats | games | P1 wins | 95% interval | fair share | time/game |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c in configs:
        print(run(*c, jobs), flush=True)


if __name__ == "__main__":
    main()
