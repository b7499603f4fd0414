//! `--bot` specs: which bot sits at which seat, with its options.
//!
//! A spec is `NAME` or `NAME:KEY=VALUE,KEY=VALUE` (`mcts:iterations=2000`), optionally
//! preceded by a seat (`P2=mcts`, 1-based): the bot for that seat; a spec without a seat is
//! the bot for every other seat (default `random`). `--bot-option KEY=VALUE` gives an option
//! to every bot that takes it; an option written in a spec wins over it.

use super::{bot_names, BotKind, BOTS};
use std::fmt;

/// One bot and its options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotSpec {
    /// Bot name.
    pub name: String,
    /// Options, in the order given (a later one wins).
    pub options: Vec<(String, String)>,
}

impl BotSpec {
    /// Parses `NAME[:KEY=VALUE,...]`, checking the name and the options' keys.
    pub fn parse(text: &str) -> Result<BotSpec, String> {
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let kind = kind(name.trim())?;
        let mut options = Vec::new();
        for pair in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) =
                pair.split_once('=').ok_or_else(|| format!("bot option `{pair}` must be KEY=VALUE (in `{text}`)"))?;
            check_key(kind, k.trim())?;
            options.push((k.trim().to_string(), v.trim().to_string()));
        }
        Ok(BotSpec { name: kind.name.to_string(), options })
    }

    /// The value of an option, if given.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// An option parsed as a number, with a default; the error names the bot and the key.
    pub fn number<T: std::str::FromStr>(&self, key: &str, default: T) -> Result<T, String> {
        match self.option(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("bot `{}`: option `{key}={v}` must be a number", self.name)),
        }
    }

    /// Whether this bot samples what its seat cannot see.
    pub fn searches(&self) -> bool {
        BOTS.iter().any(|b| b.name == self.name && b.searches)
    }
}

impl fmt::Display for BotSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        for (i, (k, v)) in self.options.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

fn kind(name: &str) -> Result<&'static BotKind, String> {
    BOTS.iter().find(|b| b.name == name).ok_or_else(|| format!("unknown bot `{name}`; available: {}", bot_names()))
}

fn check_key(kind: &BotKind, key: &str) -> Result<(), String> {
    if kind.options.iter().any(|(k, _)| *k == key) {
        return Ok(());
    }
    let known: Vec<&str> = kind.options.iter().map(|(k, _)| *k).collect();
    Err(if known.is_empty() {
        format!("bot `{}` takes no options (`{key}` given)", kind.name)
    } else {
        format!("bot `{}` has no option `{key}`; its options: {}", kind.name, known.join(", "))
    })
}

/// The bots of a table: one for every seat, with per-seat exceptions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotTable {
    /// The bot of every seat not named.
    pub default: BotSpec,
    /// Seat (0-based) -> its bot.
    pub seats: Vec<(usize, BotSpec)>,
}

impl Default for BotTable {
    fn default() -> Self {
        BotTable { default: BotSpec { name: "random".into(), options: Vec::new() }, seats: Vec::new() }
    }
}

impl BotTable {
    /// Parses `--bot` entries (`[SEAT=]SPEC`) and `--bot-option KEY=VALUE`s.
    pub fn parse(entries: &[String], options: &[String]) -> Result<BotTable, String> {
        let mut table = BotTable::default();
        let mut default_given = false;
        for e in entries {
            match e.split_once('=').filter(|(seat, _)| !seat.contains(':')) {
                Some((seat, spec)) => {
                    let s = parse_seat(seat.trim())?;
                    if table.seats.iter().any(|(x, _)| *x == s) {
                        return Err(format!("seat P{} is given two bots", s + 1));
                    }
                    table.seats.push((s, BotSpec::parse(spec.trim())?));
                }
                None if default_given => {
                    return Err(format!(
                        "two bots for every seat (`{}` and `{e}`): name the seat of all but one, e.g. `--bot P1={e}`",
                        table.default
                    ))
                }
                None => {
                    table.default = BotSpec::parse(e.trim())?;
                    default_given = true;
                }
            }
        }
        table.seats.sort_by_key(|(s, _)| *s);
        for o in options {
            let (k, v) = o.split_once('=').ok_or_else(|| format!("--bot-option `{o}` must be KEY=VALUE"))?;
            let (k, v) = (k.trim(), v.trim());
            let mut taken = false;
            for spec in std::iter::once(&mut table.default).chain(table.seats.iter_mut().map(|(_, s)| s)) {
                let kind = kind(&spec.name)?;
                if kind.options.iter().any(|(key, _)| *key == k) {
                    taken = true;
                    // Options written in the spec win: the table's option goes first.
                    spec.options.insert(0, (k.to_string(), v.to_string()));
                }
            }
            if !taken {
                return Err(format!("--bot-option `{k}`: no bot at this table takes it (bots: {table})"));
            }
        }
        Ok(table)
    }

