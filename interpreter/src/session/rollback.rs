//! How a session takes back an answer that failed without copying the state before every
//! answer: a copy taken now and then (the checkpoint) and the answers applied since, replayed
//! on it. An answer is applied to the session's state in place; when it fails (a script
//! error, a limit), the state before it is the checkpoint with the answers since applied
//! again. Game files + state + answers reproduce a state exactly (the engine is
//! deterministic), so the replay gives the same state the answers gave the first time.

use super::answer::{self, Answer};
use crate::error::PlayError;
use crate::state::State;
use crate::Game;

/// Answers kept before a new checkpoint is taken: a failure replays at most this many.
const MAX_ANSWERS: usize = 32;

/// A checkpoint and the answers applied since. Copies of a session do not copy it: a copy
/// takes its own checkpoint at its first answer.
#[derive(Default)]
pub(super) struct Rollback {
    /// The state when the answers began (its buffers are kept while it is out of date).
    checkpoint: Option<Box<State>>,
    /// Whether the checkpoint and the answers give the session's state.
    current: bool,
    /// The answers applied since the checkpoint, in order.
    answers: Vec<Answer>,
}

impl Clone for Rollback {
    fn clone(&self) -> Self {
        Rollback::default()
    }
}

impl Rollback {
    /// The session's state changed other than by an answer: the next answer takes a new
    /// checkpoint.
    pub(super) fn forget(&mut self) {
        self.current = false;
    }

    /// Called before an answer is applied to `state`: takes a new checkpoint of it when the
    /// old one is out of date or enough answers have been kept since.
    pub(super) fn prepare(&mut self, state: &State) {
        if self.current && self.answers.len() < MAX_ANSWERS {
            return;
        }
        match &mut self.checkpoint {
            Some(c) => (**c).clone_from(state),
            None => self.checkpoint = Some(Box::new(state.clone())),
        }
        self.answers.clear();
        self.current = true;
    }

    /// An answer was applied (successfully) after [`Rollback::prepare`].
    pub(super) fn record(&mut self, answer: Answer) {
        self.answers.push(answer);
    }

    /// The state before the answer being applied: the checkpoint with every recorded answer
    /// applied again, in `into`'s buffers.
    pub(super) fn state_before(&self, game: &Game, into: Box<State>) -> Result<Box<State>, PlayError> {
        self.replayed(game, self.answers.len(), Some(into))
    }

    /// The checkpoint with the first `count` answers applied again.
    fn replayed(&self, game: &Game, count: usize, into: Option<Box<State>>) -> Result<Box<State>, PlayError> {
        let checkpoint = self.checkpoint.as_deref().filter(|_| self.current).ok_or_else(|| lost("no checkpoint"))?;
        let mut state = match into {
            Some(mut s) => {
                (*s).clone_from(checkpoint);
                s
            }
            None => Box::new(checkpoint.clone()),
        };
        for (i, a) in self.answers[..count].iter().enumerate() {
            let (after, result) = answer::apply(game, state, *a, &mut || self.replayed(game, i, None));
            result.map_err(|e| lost(&format!("answer {} of {count} failed when applied again: {e}", i + 1)))?;
            state = after;
        }
        Ok(state)
    }
}

/// The error when the state before an answer cannot be made again: a bug of the engine.
fn lost(why: &str) -> PlayError {
    PlayError::Rule(format!(
        "the state before this decision could not be restored ({why}); this is a bug in the engine, please report it with the game's seed and moves"
    ))
}
