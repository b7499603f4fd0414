//! Simulation: many seeded games played by bots, in parallel if asked, summarised. The
//! summary depends only on the game, the options, the seed and the bot, never on `jobs`.

use crate::bot::{BotTable, SeatBot, SeatObservation};
use crate::error::PlayError;
use crate::rng::derive_seed;
use crate::session::Move;
use crate::Game;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How to simulate.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Seats.
    pub players: usize,
    /// Number of games.
    pub games: u64,
    /// Index of the first game (a series continued in batches plays `first..first + games`;
    /// game `i` is the same game whatever the batch).
    pub first: u64,
    /// Series seed (game `i` uses [`derive_seed`]`(seed, i)`).
    pub seed: u64,
    /// The bot of each seat.
    pub bots: BotTable,
    /// Worker threads.
    pub jobs: usize,
    /// Keep every game's decisions in its record (to write transcripts). Off, each game's
    /// decisions are dropped as soon as it ends, so a long series does not grow in memory.
    pub keep_moves: bool,
    /// Work out each game's [`Shape`] (`balance` and `tune` compare shapes; a summary of a
    /// series does not read them). Off, each record's `shape` is `None` and the scores are
    /// not followed decision by decision.
    pub keep_shapes: bool,
}

impl SimConfig {
    /// A series of `games` games from game 0, `jobs` workers (at least one), moves dropped,
    /// shapes worked out.
    pub fn new(players: usize, games: u64, seed: u64, bots: BotTable, jobs: usize) -> SimConfig {
        SimConfig { players, games, first: 0, seed, bots, jobs: jobs.max(1), keep_moves: false, keep_shapes: true }
    }
}

/// What a game's record keeps besides how the game ended ([`play_keeping`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keep {
    /// The decisions (see [`SimConfig::keep_moves`]).
    pub moves: bool,
    /// The shape (see [`SimConfig::keep_shapes`]).
    pub shape: bool,
}

impl Keep {
    /// Everything: what [`play_one`] keeps.
    pub const ALL: Keep = Keep { moves: true, shape: true };
    /// No moves: what a series that reads only how games end and their shapes keeps.
    pub const OUTCOME: Keep = Keep { moves: false, shape: true };
    /// Neither moves nor shape: what `rulebook simulate` keeps when it only counts how games
    /// end.
    pub const COUNT: Keep = Keep { moves: false, shape: false };
}

/// One finished game: everything a summary of a series is computed from (a results file
/// holds these, see [`crate::results`]).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GameRecord {
    /// Index in the series.
    pub index: u64,
    /// The game's own seed.
    pub seed: u64,
    /// Winners.
    pub winners: Vec<usize>,
    /// Final scores.
    pub scores: Vec<i64>,
    /// Decisions taken.
    pub decisions: u64,
    /// Final values of the game's global tracks (round counters and the like), by name.
    pub tracks: Vec<(String, i64)>,
    /// Every decision, for recording (empty when the series was run without
    /// [`SimConfig::keep_moves`]; never written to a results file).
    #[serde(skip)]
    pub moves: Vec<Move>,
    /// How the game unfolded, from the scores after each decision (games with a score).
    pub shape: Option<Shape>,
}

/// How a game unfolded (Browne's measures of a game's shape), from the scores after every
/// decision. `L` is the number of decisions, the leader at a step is the one seat with the
/// highest score (none when several share it), `w` the (first) winner.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Shape {
    /// Lead changes: the steps at which a seat other than the last leader took the lead,
    /// divided by `L`.
    pub lead_changes: f64,
    /// Drama: over the steps at which `w` did not lead, the mean of its deficit
    /// `(top - score_w) / (top - bottom)` (0 if it never trailed).
    pub drama: f64,
    /// When the game was decided: the step from which `w` led to the end, divided by `L`
    /// (low: decided early; 1: decided at the last step).
    pub decided_at: f64,
}

#[cfg(test)]
mod shape_tests {
    use super::{Row, Shape};

    #[test]
    fn a_row_has_one_leader_only_without_a_tie_at_the_top() {
        let row = Row::of(&[5, 3, 5, 7]).unwrap();
        assert_eq!((row.top, row.bottom, row.leader), (7, 3, Some(3)));
        assert_eq!(Row::of(&[7, 5, 7]).unwrap().leader, None);
        assert_eq!(Row::of(&[2, 9, 1]).unwrap().leader, Some(1));
        assert!(Row::of(&[]).is_none());
    }

