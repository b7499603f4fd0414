"""The OpenSpiel bridge: OpenSpiel's own checks, bots and goofspiel against the bundled games."""

import json
import pathlib
import time

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import mcts  # noqa: E402

from rulebook import openspiel as rbs  # noqa: E402

FIXTURE = pathlib.Path(__file__).resolve().parents[3] / "tests/oracle/goofspiel_trajectories.json"


@pytest.mark.parametrize(
    "game, params",
    [
        ("goofspiel", {"players": 3, "options": "cards=6"}),
        ("adel-verpflichtet", {"players": 3}),
        ("adel-verpflichtet", {"players": 2, "simultaneous": False}),
        ("flaschenteufel", {"players": 4, "simultaneous": False, "options": "hands=1"}),
        ("flaschenteufel", {"players": 2, "options": "hands=1", "variants": "lopaka"}),
    ],
)
def test_openspiel_random_simulation_checks_the_bridge(game, params):
    """OpenSpiel's random_sim_test: random playouts checking clones, legal actions, strings."""
    g = rbs.load(game, **params)
    sequential = params.get("simultaneous") is False
    dyn = pyspiel.GameType.Dynamics
    assert g.get_type().dynamics == (dyn.SEQUENTIAL if sequential else dyn.SIMULTANEOUS)
    pyspiel.random_sim_test(g, num_sims=2, serialize=False, verbose=False)


def test_a_simultaneous_node_is_a_hidden_commit():
    g = rbs.load("adel-verpflichtet", players=3)
    state = g.new_initial_state()
    assert state.is_simultaneous_node() and state.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    labels = [state.action_to_string(0, a) for a in state.legal_actions(0)]
    assert labels == [label for _, label in state.session.options(0)]
    before = state.observation_string(1)
    state.apply_actions([0, 1, 0])
    assert state.observation_string(1) != before
    assert state.information_state_string(0).startswith("mine:[")


def mcts_game(game, seed, simulations):
    """Seat 0 is OpenSpiel's MCTS bot (random rollouts), the others play at random."""
    rng = np.random.RandomState(seed)
    bot = mcts.MCTSBot(
        game, uct_c=2.0, max_simulations=simulations, evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng
    )
    state = game.new_initial_state_for_seed(seed)
    searched = 0
    while not state.is_terminal():
        if state.current_player() == 0:
            action = bot.step(state)
            searched += 1
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
    return state.returns(), searched


@pytest.mark.parametrize(
    "game, params, games",
    [
        ("adel-verpflichtet", {"players": 2}, 1),
        ("flaschenteufel", {"players": 3, "options": "hands=1"}, 3),
    ],
)
def test_openspiel_mcts_plays_through_the_bridge(game, params, games):
    g = rbs.load(game, simultaneous=False, **params)
    started = time.time()
    for seed in range(games):
        returns, searched = mcts_game(g, seed, simulations=3)
        assert searched > 0 and abs(sum(returns)) < 1e-9 and max(returns) > 0
    assert time.time() - started < 120


def test_goofspiel_gives_openspiels_returns_on_the_oracle_trajectories():
    """Each committed trajectory (OpenSpiel's prize order and bids) played by OpenSpiel's
    goofspiel and by Rulebook's through the bridge, as simultaneous nodes: the same win/loss
    returns, and the same points (OpenSpiel's total_points returns, the bridge's scores)."""
    trajectories = json.loads(FIXTURE.read_text())["trajectories"]
    assert len(trajectories) >= 40
    for n, t in enumerate(trajectories):
        players, cards = t["players"], t["num_cards"]
        ours = {}
        for returns in ("win_loss", "scores"):
            game = rbs.load("goofspiel", players=players, options=f"cards={cards}", returns=returns)
            state = game.new_initial_state_for_seed(n)
            # The prize order of the trajectory: the first prize up, the rest in the deck (top last).
            state.session.arrange("deck", [f"prize-{v}" for v in reversed(t["prize_order"][1:])])
            state.session.arrange("prize", [f"prize-{t['prize_order'][0]}"])
            for bids in t["bids"]:
                assert state.is_simultaneous_node()
                joint = []
                for p, bid in enumerate(bids):
                    by_label = {state.action_to_string(p, a): a for a in state.legal_actions(p)}
                    joint.append(by_label[str(bid)])
                state.apply_actions(joint)
            assert state.is_terminal(), f"trajectory {n}"
            ours[returns] = state.returns()
        theirs = {}
        for returns in ("win_loss", "total_points"):
            spiel = pyspiel.load_game(
                "goofspiel",
                {"players": players, "num_cards": cards, "points_order": "random", "returns_type": returns},
            )
            state = spiel.new_initial_state()
            for prize, bids in zip(t["prize_order"], t["bids"]):
                if state.is_terminal():
                    break  # OpenSpiel plays the last, forced turn itself
                state.apply_action(prize - 1)
                state.apply_actions([b - 1 for b in bids])
            assert state.is_terminal()
            theirs[returns] = state.returns()
        assert ours["win_loss"] == pytest.approx(theirs["win_loss"]), f"trajectory {n}"
        assert ours["scores"] == theirs["total_points"] == t["returns"], f"trajectory {n}"


def test_a_configuration_the_game_refuses_raises_the_engines_message():
    with pytest.raises(Exception, match="Flaschenteufel is for 2–2 players, not 3"):
        rbs.load("flaschenteufel", players=3, variants="lopaka")
    with pytest.raises(Exception, match="E0304"):
        rbs.load("goofspiel", options="cards=99")
