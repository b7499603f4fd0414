//! Python bindings of Rulebook: the native module `rulebook._rulebook`, re-exported by the
//! Python package `rulebook` (`interpreter/python/rulebook/__init__.py`).
//!
//! The binding is a thin layer over [`rulebook::load_game`] and [`rulebook::Session`] and
//! knows nothing about any game. Python sees what a front end sees: who must decide, their
//! legal options, a seat's view (as a dict, the JSON of [`rulebook::View`]), the redacted log
//! and, once the game is over, its outcome. It never sees the state itself.
//!
//! Actions are **indices** into the acting seat's list of legal options (`0..n`, in the
//! engine's order, the order `options(seat)` lists them), the integers OpenSpiel wants;
//! `apply` also takes an option's stable id or exact label as a string.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rulebook::{load_game, Game, LoadOptions, PlayError, Session};
use std::path::PathBuf;
use std::sync::Arc;

create_exception!(rulebook, RulebookError, PyException, "Base class of every error Rulebook raises.");
create_exception!(
    rulebook,
    LoadError,
    RulebookError,
    "A game could not be loaded: its folder is missing, or its files have errors (the message lists every diagnostic, located)."
);
create_exception!(
    rulebook,
    IllegalMove,
    RulebookError,
    "A decision that is not legal now (wrong seat, unknown option, the game is over); the game is unchanged."
);
create_exception!(
    rulebook,
    GameError,
    RulebookError,
    "The game itself failed: a script error, a rule that leaves nobody to decide, a step or decision limit, a bad player count."
);

/// A Rust [`PlayError`] as the Python exception of its kind, with the engine's message.
fn play_err(e: PlayError) -> PyErr {
    match e {
        PlayError::Illegal(_) => IllegalMove::new_err(e.to_string()),
        _ => GameError::new_err(e.to_string()),
    }
}

/// Where a game named on the Python side is: a folder as given, or a folder of that name in
/// `games_dir`, `$RULEBOOK_GAMES` or `./games` (the command line's rule).
fn find_game(game: &str, games_dir: Option<PathBuf>) -> PyResult<PathBuf> {
    let given = PathBuf::from(game);
    if given.join("game.toml").is_file() {
        return Ok(given);
    }
    let dirs = games_dir
        .into_iter()
        .chain(std::env::var_os("RULEBOOK_GAMES").map(PathBuf::from))
        .chain([PathBuf::from("games")]);
    let plain_name = !game.is_empty() && !game.contains(['/', '\\']) && game != "." && game != "..";
    if plain_name {
        for dir in dirs {
            let folder = dir.join(game);
            if folder.join("game.toml").is_file() {
                return Ok(folder);
            }
        }
    }
    Err(LoadError::new_err(format!(
        "no game at `{game}`: give a game folder (holding game.toml) or the name of a folder in games_dir, $RULEBOOK_GAMES or ./games"
    )))
}

/// A Python value of an `options` dict as the text the command line would take.
fn option_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(b) = value.extract::<bool>() {
        return Ok(b.to_string());
    }
    if let Ok(i) = value.extract::<i64>() {
        return Ok(i.to_string());
    }
    value.extract::<String>()
}

/// Loads a game folder (or the name of a bundled game) for a number of players, with variants
/// (names of files in its `variants/`, applied in order) and options (parameter values, as
/// `--option KEY=VALUE` takes them). Raises `LoadError` with every diagnostic when the files
/// have errors.
#[pyfunction]
#[pyo3(signature = (game, players=None, variants=None, options=None, games_dir=None))]
fn load(
    game: &str,
    players: Option<usize>,
    variants: Option<Vec<String>>,
    options: Option<&Bound<'_, PyDict>>,
    games_dir: Option<PathBuf>,
) -> PyResult<PyGame> {
    let folder = find_game(game, games_dir)?;
    let mut opts = LoadOptions { variants: variants.unwrap_or_default(), options: Vec::new() };
    if let Some(options) = options {
        for (k, v) in options.iter() {
            opts.options.push((k.extract::<String>()?, option_text(&v)?));
        }
    }
    let loaded = load_game(&folder, &opts);
    let Some(loaded_game) = loaded.game else {
        let errors: Vec<String> = loaded.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.to_string()).collect();
        return Err(LoadError::new_err(format!(
            "{} could not be loaded ({} error{}):\n{}",
            folder.display(),
            errors.len(),
            if errors.len() == 1 { "" } else { "s" },
            errors.join("\n")
        )));
    };
    let r = &loaded_game.rules;
    let players = players.unwrap_or(r.min_players);
    if players < r.min_players || players > r.max_players {
        return Err(GameError::new_err(format!(
            "{} is for {}–{} players, not {players}",
            r.title, r.min_players, r.max_players
        )));
    }
    Ok(PyGame { game: Arc::new(loaded_game), players, folder })
}

