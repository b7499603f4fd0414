//! How a session takes back an answer that failed without copying the state before every
//! answer: a point to start from (the game's start, or a copy taken now and then: the
//! checkpoint) and the answers applied since, replayed on it. An answer is applied to the
//! session's state in place; when it fails (a script error, a limit), the state before it is
//! the starting point with the answers since applied again. Game files + state + answers
//! reproduce a state exactly (the engine is deterministic), so the replay gives the same state
//! the answers gave the first time. A session whose first state was made from something
//! shared (a search's sample, drawn from a copy of the true state: see [`Origin`]) starts
//! from that instead, and copies no state until it has kept [`MAX_ANSWERS`] answers.

use super::answer::{self, Answer};
use crate::error::PlayError;
use crate::state::State;
use crate::Game;
use std::sync::Arc;

/// How a session's game was started: starting it so again gives the same state.
#[derive(Clone)]
pub(super) struct Start {
    /// Seats.
    pub players: usize,
    /// The seed.
    pub seed: u64,
    /// Whether the session records its log.
    pub logging: bool,
    /// Whether the session follows what each seat knows.
    pub track: bool,
    /// Results the first draws take (a scenario's `draws`), the first one first.
    pub draws: Vec<i64>,
}

/// Makes a session's first state again, exactly as it was first made, from something shared
/// by many sessions (a search bot's samples are drawn from one copy of the true state): such
/// a session takes back a failed answer without a copy of its own first state.
pub(crate) trait Origin: Send + Sync {
    /// The first state of the session made with `key` (what tells apart the sessions made
    /// from this origin: a sample's seed).
    fn make_again(&self, game: &Game, key: u64) -> Result<Box<State>, PlayError>;
}

/// Where the recorded answers start from.
#[derive(Clone, Default)]
enum Base {
    /// Nowhere: the state changed other than by an answer; the next answer takes a checkpoint.
    #[default]
    Lost,
    /// The game's start (made again by starting the game anew: no copy needed).
    Start(Start),
    /// The checkpoint.
    Checkpoint,
    /// The session's first state, made again by `origin` (no copy needed).
    Made { origin: Arc<dyn Origin>, key: u64 },
}

/// Answers kept before a new checkpoint is taken: a failure replays at most this many.
const MAX_ANSWERS: usize = 32;

thread_local! {
    /// The checkpoint of the last session dropped on this thread, unshared: the next session's
    /// first checkpoint is copied into its buffers instead of allocating a state.
    static SPARE_CHECKPOINT: std::cell::Cell<Option<Arc<State>>> = const { std::cell::Cell::new(None) };
    /// The list of answers of the last session dropped on this thread, emptied: the next
    /// session records its answers in it instead of allocating one.
    static SPARE_ANSWERS: std::cell::Cell<Vec<Answer>> = const { std::cell::Cell::new(Vec::new()) };
}

/// A starting point and the answers applied since. A copy of a session shares the
/// checkpoint (it reproduces the copy's state as well as the original's), and a session
/// restored to a snapshot starts from the snapshot's state: neither copies a state for it.
#[derive(Clone, Default)]
pub(super) struct Rollback {
    /// Where the answers start from.
    base: Base,
    /// The state taken as a checkpoint (its buffers are kept, when not shared, while it is
    /// out of date).
    checkpoint: Option<Arc<State>>,
    /// The answers applied since the starting point, in order.
    answers: Vec<Answer>,
}

impl Rollback {
    /// Answers start from the game's start.
    pub(super) fn from_start(start: Start) -> Rollback {
        Rollback { base: Base::Start(start), checkpoint: None, answers: Vec::new() }
    }

    /// Answers start from the state `origin` makes with `key`.
    pub(super) fn from_origin(origin: Arc<dyn Origin>, key: u64) -> Rollback {
        Rollback { base: Base::Made { origin, key }, checkpoint: None, answers: Vec::new() }
    }

    /// The session's state changed other than by an answer: the next answer takes a new
    /// checkpoint.
    pub(super) fn forget(&mut self) {
        self.base = Base::Lost;
    }

    /// The session's state is now `state` (a snapshot's, shared): answers start from it.
    pub(super) fn start_at(&mut self, state: Arc<State>) {
        self.base = Base::Checkpoint;
        self.checkpoint = Some(state);
        self.answers.clear();
    }