    /// The bot of a seat.
    pub fn spec(&self, seat: usize) -> &BotSpec {
        self.seats.iter().find(|(s, _)| *s == seat).map(|(_, b)| b).unwrap_or(&self.default)
    }

    /// Whether any seat's bot samples hidden information (the session must follow what
    /// seats know).
    pub fn searches(&self) -> bool {
        self.default.searches() || self.seats.iter().any(|(_, b)| b.searches())
    }

    /// Checks the seats exist for `players`.
    pub fn check_seats(&self, players: usize) -> Result<(), String> {
        match self.seats.iter().find(|(s, _)| *s >= players) {
            Some((s, _)) => Err(format!("--bot names seat P{}, but the game has {players} seats", s + 1)),
            None => Ok(()),
        }
    }

    /// Checks the table fits `game` with `players` seats: the seats exist and every seat's
    /// bot can be made (its options are valid, the game has what it needs).
    pub fn check(&self, game: &crate::Game, players: usize) -> Result<(), String> {
        self.check_seats(players)?;
        (0..players).try_for_each(|p| super::make_bot(self.spec(p), game, 0, p).map(|_| ()))
    }
}

/// `P2`, `p2` or `2` -> seat 1.
fn parse_seat(text: &str) -> Result<usize, String> {
    let digits = text.strip_prefix(['P', 'p']).unwrap_or(text);
    match digits.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n - 1),
        _ => Err(format!("`{text}` is not a seat: write P1, P2, ... (or 1, 2, ...)")),
    }
}

impl fmt::Display for BotTable {
    /// `random`, or `P1=mcts:iterations=200 random` (the seats named, then the rest's bot).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (s, b) in &self.seats {
            write!(f, "P{}={b} ", s + 1)?;
        }
        write!(f, "{}", self.default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(entries: &[&str], options: &[&str]) -> Result<BotTable, String> {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        BotTable::parse(&s(entries), &s(options))
    }

    #[test]
    fn seats_get_their_bots_and_the_rest_the_default() {
        let t = table(&["P2=mcts:iterations=50", "greedy"], &[]).unwrap();
        assert_eq!(t.spec(0).name, "greedy");
        assert_eq!(t.spec(1).to_string(), "mcts:iterations=50");
        assert_eq!(t.to_string(), "P2=mcts:iterations=50 greedy");
        assert!(t.searches());
        assert_eq!(table(&[], &[]).unwrap().to_string(), "random");
        assert!(t.check_seats(1).unwrap_err().contains("P2"));
    }

    #[test]
    fn bot_options_reach_the_bots_that_take_them_and_the_spec_wins() {
        let t = table(&["P1=mcts:iterations=7", "mcts"], &["iterations=40"]).unwrap();
        assert_eq!(t.spec(0).number("iterations", 0u64).unwrap(), 7);
        assert_eq!(t.spec(1).number("iterations", 0u64).unwrap(), 40);
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        assert!(table(&["alphazero"], &[]).unwrap_err().contains("unknown bot `alphazero`; available: random"));
        assert!(table(&["mcts:iters=5"], &[]).unwrap_err().contains("no option `iters`; its options: iterations"));
        assert!(table(&["random:x=1"], &[]).unwrap_err().contains("takes no options"));
        assert!(table(&["random"], &["iterations=5"]).unwrap_err().contains("no bot at this table takes it"));
        assert!(table(&["random", "mcts"], &[]).unwrap_err().contains("two bots for every seat"));
        assert!(table(&["X=mcts"], &[]).unwrap_err().contains("is not a seat"));
        assert!(table(&["P1=mcts", "P1=random"], &[]).unwrap_err().contains("two bots"));
        assert!(table(&["mcts:iterations"], &[]).unwrap_err().contains("KEY=VALUE"));
    }
}
