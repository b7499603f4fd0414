//! Loading a game folder: reading `game.toml`, its includes, the game it `extends` and the
//! chosen variant overlays; merging them; checking every reference; compiling the scripts.
//! Loading reports every problem it finds, each located, not just the first.
//!
//! This file holds the entry point ([`load_game`]) and the order a load runs in; each part
//! does one job:
//!
//! - `read`: the files of a game: `game.toml` and the chain it `extends`, `include`d files,
//!   variant overlays, the script files each layer names (compiled here), with file errors
//!   located at the declaration that named the file;
//! - `merge`: parsed TOML tables: spans shifted into one address space, the deep merge of
//!   overlays, lookups in a raw table, and deserializing the merged table into `def` with
//!   located serde errors;
//! - `resolve`: the merged `def::GameFile` becomes `Rules`: names, players, the name indexes,
//!   then each part below in file order; script function references checked with their arity;
//! - `params`: `[params]` and the `--option` values given for them;
//! - `limits`: the caps a game may set: `[limits]` for scripts, `[flow]` step and decision caps;
//! - `components`: zones (capacity, numbered places) and component types with their declared
//!   instances;
//! - `values`: tracks, vars and data tables;
//! - `boards`: graphs and grids;
//! - `decisions`: decisions: their options, subsets, follow rules and contests;
//! - `tricks`: the declared tricks of trick-taking games;
//! - `phases`: phases and their steps, and the `[flow]` entry points (setup, start, winners,
//!   score).

mod boards;
mod components;
mod decisions;
mod limits;
mod merge;
mod params;
mod phases;
mod read;
mod resolve;
mod tricks;
mod values;

use crate::def::GameFile;
use crate::diag::{Diagnostic, Location, SourceMap};
use crate::Game;
use merge::deserialize_value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// What to load besides the base game.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Variant names (files `variants/NAME.toml`), applied in order.
    pub variants: Vec<String>,
    /// Parameter values, `(name, value)`, as typed on the command line.
    pub options: Vec<(String, String)>,
}

/// The result of loading: a game if there were no errors, and every diagnostic found.
pub struct Loaded {
    /// The game, when loading succeeded.
    pub game: Option<Game>,
    /// Errors and warnings, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

type Table = DeTable<'static>;

struct Layer {
    folder: PathBuf,
    scripts: Vec<PathBuf>,
}

struct Loader {
    sources: SourceMap,
    diags: Vec<Diagnostic>,
    /// The folder every `extends` must stay inside: the one holding the game folder.
    games_dir: PathBuf,
}

/// Loads the game in `folder` with the given variants and options.
pub fn load_game(folder: &Path, options: &LoadOptions) -> Loaded {
    // As the user wrote it (messages show it); the check itself follows links.
    let games_dir = match folder.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => folder.join(".."),
    };
    let mut loader = Loader { sources: SourceMap::default(), diags: Vec::new(), games_dir };
    let game = loader.load(folder, options);
    let has_errors = loader.diags.iter().any(Diagnostic::is_error);
    Loaded { game: if has_errors { None } else { game }, diagnostics: loader.diags }
}

impl Loader {
    fn error(
        &mut self,
        code: &'static str,
        msg: impl Into<String>,
        span: Option<std::ops::Range<usize>>,
    ) -> &mut Diagnostic {
        let loc = span.and_then(|s| self.sources.locate(s));
        self.diags.push(Diagnostic::error(code, msg).at(loc));
        self.diags.last_mut().expect("just pushed")
    }

    fn error_at(&mut self, code: &'static str, msg: impl Into<String>, loc: Option<Location>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::error(code, msg).at(loc));
        self.diags.last_mut().expect("just pushed")
    }

    /// Where a `[section.name]` table (or `[section]` when `name` is empty) is written.
    fn key(&self, section: &str, name: &str) -> Option<Location> {
        self.sources.locate_key(section, name)
    }

    fn load(&mut self, folder: &Path, options: &LoadOptions) -> Option<Game> {
        if std::fs::symlink_metadata(folder.join("game.toml")).is_err() {
            self.error_at("E0001", format!("no game.toml in `{}`", folder.display()), None).help =
                Some("pass a game folder (one holding game.toml) or the name of a bundled game".into());
            return None;
        }
        let mut merged: Table = DeTable::new();
        let mut layers = Vec::new();
        self.read_layer(folder, &mut merged, &mut layers, &mut Vec::new(), None);
        if self.diags.iter().any(Diagnostic::is_error) {
            // A file that does not parse (or a missing base) would only cause follow-on noise.
            return None;
        }
        let mut scripts: Vec<PathBuf> = layers.iter().flat_map(|l| l.scripts.clone()).collect();

        // Variants: looked up in this folder, then in the folders it extends.
        let applied = self.read_variants(&options.variants, &layers, &mut merged, &mut scripts);

        let file: GameFile = match deserialize_value(Spanned::new(0..0, DeValue::Table(merged))) {
            Ok(f) => f,
            Err(e) => {
                self.push_toml_error(e);
                return None;
            }
        };
        if file.variant.is_some() {
            let loc = self.key("variant", "");
            self.error_at("E0004", "`[variant]` is only allowed in files under variants/", loc);
        }

        let mut scripts_compiled = self.compile_scripts(&scripts);
        if let (Some(s), Some(limits)) = (scripts_compiled.as_mut(), self.limits(&file.limits)) {
            s.set_limits(limits);
        }
        let mut rules = self.resolve(folder, file, &layers, scripts_compiled.as_ref(), options);
        rules.variants = applied;
        let scripts = scripts_compiled?;
        if self.diags.iter().any(Diagnostic::is_error) {
            return None;
        }
        let game = Game::new(Arc::new(rules), scripts, self.sources.clone());
        // Instance sets are expanded per player count; check the smallest and largest table.
        for players in [game.rules.min_players, game.rules.max_players] {
            if let Err(e) = game.start_quiet_state(players) {
                let loc = self.key("components", "");
                self.error_at("E0306", format!("with {players} players: {e}"), loc);
                return None;
            }
        }
        Some(game)
    }
}
