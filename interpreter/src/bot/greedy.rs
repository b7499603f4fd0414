//! The `greedy` bot: one step of lookahead. Each option is tried in a few samples of what
//! the seat cannot see; the others play at random until the seat's turn comes again (or the
//! game ends), and the option that leaves the seat best placed on average is taken.

use super::eval::{margin, win_shares, Judge};
use super::{Bot, BotSpec, Observation};
use crate::error::PlayError;
use crate::rng::GameRng;
use crate::session::Session;
use crate::Game;

/// Most decisions the others take before the seat is judged (a game that never returns to
/// the seat is judged there).
const MAX_REPLIES: usize = 500;

/// One-step lookahead on the game's evaluation or score.
pub struct GreedyBot {
    rng: GameRng,
    samples: u32,
    judge: Judge,
}

impl GreedyBot {
    /// A greedy bot for `game` with the options of `spec`.
    pub fn new(spec: &BotSpec, game: &Game, rng: GameRng) -> Result<GreedyBot, String> {
        let samples: u32 = spec.number("samples", 4)?;
        if samples == 0 {
            return Err("bot `greedy`: `samples` must be at least 1".into());
        }
        Ok(GreedyBot { rng, samples, judge: Judge::of(game).map_err(|e| format!("bot `greedy`: {e}"))? })
    }
}

/// How well `seat` stands in `s`: a finished game by its share of the win (far above any
/// estimate), a game in progress by its margin over the best other seat.
pub(crate) fn standing(judge: Judge, s: &Session<'_>, seat: usize) -> Result<f64, PlayError> {
    let estimate = margin(&judge.estimates(s)?, seat);
    if s.is_over() {
        return Ok(1e9 * (win_shares(s)[seat] - 0.5) + estimate);
    }
    Ok(estimate)
}

impl Bot for GreedyBot {
    fn choose(&mut self, obs: &dyn Observation) -> Result<usize, String> {
        let n = obs.option_count();
        if n <= 1 {
            return Ok(0);
        }
        let seat = obs.player();
        let mut totals = vec![0.0; n];
        let mut judged = 0;
        let mut first_error = None;
        for _ in 0..self.samples {
            let seed = self.rng.below(u64::MAX);
            let result = obs.sample(seed).and_then(|mut base| {
                // Nobody reads the moves of a lookahead (its copies inherit this).
                base.forget_moves();
                let mut values = Vec::with_capacity(n);
                // Each option is tried in a copy of the sample, made in the last one's buffers.
                let mut s = base.clone();
                for i in 0..n {
                    if i > 0 {
                        s.clone_from(&base);
                    }
                    s.apply_index(seat, i)?;
                    play_until_turn(&mut s, seat, &mut self.rng)?;
                    values.push(standing(self.judge, &s, seat)?);
                }
                Ok(values)
            });
            match result {
                Ok(values) => {
                    judged += 1;
                    totals.iter_mut().zip(values).for_each(|(t, v)| *t += v);
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        if judged == 0 {
            return Err(format!("bot `greedy`: every lookahead failed: {}", first_error.expect("one failed")));
        }
        let best = totals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let ties: Vec<usize> = (0..n).filter(|i| totals[*i] == best).collect();
        Ok(ties[self.rng.below(ties.len() as u64) as usize])
    }
}

/// The others answer at random until `seat` must decide again or the game ends.
fn play_until_turn(s: &mut Session<'_>, seat: usize, rng: &mut GameRng) -> Result<(), PlayError> {
    for _ in 0..MAX_REPLIES {
        let Some(p) = s.first_to_act() else { return Ok(()) };
        if s.to_act().contains(&seat) {
            return Ok(());
        }
        let n = s.option_count(p) as u64;
        s.apply_index(p, rng.below(n) as usize)?;
    }
    Ok(())
}
