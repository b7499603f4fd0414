//! The games a server offers: every folder with a `game.toml` directly under its games
//! folder, named by the folder. A client names a game only by one of these names (never by a
//! path), and loaded configurations are kept so that tables of the same game, variants and
//! options share one [`Game`].

use crate::{load_game, Game, LoadOptions, Value};
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// One game of the lobby's list.
#[derive(Clone, Debug, Serialize)]
pub struct GameEntry {
    /// The folder name (what a table names).
    pub name: String,
    /// The title.
    pub title: String,
    /// What it is.
    pub description: String,
    /// Fewest seats.
    pub min_players: usize,
    /// Most seats.
    pub max_players: usize,
    /// Its variants.
    pub variants: Vec<VariantEntry>,
    /// Its parameters.
    pub params: Vec<ParamEntry>,
    /// Why it does not load, if it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A variant: its name, what it does, and the parameters it declares or changes (the lobby
/// offers them when the variant is chosen).
#[derive(Clone, Debug, Serialize)]
pub struct VariantEntry {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// The parameters of the game with this variant that the game without it does not have,
    /// or has otherwise (another default, bounds or description).
    pub params: Vec<ParamEntry>,
    /// Fewest seats with this variant (a two-player variant of a game for more changes them).
    pub min_players: usize,
    /// Most seats with this variant.
    pub max_players: usize,
}

/// A parameter a table may set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParamEntry {
    /// Name.
    pub name: String,
    /// Default value.
    pub default: Value,
    /// What it means.
    pub description: String,
    /// Smallest value.
    pub min: Option<i64>,
    /// Largest value.
    pub max: Option<i64>,
    /// The allowed values, when closed.
    pub choices: Option<Vec<Value>>,
}

/// The games in a folder: the names of its sub-folders that hold a `game.toml`, sorted.
pub fn game_names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.path().join("game.toml").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    names.sort();
    names
}

/// What a table plays: a game name, its variants and options.
type Key = (String, Vec<String>, Vec<(String, String)>);

/// The games folder and the games loaded from it.
pub struct Catalog {
    dir: PathBuf,
    loaded: Mutex<HashMap<Key, Arc<Game>>>,
}

impl Catalog {
    /// The games under `dir`.
    pub fn new(dir: PathBuf) -> Catalog {
        Catalog { dir, loaded: Mutex::new(HashMap::new()) }
    }

    /// The folder names of the games, sorted.
    pub fn names(&self) -> Vec<String> {
        game_names(&self.dir)
    }

    /// Every game, as the lobby lists it.
    pub fn list(&self) -> Vec<GameEntry> {
        self.names().into_iter().map(|name| self.entry(name)).collect()
    }

    fn entry(&self, name: String) -> GameEntry {
        match self.load(&name, &[], &[]) {
            Ok(game) => {
                let r = &game.rules;
                let params = param_entries(&game);
                let variants = r
                    .available_variants
                    .iter()
                    .map(|v| {
                        // A variant that does not load alone offers nothing more: the table's
                        // request then says why.
                        let with = self.load(&name, std::slice::from_ref(&v.name), &[]).ok();
                        let seats = |f: fn(&Game) -> usize| with.as_deref().map_or(f(&game), f);
                        VariantEntry {
                            name: v.name.clone(),
                            description: v.description.clone(),
                            params: with
                                .as_deref()
                                .map(|with| param_entries(with).into_iter().filter(|p| !params.contains(p)).collect())
                                .unwrap_or_default(),
                            min_players: seats(|g| g.rules.min_players),
                            max_players: seats(|g| g.rules.max_players),
                        }
                    })
                    .collect();
                GameEntry {
                    title: r.title.clone(),
                    description: r.description.clone(),
                    min_players: r.min_players,
                    max_players: r.max_players,
                    variants,
                    params,
                    error: None,
                    name,
                }
            }
            Err(e) => GameEntry {
                title: name.clone(),
                name,
                description: String::new(),
                min_players: 0,
                max_players: 0,
                variants: Vec::new(),
                params: Vec::new(),
                error: Some(e),
            },
        }
    }

    /// The game `name` with these variants and options, loaded once per configuration.
    pub fn load(&self, name: &str, variants: &[String], options: &[(String, String)]) -> Result<Arc<Game>, String> {
        if !self.names().iter().any(|n| n == name) {
            return Err(format!(
                "no game `{}` here (games: {})",
                crate::session::quote_input(name),
                self.names().join(", ")
            ));
        }
        let key = (name.to_string(), variants.to_vec(), options.to_vec());
        if let Some(g) = self.loaded.lock().map_err(|_| "the game cache is broken")?.get(&key) {
            return Ok(g.clone());
        }
        let loaded =
            load_game(&self.dir.join(name), &LoadOptions { variants: variants.to_vec(), options: options.to_vec() });
        let game = match loaded.game {
            Some(g) => Arc::new(g),
            None => {
                let errors: Vec<String> =
                    loaded.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect();
                return Err(format!("cannot load `{name}`: {}", errors.join("; ")));
            }
        };
        let mut cache = self.loaded.lock().map_err(|_| "the game cache is broken")?;
        Ok(cache.entry(key).or_insert(game).clone())
    }
}

/// The parameters a table of `game` may set, in declaration order.
fn param_entries(game: &Game) -> Vec<ParamEntry> {
    game.rules
        .params
        .iter()
        .map(|(k, p)| ParamEntry {
            name: k.clone(),
            default: p.value.clone(),
            description: p.description.clone(),
            min: p.min,
            max: p.max,
            choices: p.choices.clone(),
        })
        .collect()
}
