#!/usr/bin/env python3
"""OpenSpiel cross-check oracle for Goofspiel.

Plays seeded random Goofspiel games with OpenSpiel (pyspiel) and writes a JSON
fixture of full trajectories that the Rust engine can replay and compare
against. Also offers a `--bench` mode that times OpenSpiel's Python playout
loop, as a baseline figure for the Rust engine's own benchmark.

Usage:
    python3 tests/oracle/goofspiel_oracle.py --out tests/oracle/goofspiel_trajectories.json
    python3 tests/oracle/goofspiel_oracle.py --bench [--seconds 5]

Install: pip install -r tests/oracle/requirements.txt

OpenSpiel conventions converted here:
  * bid action ids are 0-based (action = card value - 1);
  * chance outcomes for the prize card are 0-based (outcome = prize value - 1);
  * OpenSpiel plays the LAST turn itself (both the last prize reveal and every
    player's last forced card) inside the second-to-last apply_actions call; it
    never appears in state.history(). We reconstruct it from the cards left and
    cross-check it against OpenSpiel's own "Point card sequence", per-player
    "actions" (imp_info=True replay) and "Win sequence" strings.
"""

import argparse
import importlib.metadata
import json
import random
import re
import sys
import time

import pyspiel

from fixture import write_fixture

GENERATOR = "tests/oracle/goofspiel_oracle.py"

# (players, num_cards, number of games)
CONFIGS = [(2, 13, 20), (3, 13, 10), (2, 5, 10), (4, 6, 5)]

# Seed of game i (0-based across all configs, in CONFIGS order) is BASE_SEED + i.
BASE_SEED = 20240601

RULES = (
    "OpenSpiel goofspiel (points_order=random, returns_type=total_points, "
    "num_turns=-1 i.e. one turn per card). Each turn a chance node reveals a "
    "uniformly random prize card not yet revealed (values 1..K, each once); "
    "then all players bid simultaneously with one card from their own hand "
    "1..K (each card used once). Tie rule (from GoofspielState::DoApplyActions): "
    "find the maximum bid; if exactly one player bid it, that player gains the "
    "prize value; if two or more players share the maximum bid, the prize is "
    "discarded (nobody scores it, it is not carried over), for any number of "
    "players. Ties among lower bids do not matter: e.g. with 3 players bids "
    "(5,5,9) give the prize to the 9, bids (9,9,5) give it to nobody. "
    "The last turn is forced (one card left each) and OpenSpiel plays it "
    "automatically; it is included in prize_order/bids here. "
    "returns_type=total_points: returns[p] = points[p] (prize points won). "
    "win_loss_returns (same actions replayed with returns_type=win_loss): "
    "players with the maximum total are winners; if all players tie, all get 0; "
    "otherwise each winner gets 1/num_winners and each other player gets "
    "-1/num_losers."
)


def load(players, num_cards, returns_type="total_points", imp_info=False):
    return pyspiel.load_game(
        "goofspiel",
        {
            "num_cards": num_cards,
            "players": players,
            "points_order": "random",
            "returns_type": returns_type,
            "imp_info": imp_info,
        },
    )


def reference_points(players, prize_order, bids):
    """Independent re-implementation: unique maximum bid takes the prize."""
    points = [0] * players
    winners = []
    for prize, turn in zip(prize_order, bids):
        top = max(turn)
        if turn.count(top) == 1:
            w = turn.index(top)
            points[w] += prize
            winners.append(w)
        else:
            winners.append(None)
    return points, winners


def reference_win_loss(points):
    n = len(points)
    best = max(points)
    winners = [p for p in range(n) if points[p] == best]
    if len(winners) == n:
        return [0.0] * n
    losers = n - len(winners)
    return [1.0 / len(winners) if p in winners else -1.0 / losers for p in range(n)]


def parse_line(text, prefix):
    m = re.search(r"^" + re.escape(prefix) + r"(.*)$", text, re.M)
    assert m, f"no {prefix!r} line in {text!r}"
    return [int(x) for x in m.group(1).split()]


