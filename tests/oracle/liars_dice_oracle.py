#!/usr/bin/env python3
"""OpenSpiel cross-check oracle for Liar's Dice.

Plays seeded random Liar's Dice games with OpenSpiel (pyspiel, game `liars_dice`) and writes
a JSON fixture of full trajectories that the Rust engine replays: the dice rolled, every
decision with OpenSpiel's legal actions, the action taken and the returns.

Usage:
    python3 tests/oracle/liars_dice_oracle.py --out tests/oracle/liars_dice_trajectories.json

Install: pip install -r tests/oracle/requirements.txt

OpenSpiel conventions converted here:
  * a chance outcome is a 0-based face (outcome = face - 1); the dice are rolled P0's first,
    then P1's, each player's in order; OpenSpiel sorts each player's dice once all are rolled
    (ToString shows them sorted), the fixture keeps them in roll order;
  * bids are action strings "Q-F" (quantity Q, face F) and "Liar", as
    `state.action_to_string` gives them; their ids depend on `bidding_rule`.
"""

import argparse
import importlib.metadata
import json
import random
import sys

import pyspiel

from fixture import write_fixture

GENERATOR = "tests/oracle/liars_dice_oracle.py"

# (numdice, dice_sides, bidding_rule, number of games); always 2 players (OpenSpiel's only count).
CONFIGS = [
    (1, 6, "reset-face", 60),
    (2, 6, "reset-face", 40),
    (3, 4, "reset-face", 20),
    (1, 6, "reset-quantity", 20),
    (2, 6, "reset-quantity", 20),
    (2, 3, "reset-quantity", 10),
]
PLAYERS = 2

# Seed of game i (0-based across all configs, in CONFIGS order) is BASE_SEED + i.
BASE_SEED = 20240719

RULES = (
    "OpenSpiel liars_dice (LiarsDiceState): 2 players. Chance rolls every die of player 0, "
    "then every die of player 1 (faces 1..dice_sides, uniform). Player 0 bids first, then the "
    "players alternate. A bid is Q-F: at least Q dice on the table (both cups) show face F; "
    "Q runs 1..total dice, F 1..dice_sides. Bids are ranked by their action id: with "
    "bidding_rule=reset-face id = (Q-1)*dice_sides + (F-1) (by quantity, then face); with "
    "reset-quantity id = (F-1)*total_dice + (Q-1) (by face, then quantity). Legal: every bid "
    "with a higher id than the standing one (any at first), then Liar once a bid was made. "
    "Liar ends the game (ResolveWinner): count the dice showing F or dice_sides (the highest "
    "face is wild, so a bid on the highest face counts that face only); if the count >= Q the "
    "bidder wins, else the caller. Returns: winner +1, loser -1."
)


def load(numdice, dice_sides, bidding_rule):
    return pyspiel.load_game(
        "liars_dice",
        {
            "players": PLAYERS,
            "numdice": numdice,
            "dice_sides": dice_sides,
            "bidding_rule": bidding_rule,
        },
    )


def parse_bid(text):
    q, f = text.split("-")
    return int(q), int(f)


def reference_rank(bid, numdice, dice_sides, bidding_rule):
    """Independent re-implementation of OpenSpiel's bid order."""
    q, f = bid
    total = numdice * PLAYERS
    if bidding_rule == "reset-face":
        return (q - 1) * dice_sides + (f - 1)
    return (f - 1) * total + (q - 1)


def reference_legal(standing, numdice, dice_sides, bidding_rule):
    total = numdice * PLAYERS
    bids = [(q, f) for q in range(1, total + 1) for f in range(1, dice_sides + 1)]
    rank = lambda b: reference_rank(b, numdice, dice_sides, bidding_rule)  # noqa: E731
    bids.sort(key=rank)
    if standing is None:
        return [f"{q}-{f}" for q, f in bids]
    return [f"{q}-{f}" for q, f in bids if rank((q, f)) > rank(standing)] + ["Liar"]


def reference_returns(dice, standing, bidder, caller, dice_sides):
    q, f = standing
    matches = sum(1 for cup in dice for d in cup if d == f or d == dice_sides)
    winner = bidder if matches >= q else caller
    returns = [0.0] * PLAYERS
    returns[winner] = 1.0
    returns[1 - winner] = -1.0
    plain = sum(1 for cup in dice for d in cup if d == f)
    return returns, matches, plain