    #[test]
    fn a_comeback_has_lead_changes_and_drama_and_is_decided_late() {
        // P2 leads, P1 catches up at the last step: one change of leader, decided at the end.
        let trace = [0, 2, 1, 2, 1, 3, 4, 3];
        let s = Shape::of(&trace, 2, &[0]).unwrap();
        assert_eq!(s.lead_changes, 0.25);
        assert!((s.drama - 1.0).abs() < 1e-12, "{s:?}");
        assert_eq!(s.decided_at, 0.75);
        // A runaway leader: no change, no drama, decided at once.
        let s = Shape::of(&[1, 0, 2, 0, 3, 1], 2, &[0]).unwrap();
        assert_eq!((s.lead_changes, s.drama, s.decided_at), (0.0, 0.0, 0.0));
        assert!(Shape::of(&[1, 0], 2, &[]).is_none());
    }

    #[test]
    fn a_trace_kept_in_runs_has_the_shape_of_the_whole_trace_bit_for_bit() {
        let mut rng = crate::rng::GameRng::new(7);
        for game in 0..500 {
            let seats = 1 + game % 4;
            let mut scores = vec![0i64; seats];
            let (mut whole, mut runs) = (Vec::new(), super::ScoreTrace::with_room(seats));
            for _ in 0..rng.below(40) {
                // Mostly nothing scores, as in most games' decisions.
                if rng.below(3) == 0 {
                    let p = rng.below(seats as u64) as usize;
                    scores[p] += rng.below(5) as i64 - 1;
                }
                whole.extend_from_slice(&scores);
                runs.push(&scores);
            }
            let winners = [rng.below(seats as u64) as usize];
            let (a, b) = (Shape::of(&whole, seats, &winners), runs.shape(seats, &winners));
            // Compared by their bits: the drama must be summed in the same order.
            let bits = |s: Option<Shape>| s.map(|s| [s.lead_changes, s.drama, s.decided_at].map(f64::to_bits));
            assert_eq!(bits(a), bits(b), "game {game}");
        }
        assert!(super::ScoreTrace::default().shape(2, &[0]).is_none());
    }
}

/// One row of a score trace: the top and bottom scores and the one seat at the top (`None`
/// when seats tie for it), found in one pass (a game's shape reads one row per decision).
struct Row {
    top: i64,
    bottom: i64,
    leader: Option<usize>,
}

impl Row {
    /// The row's figures (`None` for an empty row).
    fn of(scores: &[i64]) -> Option<Row> {
        let (&first, rest) = scores.split_first()?;
        let mut row = Row { top: first, bottom: first, leader: Some(0) };
        for (i, &x) in rest.iter().enumerate() {
            if x > row.top {
                row.top = x;
                row.leader = Some(i + 1);
            } else if x == row.top {
                row.leader = None;
            }
            row.bottom = row.bottom.min(x);
        }
        Some(row)
    }
}

impl Shape {
    /// The shape of a game from its score after each decision (`trace`: one row of `seats`
    /// scores per decision, one after the other) and its winners.
    pub fn of(trace: &[i64], seats: usize, winners: &[usize]) -> Option<Shape> {
        let rows = trace.len().checked_div(seats).unwrap_or(0);
        Shape::of_runs(trace, &vec![1; rows], seats, winners)
    }

    /// [`Shape::of`] for a trace whose consecutive equal rows are kept once: `rows` holds one
    /// row of `seats` scores per run and `runs[k]` how many decisions in a row left the scores
    /// of row `k` (see [`ScoreTrace`]). The same figures, bit for bit, as for the whole trace:
    /// each row of a run adds to the drama in turn, as it would there.
    fn of_runs(rows: &[i64], runs: &[u32], seats: usize, winners: &[usize]) -> Option<Shape> {
        let w = *winners.first()?;
        if seats == 0 || rows.is_empty() {
            return None;
        }
        let l: usize = runs.iter().map(|r| *r as usize).sum();
        let (mut changes, mut last) = (0, None);
        let (mut deficit, mut trailing) = (0.0, 0);
        let mut decided = l;
        // `t`: the decision at which the run begins.
        let mut t = 0;
        for (s, &run) in rows.chunks_exact(seats).zip(runs) {
            let Row { top, bottom, leader: lead } = Row::of(s)?;
            // The rows after a run's first have the same leader: no change there.
            if lead.is_some() && lead != last {
                if last.is_some() {
                    changes += 1;
                }
                last = lead;
            }
            if lead != Some(w) {
                if top > bottom {
                    let behind = (top - s[w]) as f64 / (top - bottom) as f64;
                    for _ in 0..run {
                        deficit += behind;
                    }
                }
                trailing += run as usize;
                decided = l;
            } else if decided == l {
                decided = t;
            }
            t += run as usize;
        }
        Some(Shape {
            lead_changes: changes as f64 / l as f64,
            drama: if trailing == 0 { 0.0 } else { deficit / trailing as f64 },
            decided_at: decided.min(l) as f64 / l as f64,
        })
    }
}