/// A loaded game and a player count: starts sessions (`new_game`). Immutable; any number of
/// sessions can be played from one game.
#[pyclass(name = "Game", module = "rulebook", frozen)]
struct PyGame {
    game: Arc<Game>,
    players: usize,
    folder: PathBuf,
}

#[pymethods]
impl PyGame {
    /// Starts a game from a seed (the engine's own random generator, seeded from it, does every
    /// shuffle and draw: the same seed and decisions give the same game). `log=True` records
    /// the event log (`Session.log`; a little slower); `track=True` follows what each seat
    /// knows, which `Session.sample` needs.
    #[pyo3(signature = (seed=0, log=false, track=false))]
    fn new_game(&self, seed: u64, log: bool, track: bool) -> PyResult<PySession> {
        let game: &Game = &self.game;
        // SAFETY: the session borrows the game, which lives in an `Arc` the `PySession` holds
        // beside it (so it does not move or die first: `session` is declared, so dropped,
        // before `game`). The `'static` is never handed out.
        let game: &'static Game = unsafe { &*(game as *const Game) };
        let session = if track {
            Session::new_tracked(game, self.players, seed, log)
        } else {
            Session::new(game, self.players, seed, log)
        }
        .map_err(play_err)?;
        Ok(PySession { session, game: self.game.clone() })
    }

    /// The game's title.
    #[getter]
    fn title(&self) -> String {
        self.game.rules.title.clone()
    }

    /// Number of seats of the games this starts.
    #[getter]
    fn players(&self) -> usize {
        self.players
    }

    /// Fewest players the game takes.
    #[getter]
    fn min_players(&self) -> usize {
        self.game.rules.min_players
    }

    /// Most players the game takes.
    #[getter]
    fn max_players(&self) -> usize {
        self.game.rules.max_players
    }

    /// The seats' names (`P1`, ... or the game's own).
    #[getter]
    fn seat_names(&self) -> Vec<String> {
        (0..self.players).map(|p| self.game.rules.seat_name(p)).collect()
    }

    /// Most decisions a game may take (the game's `[flow] max_decisions`).
    #[getter]
    fn max_decisions(&self) -> u64 {
        self.game.rules.max_decisions
    }

    /// The folder the game was loaded from.
    #[getter]
    fn folder(&self) -> PathBuf {
        self.folder.clone()
    }

    /// A fingerprint of the files the game was loaded from (16 hex digits).
    fn fingerprint(&self) -> String {
        self.game.fingerprint()
    }

    fn __repr__(&self) -> String {
        format!("<rulebook.Game {:?}, {} players, from {}>", self.game.rules.title, self.players, self.folder.display())
    }
}

/// One game being played. Every method that takes a seat counts seats from 0.
#[pyclass(name = "Session", module = "rulebook", unsendable)]
struct PySession {
    /// Declared before `game`, so dropped first: it borrows from it (see `new_game`).
    session: Session<'static>,
    game: Arc<Game>,
}

impl PySession {
    fn seat(&self, seat: usize) -> PyResult<usize> {
        if seat < self.session.players() {
            Ok(seat)
        } else {
            Err(IllegalMove::new_err(format!("there is no seat {seat}: seats are 0..{}", self.session.players())))
        }
    }

    fn option(&self, seat: usize, action: usize) -> PyResult<rulebook::OptionInfo> {
        let seat = self.seat(seat)?;
        let mut options = self.session.options(seat);
        if action < options.len() {
            Ok(options.swap_remove(action))
        } else if options.is_empty() {
            Err(IllegalMove::new_err(format!("{} does not decide now", self.game.rules.seat_name(seat))))
        } else {
            Err(IllegalMove::new_err(format!(
                "action {action} is not legal for {}: the legal actions are 0..{}",
                self.game.rules.seat_name(seat),
                options.len()
            )))
        }
    }

    fn json(py: Python<'_>, text: String) -> PyResult<Py<PyAny>> {
        Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
    }
}

#[pymethods]
impl PySession {
    /// Number of seats.
    #[getter]
    fn players(&self) -> usize {
        self.session.players()
    }

