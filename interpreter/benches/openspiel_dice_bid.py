"""OpenSpiel's Python loop playing Dice bid (tests/fixtures/dice-bid), the reference of issue 15,
point 7: a short scripted game should play faster in `rulebook simulate` than here.

The game is written as an OpenSpiel Python game (pyspiel.Game / pyspiel.State), the way a
researcher adds a game to OpenSpiel without C++: three rounds; a chance node rolls the prize
(1-6); both players bid 0..chips left at once; the higher bid wins the prize and pays its bid,
equal bids win nothing. The loop is OpenSpiel's usual random playout: sample chance outcomes,
pick a uniformly random legal action for every player at simultaneous nodes.

Usage: python3 openspiel_dice_bid.py [GAMES]    (pip install open_spiel numpy)
Prints one JSON line: games, seconds, games_per_second, mean scores.
"""

import json
import random
import sys
import time

import numpy as np
import pyspiel

ROUNDS = 3
CHIPS = 4

_GAME_TYPE = pyspiel.GameType(
    short_name="python_dice_bid",
    long_name="Python Dice bid",
    dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    provides_factored_observation_string=False,
    parameter_specification={},
)


class DiceBidGame(pyspiel.Game):
    """The game: three rounds of a rolled prize and simultaneous bids."""

    def __init__(self, params=None):
        super().__init__(
            _GAME_TYPE,
            pyspiel.GameInfo(
                num_distinct_actions=CHIPS + 1,
                max_chance_outcomes=6,
                num_players=2,
                min_utility=0.0,
                max_utility=6.0 * ROUNDS,
                utility_sum=None,
                max_game_length=ROUNDS * 2,
            ),
            params or {},
        )

    def new_initial_state(self):
        return DiceBidState(self)


class DiceBidState(pyspiel.State):
    """Scores, chips, the prize and the round."""

    def __init__(self, game):
        super().__init__(game)
        self._round = 0
        self._prize = 0
        self._chips = [CHIPS, CHIPS]
        self._score = [0, 0]
        self._rolling = True

    def current_player(self):
        if self._round >= ROUNDS:
            return pyspiel.PlayerId.TERMINAL
        if self._rolling:
            return pyspiel.PlayerId.CHANCE
        return pyspiel.PlayerId.SIMULTANEOUS

    def _legal_actions(self, player):
        return list(range(self._chips[player] + 1))

    def chance_outcomes(self):
        return [(a, 1.0 / 6) for a in range(6)]

    def _apply_action(self, action):
        self._prize = action + 1
        self._rolling = False

    def _apply_actions(self, actions):
        a, b = actions
        if a != b:
            winner = 0 if a > b else 1
            self._score[winner] += self._prize
            self._chips[winner] -= max(a, b)
        self._round += 1
        self._rolling = True

    def _action_to_string(self, player, action):
        return f"roll {action + 1}" if player == pyspiel.PlayerId.CHANCE else f"{action} chips"

    def is_terminal(self):
        return self._round >= ROUNDS

    def returns(self):
        return [float(s) for s in self._score]

    def __str__(self):
        return f"round {self._round} prize {self._prize} chips {self._chips} score {self._score}"


pyspiel.register_game(_GAME_TYPE, DiceBidGame)


def playout(game, rng):
    """One random game in OpenSpiel's Python loop."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(2)])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state.returns()


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    game = pyspiel.load_game("python_dice_bid")
    rng = random.Random(1)
    totals = np.zeros(2)
    start = time.perf_counter()
    for _ in range(games):
        totals += playout(game, rng)
    seconds = time.perf_counter() - start
    print(json.dumps({
        "games": games,
        "seconds": round(seconds, 3),
        "games_per_second": round(games / seconds),
        "mean_scores": [round(t / games, 3) for t in totals],
    }))


if __name__ == "__main__":
    main()
