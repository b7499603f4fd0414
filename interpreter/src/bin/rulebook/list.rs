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
    print!("{}", table(&entries));
    Ok(ExitCode::SUCCESS)
}

/// The widest flag (`--variant NAME`, `--option KEY=VALUE`) the description column makes room
/// for; a longer flag stands on its own line, with its description under it in the column.
const FLAG_COLUMN_MAX: usize = 40;

/// The widest game name the title column makes room for; a longer name is followed by two
/// spaces and its title.
const NAME_COLUMN_MAX: usize = 32;

/// The flags of one game with their descriptions: its variants (each with the parameters it
/// adds, indented) and then its parameters.
fn flags(e: &Entry) -> Vec<(String, String)> {
    let option =
        |p: &Param, indent: &str| (format!("{indent}--option {}={}", p.name, p.default), p.description.clone());
    let mut flags: Vec<(String, String)> = Vec::new();
    for v in &e.variants {
        flags.push((format!("--variant {}", v.name), v.description.clone()));
        flags.extend(v.params.iter().map(|p| option(p, "  ")));
    }
    flags.extend(e.params.iter().map(|p| option(p, "")));
    flags
}

/// The games as a table: one line per game, then its flags, every description starting in
/// the same column for all games (as wide as the longest flag up to [`FLAG_COLUMN_MAX`]).
fn table(entries: &[Entry]) -> String {
    let width = |s: &str| s.chars().count();
    let all: Vec<Vec<(String, String)>> = entries.iter().map(flags).collect();
    let column = |items: &mut dyn Iterator<Item = usize>, max: usize| items.filter(|w| *w <= max).max().unwrap_or(0);
    let names = column(&mut entries.iter().map(|e| width(&e.name)), NAME_COLUMN_MAX);
    let flag_column = column(&mut all.iter().flatten().map(|(f, _)| width(f)), FLAG_COLUMN_MAX);
    let mut out = String::new();
    for (e, flags) in entries.iter().zip(&all) {
        let what = match &e.error {
            Some(err) => format!("(broken: {err})"),
            None if e.min_players == e.max_players => format!("{} — {} players", e.title, e.min_players),
            None => format!("{} — {}–{} players", e.title, e.min_players, e.max_players),
        };
        out.push_str(&format!("{:<names$}  {what}\n", e.name));
        for (flag, description) in flags {
            if width(flag) > flag_column {
                out.push_str(&format!("    {flag}\n    {:flag_column$}  {description}\n", ""));
            } else {
                out.push_str(&format!("    {flag:<flag_column$}  {description}\n"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str, default: i64) -> Param {
        Param { name: name.into(), default: rulebook::Value::Int(default), description: format!("about {name}") }
    }

    fn entry(name: &str, variants: Vec<Variant>, params: Vec<Param>) -> Entry {
        Entry {
            name: name.into(),
            title: name.to_uppercase(),
            min_players: 2,
            max_players: 4,
            variants,
            params,
            error: None,
        }
    }

    #[test]
    fn descriptions_line_up_across_games_and_a_long_flag_stands_alone() {
        let long = "a_parameter_whose_name_is_far_too_long_for_the_column";
        let entries = vec![
            entry("first", vec![], vec![param("n", 3)]),
            entry(
                "second-game",
                vec![Variant { name: "short".into(), description: "about short".into(), params: vec![param("k", 1)] }],
                vec![param("rounds", 10), param(long, 1)],
            ),
        ];
        let text = table(&entries);
        let column = |l: &str| l.find("about").unwrap();
        let described: Vec<&str> = text.lines().filter(|l| l.contains("about")).collect();
        assert_eq!(described.len(), 5, "{text}");
        assert!(described.iter().all(|l| column(l) == column(described[0])), "{text}");
        // "    --option rounds=10" is the widest flag that fits: the column follows it.
        assert_eq!(column(described[0]), "    --option rounds=10  ".len(), "{text}");
        assert!(text.contains(&format!("\n    --option {long}=1\n")), "{text}");
        assert!(text.starts_with("first        FIRST — 2–4 players\n"), "{text}");
        assert!(text.contains("\n      --option k=1  "), "a variant's parameter is indented: {text}");
    }

    #[test]
    fn a_long_game_name_is_followed_by_its_title() {
        let name = "g".repeat(NAME_COLUMN_MAX + 5);
        let text = table(&[entry("a", vec![], vec![]), entry(&name, vec![], vec![])]);
        assert!(text.starts_with("a  A — 2–4 players\n"), "{text}");
        assert!(text.contains(&format!("{name}  {} — 2–4 players", name.to_uppercase())), "{text}");
    }
}
