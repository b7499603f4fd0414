//! The leak check, an authoring aid `rulebook validate` runs during its smoke playouts: it
//! plays a seeded random game with a log and, at every decision, looks for two kinds of
//! author mistakes that let one seat learn what it must not:
//!
//! 1. **Commits that show.** While a simultaneous hidden commit is open, whatever a seat
//!    commits must leave every other seat's view and log unchanged: each alternative choice
//!    is applied to a copy of the game and the other seats' views and logs are compared.
//! 2. **Hidden components named.** A component a seat cannot see where it lies (before and
//!    after the decision) must not be named — by id, or by a label no other component has —
//!    in the values of that seat's view (its variables and tracks) that the decision changed or
//!    in the lines scripts added to that seat's log. What the seat was told is not a leak: the
//!    options it was offered, the lines the engine wrote for it (a choice announced, commits
//!    revealed), and every component it has seen in a zone earlier: a seat is taken to
//!    remember, so a script may repeat what a reveal showed. (A leak about a component the
//!    seat saw once, such as where it went after a shuffle, is therefore not found.)
//!
//! Neither check reads more than views and redacted logs, which is what a seat receives.

use crate::bot::{make_bot, SeatObservation};
use crate::log::EventKind;
use crate::rng::derive_seed;
use crate::session::Session;
use crate::view::View;
use crate::{Game, PlayError};
use std::collections::{HashMap, HashSet};

/// How many alternative choices of a hidden commit are tried per decision.
const ALTERNATIVES: usize = 6;

/// A leak found, with what reproduces it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leak {
    /// Decisions taken before the leak.
    pub decisions: usize,
    /// What leaked to whom.
    pub message: String,
}

/// Plays one game of `players` seats from `seed` with random bots and reports the first
/// leak. A game that fails is the smoke playout's business: its error is returned as is.
pub fn check_game(game: &Game, players: usize, seed: u64) -> Result<Option<Leak>, PlayError> {
    let mut session = game.start(players, seed)?;
    let mut bots =
        (0..players).map(|p| make_bot("random", seed, p)).collect::<Result<Vec<_>, _>>().map_err(PlayError::Illegal)?;
    // What setup wrote is checked as if a decision had written it: nothing was shown before.
    let mut known: Vec<HashSet<String>> = vec![HashSet::new(); players];
    let mut seen: Vec<Observation> = (0..players).map(|q| Observation::of(&session, q)).collect::<Result<_, _>>()?;
    let labels = label_counts(&session);
    for q in 0..players {
        let told = Told { hidden: seen[q].hidden.clone(), shown: HashSet::new(), offered: offered(&session, q) };
        if let Some(message) = names_hidden(&session, q, &told, &seen[q], &labels, &mut known[q], 0) {
            return Ok(Some(Leak { decisions: 0, message }));
        }
    }
    let mut seen_log = session.log().len();
    while !session.is_over() {
        let Some(&p) = session.to_act().first() else { break };
        if session.is_commit() {
            if let Some(message) = commit_shows(&session, p) {
                return Ok(Some(Leak { decisions: session.history().len(), message }));
            }
        }
        // What each seat saw after the last decision is what it knew before this one.
        let told: Vec<Told> = std::mem::take(&mut seen)
            .into_iter()
            .enumerate()
            .map(|(q, o)| Told { hidden: o.hidden, shown: o.values, offered: offered(&session, q) })
            .collect();
        let choice = bots[p].choose(&SeatObservation::new(&session, p));
        session.apply_index(p, choice)?;
        seen = (0..players).map(|q| Observation::of(&session, q)).collect::<Result<_, _>>()?;
        let labels = label_counts(&session);
        for (q, t) in told.iter().enumerate() {
            if let Some(message) = names_hidden(&session, q, t, &seen[q], &labels, &mut known[q], seen_log) {
                return Ok(Some(Leak { decisions: session.history().len(), message }));
            }
        }
        seen_log = session.log().len();
    }
    Ok(None)
}

/// What a seat knew before a decision: the components hidden from it, the values its view
/// showed, and the options it was offered (their ids and labels).
struct Told {
    hidden: HashSet<String>,
    shown: HashSet<String>,
    offered: Vec<String>,
}

/// What one seat's view shows at one moment, read from a single view: the ids of the
/// components in zones it cannot see, and its vars, tracks and grid pieces as `name = value`
/// texts.
struct Observation {
    hidden: HashSet<String>,
    values: HashSet<String>,
}

impl Observation {
    fn of(session: &Session<'_>, q: usize) -> Result<Observation, PlayError> {
        let view = session.view(q);
        if let Some(e) = view.errors.first() {
            return Err(PlayError::Rule(format!(
                "the view of {} cannot be built: {e}",
                session.game().rules.seat_name(q)
            )));
        }
        let mut values: HashSet<String> =
            view.vars.iter().chain(view.tracks.iter()).map(|v| format!("{} = {}", v.name, v.value)).collect();
        // A grid's pieces are values too: one `grid = piece@row:col` each.
        for g in &view.grids {
            for c in &g.cells {
                values.extend(c.pieces.iter().map(|p| format!("{} = {}@{}:{}", g.name, p.id, c.row, c.col)));
            }
        }
        let shown = view.shown.into_iter().flat_map(|s| s.cards);
        let visible: HashSet<String> =
            view.zones.into_iter().flat_map(|z| z.cards).chain(shown).map(|c| c.id).collect();
        let st = session.state();
        let hidden = st
            .components
            .list
            .iter()
            .enumerate()
            .filter(|(i, c)| st.location[*i] != crate::state::NOWHERE && !visible.contains(&c.id))
            .map(|(_, c)| c.id.clone())
            .collect();
        Ok(Observation { hidden, values })
    }
}

