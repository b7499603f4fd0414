//! [`Game`]: a loaded game (its rules, its compiled scripts, its source files), the entry
//! point for starting sessions.

use crate::diag::SourceMap;
use crate::error::PlayError;
use crate::rng::GameRng;
use crate::rules::Rules;
use crate::script::Scripts;
use crate::session::Session;
use crate::state::State;
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
    /// The state before setup scripts, per player count, built on first use by each group of
    /// threads (see [`crate::per_thread::THREAD_COPIES`]).
    initial: Vec<crate::per_thread::PerThread<Result<State, String>>>,
    /// Per trick, the fields of its `trick` value the `then` hook reads (see
    /// [`Scripts::fields_read`]; all of them when it may see the whole value).
    pub(crate) trick_then_fields: Vec<crate::trick::TrickFields>,
    /// Per decision, whether its `reveal` script reads its `choices` (a script that never
    /// names them gets `()`, not a list of handles made for nothing).
    pub(crate) reveal_reads_choices: Vec<bool>,
    /// Per decision, the zone it lists as its components lie, when it offers them so (no
    /// filter, no `follow` rule, not a subset: see [`crate::flow`]'s `zone_options`).
    pub(crate) zone_listed: Vec<Option<ZoneListed>>,
}

/// A zone a decision lists as its components lie (see [`Game::zone_listed`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ZoneListed {
    /// The zone.
    pub zone: usize,
    /// Whether each seat has its own slot of it (the deciding seat's is listed).
    pub per_player: bool,
    /// Whether its order is kept (else its components are listed in a fixed order).
    pub ordered: bool,
}

/// The zone decision `d` lists as its components lie, if it offers them so.
fn zone_listed(rules: &Rules, d: &crate::rules::DecisionInfo) -> Option<ZoneListed> {
    let (crate::rules::OptionSource::Zone { zone, filter: None }, None, None) = (&d.source, &d.follow, &d.subset)
    else {
        return None;
    };
    let info = &rules.zones[*zone];
    Some(ZoneListed { zone: *zone, per_player: info.per_player, ordered: info.ordered })
}

impl Game {
    /// Wraps loaded parts into a game.
    pub fn new(rules: Arc<Rules>, mut scripts: Scripts, sources: SourceMap) -> Game {
        let initial = (0..=rules.max_players).map(|_| Default::default()).collect();
        scripts.set_files_data(files_data(&rules));
        // What each trick's `then` hook and each `reveal` script reads of its one argument.
        let hooks: Vec<Option<&crate::rules::FnRef>> = rules.tricks.iter().map(|t| t.then.as_ref()).collect();
        let reveals: Vec<Option<&crate::rules::FnRef>> = rules.decisions.iter().map(|d| d.reveal.as_ref()).collect();
        let wanted: Vec<_> = hooks.iter().chain(&reveals).flatten().map(|f| (*f, 1, 1)).collect();
        let mut read = scripts.fields_read_each(&wanted).into_iter();
        let trick_then_fields = hooks
            .iter()
            .map(|f| crate::trick::TrickFields::of(f.and_then(|_| read.next().flatten()).as_ref()))
            .collect();
        let reveal_reads_choices =
            reveals.iter().map(|f| f.is_some() && read.next().flatten().is_none_or(|r| !r.is_empty())).collect();
        let zone_listed = rules.decisions.iter().map(|d| zone_listed(&rules, d)).collect();
        Game { rules, scripts, sources, initial, trick_then_fields, reveal_reads_choices, zone_listed }
    }

    /// A fresh state for `players` seats and a seed: declared components in their zones,
    /// nothing run yet. Built once per player count, then cloned (components are shared).
    pub(crate) fn initial_state(&self, players: usize, seed: u64) -> Result<State, PlayError> {
        self.initial_state_in(players, seed, Box::new(State::empty())).map(|state| *state)
    }

    /// [`Game::initial_state`], copied into the buffers of `into` (a state a finished game
    /// left behind): a series of games on one thread then allocates no new zone, track or var
    /// lists per game, and its zones do not grow again from empty.
    pub(crate) fn initial_state_in(
        &self,
        players: usize,
        seed: u64,
        mut into: Box<State>,
    ) -> Result<Box<State>, PlayError> {
        match self.initial.get(players) {
            Some(copies) => {
                let built = crate::per_thread::this_thread(copies).get_or_init(|| State::new(&self.rules, players, 0));
                (*into).clone_from(built.as_ref().map_err(|e| PlayError::Rule(e.clone()))?);
            }
            None => *into = State::new(&self.rules, players, 0).map_err(PlayError::Rule)?,
        }
        into.rng = GameRng::new(seed);
        Ok(into)
    }

    /// Checks that the initial state for a player count can be built (for the loader).
    pub(crate) fn start_quiet_state(&self, players: usize) -> Result<(), PlayError> {
        self.initial_state(players, 0).map(|_| ())
    }

    /// Starts a game for `players` seats with a seed, running setup up to the first decision.
    pub fn start(&self, players: usize, seed: u64) -> Result<Session<'_>, PlayError> {
        Session::new(self, players, seed, true)
    }

    /// Like [`Game::start`] but without recording the event log (faster, for simulation).
    pub fn start_quiet(&self, players: usize, seed: u64) -> Result<Session<'_>, PlayError> {
        Session::new(self, players, seed, false)
    }

    /// A fingerprint of the files the game was loaded from (their texts in load order, not
    /// their paths): 16 hex digits of FNV-1a, the same on every machine and build, so results
    /// played on different machines can tell whether they played the same files.
    pub fn fingerprint(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for file in self.sources.files() {
            let len = file.text.len() as u64;
            for b in len.to_le_bytes().iter().chain(file.text.as_bytes()) {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        format!("{h:016x}")
    }
}

/// What all the data of the game's files that scripts read whole (every graph's nodes and
/// edges, every data table) counts against the script size limits, as if each were one
/// script value (see [`Scripts::set_files_data`]).
fn files_data(rules: &Rules) -> [usize; 3] {
    let mut sizes = [0; 3];
    for g in rules.graphs.values() {
        // `nodes` and `edges` each hand out one list of maps.
        sizes[0] += g.nodes.len() + g.edges.len();
        for item in g.nodes.iter().chain(&g.edges) {
            item.props.add_script_sizes(&mut sizes);
        }
    }
    for table in rules.tables.values() {
        table.add_script_sizes(&mut sizes);
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_data_counts_as_the_script_values_of_graphs_and_tables_do() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/graph-walk");
        let game = crate::load_game(&folder, &crate::LoadOptions::default()).game.expect("the fixture loads");
        let r = &game.rules;
        let mut expected = [0; 3];
        let mut add = |v: &rhai::Dynamic| {
            let s = crate::compiled::script_sizes(v);
            (0..3).for_each(|i| expected[i] += s[i]);
        };
        for g in r.graphs.values() {
            add(&rhai::Dynamic::from_array(g.node_values()));
            add(&rhai::Dynamic::from_array(g.edge_values()));
        }
        for t in r.tables.values() {
            add(&t.to_dynamic());
        }
        assert!(expected.iter().all(|n| *n > 0), "a graph and a table: {expected:?}");
        assert_eq!(files_data(r), expected);
    }
}
