//! Finding and loading the game a command names.

use crate::cli::{Cli, GameArgs};
use rulebook::{load_game, Game, LoadOptions};
use std::path::{Path, PathBuf};

/// The folder bundled games are looked up in.
pub fn games_dir(cli: &Cli) -> PathBuf {
    if let Some(d) = &cli.games_dir {
        return d.clone();
    }
    let local = PathBuf::from("games");
    if local.is_dir() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("games")
}

/// Resolves a game argument: a folder holding game.toml, or a bundled game's name.
pub fn game_folder(cli: &Cli, game: &str) -> Result<PathBuf, String> {
    let direct = PathBuf::from(game);
    if direct.join("game.toml").is_file() {
        return Ok(direct);
    }
    let dir = games_dir(cli);
    let bundled = dir.join(game);
    if bundled.join("game.toml").is_file() {
        return Ok(bundled);
    }
    let known = bundled_games(&dir).into_iter().map(|(n, _)| n).collect::<Vec<_>>().join(", ");
    Err(format!("no game `{game}`: not a folder with game.toml, nor a game in {} (known: {known})", dir.display()))
}

/// Bundled games: (name, folder), sorted by name.
pub fn bundled_games(dir: &Path) -> Vec<(String, PathBuf)> {
    rulebook::serve::catalog::game_names(dir).into_iter().map(|n| (n.clone(), dir.join(n))).collect()
}

/// Loads the game a command names, printing every diagnostic on failure.
pub fn load(cli: &Cli, args: &GameArgs) -> Result<Game, String> {
    let folder = game_folder(cli, &args.game)?;
    let loaded = load_game(&folder, &LoadOptions { variants: args.variants.clone(), options: args.options.clone() });
    for d in loaded.diagnostics.iter().filter(|d| !d.is_error()) {
        eprintln!("{d}");
    }
    match loaded.game {
        Some(g) => Ok(g),
        None => {
            let errors: Vec<String> =
                loaded.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.to_string()).collect();
            Err(format!("cannot load `{}`:\n{}", args.game, errors.join("\n")))
        }
    }
}

/// Checks that `game` takes `players` seats and that every seat's bot can sit at it.
pub fn check_table(game: &Game, players: usize, bots: &rulebook::bot::BotTable) -> Result<(), String> {
    let r = &game.rules;
    if players < r.min_players || players > r.max_players {
        return Err(format!("{} is for {}–{} players, not {players}", r.title, r.min_players, r.max_players));
    }
    bots.check(game, players)
}