/// The score after each decision of a game, as [`Shape`] reads it, with consecutive equal
/// rows kept once and counted (most decisions score nothing: a hidden commit's first answers,
/// a card laid to a trick), so that a game's shape reads each run once.
#[derive(Default)]
struct ScoreTrace {
    /// One row of scores per run, one after the other.
    rows: Vec<i64>,
    /// The decisions in each run.
    runs: Vec<u32>,
}

impl ScoreTrace {
    /// An empty trace, with room for a short game of `seats` seats.
    fn with_room(seats: usize) -> ScoreTrace {
        ScoreTrace { rows: Vec::with_capacity(seats * 16), runs: Vec::with_capacity(16) }
    }

    /// The scores after the next decision.
    fn push(&mut self, scores: &[i64]) {
        let start = self.rows.len().wrapping_sub(scores.len());
        // Compared one by one: a row is a few numbers, short for a call to `memcmp`.
        let same = |last: &[i64]| last.iter().zip(scores).all(|(a, b)| a == b);
        match self.runs.last_mut() {
            Some(run) if self.rows.get(start..).is_some_and(same) => *run += 1,
            _ => {
                self.rows.extend_from_slice(scores);
                self.runs.push(1);
            }
        }
    }

    /// The game's shape, with `seats` scores a row.
    fn shape(&self, seats: usize, winners: &[usize]) -> Option<Shape> {
        Shape::of_runs(&self.rows, &self.runs, seats, winners)
    }
}

/// A game of a series that failed, with what reproduces it.
#[derive(Clone, Debug)]
pub struct SimFailure {
    /// Index in the series.
    pub index: u64,
    /// The game's own seed.
    pub seed: u64,
    /// Decisions applied before the failure.
    pub moves: Vec<Move>,
    /// The error.
    pub error: PlayError,
}

impl std::fmt::Display for SimFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "game {} (seed {}) failed after {} decisions: {}",
            self.index,
            self.seed,
            self.moves.len(),
            self.error
        )?;
        if let Some(m) = self.moves.last() {
            write!(f, "\n  last decision: P{} chose `{}`", m.player + 1, m.option)?;
        }
        Ok(())
    }
}

/// Statistics of a number series.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Stats {
    /// Mean.
    pub mean: f64,
    /// Minimum.
    pub min: i64,
    /// Maximum.
    pub max: i64,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The summary `rulebook simulate` prints.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    /// Game name.
    pub game: String,
    /// Variants applied.
    pub variants: Vec<String>,
    /// Seats.
    pub players: usize,
    /// Games played.
    pub games: u64,
    /// Series seed.
    pub seed: u64,
    /// The bots, as `--bot` names them (`random`, `P1=mcts random`).
    pub bot: String,
    /// Games won by each seat (a shared win counts for every winner).
    pub wins_by_seat: Vec<u64>,
    /// Fraction of games won by each seat.
    pub win_rate_by_seat: Vec<f64>,
    /// Games with more than one winner.
    pub shared_wins: u64,
    /// Games with no winner.
    pub no_winner: u64,
    /// Game length in decisions.
    pub length: Stats,
    /// Mean final score by seat (empty if the game has no score).
    pub mean_score_by_seat: Vec<f64>,
    /// Best minus worst final score in a game.
    pub score_spread: Option<Stats>,
    /// Final values of each global track (e.g. the number of rounds played).
    pub tracks: indexmap::IndexMap<String, Stats>,
}

/// Plays one game with bots; returns its record (with its moves) or the failure that stopped
/// it.
pub fn play_one(
    game: &Game,
    players: usize,
    index: u64,
    seed: u64,
    table: &BotTable,
) -> Result<GameRecord, Box<SimFailure>> {
    play(game, players, index, seed, table, Keep::ALL)
}

