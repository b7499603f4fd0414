//! [`PlayError`]: why a game could not start or a decision could not be applied.

use crate::script::ScriptError;
use std::fmt;

/// Why starting a game or applying a decision failed. The state is unchanged in every case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayError {
    /// The player count is outside what the game supports.
    Players(String),
    /// The decision is not legal now (wrong player, unknown option, nothing pending).
    Illegal(String),
    /// A script failed (boxed: every result of the flow carries this type, and its other
    /// variants are small).
    Script(Box<ScriptError>),
    /// The rules put the game in an impossible position (e.g. a decision with no options).
    Rule(String),
    /// The game ran more steps than its limit allows without asking for a decision.
    StepLimit(u64),
    /// The game took more decisions than its limit allows without ending.
    DecisionLimit(u64),
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::Players(m) | PlayError::Illegal(m) => write!(f, "{m}"),
            PlayError::Rule(m) => write!(f, "rule error: {m}"),
            PlayError::Script(e) => write!(f, "{e}"),
            PlayError::DecisionLimit(n) => write!(
                f,
                "the game took {n} decisions without ending; can its end condition ever be met? (raise `[flow] max_decisions` if the game really is this long)"
            ),
            PlayError::StepLimit(n) => write!(
                f,
                "the game ran {n} steps without asking for a decision; a phase probably repeats forever (raise `[flow] max_steps` if a stretch of the game really is this long)"
            ),
        }
    }
}

impl std::error::Error for PlayError {}