    /// The seed the game started with.
    #[getter]
    fn seed(&self) -> u64 {
        self.session.seed()
    }

    /// Seats that must decide now (several in a simultaneous hidden commit: those that have
    /// not committed yet); empty once the game is over.
    fn current_players(&self) -> Vec<usize> {
        self.session.to_act()
    }

    /// Whether the pending decision is a simultaneous hidden commit (each seat in
    /// `current_players()` answers, in any order; nobody sees another's answer until all have).
    fn is_simultaneous(&self) -> bool {
        self.session.is_commit()
    }

    /// The pending decision's name and prompt, or None once the game is over.
    fn decision(&self) -> Option<(String, String)> {
        self.session.prompt().map(|(n, p)| (n.to_string(), p.to_string()))
    }

    /// True once the game is over.
    fn is_over(&self) -> bool {
        self.session.is_over()
    }

    /// The seat's legal actions now: `[0, 1, ..., n-1]`, indices into `options(seat)`; empty
    /// when the seat need not decide.
    fn legal_actions(&self, seat: usize) -> PyResult<Vec<usize>> {
        Ok((0..self.session.option_count(self.seat(seat)?)).collect())
    }

    /// The seat's legal options now as `(id, label)` pairs, in action order.
    fn options(&self, seat: usize) -> PyResult<Vec<(String, String)>> {
        Ok(self.session.options(self.seat(seat)?).into_iter().map(|o| (o.id, o.label)).collect())
    }

    /// The label of one of the seat's legal actions (what a player reads).
    fn action_label(&self, seat: usize, action: usize) -> PyResult<String> {
        Ok(self.option(seat, action)?.label)
    }

    /// The stable id of one of the seat's legal actions (what transcripts and scenarios use).
    fn action_id(&self, seat: usize, action: usize) -> PyResult<String> {
        let seat = self.seat(seat)?;
        match self.session.option_id(seat, action) {
            Some(id) => Ok(id.to_string()),
            None => self.option(seat, action).map(|o| o.id),
        }
    }

    /// Applies a seat's decision: an action (an index into its legal options) or, as a string,
    /// an option's id or exact label. Raises `IllegalMove` (the game unchanged) with the
    /// engine's reason, or `GameError` when a script or rule of the game fails.
    fn apply(&mut self, seat: usize, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let seat = self.seat(seat)?;
        if let Ok(index) = action.extract::<usize>() {
            if index >= self.session.option_count(seat) {
                return self.option(seat, index).map(|_| ());
            }
            return self.session.apply_index(seat, index).map_err(play_err);
        }
        let text: String = action.extract().map_err(|_| {
            IllegalMove::new_err(format!("an action is an index (int) or an option's id or label (str), not {action}"))
        })?;
        self.session.apply(seat, &text).map_err(play_err)
    }

    /// The final result as returns, OpenSpiel's win/loss convention: the winners share +1, the
    /// others share -1 (all 0 when everyone or nobody wins); all 0 while the game goes on.
    fn returns(&self) -> Vec<f64> {
        let n = self.session.players();
        let mut out = vec![0.0; n];
        if let Some(o) = self.session.outcome() {
            let w = o.winners.len();
            if w > 0 && w < n {
                for (p, r) in out.iter_mut().enumerate() {
                    *r = if o.winners.contains(&p) { 1.0 / w as f64 } else { -1.0 / (n - w) as f64 };
                }
            }
        }
        out
    }

    /// Final scores by seat once the game is over (None before; empty for a game that keeps
    /// no score).
    fn scores(&self) -> Option<Vec<i64>> {
        self.session.outcome().map(|o| o.scores.clone())
    }

    /// The winning seats once the game is over (None before).
    fn winners(&self) -> Option<Vec<usize>> {
        self.session.outcome().map(|o| o.winners.clone())
    }

    /// What a seat sees, as a dict (the JSON of the engine's view: zones, tracks, vars, grids,
    /// the pending decision with this seat's options, the outcome); `None` for a spectator's
    /// view (public information only).
    #[pyo3(signature = (seat=None))]
    fn view(&self, py: Python<'_>, seat: Option<usize>) -> PyResult<Py<PyAny>> {
        Self::json(py, self.observation_string(seat)?)
    }