/// [`play_one`] keeping only what `keep` says (without the moves, the record's `moves` is
/// empty; without the shape, its `shape` is `None`). A game played without its moves that
/// fails is played again keeping them (the engine is deterministic: it fails alike), so that
/// the failure reports the moves that led to it.
pub fn play_keeping(
    game: &Game,
    players: usize,
    index: u64,
    seed: u64,
    table: &BotTable,
    keep: Keep,
) -> Result<GameRecord, Box<SimFailure>> {
    play(game, players, index, seed, table, keep).or_else(|failed| {
        if keep.moves {
            Err(failed)
        } else {
            play_one(game, players, index, seed, table)
        }
    })
}

/// [`play_one`], keeping what `keep` says.
fn play(
    game: &Game,
    players: usize,
    index: u64,
    seed: u64,
    table: &BotTable,
    keep: Keep,
) -> Result<GameRecord, Box<SimFailure>> {
    let fail = |moves: Vec<Move>, error| failure(index, seed, moves, error);
    let started = if table.searches() {
        crate::Session::new_tracked(game, players, seed, false)
    } else {
        game.start_quiet(players, seed)
    };
    let mut session = started.map_err(|e| fail(Vec::new(), e))?;
    if !keep.moves {
        session.forget_moves();
    }
    // The score after each decision (for the shape).
    let mut trace = if keep.shape { ScoreTrace::with_room(players) } else { ScoreTrace::default() };
    // Held in place for the usual table sizes: a series makes them anew every game. Pushed
    // one by one: collected through a `Result`, each bot was moved by a library copy.
    let mut bots: smallvec::SmallVec<[SeatBot; 4]> = smallvec::SmallVec::new();
    for p in 0..players {
        bots.push(SeatBot::new(table.spec(p), game, seed, p).map_err(|e| fail(Vec::new(), PlayError::Illegal(e)))?);
    }
    while !session.is_over() {
        let Some((p, count)) = session.next_to_act() else {
            return Err(fail(
                session.history().to_vec(),
                PlayError::Rule("the game is not over but nobody has to decide".into()),
            ));
        };
        let choice = bots[p]
            .choose(&SeatObservation::counted(&session, p, count))
            .map_err(|e| fail(session.history().to_vec(), PlayError::Rule(e)))?;
        if let Err(e) = session.apply_index(p, choice) {
            let mut moves = session.history().to_vec();
            let options = session.options(p);
            moves.push(Move {
                player: p,
                option: options.get(choice).map(|o| o.id.as_str().into()).unwrap_or_default(),
                label: None,
            });
            return Err(fail(moves, e));
        }
        if let (true, Some(t)) = (keep.shape, game.rules.score) {
            trace.push(&session.state().tracks[t]);
        }
    }
    let outcome = session.outcome().cloned().unwrap_or(crate::state::Outcome { winners: vec![], scores: vec![] });
    let seats = game.rules.score.map_or(0, |t| session.state().tracks[t].len());
    let shape = trace.shape(seats, &outcome.winners);
    let tracks = game
        .rules
        .tracks
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.per_player)
        .map(|(i, t)| (t.name.clone(), session.state().tracks[i][0]))
        .collect();
    Ok(GameRecord {
        index,
        seed,
        winners: outcome.winners,
        scores: outcome.scores,
        decisions: session.answers(),
        tracks,
        moves: session.into_history(),
        shape,
    })
}

/// A failed game of a series (kept out of [`play`], which mostly runs without one).
#[cold]
#[inline(never)]
fn failure(index: u64, seed: u64, moves: Vec<Move>, error: PlayError) -> Box<SimFailure> {
    Box::new(SimFailure { index, seed, moves, error })
}

/// Plays a series of games, calling `progress` after each. Records come back in series order
/// whatever the number of jobs; the first failure in series order stops the series.
pub fn run(game: &Game, cfg: &SimConfig, progress: &(dyn Fn() + Sync)) -> Result<Vec<GameRecord>, Box<SimFailure>> {
    let mut records = Vec::with_capacity(usize::try_from(cfg.games).unwrap_or(0).min(1 << 20));
    run_each(game, cfg, progress, |r| records.push(r))?;
    Ok(records)
}

/// Games a worker plays in one chunk of [`run_each`] (a chunk's records are kept until it
/// ends; the workers wait for each other only at its end).
const CHUNK_GAMES_PER_JOB: u64 = 2048;

