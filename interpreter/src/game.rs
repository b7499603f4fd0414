//! [`Game`]: a loaded game (its rules, its compiled scripts, its source files), the entry
//! point for starting sessions.

use crate::diag::SourceMap;
use crate::error::PlayError;
use crate::rules::Rules;
use crate::script::Scripts;
use crate::session::Session;
use std::sync::Arc;

/// A loaded, checked game. Immutable; any number of sessions (also in parallel threads) can
/// be played from one `Game`.
pub struct Game {
    /// The checked rules.
    pub rules: Arc<Rules>,
    /// The compiled scripts.
    pub scripts: Scripts,
    /// Every file read while loading.
    pub sources: SourceMap,
}

impl Game {
    /// Wraps loaded parts into a game.
    pub fn new(rules: Arc<Rules>, scripts: Scripts, sources: SourceMap) -> Game {
        Game {
            rules,
            scripts,
            sources,
        }
    }

    /// Starts a game for `players` seats with a seed, running setup up to the first decision.
    pub fn start(&self, players: usize, seed: u64) -> Result<Session<'_>, PlayError> {
        Session::new(self, players, seed, true)
    }

    /// Like [`Game::start`] but without recording the event log (faster, for simulation).
    pub fn start_quiet(&self, players: usize, seed: u64) -> Result<Session<'_>, PlayError> {
        Session::new(self, players, seed, false)
    }
}