    /// The seat's view as one line of JSON (keys in a fixed order): equal strings, equal
    /// views. OpenSpiel's observation string.
    #[pyo3(signature = (seat=None))]
    fn observation_string(&self, seat: Option<usize>) -> PyResult<String> {
        let view = match seat {
            Some(s) => self.session.view(self.seat(s)?),
            None => self.session.public_view(),
        };
        serde_json::to_string(&view).map_err(|e| GameError::new_err(e.to_string()))
    }

    /// The event log as the seat may read it (`None`: a spectator), one line per event; empty
    /// unless the game was started with `log=True`.
    #[pyo3(signature = (seat=None))]
    fn log(&self, seat: Option<usize>) -> PyResult<Vec<String>> {
        let viewer = seat.map(|s| self.seat(s)).transpose()?;
        Ok(self.session.log_for(viewer))
    }

    /// Number of decisions applied so far (each seat's answer to a commit counts once).
    fn decisions(&self) -> usize {
        self.session.history().len()
    }

    /// An independent copy (for search).
    fn clone(&self) -> PySession {
        PySession { session: self.session.clone(), game: self.game.clone() }
    }

    fn __copy__(&self) -> PySession {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PySession {
        self.clone()
    }

    /// A complete game consistent with what `seat` knows here, its hidden information (other
    /// hands, deck order, others' uncommitted answers) sampled from `seed` without reading it:
    /// a determinization for search. Needs a session started with `track=True`; the sample
    /// itself keeps no log and follows no knowledge.
    fn sample(&self, seat: usize, seed: u64) -> PyResult<PySession> {
        let seat = self.seat(seat)?;
        let session = rulebook::determinize::sample(&self.session, seat, seed).map_err(play_err)?;
        Ok(PySession { session, game: self.game.clone() })
    }

    /// Puts exactly these components (by id), bottom to top, into a zone (`owner`: the seat,
    /// for a per-player zone), taking them from wherever they are. A setup for tests that
    /// recreate a situation (as a scenario's `arrange` line), not a game action.
    #[pyo3(signature = (zone, ids, owner=None))]
    fn arrange(&mut self, zone: &str, ids: Vec<String>, owner: Option<usize>) -> PyResult<()> {
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        self.session.arrange(zone, owner, &ids).map_err(play_err)
    }

    /// A short fingerprint of the whole state (16 hex digits): equal states, equal hashes.
    /// Tells whether two sessions are in the same position without showing it.
    fn state_hash(&self) -> String {
        self.session.state_hash()
    }

    fn __repr__(&self) -> String {
        let who: Vec<String> = self.session.to_act().iter().map(|p| self.game.rules.seat_name(*p)).collect();
        match self.session.prompt() {
            Some((name, _)) => format!(
                "<rulebook.Session {:?}, {} decisions, `{name}` waits for {}>",
                self.game.rules.title,
                self.session.history().len(),
                who.join(", ")
            ),
            None => format!("<rulebook.Session {:?}, over>", self.game.rules.title),
        }
    }
}

/// Plays `games` seeded games of uniformly random decisions inside the engine (no Python per
/// decision) and returns `(decisions, most_options)`: the number of decisions taken and the
/// most legal options any seat had at once. The first is the baseline a Python loop is
/// measured against; the second sizes an action space (OpenSpiel's `num_distinct_actions`).
/// Game `i` starts from seed `seed + i`; the decisions draw from a generator seeded by `seed`.
#[pyfunction]
#[pyo3(signature = (game, games, seed=0))]
fn play_random(game: &PyGame, games: u64, seed: u64) -> PyResult<(u64, usize)> {
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let (mut decisions, mut most) = (0, 0);
    for i in 0..games {
        let mut s = game.game.start_quiet(game.players, seed.wrapping_add(i)).map_err(play_err)?;
        while let Some(p) = s.first_to_act() {
            // xorshift64*: enough for picking options.
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            let n = s.option_count(p);
            most = most.max(n);
            let pick = rng.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1) as u64;
            s.apply_index(p, pick as usize).map_err(play_err)?;
            decisions += 1;
        }
    }
    Ok((decisions, most))
}

/// The native module: `rulebook._rulebook` (the Python package `rulebook` re-exports it).
#[pymodule]
fn _rulebook(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(play_random, m)?)?;
    m.add_class::<PyGame>()?;
    m.add_class::<PySession>()?;
    let py = m.py();
    m.add("RulebookError", py.get_type::<RulebookError>())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("IllegalMove", py.get_type::<IllegalMove>())?;
    m.add("GameError", py.get_type::<GameError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