/// Plays a series like [`run`], handing each record to `each` in series order as soon as the
/// chunk of games it belongs to is done, instead of keeping them all: summarising a series
/// of a billion games takes no more memory than one of a few thousand. The first failure in
/// series order stops the series (no later chunk is played) and is returned.
pub fn run_each(
    game: &Game,
    cfg: &SimConfig,
    progress: &(dyn Fn() + Sync),
    each: impl FnMut(GameRecord),
) -> Result<(), Box<SimFailure>> {
    run_in_chunks(game, cfg, progress, CHUNK_GAMES_PER_JOB * cfg.jobs.max(1) as u64, each)
}

/// [`run_each`] with chunks of `chunk` games.
fn run_in_chunks(
    game: &Game,
    cfg: &SimConfig,
    progress: &(dyn Fn() + Sync),
    chunk: u64,
    mut each: impl FnMut(GameRecord),
) -> Result<(), Box<SimFailure>> {
    let one = |i: u64| {
        let keep = Keep { moves: cfg.keep_moves, shape: cfg.keep_shapes };
        let r = play_keeping(game, cfg.players, i, derive_seed(cfg.seed, i), &cfg.bots, keep);
        progress();
        r
    };
    // One pool for every chunk (none for one job, or when no thread can be started).
    let pool = (cfg.jobs > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(cfg.jobs)
                .stack_size(crate::script::SCRIPT_STACK_BYTES)
                .build()
                .ok()
        })
        .flatten();
    let end = cfg.first + cfg.games;
    let mut start = cfg.first;
    while start < end {
        let stop = start.saturating_add(chunk.max(1)).min(end);
        let results: Vec<Result<GameRecord, Box<SimFailure>>> = match &pool {
            Some(pool) => pool.install(|| (start..stop).into_par_iter().map(one).collect()),
            None => (start..stop).map(one).collect(),
        };
        for r in results {
            each(r?);
        }
        start = stop;
    }
    Ok(())
}

/// What a [`Summary`] says about a series besides its games.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Series {
    /// Game name.
    pub game: String,
    /// Variants applied.
    pub variants: Vec<String>,
    /// Seats.
    pub players: usize,
    /// Series seed.
    pub seed: u64,
    /// The bots, as `--bot` names them.
    pub bot: String,
}

/// Summarises a series from its games (in series order): the one summary of a run, whether
/// its games were played here or read back from results files.
pub fn summarize(series: &Series, records: &[GameRecord]) -> Summary {
    let mut tally = Tally::new(series.players);
    for r in records {
        tally.add(r);
    }
    tally.summary(series)
}

/// A [`Summary`] worked out one game at a time, in series order (what [`run_each`] hands
/// over): a series is summarised without keeping its records.
#[derive(Clone, Debug)]
pub struct Tally {
    players: usize,
    games: u64,
    wins: Vec<u64>,
    shared: u64,
    none: u64,
    /// Whether the games have a score for every seat (as the first game says).
    has_scores: Option<bool>,
    /// Each seat's scores added up, as floating-point numbers in series order.
    score_sums: Vec<f64>,
    length: Running,
    spread: Running,
    /// Each global track's final values, named as the first game names them.
    tracks: Vec<(String, Running)>,
}

/// The count, sum, least and greatest of a series of integers, for [`Stats`].
#[derive(Clone, Debug, Default)]
struct Running {
    count: u64,
    sum: i64,
    min: Option<i64>,
    max: Option<i64>,
}

impl Running {
    fn add(&mut self, x: i64) {
        self.count += 1;
        self.sum += x;
        self.min = Some(self.min.map_or(x, |m| m.min(x)));
        self.max = Some(self.max.map_or(x, |m| m.max(x)));
    }

    fn stats(&self) -> Stats {
        Stats {
            mean: round3(self.sum as f64 / self.count.max(1) as f64),
            min: self.min.unwrap_or(0),
            max: self.max.unwrap_or(0),
        }
    }
}

impl Tally {
    /// Nothing counted yet, for a series of `players` seats.
    pub fn new(players: usize) -> Tally {
        Tally {
            players,
            games: 0,
            wins: vec![0; players],
            shared: 0,
            none: 0,
            has_scores: None,
            score_sums: vec![0.0; players],
            length: Running::default(),
            spread: Running::default(),
            tracks: Vec::new(),
        }
    }

