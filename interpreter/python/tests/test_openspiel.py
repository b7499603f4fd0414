"""The OpenSpiel bridge: OpenSpiel's own checks, bots and goofspiel against the bundled games."""

import json
import pathlib
import time

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

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
    return against_random(game, seed, bot, rng)


def against_random(game, seed, bot, rng):
    """One game from `seed`: `bot` at seat 0, the others at random; its returns and how many
    decisions the bot made."""
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


def ismcts_game(game, seed, simulations):
    """Seat 0 is OpenSpiel's ISMCTS bot (random rollouts on states it resamples through the
    bridge), the others play at random."""
    rng = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(
        game,
        evaluator=mcts.RandomRolloutEvaluator(1, rng),
        uct_c=2.0,
        max_simulations=simulations,
        random_state=rng,
    )
    return against_random(game, seed, bot, rng)


@pytest.mark.parametrize(
    "game, params",
    [
        ("flaschenteufel", {"players": 3, "options": "hands=1"}),
        ("goofspiel", {"players": 2, "options": "cards=5"}),
    ],
)
def test_openspiel_ismcts_plays_on_states_the_bridge_resamples(game, params):
    """ISMCTS asserts that every resampled root has the searching seat's information state."""
    g = rbs.load(game, simultaneous=False, resample=True, **params)
    returns, searched = ismcts_game(g, 1, simulations=5)
    assert searched > 0 and abs(sum(returns)) < 1e-9 and max(returns) > 0


def flaschenteufel_after(steps):
    """A 3-seat Flaschenteufel hand loaded for resampling, after `steps` random decisions."""
    g = rbs.load("flaschenteufel", players=3, simultaneous=False, resample=True, options="hands=1")
    state = g.new_initial_state_for_seed(4)
    rng = np.random.RandomState(4)
    for _ in range(steps):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def samples_of(state, seat, n=20):
    """`n` resampled states for `seat`, each looking to it as `state` does."""
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    samples = [state.resample_from_infostate(seat, sampler) for _ in range(n)]
    for s in samples:
        assert s.information_state_string(seat) == state.information_state_string(seat)
        assert s.current_player() == seat and s.legal_actions() == state.legal_actions()
    return samples


def test_a_resampled_state_keeps_what_the_seat_knows_and_redeals_the_rest():
    state = flaschenteufel_after(8)
    seat = state.current_player()
    other = (seat + 1) % 3
    samples = samples_of(state, seat)
    # The other seats' past decisions stay unknown (at most a commit made again at random).
    assert all(len(s._own[other]) <= 1 for s in samples) and len(state._own[other]) >= 2
    truth = state.session.view(other)
    assert any(s.session.view(other) != truth for s in samples), "the other seats' hands are dealt anew"
    # A sample plays on as a state of its own.
    s = samples[0]
    s.apply_action(s.legal_actions()[0])
    assert state.current_player() == seat


def test_a_commit_made_before_the_seats_turn_is_made_again_in_a_sample():
    """The engine's sample forgets other seats' hidden commits; seats answering one after
    another, a seat that had committed before this one commits again, so the sample waits for
    the same seats."""
    state = flaschenteufel_after(4)
    seat = state.current_player()
    assert state.session.view(seat)["pending"]["committed"], "a commit under way, another seat done"
    samples = samples_of(state, seat)
    assert all(s.session.current_players() == state.session.current_players() for s in samples)


def test_resampling_needs_the_game_loaded_for_it():
    state = rbs.load("goofspiel", simultaneous=False).new_initial_state()
    with pytest.raises(ValueError, match="resample=True"):
        state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