/// The ids and labels of the options seat `q` is offered now.
fn offered(session: &Session<'_>, q: usize) -> Vec<String> {
    session.options(q).iter().flat_map(|o| [o.id.clone(), o.label.clone()]).collect()
}

/// How many components carry each label (a label names one component only if it is unique).
fn label_counts(session: &Session<'_>) -> HashMap<String, usize> {
    let r = &session.game().rules;
    let mut counts: HashMap<String, usize> = HashMap::new();
    for c in &session.state().components.list {
        *counts.entry(c.label(r)).or_default() += 1;
    }
    counts
}

/// What one seat receives: its view and its redacted log.
type Seen = (View, Vec<String>);

/// Check 1: every alternative `p` may commit leaves the others' views and logs alike.
fn commit_shows(session: &Session<'_>, p: usize) -> Option<String> {
    let n = session.option_count(p);
    let step = n.div_ceil(ALTERNATIVES).max(1);
    let others: Vec<usize> = (0..session.players()).filter(|q| *q != p).collect();
    let mut first: Option<(String, Vec<Seen>)> = None;
    for i in (0..n).step_by(step) {
        let mut copy = session.clone();
        let label = session.options(p).get(i).map(|o| o.label.clone()).unwrap_or_default();
        if copy.apply_index(p, i).is_err() {
            continue;
        }
        // Only while the commit is still open: the last commit reveals, as it should.
        let still_open = copy.public_view().pending.is_some_and(|v| v.commit && v.committed.contains(&p));
        if !still_open {
            return None;
        }
        let seen: Vec<Seen> = others.iter().map(|q| (copy.view(*q), copy.log_for(Some(*q)))).collect();
        match &first {
            None => first = Some((label, seen)),
            Some((first_label, first_seen)) => {
                for (k, q) in others.iter().enumerate() {
                    let what = if first_seen[k].0 != seen[k].0 { "view" } else { "log" };
                    if first_seen[k] != seen[k] {
                        let r = &session.game().rules;
                        return Some(format!(
                            "{}'s {what} differs when {} commits `{first_label}` or `{label}` before the reveal: the commit shows",
                            r.seat_name(*q),
                            r.seat_name(p)
                        ));
                    }
                }
            }
        }
    }
    None
}

/// Check 2: nothing hidden from `q` before (`told`) and after the decision (`now`) is named in
/// the values of `q`'s view that the decision changed or in the script lines added to `q`'s
/// log since `seen_log`, unless `q` knows it: saw it in a zone earlier or was told it (offered
/// it, or read it in an engine line). `known` (component ids) grows with what `q` sees and is
/// told.
fn names_hidden(
    session: &Session<'_>,
    q: usize,
    told: &Told,
    now: &Observation,
    label_count: &HashMap<String, usize>,
    known: &mut HashSet<String>,
    seen_log: usize,
) -> Option<String> {
    let hidden_now = &now.hidden;
    let r = &session.game().rules;
    let st = session.state();
    let mut values: Vec<String> = now.values.difference(&told.shown).cloned().collect();
    values.sort();
    let new_events = &session.log()[seen_log..];
    let script_lines: Vec<&str> =
        new_events.iter().filter(|e| e.kind == EventKind::Message).filter_map(|e| e.for_viewer(Some(q))).collect();
    let engine_lines: Vec<&str> =
        new_events.iter().filter(|e| e.kind != EventKind::Message).filter_map(|e| e.for_viewer(Some(q))).collect();
    let was_told =
        |name: &str| told.offered.iter().any(|o| mentions(o, name)) || engine_lines.iter().any(|l| mentions(l, name));
    // Seen in a zone, now or before the decision: known from now on.
    known.extend(
        st.components
            .list
            .iter()
            .filter(|c| !hidden_now.contains(&c.id) || !told.hidden.contains(&c.id))
            .map(|c| c.id.clone()),
    );
    let unknown: Vec<&crate::state::Component> = st.components.list.iter().filter(|c| !known.contains(&c.id)).collect();
    for c in unknown {
        let label = c.label(r);
        let mut names = vec![c.id.as_str()];
        // A label names one component only if no other component carries it, and only if it
        // is more than a number (labels like `7` appear in any score).
        if label_count.get(&label) == Some(&1) && label.chars().any(char::is_alphabetic) && label.len() >= 3 {
            names.push(label.as_str());
        }
        if names.iter().any(|n| was_told(n)) {
            known.insert(c.id.clone());
            continue;
        }
        for name in names {
            let place = values
                .iter()
                .map(|v| ("view", v.as_str()))
                .chain(script_lines.iter().map(|l| ("log", *l)))
                .find(|(_, text)| mentions(text, name));
            if let Some((where_, text)) = place {
                return Some(format!(
                    "{}'s {where_} names `{name}`, which {} cannot see where it lies: \"{}\"",
                    r.seat_name(q),
                    r.seat_name(q),
                    crate::session::quote_input(text)
                ));
            }
        }
    }
    None
}

/// Whether `text` names `name` as a whole word (not as part of a longer id).
fn mentions(text: &str, name: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// The seed of leak-check game `i` (as `validate` plays them).
pub fn seed(i: u64) -> u64 {
    derive_seed(0x1EA4, i)
}

#[cfg(test)]
mod tests {
    use super::mentions;

    #[test]
    fn names_match_whole_words_only() {
        assert!(mentions("P1 holds p1-1.", "p1-1"));
        assert!(!mentions("P1 holds p1-10", "p1-1"));
        assert!(mentions("[Gold Crown, x]", "Gold Crown"));
        assert!(!mentions("Gold Crowns", "Gold Crown"));
    }
}