    /// Counts the next game of the series.
    pub fn add(&mut self, r: &GameRecord) {
        for w in &r.winners {
            self.wins[*w] += 1;
        }
        match r.winners.len() {
            0 => self.none += 1,
            1 => {}
            _ => self.shared += 1,
        }
        if self.games == 0 {
            self.tracks = r.tracks.iter().map(|(name, _)| (name.clone(), Running::default())).collect();
        }
        let has_scores = *self.has_scores.get_or_insert(r.scores.len() == self.players);
        if has_scores {
            for (sum, x) in self.score_sums.iter_mut().zip(&r.scores) {
                *sum += *x as f64;
            }
        }
        let (best, worst) = (r.scores.iter().max().copied(), r.scores.iter().min().copied());
        self.spread.add(best.unwrap_or(0) - worst.unwrap_or(0));
        self.length.add(r.decisions as i64);
        for ((_, running), (_, x)) in self.tracks.iter_mut().zip(&r.tracks) {
            running.add(*x);
        }
        self.games += 1;
    }

    /// The summary of the games counted so far.
    pub fn summary(&self, series: &Series) -> Summary {
        let games = self.games.max(1) as f64;
        let has_scores = self.has_scores == Some(true);
        Summary {
            game: series.game.clone(),
            variants: series.variants.clone(),
            players: self.players,
            games: self.games,
            seed: series.seed,
            bot: series.bot.clone(),
            win_rate_by_seat: self.wins.iter().map(|w| round3(*w as f64 / games)).collect(),
            wins_by_seat: self.wins.clone(),
            shared_wins: self.shared,
            no_winner: self.none,
            length: self.length.stats(),
            mean_score_by_seat: if has_scores {
                self.score_sums.iter().map(|sum| round3(sum / games)).collect()
            } else {
                Vec::new()
            },
            score_spread: has_scores.then(|| self.spread.stats()),
            tracks: self.tracks.iter().map(|(name, running)| (name.clone(), running.stats())).collect(),
        }
    }
}

#[cfg(test)]
mod series_tests {
    use super::*;

    fn load(folder: &str) -> Game {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(folder);
        crate::load_game(&path, &crate::LoadOptions::default()).game.expect("the game loads")
    }

    fn series(players: usize) -> Series {
        Series { game: "g".into(), variants: vec![], players, seed: 9, bot: "random".into() }
    }

