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

use crate::bot::{make_bot, BotSpec, SeatObservation};
use crate::log::EventKind;
use crate::session::{Session, Snapshot};
use crate::state::CardView;
use crate::value::{NameHasher, Value};
use crate::view::View;
use crate::{Game, PlayError};
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::rc::Rc;
use std::sync::Arc;

/// Maps and sets keyed by names and texts (fixed-key hashing: only looked up, never listed).
type Map<K, V> = HashMap<K, V, NameHasher>;
type Set<T> = HashSet<T, NameHasher>;

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
    let random = BotSpec::parse("random").map_err(PlayError::Illegal)?;
    let mut bots = (0..players)
        .map(|p| make_bot(&random, game, seed, p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(PlayError::Illegal)?;
    // What setup wrote is checked as if a decision had written it: nothing was shown before.
    let mut known: Vec<Vec<bool>> = vec![Vec::new(); players];
    let mut texts: Vec<ValueTexts> = (0..players).map(|_| ValueTexts::default()).collect();
    let mut seen: Vec<Observation> =
        texts.iter_mut().enumerate().map(|(q, t)| Observation::of(&session, q, t)).collect::<Result<_, _>>()?;
    let mut names = Names::default();
    names.update(&session);
    for q in 0..players {
        let told = Told { hidden: seen[q].hidden.clone(), shown: Set::default(), offered: seen[q].offered.clone() };
        if let Some(message) = names_hidden(&session, q, &told, &seen[q], &names, &mut known[q], 0) {
            return Ok(Some(Leak { decisions: 0, message }));
        }
    }
    let mut seen_log = session.log().len();
    // The copy the alternatives of each commit are tried on, kept in step with the game.
    let mut copy = session.clone();
    while !session.is_over() {
        let Some(p) = session.first_to_act() else { break };
        if session.is_commit() {
            if let Some(message) = commit_shows(&session, &mut copy, p) {
                return Ok(Some(Leak { decisions: session.history().len(), message }));
            }
        }
        // What each seat saw after the last decision is what it knew before this one.
        let told: Vec<Told> = std::mem::take(&mut seen)
            .into_iter()
            .map(|o| Told { hidden: o.hidden, shown: o.values, offered: o.offered })
            .collect();
        let choice = bots[p].choose(&SeatObservation::new(&session, p)).map_err(PlayError::Rule)?;
        session.apply_index(p, choice)?;
        seen = texts.iter_mut().enumerate().map(|(q, t)| Observation::of(&session, q, t)).collect::<Result<_, _>>()?;
        names.update(&session);
        for (q, t) in told.iter().enumerate() {
            if let Some(message) = names_hidden(&session, q, t, &seen[q], &names, &mut known[q], seen_log) {
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
    hidden: Vec<bool>,
    shown: Set<Text>,
    offered: Vec<String>,
}

/// What one seat's view shows at one moment, read from a single view: which components lie
/// in zones it cannot see (by component index), its vars, tracks and grid pieces as
/// `name = value` texts, and the ids and labels of the options it is offered.
struct Observation {
    hidden: Vec<bool>,
    values: Set<Text>,
    offered: Vec<String>,
}

/// One seat's values as last written (`name = value`), by name and owner: a value that has
/// not changed since is not written again.
#[derive(Default)]
struct ValueTexts(Map<String, Vec<Written>>);

/// A value's text (`name = value`) with its hash, made once: a value that has not changed is
/// the same text, found in a set by its hash and recognised by its address before its letters
/// are compared.
#[derive(Clone, Debug)]
struct Text {
    text: Rc<str>,
    hash: u64,
}

impl Text {
    fn new(text: String) -> Text {
        let hash = NameHasher::default().hash_one(text.as_str());
        Text { text: text.into(), hash }
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        Rc::ptr_eq(&self.text, &other.text) || (self.hash == other.hash && self.text == other.text)
    }
}

impl Eq for Text {}

impl std::hash::Hash for Text {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// One owner's value as last written, with its text.
type Written = (Option<usize>, Value, Text);

impl ValueTexts {
    /// `name = value`, written only if the value changed since the last time.
    fn text(&mut self, name: &str, owner: Option<usize>, value: &Value) -> Text {
        if !self.0.contains_key(name) {
            self.0.insert(name.to_string(), Vec::new());
        }
        let Some(owners) = self.0.get_mut(name) else { return Text::new(format!("{name} = {value}")) };
        match owners.iter_mut().find(|(o, _, _)| *o == owner) {
            Some((_, v, text)) if v == value => text.clone(),
            found => {
                let text = Text::new(format!("{name} = {value}"));
                match found {
                    Some(entry) => *entry = (owner, value.clone(), text.clone()),
                    None => owners.push((owner, value.clone(), text.clone())),
                }
                text
            }
        }
    }
}

impl Observation {
    fn of(session: &Session<'_>, q: usize, texts: &mut ValueTexts) -> Result<Observation, PlayError> {
        let view = session.view(q);
        if let Some(e) = view.errors.first() {
            return Err(PlayError::Rule(format!(
                "the view of {} cannot be built: {e}",
                session.game().rules.seat_name(q)
            )));
        }
        let mut values: Set<Text> =
            view.vars.iter().chain(view.tracks.iter()).map(|v| texts.text(&v.name, v.owner, &v.value)).collect();
        // A grid's pieces are values too: one `grid = piece@row:col` each.
        for g in &view.grids {
            for c in &g.cells {
                values.extend(c.pieces.iter().map(|p| Text::new(format!("{} = {}@{}:{}", g.name, p.id, c.row, c.col))));
            }
        }
        let st = session.state();
        // Everything placed starts hidden; what the view shows (in a zone or shown to all) is not.
        let mut hidden: Vec<bool> = st.location.iter().map(|l| *l != crate::state::NOWHERE).collect();
        let shown = view.shown.iter().flat_map(|s| &s.cards);
        for c in view.zones.iter().flat_map(|z| &z.cards).chain(shown) {
            if let Some(i) = st.components.by_id.get(&c.id) {
                hidden[*i as usize] = false;
            }
        }
        let offered = view.pending.into_iter().flat_map(|p| p.options).flat_map(|o| [o.id, o.label]).collect();
        Ok(Observation { hidden, values, offered })
    }
}

/// The names each component goes by, indexed by their first word: its id, and its label if
/// no other component carries it and it is more than a number (labels like `7` appear in any
/// score). Kept from one decision to the next and made again only when a label changed.
#[derive(Default)]
struct Names {
    /// Each component's names, by component index: the id first.
    of: Vec<Vec<String>>,
    /// The labels they were made from (a changed property makes a new one).
    made_from: Vec<Arc<CardView>>,
    /// The first word of each name, with the component and the name's place in its list.
    by_first_word: Map<String, Vec<(usize, usize)>>,
    /// Names without a word: searched for in every text.
    wordless: Vec<(usize, usize)>,
}

impl Names {
    /// Brings the names up to the session's components.
    fn update(&mut self, session: &Session<'_>) {
        let list = &session.state().components.list;
        let same = self.made_from.len() == list.len()
            && self.made_from.iter().zip(list).all(|(a, c)| Arc::ptr_eq(a, c.card_view()));
        if same {
            return;
        }
        let mut counts: Map<&str, usize> = Map::default();
        for c in list {
            *counts.entry(c.label()).or_default() += 1;
        }
        let named_by_label =
            |label: &str| counts.get(label) == Some(&1) && label.chars().any(char::is_alphabetic) && label.len() >= 3;
        self.of = list
            .iter()
            .map(|c| {
                let mut names = vec![c.id.clone()];
                if named_by_label(c.label()) {
                    names.push(c.label().to_string());
                }
                names
            })
            .collect();
        self.made_from = list.iter().map(|c| c.card_view().clone()).collect();
        self.by_first_word.clear();
        self.wordless.clear();
        for (i, names) in self.of.iter().enumerate() {
            for (k, name) in names.iter().enumerate() {
                match name.split(|c: char| !is_word(c)).find(|w| !w.is_empty()) {
                    Some(first) => self.by_first_word.entry(first.to_string()).or_default().push((i, k)),
                    None => self.wordless.push((i, k)),
                }
            }
        }
    }

    /// The components not `known` that `texts` name (by any of their names), with the name:
    /// only the names whose first word the texts hold are searched for.
    fn named_in(&self, texts: &Texts<'_>, known: &[bool]) -> Vec<(usize, usize)> {
        let candidates = texts.words.keys().filter_map(|w| self.by_first_word.get(*w)).flatten();
        let mut found: Vec<(usize, usize)> = candidates
            .chain(&self.wordless)
            .filter(|(i, k)| !known.get(*i).copied().unwrap_or(false) && texts.mention(&self.of[*i][*k]))
            .copied()
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }
}

/// What one seat receives: its view and its redacted log.
type Seen = (View, Vec<String>);

/// Check 1: every alternative `p` may commit leaves the others' views and logs alike. They
/// are tried on `copy`, a copy of `session` that is brought up to its point first (copying
/// only what changed since the last time) and left back at that point.
fn commit_shows<'g>(session: &Session<'g>, copy: &mut Session<'g>, p: usize) -> Option<String> {
    copy.catch_up(session);
    let here = copy.snapshot();
    let found = alternatives_differ(session, copy, &here, p);
    copy.restore(&here).ok()?;
    found
}

/// Whether the others' views or logs differ between `p`'s alternatives, each applied to
/// `copy` restored to `here` (`session`'s point); only the log lines an alternative adds can
/// differ between alternatives, so only those are compared.
fn alternatives_differ(session: &Session<'_>, copy: &mut Session<'_>, here: &Snapshot, p: usize) -> Option<String> {
    let options = session.options(p);
    let n = options.len();
    let step = n.div_ceil(ALTERNATIVES).max(1);
    let others: Vec<usize> = (0..session.players()).filter(|q| *q != p).collect();
    let mut first: Option<(String, Vec<Seen>)> = None;
    let logged = session.log().len();
    for (i, option) in options.into_iter().enumerate().step_by(step) {
        copy.restore(here).ok()?;
        let label = option.label;
        if copy.apply_index(p, i).is_err() {
            continue;
        }
        // Only while the commit is still open: the last commit reveals, as it should.
        let still_open = copy.state().pending.as_ref().is_some_and(|d| {
            d.commit && d.players.iter().zip(&d.chosen).any(|(seat, chosen)| *seat == p && chosen.is_some())
        });
        if !still_open {
            return None;
        }
        let added = &copy.log()[logged..];
        let seen: Vec<Seen> = others
            .iter()
            .map(|q| (copy.view(*q), added.iter().filter_map(|e| e.for_viewer(Some(*q)).map(str::to_string)).collect()))
            .collect();
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
/// it, or read it in an engine line). `known` (by component index) grows with what `q` sees
/// and is told.
fn names_hidden(
    session: &Session<'_>,
    q: usize,
    told: &Told,
    now: &Observation,
    names: &Names,
    known: &mut Vec<bool>,
    seen_log: usize,
) -> Option<String> {
    let r = &session.game().rules;
    let st = session.state();
    let mut values: Vec<&str> = now.values.difference(&told.shown).map(|v| &*v.text).collect();
    values.sort();
    let new_events = &session.log()[seen_log..];
    let script_lines: Vec<&str> =
        new_events.iter().filter(|e| e.kind == EventKind::Message).filter_map(|e| e.for_viewer(Some(q))).collect();
    let engine_lines: Vec<&str> =
        new_events.iter().filter(|e| e.kind != EventKind::Message).filter_map(|e| e.for_viewer(Some(q))).collect();
    let told_texts = Texts::new(told.offered.iter().map(String::as_str).chain(engine_lines.iter().copied()));
    let new_texts = Texts::new(values.iter().copied().chain(script_lines.iter().copied()));
    // Seen in a zone, now or before the decision: known from now on.
    known.resize(st.components.list.len(), false);
    let was_hidden = |i: usize| told.hidden.get(i).copied().unwrap_or(false);
    let is_hidden = |i: usize| now.hidden.get(i).copied().unwrap_or(false);
    for (i, k) in known.iter_mut().enumerate() {
        *k |= !is_hidden(i) || !was_hidden(i);
    }
    // Told (offered it, or read it in an engine line): known from now on.
    for (i, _) in names.named_in(&told_texts, known) {
        known[i] = true;
    }
    // The first component the new texts name, by its first name they hold.
    let (i, k) = names.named_in(&new_texts, known).into_iter().next()?;
    let name = names.of[i][k].as_str();
    let (where_, text) = values
        .iter()
        .map(|v| ("view", *v))
        .chain(script_lines.iter().map(|l| ("log", *l)))
        .find(|(_, text)| mentions(text, name))?;
    Some(format!(
        "{}'s {where_} names `{name}`, which {} cannot see where it lies: \"{}\"",
        r.seat_name(q),
        r.seat_name(q),
        crate::session::quote_input(text)
    ))
}

/// A character that can be part of a name (an id like `p1-10`).
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// Texts searched for names many times: their words are indexed once, so a name that is one
/// word is looked up instead of searched for, and a longer one (a label with spaces) is
/// searched for only in the texts that hold each of its words.
struct Texts<'a> {
    texts: Vec<&'a str>,
    /// Each word, with the texts it appears in (in order, each once).
    words: Map<&'a str, Vec<usize>>,
}

impl<'a> Texts<'a> {
    fn new(texts: impl Iterator<Item = &'a str>) -> Texts<'a> {
        let texts: Vec<&str> = texts.collect();
        let mut words: Map<&str, Vec<usize>> = Map::default();
        for (i, t) in texts.iter().enumerate() {
            for w in t.split(|c: char| !is_word(c)).filter(|w| !w.is_empty()) {
                let holders = words.entry(w).or_default();
                if holders.last() != Some(&i) {
                    holders.push(i);
                }
            }
        }
        Texts { texts, words }
    }

    /// Whether any text names `name` as a whole word ([`mentions`]). Every word of a name
    /// that is named stands as a whole word in the text that names it.
    fn mention(&self, name: &str) -> bool {
        let mut runs = name.split(|c: char| !is_word(c)).filter(|w| !w.is_empty());
        let Some(first) = runs.next() else { return self.texts.iter().any(|t| mentions(t, name)) };
        let Some(holders) = self.words.get(first) else { return false };
        if first.len() == name.len() {
            return true;
        }
        if !runs.all(|w| self.words.contains_key(w)) {
            return false;
        }
        holders.iter().any(|i| mentions(self.texts[*i], name))
    }
}

/// Whether `text` names `name` as a whole word (not as part of a longer id).
fn mentions(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

#[cfg(test)]
mod tests {
    use super::{mentions, Texts};

    #[test]
    fn names_match_whole_words_only() {
        assert!(mentions("P1 holds p1-1.", "p1-1"));
        assert!(!mentions("P1 holds p1-10", "p1-1"));
        assert!(mentions("[Gold Crown, x]", "Gold Crown"));
        assert!(!mentions("Gold Crowns", "Gold Crown"));
    }

    #[test]
    fn indexed_texts_find_what_a_search_finds() {
        let lines = ["P1 holds p1-1.", "score = 7", "[Gold Crown, x]", "a-b_c, (d)"];
        let texts = Texts::new(lines.iter().copied());
        for name in [
            "p1-1",
            "p1-10",
            "P1",
            "7",
            "Gold Crown",
            "Gold",
            "Crowns",
            "Gold Crowns",
            "Silver Crown",
            "holds p1",
            "p1-1.",
            "a-b_c",
            "b_c",
            "(d)",
            "d",
            "x]",
        ] {
            assert_eq!(texts.mention(name), lines.iter().any(|l| mentions(l, name)), "{name}");
        }
    }
}
