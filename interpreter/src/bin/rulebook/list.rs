//! `rulebook list`: the bundled games.

use crate::cli::{Cli, ListArgs};
use crate::locate::{bundled_games, games_dir};
use rulebook::{load_game, LoadOptions};
use serde::Serialize;
use std::process::ExitCode;

#[derive(Serialize)]
struct Entry {
    name: String,
    title: String,
    min_players: usize,
    max_players: usize,
    variants: Vec<rulebook::rules::VariantInfo>,
    params: Vec<Param>,
    error: Option<String>,
}

#[derive(Serialize)]
struct Param {
    name: String,
    default: rulebook::Value,
    description: String,
}

pub fn run(cli: &Cli, args: &ListArgs) -> Result<ExitCode, String> {
    let dir = games_dir(cli);
    let games = bundled_games(&dir);
    if games.is_empty() {
        return Err(format!("no games found in {} (set --games-dir or RULEBOOK_GAMES)", dir.display()));
    }
    let mut entries = Vec::new();
    for (name, folder) in games {
        let loaded = load_game(&folder, &LoadOptions::default());
        let entry = match loaded.game {
            Some(g) => {
                let r = &g.rules;
                Entry {
                    name,
                    title: r.title.clone(),
                    min_players: r.min_players,
                    max_players: r.max_players,
                    variants: r.available_variants.clone(),
                    params: r
                        .params
                        .iter()
                        .map(|(k, p)| Param {
                            name: k.clone(),
                            default: p.value.clone(),
                            description: p.description.clone(),
                        })
                        .collect(),
                    error: None,
                }
            }
            None => {
                let n = loaded.diagnostics.iter().filter(|d| d.is_error()).count();
                Entry {
                    name,
                    title: String::new(),
                    min_players: 0,
                    max_players: 0,
                    variants: vec![],
                    params: vec![],
                    error: Some(format!("{n} error(s); run `rulebook validate`")),
                }
            }
        };
        entries.push(entry);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&entries).map_err(|e| e.to_string())?);
        return Ok(ExitCode::SUCCESS);
    }
    for e in &entries {
        if let Some(err) = &e.error {
            println!("{:<28} (broken: {err})", e.name);
            continue;
        }
        println!("{:<28} {} — {}–{} players", e.name, e.title, e.min_players, e.max_players);
        // One column for the flags of a game, as wide as its longest.
        let flags: Vec<(String, &str)> = e
            .variants
            .iter()
            .map(|v| (format!("--variant {}", v.name), v.description.as_str()))
            .chain(e.params.iter().map(|p| (format!("--option {}={}", p.name, p.default), p.description.as_str())))
            .collect();
        let width = flags.iter().map(|(f, _)| f.chars().count()).max().unwrap_or(0);
        for (flag, description) in flags {
            println!("    {flag:<width$}  {description}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
