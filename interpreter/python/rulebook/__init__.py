"""Rulebook games from Python.

    import rulebook
    g = rulebook.load("games/flaschenteufel", players=4, variants=["lopaka"], options={})
    s = g.new_game(seed=1)
    while not s.is_over():
        seat = s.current_players()[0]
        s.apply(seat, s.legal_actions(seat)[0])
    print(s.returns(), s.scores())

A game is loaded once (``load``: a game folder, or the name of a folder under ``games_dir``,
``$RULEBOOK_GAMES`` or ``./games``) and starts any number of sessions (``Game.new_game``).

Actions are integers: indices into the acting seat's legal options, in the engine's order
(``Session.options(seat)`` lists them as ``(id, label)`` pairs). ``Session.apply`` also takes
an option's id or exact label as a string.

Simultaneous hidden commits: while ``Session.is_simultaneous()``, every seat in
``Session.current_players()`` answers, in any order, one ``apply`` each; an answer is hidden
from the others (views and logs) until the last one is in, then all are revealed together.

Python sees views only (``Session.view(seat)``, a dict; ``observation_string(seat)``, the
same as one line of JSON), never the state. ``returns()`` is 0 for everyone until the game is
over, then the win/loss returns (winners share +1, the others -1); ``scores()`` the final
scores.

Errors are exceptions carrying the engine's message: ``LoadError`` (the game's diagnostics,
located), ``IllegalMove`` (the game unchanged), ``GameError`` (a script or rule failed), all
subclasses of ``RulebookError``.

``rulebook.openspiel`` registers any Rulebook game as an OpenSpiel game (needs ``open_spiel``).
"""

from ._rulebook import (  # noqa: F401 (re-exported)
    Game,
    GameError,
    IllegalMove,
    LoadError,
    RulebookError,
    Session,
    __version__,
    load,
    play_random,
)

__all__ = [
    "Game",
    "GameError",
    "IllegalMove",
    "LoadError",
    "RulebookError",
    "Session",
    "load",
    "play_random",
]
