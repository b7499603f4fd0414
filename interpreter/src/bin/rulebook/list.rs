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
    variants: Vec<Variant>,
    params: Vec<Param>,
    error: Option<String>,
}

/// A variant, with the parameters it adds to the game.
#[derive(Serialize)]
struct Variant {
    name: String,
    description: String,
    params: Vec<Param>,
}

#[derive(Serialize)]
struct Param {
    name: String,
    default: rulebook::Value,
    description: String,
}

/// The parameters of `r` that `keep` accepts, in declaration order.
fn params(r: &rulebook::rules::Rules, keep: impl Fn(&str) -> bool) -> Vec<Param> {
    r.params
        .iter()
        .filter(|(k, _)| keep(k))
        .map(|(k, p)| Param { name: k.clone(), default: p.value.clone(), description: p.description.clone() })
        .collect()
}

/// The parameters a variant declares that the base game does not have.
fn variant_params(folder: &std::path::Path, variant: &str, base: &rulebook::rules::Rules) -> Vec<Param> {
    let loaded = load_game(folder, &LoadOptions { variants: vec![variant.to_string()], options: vec![] });
    loaded.game.map(|g| params(&g.rules, |k| !base.params.contains_key(k))).unwrap_or_default()
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
                    variants: r
                        .available_variants
                        .iter()
                        .map(|v| Variant {
                            name: v.name.clone(),
                            description: v.description.clone(),
                            params: variant_params(&folder, &v.name, r),
                        })
                        .collect(),
                    params: params(r, |_| true),
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
        let option =
            |p: &Param, indent: &str| (format!("{indent}--option {}={}", p.name, p.default), p.description.clone());
        let mut flags: Vec<(String, String)> = Vec::new();
        for v in &e.variants {
            flags.push((format!("--variant {}", v.name), v.description.clone()));
            flags.extend(v.params.iter().map(|p| option(p, "  ")));
        }
        flags.extend(e.params.iter().map(|p| option(p, "")));
        let width = flags.iter().map(|(f, _)| f.chars().count()).max().unwrap_or(0);
        for (flag, description) in flags {
            println!("    {flag:<width$}  {description}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
