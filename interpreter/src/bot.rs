//! Bots: automatic players that see only what their seat sees ([`Observation`]) and pick one
//! of the legal options.

use crate::rng::{derive_seed, GameRng};
use crate::session::{OptionInfo, Session};
use crate::view::View;

/// What a bot may look at: its seat's view and its legal options, nothing else.
pub trait Observation {
    /// The seat deciding.
    fn player(&self) -> usize;
    /// Number of legal options.
    fn option_count(&self) -> usize;
    /// The legal options.
    fn options(&self) -> Vec<OptionInfo>;
    /// The seat's view of the game.
    fn view(&self) -> View;
}

/// A seat's observation of a session.
pub struct SeatObservation<'a, 'g> {
    session: &'a Session<'g>,
    player: usize,
}

impl<'a, 'g> SeatObservation<'a, 'g> {
    /// The observation of `player` in `session`.
    pub fn new(session: &'a Session<'g>, player: usize) -> Self {
        SeatObservation { session, player }
    }
}

impl Observation for SeatObservation<'_, '_> {
    fn player(&self) -> usize {
        self.player
    }
    fn option_count(&self) -> usize {
        self.session.option_count(self.player)
    }
    fn options(&self) -> Vec<OptionInfo> {
        self.session.options(self.player)
    }
    fn view(&self) -> View {
        self.session.view(self.player)
    }
}

/// An automatic player.
pub trait Bot: Send {
    /// Picks an option index in `0..obs.option_count()`.
    fn choose(&mut self, obs: &dyn Observation) -> usize;
}

/// Picks uniformly at random, from its own generator (seeded per game and seat, so a
/// simulation is reproducible and bots never touch the game's generator).
pub struct RandomBot(GameRng);

impl Bot for RandomBot {
    fn choose(&mut self, obs: &dyn Observation) -> usize {
        self.0.below(obs.option_count().max(1) as u64) as usize
    }
}

/// Always picks the first legal option: a deterministic baseline.
pub struct FirstBot;

impl Bot for FirstBot {
    fn choose(&mut self, _obs: &dyn Observation) -> usize {
        0
    }
}

/// The bots `--bot` accepts.
pub const BOT_NAMES: &[&str] = &["random", "first"];

/// Makes a bot by name for a seat of a game started with `seed`.
pub fn make_bot(name: &str, seed: u64, seat: usize) -> Result<Box<dyn Bot>, String> {
    match name {
        "random" => Ok(Box::new(RandomBot(GameRng::new(derive_seed(seed ^ 0xB07_B07, seat as u64))))),
        "first" => Ok(Box::new(FirstBot)),
        other => Err(format!("unknown bot `{other}`; available: {}", BOT_NAMES.join(", "))),
    }
}
