//! Bots: automatic players that see only what their seat sees ([`Observation`]) and pick one
//! of the legal options. Search bots ([`mcts`], [`greedy`]) look ahead in samples of what
//! they cannot see ([`crate::determinize`]), never in the true state.

pub mod eval;
pub mod greedy;
pub mod mcts;
pub mod spec;

pub use spec::{BotSpec, BotTable};

use crate::determinize::Sampler;
use crate::error::PlayError;
use crate::rng::{derive_seed, GameRng};
use crate::session::{OptionInfo, Session};
use crate::view::View;
use crate::Game;

/// What a bot may look at: its seat's view and its legal options, and samples of complete
/// games consistent with them. Nothing else.
pub trait Observation {
    /// The seat deciding.
    fn player(&self) -> usize;
    /// Number of legal options.
    fn option_count(&self) -> usize;
    /// The legal options.
    fn options(&self) -> Vec<OptionInfo>;
    /// The seat's view of the game.
    fn view(&self) -> View;
    /// The game's rules (public: they are the game files).
    fn game(&self) -> &Game;
    /// A complete game consistent with everything the seat knows, drawn from `seed`
    /// (see [`crate::determinize`]): the ground search bots play their simulations on.
    fn sample(&self, seed: u64) -> Result<Session<'_>, PlayError>;
}

/// A seat's observation of a session.
pub struct SeatObservation<'a, 'g> {
    session: &'a Session<'g>,
    player: usize,
    /// How many options the seat has now.
    option_count: usize,
    /// Draws the samples, made at the first one (the samples of a decision share its copy
    /// of the state).
    sampler: std::cell::OnceCell<Sampler<'g>>,
}

impl<'a, 'g> SeatObservation<'a, 'g> {
    /// The observation of `player` in `session`.
    pub fn new(session: &'a Session<'g>, player: usize) -> Self {
        SeatObservation::counted(session, player, session.option_count(player))
    }

    /// The observation of `player` in `session`, who has `option_count` options now (as
    /// [`Session::next_to_act`] gives them, without looking the seat up again).
    pub fn counted(session: &'a Session<'g>, player: usize, option_count: usize) -> Self {
        SeatObservation { session, player, option_count, sampler: std::cell::OnceCell::new() }
    }
}

impl Observation for SeatObservation<'_, '_> {
    fn player(&self) -> usize {
        self.player
    }
    fn option_count(&self) -> usize {
        self.option_count
    }
    fn options(&self) -> Vec<OptionInfo> {
        self.session.options(self.player)
    }
    fn view(&self) -> View {
        self.session.view(self.player)
    }
    fn game(&self) -> &Game {
        self.session.game()
    }
    fn sample(&self, seed: u64) -> Result<Session<'_>, PlayError> {
        let sampler = match self.sampler.get() {
            Some(sampler) => sampler,
            None => {
                let sampler = Sampler::new(self.session, self.player)?;
                self.sampler.get_or_init(|| sampler)
            }
        };
        sampler.sample(seed)
    }
}

/// An automatic player.
pub trait Bot: Send {
    /// Picks an option index in `0..obs.option_count()`, or says why it cannot (a script of
    /// the game failed in every simulation it tried).
    fn choose(&mut self, obs: &dyn Observation) -> Result<usize, String>;
}

/// Picks uniformly at random, from its own generator (seeded per game and seat, so a
/// simulation is reproducible and bots never touch the game's generator).
pub struct RandomBot(GameRng);

impl RandomBot {
    /// Picks one of `count` options (any seat's choice among `count` is the same draw).
    #[inline]
    fn pick(&mut self, count: usize) -> usize {
        self.0.below(count.max(1) as u64) as usize
    }
}

impl Bot for RandomBot {
    fn choose(&mut self, obs: &dyn Observation) -> Result<usize, String> {
        Ok(self.pick(obs.option_count()))
    }
}

/// Always picks the first legal option: a deterministic baseline.
pub struct FirstBot;

impl Bot for FirstBot {
    fn choose(&mut self, _obs: &dyn Observation) -> Result<usize, String> {
        Ok(0)
    }
}

/// A seat's bot as the spec names it: the built-in bots that keep no more than a generator
/// are held in place, without a box or a dynamic call (a series of simulated games makes two
/// bots a game, and most of them are random); the others are boxed. [`make_bot`] boxes it.
pub(crate) enum SeatBot {
    /// The `random` bot.
    Random(RandomBot),
    /// The `first` bot.
    First(FirstBot),
    /// Any other bot.
    Boxed(Box<dyn Bot>),
}

impl SeatBot {
    /// The bot `spec` names for a seat of `game` started with `seed`. Bots are seeded from
    /// the game seed and their seat, so a game is reproducible.
    pub(crate) fn new(spec: &BotSpec, game: &Game, seed: u64, seat: usize) -> Result<SeatBot, String> {
        let rng = GameRng::new(derive_seed(seed ^ 0xB07_B07, seat as u64));
        Ok(match spec.name.as_str() {
            "random" => SeatBot::Random(RandomBot(rng)),
            "first" => SeatBot::First(FirstBot),
            _ => SeatBot::Boxed(boxed_bot(spec, game, rng)?),
        })
    }

