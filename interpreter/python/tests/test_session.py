"""The Python package: loading, sessions, views, errors (no OpenSpiel needed)."""

import copy
import json
import random

import pytest

import rulebook


def play_out(s, seed=0):
    rng = random.Random(seed)
    while not s.is_over():
        seat = s.current_players()[0]
        s.apply(seat, rng.choice(s.legal_actions(seat)))
    return s


def test_flaschenteufel_plays_to_the_end_with_returns_and_scores():
    g = rulebook.load("games/flaschenteufel", players=4, options={"hands": 1})
    assert (g.title, g.players, g.min_players, g.max_players) == ("Flaschenteufel", 4, 3, 4)
    s = g.new_game(seed=1)
    assert s.returns() == [0.0] * 4 and s.scores() is None and s.winners() is None
    play_out(s)
    returns, winners = s.returns(), s.winners()
    assert abs(sum(returns)) < 1e-9
    assert all((r > 0) == (p in winners) for p, r in enumerate(returns))
    assert len(s.scores()) == 4 and s.current_players() == [] and s.decision() is None


def test_variants_and_options_reach_the_engine():
    g = rulebook.load("goofspiel", players=3, variants=["split-ties"], options={"cards": 5})
    s = g.new_game(seed=0)
    assert s.is_simultaneous() and s.current_players() == [0, 1, 2]
    assert s.legal_actions(0) == [0, 1, 2, 3, 4]
    assert [label for _, label in s.options(0)] == ["1", "2", "3", "4", "5"]
    assert s.action_id(0, 4) == "p1-5" and s.action_label(0, 4) == "5"


def test_view_is_a_dict_and_shows_only_what_the_seat_may_see():
    s = rulebook.load("flaschenteufel", players=4).new_game(seed=3)
    hands = {z["owner"]: z for z in s.view(0)["zones"] if z["name"] == "hand"}
    assert len(hands[0]["cards"]) == hands[0]["count"] > 0
    assert hands[1]["cards"] == [] and hands[1]["count"] == hands[0]["count"]
    public = s.view()
    assert public["viewer"] is None and all(z["cards"] == [] for z in public["zones"] if z["name"] == "hand")
    assert json.loads(s.observation_string(0)) == s.view(0)
    assert s.view(0)["pending"]["options"] == [{"id": i, "label": l} for i, l in s.options(0)]


def test_a_hidden_commit_stays_hidden_until_everyone_has_answered():
    s = rulebook.load("adel-verpflichtet", players=3).new_game(seed=2, log=True)
    assert s.is_simultaneous() and s.current_players() == [0, 1, 2]
    s.apply(0, 0)
    assert s.current_players() == [1, 2]
    mine, theirs = s.view(0)["pending"], s.view(1)["pending"]
    assert mine["my_commit"] is not None and mine["options"] == []
    assert theirs["my_commit"] is None and theirs["committed"] == [0]
    label = s.log(0)[-1]
    assert s.log(1)[-1] != label and "committed" in s.log(1)[-1]


def test_an_illegal_move_raises_the_engines_message_and_changes_nothing():
    s = rulebook.load("goofspiel", players=2, options={"cards": 4}).new_game(seed=0)
    before = s.state_hash()
    with pytest.raises(rulebook.IllegalMove, match=r"`p2-1` is not a legal option for P1 in `bid`; legal: p1-1"):
        s.apply(0, "p2-1")
    with pytest.raises(rulebook.IllegalMove, match=r"action 9 is not legal for P1: the legal actions are 0..4"):
        s.apply(0, 9)
    with pytest.raises(rulebook.IllegalMove, match="there is no seat 5"):
        s.legal_actions(5)
    s.apply(0, "p1-2")
    with pytest.raises(rulebook.IllegalMove, match="P1 has already committed to `bid`"):
        s.apply(0, "p1-3")
    s.apply(1, "1")  # by label
    assert s.state_hash() != before
    assert issubclass(rulebook.IllegalMove, rulebook.RulebookError)


def test_load_errors_carry_the_diagnostics():
    with pytest.raises(rulebook.LoadError, match=r"E0304.*cards=99: must be between 1 and 30"):
        rulebook.load("goofspiel", players=2, options={"cards": 99})
    with pytest.raises(rulebook.LoadError, match="no game at `games/no-such-game`"):
        rulebook.load("games/no-such-game")
    with pytest.raises(rulebook.LoadError, match="unknown-variant"):
        rulebook.load("goofspiel", variants=["unknown-variant"])
    with pytest.raises(rulebook.GameError, match="Goofspiel is for 2–8 players, not 9"):
        rulebook.load("goofspiel", players=9)


def test_same_seed_same_game_and_clones_are_independent():
    g = rulebook.load("adel-verpflichtet", players=4)
    a, b = play_out(g.new_game(seed=5), 1), play_out(g.new_game(seed=5), 1)
    assert a.state_hash() == b.state_hash() and a.decisions() == b.decisions()
    s = g.new_game(seed=5)
    c = s.clone()
    d = copy.deepcopy(s)
    c.apply(0, 0)
    assert s.current_players() == d.current_players() == [0, 1, 2, 3] and c.current_players() == [1, 2, 3]


def test_samples_keep_what_the_seat_sees_and_need_tracking():
    g = rulebook.load("flaschenteufel", players=4)
    with pytest.raises(rulebook.IllegalMove, match="new_tracked"):
        g.new_game(seed=1).sample(0, 7)
    s = g.new_game(seed=1, track=True)
    sample = s.sample(0, 7)
    assert sample.view(0)["zones"] == s.view(0)["zones"]
    hands = lambda x: [z["cards"] for z in x.view(1)["zones"] if z["name"] == "hand" and z["owner"] == 1]
    assert hands(sample) != hands(s)  # P2's hand is dealt anew


def test_play_random_runs_in_the_engine():
    g = rulebook.load("goofspiel", players=2, options={"cards": 6})
    decisions, most = rulebook.play_random(g, 10, seed=3)
    assert decisions == 10 * 2 * 6 and most == 6
