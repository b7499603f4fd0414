"""Any Rulebook game as an OpenSpiel game (pure Python over the ``rulebook`` package).

    import pyspiel
    from rulebook import openspiel as rbs
    name = rbs.register("games/adel-verpflichtet")          # "rulebook_adel_verpflichtet"
    game = pyspiel.load_game(name, {"players": 3, "simultaneous": False})
    state = game.new_initial_state()

``register`` makes one OpenSpiel game per game folder; its parameters (OpenSpiel's
``load_game`` dict, or ``name(players=3,...)`` strings) choose the configuration:

- ``players`` (int): seats (default: the game's fewest);
- ``variants`` (str): variant names, comma-separated, applied in order;
- ``options`` (str): parameter values, ``key=value`` comma-separated (``cards=5``);
- ``seed`` (int): the seed of the first game; each ``new_initial_state()`` takes the next one,
  so episodes differ and a run is reproducible (OpenSpiel's ``clone()`` calls it too and so
  moves the count on; ``RulebookGame.new_initial_state_for_seed`` picks a seed);
- ``simultaneous`` (bool, default true): how hidden commits appear (below);
- ``returns`` (str): ``win_loss`` (default: winners share +1, the others -1, zero-sum) or
  ``scores`` (the final scores, like OpenSpiel's ``returns_type=total_points``);
- ``max_actions`` (int): ``num_distinct_actions``; 0 (default) measures it (below);
- ``log`` (bool): record the engine's event log (``state.session.log(seat)``);
- ``resample`` (bool): follow what each seat knows, so that ``resample_from_infostate`` can
  draw states (below); moves cost a little more.

**Decisions.** An action is an index into the acting seat's legal options, in the engine's
order: ``legal_actions()`` is ``[0, ..., n-1]`` and ``action_to_string`` the option's label.
The engine's option lists vary from node to node and a script may build them, so no fixed
action numbering exists across nodes; ``num_distinct_actions`` is the most options a seat had
at once in 20 random games, doubled (at least 16), unless ``max_actions`` says; a node with
more options raises an error naming the parameter.

**Hidden commits.** With ``simultaneous=True`` the game has OpenSpiel's SIMULTANEOUS dynamics:
a commit is a simultaneous node (``current_player()`` is ``PlayerId.SIMULTANEOUS``) taking one
joint action; a seat that does not take part has the single legal action 0 ("pass"), which is
ignored. Every other decision is an ordinary node of one player. With ``simultaneous=False``
the game is SEQUENTIAL (what OpenSpiel's MCTS and most bots need): the seats of a commit
answer one after another, lowest seat first, each answer hidden from the others' observations
until the reveal (the engine keeps it so), which is the same game for every seat but the
search of one that reads the state.

**Chance** happens inside the engine from the game's seed (``ChanceMode.SAMPLED_STOCHASTIC``):
no chance nodes; ``state.clone()`` copies the generator, as OpenSpiel's sampled-stochastic
games do.

**Observations** come from the seat's view only: ``observation_string(seat)`` is the view as
one line of JSON; ``information_state_string(seat)`` adds the seat's own past decisions (the
view holds what the rules keep on the table; what they take off it, a player who does not
take notes forgets). No tensors.

**Returns** are 0 until the end (``RewardModel.TERMINAL``).

**Resampling** (``resample=True``): ``state.resample_from_infostate(seat, sampler)`` draws a
state the seat cannot tell from this one (the engine's determinization: what the seat has not
seen, dealt anew consistently with everything it knows, the generator of later chance
reseeded), from a seed the ``sampler`` gives (a callable returning a float in [0, 1), such as
``pyspiel.UniformProbabilitySampler``). The seat's information state string is the same in the
drawn state; the other seats' past decisions are not carried over (the seat did not see
them), and a commit another seat made before this seat's turn is made again at random. This
is what OpenSpiel's ``ISMCTSBot`` asks of a game (with ``simultaneous=False``).
"""

import random

import pyspiel

import rulebook

_DEFAULTS = {
    "players": 0,
    "variants": "",
    "options": "",
    "seed": 0,
    "simultaneous": True,
    "returns": "win_loss",
    "max_actions": 0,
    "log": False,
    "resample": False,
}

PASS = 0
"""The action of a seat that takes no part in a simultaneous node."""


