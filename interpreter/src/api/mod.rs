//! The functions game scripts call on `game`. Every one works through the [`GameHandle`] of
//! the current call, checks its arguments and fails with a message that names what was wrong.
//! This is the whole surface a script sees: no files, clock, environment or process.
//!
//! This file holds the entry point ([`register`]), the helpers every part shares (player and
//! zone arguments, per-player indexes, log events) and the `reg!` macro; each part
//! registers one topic:
//!
//! - `component`: the `Component` handle scripts hold (its indexer, getters, `==`, `props`)
//!   and how a script value becomes a component;
//! - `players`: the seats, the current player and the turn order;
//! - `values`: parameters, data tables, tracks, vars and random draws;
//! - `zones`: what zones hold and where a component is; zone visibility and `out_of_play`;
//! - `moves`: changing components: moving, dealing, shuffling, creating, setting properties;
//! - `graphs`: the declared graphs' nodes, edges and distances;
//! - `log`: log lines, reveals and `show`;
//! - `decisions`: whether a decision would offer a seat any option;
//! - `steps`: pushing steps (ask, commit, run, phase) and ending the game.
//!
//! Grids have their own module, `api_grid`, registered last.

pub(crate) mod component;
mod decisions;
mod graphs;
mod log;
mod moves;
mod players;
mod steps;
mod values;
mod zones;

use crate::log::Event;
use crate::rules::Rules;
use crate::script::{GameHandle, Work};
use crate::state::State;
use rhai::{Array, EvalAltResult};

pub(crate) use component::{card_arg, component_index};
pub use component::{card_map, ComponentHandle};
pub use log::MAX_LOG_LINE;
pub(crate) use moves::log_pushed_out;
pub(crate) use values::with_var_in_place;

type Res<T> = Result<T, Box<EvalAltResult>>;

pub(crate) fn player(st: &State, p: i64) -> Result<usize, String> {
    if p >= 0 && (p as usize) < st.players {
        Ok(p as usize)
    } else {
        Err(format!("player {p} does not exist (players are 0..{})", st.players.saturating_sub(1)))
    }
}

fn slot(rules: &Rules, st: &State, zone: &str, owner: Option<i64>) -> Result<(usize, usize), String> {
    let z = rules.zone(zone)?;
    let owner = owner.map(|p| player(st, p)).transpose()?;
    Ok((z, st.slot_index(rules, z, owner)?))
}

pub(crate) fn per_player_index(
    per_player: bool,
    name: &str,
    what: &str,
    st: &State,
    owner: Option<i64>,
) -> Result<usize, String> {
    match (per_player, owner) {
        (true, Some(p)) => player(st, p),
        (true, None) => Err(format!("{what} `{name}` is per player: say whose")),
        (false, None) => Ok(0),
        (false, Some(_)) => Err(format!("{what} `{name}` is global: do not pass a player")),
    }
}

fn event(w: &mut Work, e: impl FnOnce() -> Event) {
    if w.logging {
        w.events.push(e());
    }
}

fn players_arg(st: &State, list: &Array) -> Result<Vec<usize>, String> {
    list.iter()
        .map(|d| d.as_int().map_err(|t| format!("expected player numbers, got {t}")).and_then(|p| player(st, p)))
        .collect()
}

/// Registers a documented function: its comment and parameter names become part of the
/// engine's metadata, from which `games/SCRIPT_API.md` is generated. `$record` is how the
/// table compiled scripts call through records it (see [`reg!`] and [`reg_files!`]).
macro_rules! reg_with {
    ($record:ident, $engine:expr, $name:expr, $doc:expr, $params:expr, $f:expr) => {{
        let f = $f;
        $engine.natives.$record($name, f.clone());
        let _ = rhai::FuncRegistration::new($name)
            .with_params_info($params)
            .with_comments([concat!("/// ", $doc)])
            .register_into_engine($engine.engine, f);
    }};
}
pub(crate) use reg_with;

/// Registers a documented function (see [`reg_with!`]).
macro_rules! reg {
    ($engine:expr, $name:expr, $doc:expr, $params:expr, $f:expr) => {
        $crate::api::reg_with!(record, $engine, $name, $doc, $params, $f)
    };
}
pub(crate) use reg;

/// [`reg!`] for a function whose result is data read from the game's files and nothing else
/// (see [`crate::compiled::NativeTable::record_from_files`]): a graph's nodes and edges, a
/// data table.
macro_rules! reg_files {
    ($engine:expr, $name:expr, $doc:expr, $params:expr, $f:expr) => {
        $crate::api::reg_with!(record_from_files, $engine, $name, $doc, $params, $f)
    };
}
pub(crate) use reg_files;

/// Registers the `Game` type and every function scripts may call on it.
pub fn register(engine: &mut crate::compiled::Registry) {
    engine.engine.register_type_with_name::<GameHandle>("Game");
    engine.engine.register_type_with_name::<ComponentHandle>("Component");
    component::register(engine);
    players::register(engine);

    // Plain helpers.
    reg!(
        engine,
        "join",
        "The items' texts joined with a separator (`[1, 2].join(\", \")` is `\"1, 2\"`).",
        &["list: Array", "separator: &str", "String"],
        |a: &mut Array, sep: &str| {
            crate::alloc::charge(a.len());
            a.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(sep)
        }
    );

    values::register(engine);
    zones::register(engine);
    decisions::register(engine);
    moves::register(engine);
    graphs::register(engine);
    log::register(engine);
    steps::register(engine);

    crate::api_grid::register(engine);
}