    /// The bot in a box of its own.
    fn into_boxed(self) -> Box<dyn Bot> {
        match self {
            SeatBot::Random(bot) => Box::new(bot),
            SeatBot::First(bot) => Box::new(bot),
            SeatBot::Boxed(bot) => bot,
        }
    }

    /// [`Bot::choose`] for the seat `obs` observes.
    #[inline]
    pub(crate) fn choose(&mut self, obs: &SeatObservation) -> Result<usize, String> {
        match self {
            SeatBot::Random(bot) => Ok(bot.pick(obs.option_count())),
            SeatBot::First(bot) => bot.choose(obs),
            SeatBot::Boxed(bot) => bot.choose(obs),
        }
    }
}

/// A kind of bot `--bot` accepts, with its options.
pub struct BotKind {
    /// Name (`--bot NAME`).
    pub name: &'static str,
    /// What it does.
    pub about: &'static str,
    /// Options it takes: (key, what it means and its default).
    pub options: &'static [(&'static str, &'static str)],
    /// Whether it samples what its seat cannot see (the game must follow what seats know).
    pub searches: bool,
}

/// Every bot `--bot` accepts.
pub const BOTS: &[BotKind] = &[
    BotKind { name: "random", about: "picks a legal option at random", options: &[], searches: false },
    BotKind { name: "first", about: "always picks the first legal option", options: &[], searches: false },
    BotKind {
        name: "greedy",
        about: "tries each option in samples of what it cannot see and takes the one that leaves it best placed \
                (by the game's [bots] evaluate, else its score) when its turn comes again",
        options: &[("samples", "samples of the hidden information per option (default 4)")],
        searches: true,
    },
    BotKind {
        name: "mcts",
        about: "information-set Monte Carlo tree search over samples of what it cannot see (simultaneous \
                commits searched without seeing the others')",
        options: mcts::OPTIONS,
        searches: true,
    },
];

/// The names of the bots, for messages.
pub fn bot_names() -> String {
    BOTS.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
}

/// The bots [`SeatBot::new`] boxes, made with their generator `rng` (kept out of it: a series
/// makes its bots every game, mostly random ones).
#[inline(never)]
fn boxed_bot(spec: &BotSpec, game: &Game, rng: GameRng) -> Result<Box<dyn Bot>, String> {
    match spec.name.as_str() {
        "greedy" => Ok(Box::new(greedy::GreedyBot::new(spec, game, rng)?)),
        "mcts" => Ok(Box::new(mcts::MctsBot::new(spec, game, rng)?)),
        other => Err(format!("unknown bot `{other}`; available: {}", bot_names())),
    }
}

/// Makes the bot `spec` names for a seat of `game` started with `seed`. Bots are seeded
/// from the game seed and their seat, so a game is reproducible.
pub fn make_bot(spec: &BotSpec, game: &Game, seed: u64, seat: usize) -> Result<Box<dyn Bot>, String> {
    SeatBot::new(spec, game, seed, seat).map(SeatBot::into_boxed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{load_game, LoadOptions};

    /// A bot held in place chooses, game after game, as the same bot in the box `make_bot`
    /// gives (one through `SeatBot::choose`, one through `Bot::choose`); a search bot stays
    /// boxed, and an unknown name is an error.
    #[test]
    fn a_seat_bot_chooses_as_the_boxed_bot_for_the_same_spec_seed_and_seat() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/dice-bid");
        let game = load_game(&folder, &LoadOptions::default()).game.expect("the fixture loads");
        for name in ["random", "first"] {
            let spec = BotSpec { name: name.into(), options: Vec::new() };
            for seed in 0..5 {
                let mut session = game.start_quiet(2, seed).expect("starts");
                let mut boxed: Vec<_> = (0..2).map(|p| make_bot(&spec, &game, seed, p).expect("made")).collect();
                let mut held: Vec<_> = (0..2).map(|p| SeatBot::new(&spec, &game, seed, p).expect("made")).collect();
                assert!(held.iter().all(|b| !matches!(b, SeatBot::Boxed(_))), "{name} is held in place");
                while let Some(p) = session.first_to_act() {
                    let obs = SeatObservation::new(&session, p);
                    let choice = boxed[p].choose(&obs).expect("chooses");
                    assert_eq!(held[p].choose(&obs).expect("chooses"), choice, "{name}, seed {seed}, seat {p}");
                    session.apply_index(p, choice).expect("legal");
                }
            }
        }
        let mcts = BotSpec { name: "mcts".into(), options: Vec::new() };
        assert!(matches!(SeatBot::new(&mcts, &game, 1, 0), Ok(SeatBot::Boxed(_))));
        let unknown = BotSpec { name: "oracle".into(), options: Vec::new() };
        assert!(SeatBot::new(&unknown, &game, 1, 0).is_err_and(|e| e.contains("unknown bot `oracle`")));
    }
}