def play_one(numdice, dice_sides, bidding_rule, seed):
    rng = random.Random(seed)
    game = load(numdice, dice_sides, bidding_rule)
    state = game.new_initial_state()
    dice = [[] for _ in range(PLAYERS)]
    decisions = []  # {"player", "legal", "action"}
    standing = None
    bidder = None
    caller = None
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [a for a, _p in state.chance_outcomes()]
            assert outcomes == list(range(dice_sides)), outcomes
            a = rng.choice(outcomes)
            # P0's dice first, then P1's.
            roller = 0 if len(dice[0]) < numdice else 1
            dice[roller].append(a + 1)
            state.apply_action(a)
        else:
            p = state.current_player()
            # P1 (player 0) opens, then the players alternate.
            assert p == len(decisions) % PLAYERS, (p, len(decisions))
            legal_ids = state.legal_actions()
            legal = [state.action_to_string(p, a) for a in legal_ids]
            assert legal == reference_legal(standing, numdice, dice_sides, bidding_rule), (legal, standing)
            a = rng.choice(legal_ids)
            text = state.action_to_string(p, a)
            decisions.append({"player": p, "legal": legal, "action": text})
            if text == "Liar":
                caller = p
            else:
                standing = parse_bid(text)
                bidder = p
            state.apply_action(a)

    # OpenSpiel's own record of the dice (sorted per player) and the bids.
    assert [len(cup) for cup in dice] == [numdice] * PLAYERS
    shown = " ".join("".join(str(d) for d in sorted(cup)) for cup in dice)
    bids_text = " ".join(d["action"] for d in decisions)
    assert str(state) == f"{shown} {bids_text}", (str(state), shown, bids_text)
    for p in range(PLAYERS):
        mine = "".join(str(d) for d in sorted(dice[p]))
        assert state.information_state_string(p) == f"{mine} {bids_text}"

    returns = list(state.returns())
    ref, matches, plain = reference_returns(dice, standing, bidder, caller, dice_sides)
    assert returns == ref, (returns, ref, dice, standing)
    return {
        "seed": seed,
        "numdice": numdice,
        "dice_sides": dice_sides,
        "bidding_rule": bidding_rule,
        "dice": dice,
        "decisions": decisions,
        "returns": returns,
    }, {
        "bidder_won": returns[bidder] > 0,
        "wild_decided": (matches >= standing[0]) != (plain >= standing[0]),
        "bid_on_wild_face": standing[1] == dice_sides,
    }


def generate(out):
    trajectories = []
    stats = {
        "decisions": 0,
        "challenges_won_by_bidder": 0,
        "challenges_won_by_caller": 0,
        "decided_by_wild_face": 0,
        "bids_on_wild_face_called": 0,
    }
    i = 0
    for numdice, dice_sides, bidding_rule, n in CONFIGS:
        for _ in range(n):
            tr, s = play_one(numdice, dice_sides, bidding_rule, BASE_SEED + i)
            trajectories.append(tr)
            stats["decisions"] += len(tr["decisions"])
            stats["challenges_won_by_bidder" if s["bidder_won"] else "challenges_won_by_caller"] += 1
            stats["decided_by_wild_face"] += s["wild_decided"]
            stats["bids_on_wild_face_called"] += s["bid_on_wild_face"]
            i += 1
    # The fixture must exercise both outcomes of a challenge and the wild face.
    assert stats["challenges_won_by_bidder"] > 0 and stats["challenges_won_by_caller"] > 0, stats
    assert stats["decided_by_wild_face"] > 0 and stats["bids_on_wild_face_called"] > 0, stats
    doc = {
        "generator": GENERATOR,
        "open_spiel_version": importlib.metadata.version("open_spiel"),
        "python_version": sys.version.split()[0],
        "game": "liars_dice",
        "players": PLAYERS,
        "rules": RULES,
        "conventions": (
            "dice[p] is player p's faces (1..dice_sides) in roll order (the chance outcomes + 1; "
            "player 0's dice are rolled first). decisions[k] is the k-th decision: the player "
            "(0-based), the legal actions in OpenSpiel's order as state.action_to_string gives "
            "them (\"Q-F\" bids, then \"Liar\"), and the action taken. returns is "
            "state.returns() (winner +1, loser -1). Bots: uniform random over legal actions and "
            "chance outcomes using Python random.Random(seed)."
        ),
        "base_seed": BASE_SEED,
        "configs": [
            {"numdice": nd, "dice_sides": ds, "bidding_rule": br, "games": n} for nd, ds, br, n in CONFIGS
        ],
        "stats": stats,
        "trajectories": trajectories,
    }
    write_fixture(out, doc)
    print(f"wrote {len(trajectories)} trajectories to {out} (open_spiel {doc['open_spiel_version']}, {stats})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="write the trajectory fixture (JSON) here")
    args = ap.parse_args()
    generate(args.out)


if __name__ == "__main__":
    main()