def _short_name(folder):
    return "rulebook_" + "".join(c if c.isalnum() else "_" for c in folder.rstrip("/").split("/")[-1])


def _split(text):
    return [t.strip() for t in text.split(",") if t.strip()]


def _options(text):
    out = {}
    for item in _split(text):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"options: `{item}` is not key=value")
        out[key.strip()] = value.strip()
    return out


_REGISTERED = {}


def register(game, short_name=None, games_dir=None):
    """Registers the Rulebook game in folder ``game`` (or a bundled game's name) with OpenSpiel
    and returns its short name (``rulebook_<folder>`` unless given). Registering the same name
    again returns it without change."""
    probe = rulebook.load(game, games_dir=games_dir)
    folder = str(probe.folder)
    name = short_name or _short_name(folder)
    if name in _REGISTERED:
        return name
    defaults = dict(_DEFAULTS, players=probe.min_players)
    game_type = _game_type(name, probe, defaults, simultaneous=True)

    class _Game(RulebookGame):
        def __init__(self, params=None):
            super().__init__(name, folder, probe, dict(defaults, **(params or {})))

    _Game.__name__ = f"RulebookGame_{name}"
    pyspiel.register_game(game_type, _Game)
    _REGISTERED[name] = folder
    return name


def load(game, games_dir=None, **params):
    """Registers ``game`` (see ``register``) and loads it with these parameters:
    ``load("goofspiel", players=2, options="cards=5")``."""
    return pyspiel.load_game(register(game, games_dir=games_dir), params)


def _game_type(name, probe, params, simultaneous, returns="win_loss"):
    dyn = pyspiel.GameType.Dynamics
    return pyspiel.GameType(
        short_name=name,
        long_name=f"Rulebook {probe.title}",
        dynamics=dyn.SIMULTANEOUS if simultaneous else dyn.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM if returns == "win_loss" else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=probe.max_players,
        min_num_players=probe.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        provides_factored_observation_string=False,
        parameter_specification=params,
    )


class RulebookGame(pyspiel.Game):
    """An OpenSpiel game played by the Rulebook engine (made by ``register``)."""

    def __init__(self, name, folder, probe, params):
        try:
            self._configure(folder, probe, params)
        except Exception:
            # A pybind object left uninitialised crashes whatever prints it (a traceback with
            # its locals): initialise it as a stub, then raise.
            stub = pyspiel.GameInfo(
                num_distinct_actions=1,
                max_chance_outcomes=0,
                num_players=probe.min_players,
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=0.0,
                max_game_length=1,
            )
            super().__init__(_game_type(name, probe, params, True), stub, params)
            raise
        win_loss = self.returns_type == "win_loss"
        super().__init__(
            _game_type(name, probe, params, self.simultaneous, self.returns_type),
            pyspiel.GameInfo(
                num_distinct_actions=self._actions,
                max_chance_outcomes=0,
                num_players=self.players,
                min_utility=-1.0 if win_loss else -1e9,
                max_utility=1.0 if win_loss else 1e9,
                utility_sum=0.0 if win_loss else None,
                max_game_length=int(self.rulebook.max_decisions),
            ),
            params,
        )

    def _configure(self, folder, probe, params):
        self.players = int(params["players"]) or probe.min_players
        self.simultaneous = bool(params["simultaneous"])
        self.returns_type = str(params["returns"])
        if self.returns_type not in ("win_loss", "scores"):
            raise ValueError(f"returns must be win_loss or scores, not {self.returns_type!r}")
        self.log = bool(params["log"])
        self.resample = bool(params["resample"])
        self.rulebook = rulebook.load(
            folder, players=self.players, variants=_split(params["variants"]), options=_options(params["options"])
        )
        self._next_seed = int(params["seed"])
        self._actions = int(params["max_actions"])
        if self._actions <= 0:
            _, most = rulebook.play_random(self.rulebook, 20, 0)
            self._actions = max(16, 2 * most)

    def new_initial_state(self):
        """A new game, from the next seed."""
        seed = self._next_seed
        self._next_seed += 1
        return self.new_initial_state_for_seed(seed)

    def new_initial_state_for_seed(self, seed):
        """A new game from this seed."""
        return RulebookState(self, seed)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """Observation and information-state strings from the seat's view (no tensors)."""
        return RulebookObserver(iig_obs_type, params)


