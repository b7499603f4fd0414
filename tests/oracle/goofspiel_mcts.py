#!/usr/bin/env python3
"""OpenSpiel's MCTS bot against uniform random play in Goofspiel (13 cards, 2 players), the
reference for Rulebook's `mcts` bot (interpreter/BOTS.md reports both).

OpenSpiel's ISMCTS cannot play its Goofspiel (`ResampleFromInfostate() not implemented`), so
this uses OpenSpiel's MCTS bot with random rollouts and the same number of simulations as
Rulebook's `mcts:iterations=N`. Goofspiel is simultaneous; MCTS needs turns, so the game is
wrapped with `pyspiel.convert_to_turn_based` and the bot sits at seat 0, which bids first in
each turn: it never sees the other bid, and the prize deck is drawn by chance nodes it samples,
so it cannot cheat either (its tree assumes the opponent answers its bid, a pessimistic model).

With `--ismcts`, OpenSpiel's ISMCTS bot plays Rulebook's Goofspiel instead, through the
OpenSpiel bridge (`rulebook.openspiel`, `simultaneous=False, resample=True`): the bridge draws
the states it searches (`resample_from_infostate`, the engine's determinization), which needs
the `rulebook` package installed (the README's "From Python").

Usage: python3 tests/oracle/goofspiel_mcts.py [--games 200] [--simulations 200] [--seed 7] [--ismcts]
Install: pip install -r tests/oracle/requirements.txt
"""

import argparse
import math
import pathlib
import random
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--simulations", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--ismcts", action="store_true",
                    help="OpenSpiel's ISMCTS bot on Rulebook's Goofspiel, through the rulebook.openspiel bridge")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(args.seed))
    if args.ismcts:
        from rulebook import openspiel as rbs  # the bridge (the rulebook package)

        name = "OpenSpiel ISMCTS on Rulebook's goofspiel"
        folder = pathlib.Path(__file__).resolve().parents[2] / "games/goofspiel"
        game = rbs.load(str(folder), players=2, simultaneous=False, resample=True, seed=args.seed)
        bot = ismcts.ISMCTSBot(game, evaluator, 1.4, args.simulations,
                               random_state=np.random.RandomState(args.seed))
    else:
        name = "OpenSpiel MCTS"
        game = pyspiel.convert_to_turn_based(
            pyspiel.load_game("goofspiel", {"num_cards": 13, "players": 2, "points_order": "random"}))
        bot = mcts.MCTSBot(game, 1.4, args.simulations, evaluator, random_state=np.random.RandomState(args.seed),
                           solve=False)
    wins = 0.0
    started = time.time()
    for _ in range(args.games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            elif state.current_player() == 0:
                state.apply_action(bot.step(state))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        r = state.returns()
        wins += 1.0 if r[0] > r[1] else (0.5 if r[0] == r[1] else 0.0)
    elapsed = time.time() - started
    lo, hi = wilson(wins, args.games)
    print(f"{name} ({args.simulations} simulations, random rollouts) vs random, goofspiel 13 cards 2p: "
          f"{wins / args.games:.0%} of {args.games} games (95% {lo:.0%}-{hi:.0%}; ties count half), "
          f"{elapsed / args.games:.2f} s/game")


if __name__ == "__main__":
    np.random.seed(0)
    main()
