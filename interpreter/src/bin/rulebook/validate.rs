//! `rulebook validate`: load every game under the paths, check every variant, run smoke
//! playouts, and report every diagnostic.

use crate::cli::{Cli, Format, ValidateArgs};
use rayon::prelude::*;
use rulebook::diag::{Diagnostic, Location};
use rulebook::rng::derive_seed;
use rulebook::sim::play_one;
use rulebook::{load_game, LoadOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Threads `validate` uses unless told: one per core.
fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn game_folders(path: &Path) -> Vec<PathBuf> {
    if path.join("game.toml").is_file() {
        return vec![path.to_path_buf()];
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("game.toml").is_file())
        .collect();
    v.sort();
    v
}

/// One way a game folder is played: its variants applied, loaded.
struct Setup {
    variants: Vec<String>,
    game: rulebook::Game,
}

/// What loading reports about a folder (its files, every variant, the lints), and the setups
/// the smoke playouts then play.
fn load_all(folder: &Path) -> (Vec<Diagnostic>, Vec<Setup>) {
    let base = load_game(folder, &LoadOptions::default());
    let mut diags = base.diagnostics;
    let Some(game) = base.game else { return (diags, Vec::new()) };
    diags.extend(rulebook::lint::lint(&game));
    let mut setups = Vec::new();
    for v in &game.rules.available_variants {
        let loaded = load_game(folder, &LoadOptions { variants: vec![v.name.clone()], options: vec![] });
        for mut d in loaded.diagnostics {
            d.message = format!("variant `{}`: {}", v.name, d.message);
            diags.push(d);
        }
        if let Some(g) = loaded.game {
            diags.extend(rulebook::lint::lint_variant(folder, &v.name, &game, &g));
            diags.extend(rulebook::lint_numbers::numbers_in_variant_scripts(&game, &g));
            setups.push(Setup { variants: vec![v.name.clone()], game: g });
        }
    }
    setups.insert(0, Setup { variants: Vec::new(), game });
    (diags, setups)
}

/// The smoke playouts of one setup and player count, then (if they pass) its leak check.
fn smoke(folder: &Path, setup: &Setup, players: usize, playouts: u64) -> Vec<Diagnostic> {
    let (g, variants) = (&setup.game, &setup.variants);
    let mut diags = Vec::new();
    for i in 0..playouts {
        let seed = derive_seed(0x5EED, i);
        if let Err(f) = play_one(g, players, i, seed, &rulebook::bot::BotTable::default()) {
            let variant_flags: String = variants.iter().map(|v| format!(" --variant {v}")).collect();
            // Script failures point into the script; a flow that never stops at the
            // `[flow]` table; other rule failures at the game file.
            let location = match &f.error {
                rulebook::PlayError::Script(e) => e.location.clone(),
                rulebook::PlayError::StepLimit(_) | rulebook::PlayError::DecisionLimit(_) => {
                    g.sources.locate_key("flow", "")
                }
                _ => g.sources.files().first().map(|f| rulebook::diag::Location {
                    file: f.path.clone(),
                    line: 1,
                    column: 1,
                }),
            };
            diags.push(
                Diagnostic::error(
                    "E0900",
                    format!(
                        "smoke playout with {players} players{} failed after {} decisions: {}{}",
                        if variants.is_empty() { String::new() } else { format!(" ({})", variants.join(", ")) },
                        f.moves.len(),
                        match &f.error {
                            // The location is the diagnostic's own; do not repeat it.
                            rulebook::PlayError::Script(e) => format!("script `{}` failed: {}", e.function, e.message),
                            other => other.to_string(),
                        },
                        f.moves.last().map(|m| format!(" (last decision: P{} chose `{}`)", m.player + 1, m.option)).unwrap_or_default()
                    ),
                )
                .at(location)
                .help(format!("reproduce with: rulebook play {}{variant_flags} --players {players} --bots {players} --seed {seed}", folder.display())),
            );
            // A game that fails is reported here; the leak check would only fail it again.
            return diags;
        }
    }
    if playouts > 0 {
        diags.extend(leak_check(folder, g, variants, players));
    }
    diags
}

/// Every diagnostic of each folder, in folder order: loading is quick and done in turn; the
/// smoke playouts and leak checks of every setup and player count run on `jobs` threads (the
/// report is the same for any number).
fn check_all(folders: &[PathBuf], playouts: u64, jobs: usize) -> Vec<Vec<Diagnostic>> {
    let loaded: Vec<(Vec<Diagnostic>, Vec<Setup>)> = folders.iter().map(|f| load_all(f)).collect();
    let tasks: Vec<(usize, &Setup, usize)> = loaded
        .iter()
        .enumerate()
        .flat_map(|(fi, (_, setups))| {
            setups
                .iter()
                .flat_map(move |s| (s.game.rules.min_players..=s.game.rules.max_players).map(move |p| (fi, s, p)))
        })
        .collect();
    let run = |(fi, setup, players): &(usize, &Setup, usize)| smoke(&folders[*fi], setup, *players, playouts);
    let found: Vec<Vec<Diagnostic>> = match rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .stack_size(rulebook::script::SCRIPT_STACK_BYTES)
        .build()
    {
        Ok(pool) if jobs > 1 => pool.install(|| tasks.par_iter().map(run).collect()),
        _ => tasks.iter().map(run).collect(),
    };
    let folder_of: Vec<usize> = tasks.iter().map(|t| t.0).collect();
    drop(tasks);
    let mut out: Vec<Vec<Diagnostic>> = loaded.into_iter().map(|(d, _)| d).collect();
    for (fi, diags) in folder_of.into_iter().zip(found) {
        out[fi].extend(diags);
    }
    out
}

/// The leak check (`rulebook::leak`) on one seeded game: a warning naming what leaked and
/// how to reproduce it. A game that fails is reported by the smoke playouts instead.
fn leak_check(folder: &Path, g: &rulebook::Game, variants: &[String], players: usize) -> Option<Diagnostic> {
    let seed = rulebook::leak::seed(0);
    let leak = rulebook::leak::check_game(g, players, seed).ok()??;
    let variant_flags: String = variants.iter().map(|v| format!(" --variant {v}")).collect();
    let location =
        g.sources.files().first().map(|f| rulebook::diag::Location { file: f.path.clone(), line: 1, column: 1 });
    Some(
        Diagnostic::warning(
            "W0007",
            format!(
                "leak with {players} players{} after {} decisions: {}",
                if variants.is_empty() { String::new() } else { format!(" ({})", variants.join(", ")) },
                leak.decisions,
                leak.message
            ),
        )
        .at(location)
        .help(format!(
            "a seat must learn nothing its zones' visibility hides; replay with: rulebook play {}{variant_flags} --players {players} --bots {players} --seed {seed}",
            folder.display()
        )),
    )
}

pub fn run(_cli: &Cli, args: &ValidateArgs) -> Result<ExitCode, String> {
    let mut errors = 0;
    let mut warnings = 0;
    for path in &args.paths {
        let folders = game_folders(path);
        if folders.is_empty() {
            let d =
                Diagnostic::error("E0001", format!("no game.toml in `{}` nor in any folder inside it", path.display()))
                    .at(Some(Location { file: path.clone(), line: 1, column: 1 }));
            print_one(args.format, &path.display().to_string(), &d);
            errors += 1;
            continue;
        }
        let reports = check_all(&folders, args.playouts, args.jobs.unwrap_or_else(default_jobs));
        for (folder, diags) in folders.iter().zip(reports) {
            let name = folder.display().to_string();
            for d in &diags {
                print_one(args.format, &name, d);
            }
            let e = diags.iter().filter(|d| d.is_error()).count();
            let w = diags.len() - e;
            errors += e;
            warnings += w;
            if args.format == Format::Human {
                eprintln!(
                    "{name}: {}",
                    if e + w == 0 { "ok".to_string() } else { format!("{e} error(s), {w} warning(s)") }
                );
            }
        }
    }
    let deny_warnings = args.deny.is_some();
    Ok(if errors > 0 || (deny_warnings && warnings > 0) { ExitCode::from(1) } else { ExitCode::SUCCESS }).inspect(
        |_| {
            if args.format == Format::Human && errors + warnings > 0 {
                eprintln!("{errors} error(s), {warnings} warning(s)");
            }
        },
    )
}

fn print_one(format: Format, game: &str, d: &Diagnostic) {
    match format {
        Format::Human => println!("{}\n", crate::report::human(d)),
        Format::Json => println!("{}", crate::report::json(game, d)),
        Format::Github => println!("{}", crate::report::github(d)),
    }
}
