//! Rulebook: a rules-as-data engine for tabletop games.
//!
//! A game is a folder of TOML declarations (components, zones, tracks, decisions, phases) and
//! Rhai scripts. [`load_game`] reads and checks it into a [`Game`]; [`Game::start`] begins a
//! [`Session`], the one interface front ends, bots, tests and replays use. See
//! `ARCHITECTURE.md` for the map of modules and the invariants they keep.

pub mod alloc;
pub mod api;
pub mod api_doc;
pub mod api_grid;
pub mod balance;
pub mod balance_html;
pub mod bot;
pub mod codes;
pub mod compiled;
pub mod convert;
pub mod def;
pub mod determinize;
pub mod diag;
pub mod diff;
pub mod error;
pub mod explain;
pub mod expr;
pub mod files;
pub mod flow;
pub mod game;
pub mod grid;
pub mod grid_text;
pub mod knowledge;
pub mod leak;
pub mod lint;
pub mod lint_numbers;
pub mod load;

pub mod log;
mod per_thread;
pub mod reads;
pub mod results;
pub mod rng;
pub mod rules;
pub mod scenario;
pub mod schema;
pub mod script;
pub mod serve;
pub mod session;
pub mod sim;
pub mod state;
pub mod subset;
pub mod trick;
pub mod tune;
pub mod value;
pub mod view;

pub use diag::{Diagnostic, Severity};
pub use error::PlayError;
pub use game::Game;
pub use load::{load_game, LoadOptions, Loaded};
pub use session::{Move, OptionInfo, Session, Snapshot};
pub use value::Value;
pub use view::View;