class RulebookState(pyspiel.State):
    """A game in progress: a ``rulebook.Session`` (``state.session``) seen through OpenSpiel."""

    def __init__(self, game, seed, session=None, own=None):
        super().__init__(game)
        # OpenSpiel clones a Python state by making a new one (new_initial_state) and
        # deep-copying the attributes of this one into it: no game among them (get_game() gives
        # it), the session started only when first used (a clone never starts one) and copying
        # itself (Session.__deepcopy__).
        self._seed = seed
        self._session = session
        self._simultaneous = game.simultaneous
        self._scores = game.returns_type == "scores"
        self._limit = game.num_distinct_actions()
        self._own = own if own is not None else [[] for _ in range(game.num_players())]

    @property
    def session(self):
        """The ``rulebook.Session`` this state plays."""
        if self._session is None:
            game = self.get_game()
            self._session = game.rulebook.new_game(seed=self._seed, log=game.log, track=game.resample)
        return self._session

    def current_player(self):
        s = self.session
        if s.is_over():
            return pyspiel.PlayerId.TERMINAL
        if self._simultaneous and s.is_simultaneous():
            return pyspiel.PlayerId.SIMULTANEOUS
        return s.current_players()[0]

    def _legal_actions(self, player):
        actions = self.session.legal_actions(player)
        if len(actions) > self._limit:
            raise ValueError(
                f"{len(actions)} legal options, more than num_distinct_actions={self._limit}: "
                "load the game with a larger max_actions"
            )
        if not actions and self._simultaneous and self.session.is_simultaneous():
            return [PASS]
        return actions

    def _apply_action(self, action):
        seat = self.session.current_players()[0]
        self._own[seat].append(self.session.action_id(seat, action))
        self.session.apply(seat, int(action))

    def _apply_actions(self, actions):
        s = self.session
        for seat in s.current_players():
            self._own[seat].append(s.action_id(seat, actions[seat]))
            s.apply(seat, int(actions[seat]))

    def _action_to_string(self, player, action):
        if 0 <= player < self.session.players and action < len(self.session.legal_actions(player)):
            return self.session.action_label(player, action)
        return "pass" if action == PASS else f"action {action}"

    def is_terminal(self):
        return self.session.is_over()

    def returns(self):
        if self._scores:
            scores = self.session.scores()
            return [float(x) for x in scores] if scores else [0.0] * self.session.players
        return self.session.returns()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state seat ``player_id`` cannot tell from this one, drawn from a seed that
        ``probability_sampler()`` (a float in [0, 1)) gives; needs ``resample=True``."""
        game = self.get_game()
        if not game.resample:
            raise ValueError("resample_from_infostate needs the game loaded with resample=True")
        seed = int(probability_sampler() * 2.0**53)
        sample = self.session.sample(player_id, seed)
        own = [list(o) if seat == player_id else [] for seat, o in enumerate(self._own)]
        # The engine's sample forgets the hidden commits of the other seats (they decide again
        # in it). Seats that had answered before this one answer again here, at random, so the
        # sample waits for the same seats as this state (who has committed is public).
        waiting = self.session.current_players()
        rng = random.Random(seed)
        while sample.current_players() != waiting and not sample.is_over():
            seat = sample.current_players()[0]
            if seat in waiting:
                raise RuntimeError(f"a sample for seat {player_id} does not wait for the seats {waiting}")
            action = rng.randrange(len(sample.legal_actions(seat)))
            own[seat].append(sample.action_id(seat, action))
            sample.apply(seat, action)
        return RulebookState(game, self._seed, sample, own)

    def __deepcopy__(self, memo):
        return RulebookState(self.get_game(), self._seed, self.session.clone(), [list(o) for o in self._own])

    def __str__(self):
        return self.session.observation_string(None)


class RulebookObserver:
    """OpenSpiel's PyObserver: strings only, from the seat's view."""

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.perfect_recall = bool(iig_obs_type and iig_obs_type.perfect_recall)
        self.tensor = None
        self.dict = {}

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        view = state.session.observation_string(player)
        if self.perfect_recall:
            return f"mine:{state._own[player]!r} view:{view}"
        return view