    /// Called before an answer is applied to `state`: takes a new checkpoint of it when the
    /// old one is out of date or enough answers have been kept since.
    pub(super) fn prepare(&mut self, state: &State) {
        if !matches!(self.base, Base::Lost) && self.answers.len() < MAX_ANSWERS {
            return;
        }
        match self.checkpoint.as_mut().and_then(Arc::get_mut) {
            Some(c) => c.clone_from(state),
            None => {
                let mut spare = SPARE_CHECKPOINT.with(std::cell::Cell::take);
                self.checkpoint = Some(match spare.as_mut().and_then(Arc::get_mut) {
                    Some(c) => {
                        c.clone_from(state);
                        spare.expect("just copied into")
                    }
                    None => Arc::new(state.clone()),
                });
            }
        }
        self.answers.clear();
        self.base = Base::Checkpoint;
    }

    /// An answer was applied (successfully) after [`Rollback::prepare`]. Always inlined: a
    /// call cost as much as the push (LTO kept it out of line).
    #[inline(always)]
    pub(super) fn record(&mut self, answer: Answer) {
        if self.answers.capacity() == 0 {
            self.answers = spare_answers();
        }
        self.answers.push(answer);
    }

    /// The state before the answer being applied: the checkpoint with every recorded answer
    /// applied again, in `into`'s buffers.
    pub(super) fn state_before(&self, game: &Game, into: Box<State>) -> Result<Box<State>, PlayError> {
        self.replayed(game, self.answers.len(), Some(into))
    }

    /// The starting point with the first `count` answers applied again.
    fn replayed(&self, game: &Game, count: usize, into: Option<Box<State>>) -> Result<Box<State>, PlayError> {
        let mut state = match (&self.base, self.checkpoint.as_deref(), into) {
            (Base::Start(start), ..) => {
                let (mut work, _) =
                    super::started(game, start).map_err(|e| lost(&format!("the game did not start again: {e}")))?;
                work.state.trace = None;
                work.state
            }
            (Base::Made { origin, key }, ..) => {
                origin.make_again(game, *key).map_err(|e| lost(&format!("its first state was not made again: {e}")))?
            }
            (Base::Checkpoint, Some(checkpoint), Some(mut into)) => {
                (*into).clone_from(checkpoint);
                into
            }
            (Base::Checkpoint, Some(checkpoint), None) => Box::new(checkpoint.clone()),
            _ => return Err(lost("no point to start from")),
        };
        let mut stand_in = None;
        for (i, a) in self.answers[..count].iter().enumerate() {
            let fresh = &mut || self.replayed(game, i, None);
            answer::apply(game, &mut state, &mut stand_in, *a, fresh, &mut answer::Answered::default())
                .map_err(|e| lost(&format!("answer {} of {count} failed when applied again: {e}", i + 1)))?;
        }
        Ok(state)
    }
}

/// An empty list with room for [`MAX_ANSWERS`] answers: the one the last session dropped on
/// this thread left, or a new one (kept out of [`Rollback::record`], which mostly has one).
#[cold]
#[inline(never)]
fn spare_answers() -> Vec<Answer> {
    let mut answers = SPARE_ANSWERS.with(std::cell::Cell::take);
    answers.reserve_exact(MAX_ANSWERS);
    answers
}

impl Drop for Rollback {
    /// An unshared checkpoint and the list of answers are kept for the next session on this
    /// thread.
    fn drop(&mut self) {
        if let Some(c) = self.checkpoint.take().filter(|c| Arc::strong_count(c) == 1) {
            SPARE_CHECKPOINT.with(|s| s.set(Some(c)));
        }
        if self.answers.capacity() > 0 {
            let mut answers = std::mem::take(&mut self.answers);
            answers.clear();
            let _ = SPARE_ANSWERS.try_with(|s| s.set(answers));
        }
    }
}

/// The error when the state before an answer cannot be made again: a bug of the engine.
fn lost(why: &str) -> PlayError {
    PlayError::Rule(format!(
        "the state before this decision could not be restored ({why}); this is a bug in the engine, please report it with the game's seed and moves"
    ))
}