def play_one(players, num_cards, seed):
    rng = random.Random(seed)
    game = load(players, num_cards)
    state = game.new_initial_state()
    prize_order = []  # 1-based prize values
    bids = []  # per turn: per player 1-based card values
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [a for a, _p in state.chance_outcomes()]
            a = rng.choice(outcomes)
            prize_order.append(a + 1)
            state.apply_action(a)
        else:
            assert state.is_simultaneous_node()
            joint = [rng.choice(state.legal_actions(p)) for p in range(players)]
            bids.append([a + 1 for a in joint])
            state.apply_actions(joint)

    # OpenSpiel auto-plays the final forced turn; reconstruct it.
    explicit_turns = len(bids)
    assert explicit_turns == num_cards - 1, (explicit_turns, num_cards)
    assert len(prize_order) == num_cards - 1
    all_cards = set(range(1, num_cards + 1))
    (last_prize,) = all_cards - set(prize_order)
    prize_order.append(last_prize)
    last_bids = []
    for p in range(players):
        (c,) = all_cards - {t[p] for t in bids}
        last_bids.append(c)
    bids.append(last_bids)

    returns = list(state.returns())
    points, winners = reference_points(players, prize_order, bids)

    # --- Cross-checks against OpenSpiel's own view of the finished game. ---
    # Prize order, including the auto-dealt last prize.
    assert parse_line(str(state), "Point card sequence: ") == prize_order
    # Points and per-turn winners as OpenSpiel tracked them (-3 = kInvalidPlayer).
    obs = state.observation_string(0)
    assert parse_line(obs, "Points: ") == points, (obs, points)
    os_winners = [None if w < 0 else w for w in parse_line(obs, "Win sequence: ")]
    assert os_winners == winners, (os_winners, winners)
    # total_points returns == recomputed points under the unique-max rule.
    assert returns == [float(x) for x in points], (returns, points)

    # Replay the same actions with imp_info=True (whose ToString lists every
    # player's actions, including the auto-played last one) and
    # returns_type=win_loss.
    wl_game = load(players, num_cards, returns_type="win_loss", imp_info=True)
    wl = wl_game.new_initial_state()
    for t in range(explicit_turns):
        wl.apply_action(prize_order[t] - 1)
        wl.apply_actions([b - 1 for b in bids[t]])
    assert wl.is_terminal()
    text = str(wl)
    for p in range(players):
        acts = parse_line(text, f"P{p} actions: ")
        assert [a + 1 for a in acts] == [t[p] for t in bids], (p, acts, bids)
    win_loss_returns = list(wl.returns())
    ref_wl = reference_win_loss(points)
    assert all(abs(a - b) < 1e-12 for a, b in zip(win_loss_returns, ref_wl)), (
        win_loss_returns,
        ref_wl,
    )

    return {
        "seed": seed,
        "players": players,
        "num_cards": num_cards,
        "prize_order": prize_order,
        "bids": bids,
        "turn_winners": winners,
        "points": points,
        "returns": returns,
        "win_loss_returns": win_loss_returns,
    }


def tie_stats(trajectories):
    """Count turn kinds so we know the fixture exercises the tie rule."""
    stats = {"max_tied": 0, "max_tied_3plus_players": 0, "lower_tie_unique_max": 0}
    for tr in trajectories:
        for turn in tr["bids"]:
            top = max(turn)
            if turn.count(top) > 1:
                stats["max_tied"] += 1
                if tr["players"] >= 3:
                    stats["max_tied_3plus_players"] += 1
            elif len(set(turn)) < len(turn):
                stats["lower_tie_unique_max"] += 1
    return stats


def generate(out):
    trajectories = []
    i = 0
    for players, num_cards, n in CONFIGS:
        for _ in range(n):
            trajectories.append(play_one(players, num_cards, BASE_SEED + i))
            i += 1
    stats = tie_stats(trajectories)
    # The fixture must actually exercise the tie rule, incl. 3+ players.
    assert stats["max_tied"] > 0 and stats["max_tied_3plus_players"] > 0, stats
    assert stats["lower_tie_unique_max"] > 0, stats
    doc = {
        "generator": GENERATOR,
        "open_spiel_version": importlib.metadata.version("open_spiel"),
        "python_version": sys.version.split()[0],
        "game_parameters": {
            "points_order": "random",
            "returns_type": "total_points",
            "num_turns": -1,
            "imp_info": False,
        },
        "rules": RULES,
        "conventions": (
            "All card values are 1-based (OpenSpiel action/outcome id + 1). "
            "prize_order[t] is the prize revealed on turn t; bids[t][p] is the "
            "card player p bid on turn t; turn_winners[t] is the player index "
            "that took prize t or null if the top bid was tied; points[p] is "
            "the total prize value player p won; returns is OpenSpiel's "
            "state.returns() with returns_type=total_points; win_loss_returns "
            "is state.returns() for the same actions with returns_type=win_loss. "
            "The last turn (forced) is included although OpenSpiel auto-plays "
            "it. Bots: uniform random over legal actions / chance outcomes "
            "using Python random.Random(seed)."
        ),
        "base_seed": BASE_SEED,
        "configs": [
            {"players": p, "num_cards": k, "games": n} for p, k, n in CONFIGS
        ],
        "tie_stats": stats,
        "trajectories": trajectories,
    }
    write_fixture(out, doc)
    print(
        f"wrote {len(trajectories)} trajectories to {out} "
        f"(open_spiel {doc['open_spiel_version']}, tie turns {stats})"
    )


def bench(seconds, players=2, num_cards=13, seed=0):
    game = load(players, num_cards)
    rng = random.Random(seed)
    playouts = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = [a for a, _p in state.chance_outcomes()]
                state.apply_action(rng.choice(outcomes))
            else:
                state.apply_actions(
                    [rng.choice(state.legal_actions(p)) for p in range(players)]
                )
        playouts += 1
        now = time.perf_counter()
        if now >= deadline:
            break
    elapsed = now - start
    print(
        f"# {playouts} playouts of goofspiel({players} players, {num_cards} cards) "
        f"in {elapsed:.3f}s, open_spiel {importlib.metadata.version('open_spiel')}",
        file=sys.stderr,
    )
    print(f"openspiel_python_loop playouts/s: {playouts / elapsed:.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="write the trajectory fixture (JSON) here")
    ap.add_argument("--bench", action="store_true", help="time random playouts")
    ap.add_argument("--seconds", type=float, default=5.0, help="bench duration")
    args = ap.parse_args()
    if not args.out and not args.bench:
        ap.error("give --out PATH and/or --bench")
    if args.out:
        generate(args.out)
    if args.bench:
        bench(args.seconds)


if __name__ == "__main__":
    main()
