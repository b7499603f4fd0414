//! How bots judge a game: the returns of a finished one (each seat's share of the win) and
//! an estimate of a game in progress (the game's `[bots] evaluate` script, else its score).

use crate::error::PlayError;
use crate::session::Session;
use crate::Game;

/// How a game in progress is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judge {
    /// The game's `[bots] evaluate` script.
    Script,
    /// The `[game] score` track (higher is better).
    Score(usize),
}

impl Judge {
    /// How `game` can be judged in progress, or why it cannot (a bot that needs it says so).
    pub fn of(game: &Game) -> Result<Judge, String> {
        let r = &game.rules;
        if r.evaluate.is_some() {
            Ok(Judge::Script)
        } else if let Some(t) = r.score {
            Ok(Judge::Score(t))
        } else {
            Err(format!(
                "{} declares no score (`[game] score`) and no evaluation (`[bots] evaluate`): the bot has \
                 nothing to judge an unfinished game by",
                r.title
            ))
        }
    }

    /// Every seat's standing now (higher is better; any scale).
    pub fn estimates(self, s: &Session<'_>) -> Result<Vec<f64>, PlayError> {
        let st = s.state();
        match self {
            Judge::Score(t) => Ok(st.tracks[t].iter().map(|v| *v as f64).collect()),
            Judge::Script => {
                (0..s.players()).map(|p| s.game().evaluate(st, p).expect("Judge::Script has a script")).collect()
            }
        }
    }
}

/// Each seat's share of the win of a finished game: 1 for a sole winner, 1/k for each of k
/// winners, 0 for the others (and for everyone when nobody won).
pub fn win_shares(s: &Session<'_>) -> Vec<f64> {
    let mut out = vec![0.0; s.players()];
    if let Some(o) = s.outcome() {
        for w in &o.winners {
            out[*w] = 1.0 / o.winners.len() as f64;
        }
    }
    out
}

/// Shares of a win as estimates give it: the best estimate wins (ties share).
pub fn shares_by_estimate(estimates: &[f64]) -> Vec<f64> {
    let best = estimates.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let k = estimates.iter().filter(|e| **e == best).count().max(1) as f64;
    estimates.iter().map(|e| if *e == best { 1.0 / k } else { 0.0 }).collect()
}

/// A seat's margin: its estimate minus the best of the others' (positive: it leads).
pub fn margin(estimates: &[f64], seat: usize) -> f64 {
    let others = estimates.iter().enumerate().filter(|(p, _)| *p != seat).map(|(_, e)| *e);
    estimates[seat] - others.fold(f64::NEG_INFINITY, f64::max).max(f64::MIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_make_shares_and_margins() {
        assert_eq!(shares_by_estimate(&[3.0, 5.0, 5.0]), [0.0, 0.5, 0.5]);
        assert_eq!(margin(&[3.0, 5.0, 4.0], 1), 1.0);
        assert_eq!(margin(&[3.0, 5.0, 4.0], 0), -2.0);
    }
}