    /// The summary as it was first worked out, from all the records at once (the reference
    /// the tally is checked against).
    fn summarized_at_once(series: &Series, records: &[GameRecord]) -> Summary {
        fn stats(xs: impl Iterator<Item = i64> + Clone) -> Stats {
            let n = xs.clone().count().max(1) as f64;
            let sum: i64 = xs.clone().sum();
            Stats { mean: round3(sum as f64 / n), min: xs.clone().min().unwrap_or(0), max: xs.max().unwrap_or(0) }
        }
        let n = series.players;
        let mut wins = vec![0u64; n];
        let (mut shared, mut none) = (0, 0);
        for r in records {
            for w in &r.winners {
                wins[*w] += 1;
            }
            match r.winners.len() {
                0 => none += 1,
                1 => {}
                _ => shared += 1,
            }
        }
        let games = records.len().max(1) as f64;
        let has_scores = records.first().is_some_and(|r| r.scores.len() == n);
        let spreads = records
            .iter()
            .map(|r| r.scores.iter().max().copied().unwrap_or(0) - r.scores.iter().min().copied().unwrap_or(0));
        Summary {
            game: series.game.clone(),
            variants: series.variants.clone(),
            players: n,
            games: records.len() as u64,
            seed: series.seed,
            bot: series.bot.clone(),
            win_rate_by_seat: wins.iter().map(|w| round3(*w as f64 / games)).collect(),
            wins_by_seat: wins,
            shared_wins: shared,
            no_winner: none,
            length: stats(records.iter().map(|r| r.decisions as i64)),
            mean_score_by_seat: if has_scores {
                (0..n).map(|p| round3(records.iter().map(|r| r.scores[p] as f64).sum::<f64>() / games)).collect()
            } else {
                Vec::new()
            },
            score_spread: has_scores.then(|| stats(spreads)),
            tracks: records
                .first()
                .map(|r| {
                    r.tracks
                        .iter()
                        .enumerate()
                        .map(|(i, (name, _))| (name.clone(), stats(records.iter().map(move |r| r.tracks[i].1))))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// Played in chunks of any size, with one job or two, a series hands over the records of
    /// the series played game by game, in order; counted one by one, they give the summary
    /// worked out from all of them at once (shared wins in the first game, a global track in
    /// the second).
    #[test]
    fn a_series_in_chunks_hands_over_its_games_in_order_and_tallies_as_a_whole() {
        for (folder, players, games) in [("tests/fixtures/dice-bid", 2, 120), ("tests/fixtures/while-cards", 3, 40)] {
            let game = load(folder);
            let bots = BotTable::default();
            let all: Vec<GameRecord> = (0..games)
                .map(|i| play_keeping(&game, players, i, derive_seed(9, i), &bots, Keep::OUTCOME).unwrap())
                .collect();
            for jobs in [1, 2] {
                let cfg = SimConfig::new(players, games, 9, bots.clone(), jobs);
                for chunk in [1, 7, 1000] {
                    let mut got = Vec::new();
                    run_in_chunks(&game, &cfg, &|| {}, chunk, |r| got.push(r)).unwrap();
                    assert_eq!(got, all, "{folder}, {jobs} jobs, chunks of {chunk}");
                }
                assert_eq!(run(&game, &cfg, &|| {}).unwrap(), all, "{folder}, {jobs} jobs");
            }
            let mut tally = Tally::new(players);
            all.iter().for_each(|r| tally.add(r));
            let summary = tally.summary(&series(players));
            assert_eq!(summary, summarized_at_once(&series(players), &all), "{folder}");
            assert!(summary.shared_wins > 0 || !summary.tracks.is_empty(), "{folder}: shared wins or a track");
            assert_eq!(summarize(&series(players), &all), summarized_at_once(&series(players), &all));
        }
        let empty = Tally::new(2).summary(&series(2));
        assert_eq!(empty, summarized_at_once(&series(2), &[]));
    }

    /// A series that works out no shapes (`simulate` without a results file) plays the same
    /// games: its records are those of a series with shapes, without them, and tally alike.
    #[test]
    fn a_series_without_shapes_plays_the_same_games_and_tallies_alike() {
        let game = load("tests/fixtures/dice-bid");
        let with = SimConfig::new(2, 60, 5, BotTable::default(), 2);
        let without = SimConfig { keep_shapes: false, ..with.clone() };
        let shaped = run(&game, &with, &|| {}).unwrap();
        let counted = run(&game, &without, &|| {}).unwrap();
        assert!(shaped.iter().all(|r| r.shape.is_some()), "a scored game has a shape");
        assert!(counted.iter().all(|r| r.shape.is_none()));
        let unshaped: Vec<GameRecord> = shaped.iter().map(|r| GameRecord { shape: None, ..r.clone() }).collect();
        assert_eq!(counted, unshaped);
        let tally = |records: &[GameRecord]| {
            let mut t = Tally::new(2);
            records.iter().for_each(|r| t.add(r));
            t.summary(&series(2))
        };
        assert_eq!(tally(&counted), tally(&shaped));
    }

    /// The first failing game in series order stops a series in chunks, with the games before
    /// it handed over and none after it, whatever the chunks and the jobs.
    #[test]
    fn the_first_failure_in_series_order_stops_a_series_in_chunks() {
        let game = load("tests/fixtures/failing-reveal");
        let bots = BotTable::default();
        let games = 40;
        let first_failure = |seed| {
            (0..games).find(|i| play_keeping(&game, 2, *i, derive_seed(seed, *i), &bots, Keep::OUTCOME).is_err())
        };
        // A series whose first games end well (a game fails when P1 bids high: 3 in 4 do).
        let (seed, first_failure) = (0..100)
            .find_map(|seed| first_failure(seed).filter(|i| *i >= 3).map(|i| (seed, i)))
            .expect("a series whose first failure comes after three games");
        for jobs in [1, 2] {
            let cfg = SimConfig::new(2, games, seed, bots.clone(), jobs);
            for chunk in [1, 3, 1000] {
                let mut handed = Vec::new();
                let failure = run_in_chunks(&game, &cfg, &|| {}, chunk, |r| handed.push(r.index)).unwrap_err();
                assert_eq!(failure.index, first_failure, "{jobs} jobs, chunks of {chunk}");
                assert_eq!(handed, (0..first_failure).collect::<Vec<_>>(), "{jobs} jobs, chunks of {chunk}");
            }
        }
    }
}
