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

/// One way a game folder is played: its variants and options applied, loaded.
struct Setup {
    variants: Vec<String>,
    options: Vec<(String, String)>,
    /// Whether the leak check runs too (not for the parameter extremes: they only check that
    /// the declared range plays).
    leak_check: bool,
    game: rulebook::Game,
}

impl Setup {
    /// The flags that give this setup on the command line (` --variant V --option K=V`).
    fn flags(&self) -> String {
        let variants = self.variants.iter().map(|v| format!(" --variant {v}"));
        variants.chain(self.options.iter().map(|(k, v)| format!(" --option {k}={v}"))).collect()
    }

    /// The setup in a message: ` (V, K=V)`, or nothing for the game as it comes.
    fn describe(&self) -> String {
        let parts: Vec<String> =
            self.variants.iter().cloned().chain(self.options.iter().map(|(k, v)| format!("{k}={v}"))).collect();
        match (parts.is_empty(), self.leak_check) {
            (true, _) => String::new(),
            (false, true) => format!(" ({})", parts.join(", ")),
            (false, false) => format!(" ({}: the bound the parameter declares)", parts.join(", ")),
        }
    }
}

/// The player counts a setup is played with: every count the game allows, but only the
/// fewest and the most for a parameter extreme.
fn player_counts(setup: &Setup) -> Vec<usize> {
    let r = &setup.game.rules;
    // Counts the game's own `[game] checks` refuse with these parameters are not played.
    let allowed: Vec<usize> =
        (r.min_players..=r.max_players).filter(|n| r.player_checks.iter().all(|c| c.holds(&r.params, *n))).collect();
    match (setup.leak_check, allowed.first(), allowed.last()) {
        (false, Some(lo), Some(hi)) if hi > lo => vec![*lo, *hi],
        _ => allowed,
    }
}

/// The `--option` values a setup takes: those whose parameter the loaded game declares.
fn options_for(game: &rulebook::Game, options: &[(String, String)]) -> Vec<(String, String)> {
    options.iter().filter(|(k, _)| game.rules.params.contains_key(k)).cloned().collect()
}

/// What loading reports about a folder (its files, every variant, the lints), and the setups
/// the smoke playouts then play: the game and each variant with the `--option` values they
/// declare, then (with `extremes`) the game with each integer parameter at its declared
/// minimum and maximum.
fn load_all(folder: &Path, options: &[(String, String)], extremes: bool) -> (Vec<Diagnostic>, Vec<Setup>) {
    let declared = load_game(folder, &LoadOptions::default());
    let Some(plain) = declared.game else { return (declared.diagnostics, Vec::new()) };
    let base_options = options_for(&plain, options);
    let base = load_game(folder, &LoadOptions { variants: vec![], options: base_options.clone() });
    let mut diags = base.diagnostics;
    let Some(game) = base.game else { return (diags, Vec::new()) };
    diags.extend(rulebook::lint::lint(&game));
    let mut setups = Vec::new();
    for v in &game.rules.available_variants {
        let variant_only = load_game(folder, &LoadOptions { variants: vec![v.name.clone()], options: vec![] });
        let v_options = variant_only.game.as_ref().map(|g| options_for(g, options)).unwrap_or_default();
        let loaded = load_game(folder, &LoadOptions { variants: vec![v.name.clone()], options: v_options.clone() });
        for mut d in loaded.diagnostics {
            d.message = format!("variant `{}`: {}", v.name, d.message);
            diags.push(d);
        }
        // Whether a variant changes anything is a property of the files, not of `--option`
        // values (which may well set what a variant sets): the game and the variant as written.
        if let Some(vg) = variant_only.game.as_ref() {
            diags.extend(rulebook::lint::lint_variant(folder, &v.name, &plain, vg));
        }
        if let Some(g) = loaded.game {
            diags.extend(rulebook::lint_numbers::numbers_in_variant_scripts(&game, &g));
            setups.push(Setup { variants: vec![v.name.clone()], options: v_options, leak_check: true, game: g });
        }
    }
    if extremes {
        for (key, param) in &game.rules.params {
            for bound in [param.min, param.max].into_iter().flatten() {
                let value = bound.to_string();
                if base_options.iter().any(|(k, _)| k == key) || param.value.to_string() == value {
                    continue;
                }
                let mut opts = base_options.clone();
                opts.push((key.clone(), value.clone()));
                let loaded = load_game(folder, &LoadOptions { variants: vec![], options: opts.clone() });
                // A bound the game's own `[game] checks` refuse (E0319) is the game saying no
                // on purpose, not a fault of the range.
                for mut d in loaded.diagnostics.into_iter().filter(|d| d.is_error() && d.code != "E0319") {
                    d.message = format!("with --option {key}={value} (its declared bound): {}", d.message);
                    diags.push(d);
                }
                if let Some(g) = loaded.game {
                    setups.push(Setup { variants: vec![], options: opts, leak_check: false, game: g });
                }
            }
        }
    }
    setups.insert(0, Setup { variants: Vec::new(), options: base_options, leak_check: true, game });
    (diags, setups)
}

/// The smoke playouts of one setup and player count, then (if they pass) its leak check.
fn smoke(folder: &Path, setup: &Setup, players: usize, playouts: u64) -> Vec<Diagnostic> {
    let g = &setup.game;
    let mut diags = Vec::new();
    for i in 0..playouts {
        let seed = derive_seed(0x5EED, i);
        if let Err(f) = play_one(g, players, i, seed, &rulebook::bot::BotTable::default()) {
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
                        setup.describe(),
                        f.moves.len(),
                        match &f.error {
                            // The location is the diagnostic's own; do not repeat it.
                            rulebook::PlayError::Script(e) => format!("script `{}` failed: {}", e.function, e.message),
                            other => other.to_string(),
                        },
                        f.moves
                            .last()
                            .map(|m| format!(" (last decision: P{} chose `{}`)", m.player + 1, m.option))
                            .unwrap_or_default()
                    ),
                )
                .at(location)
                .help(format!(
                    "reproduce with: rulebook play {}{} --players {players} --bots {players} --seed {seed}",
                    folder.display(),
                    setup.flags()
                )),
            );
            // A game that fails is reported here; the leak check would only fail it again.
            return diags;
        }
    }
    if playouts > 0 && setup.leak_check {
        diags.extend(leak_check(folder, setup, players));
    }
    diags
}

/// Every diagnostic of each folder, in folder order: loading is quick and done in turn; the
/// smoke playouts and leak checks of every setup and player count run on `jobs` threads (the
/// report is the same for any number).
fn check_all(folders: &[PathBuf], args: &ValidateArgs) -> Vec<Vec<Diagnostic>> {
    let (playouts, jobs) = (args.playouts, args.jobs.unwrap_or_else(default_jobs));
    let load = |f: &PathBuf| load_all(f, &args.options, !args.no_extremes);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .stack_size(rulebook::script::SCRIPT_STACK_BYTES)
        .build()
        .ok()
        .filter(|_| jobs > 1);
    let loaded: Vec<(Vec<Diagnostic>, Vec<Setup>)> = match &pool {
        Some(pool) => pool.install(|| folders.par_iter().map(load).collect()),
        None => folders.iter().map(load).collect(),
    };
    let tasks: Vec<(usize, &Setup, usize)> = loaded
        .iter()
        .enumerate()
        .flat_map(|(fi, (_, setups))| {
            setups.iter().flat_map(move |s| player_counts(s).into_iter().map(move |p| (fi, s, p)))
        })
        .collect();
    // A parameter extreme gets one playout per player count: it checks the range plays.
    let run = |(fi, setup, players): &(usize, &Setup, usize)| {
        smoke(&folders[*fi], setup, *players, if setup.leak_check { playouts } else { playouts.min(1) })
    };
    let found: Vec<Vec<Diagnostic>> = match &pool {
        Some(pool) => pool.install(|| tasks.par_iter().map(run).collect()),
        None => tasks.iter().map(run).collect(),
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
fn leak_check(folder: &Path, setup: &Setup, players: usize) -> Option<Diagnostic> {
    let g = &setup.game;
    let seed = rulebook::leak::seed(0);
    let leak = rulebook::leak::check_game(g, players, seed).ok()??;
    let location =
        g.sources.files().first().map(|f| rulebook::diag::Location { file: f.path.clone(), line: 1, column: 1 });
    Some(
        Diagnostic::warning(
            "W0007",
            format!(
                "leak with {players} players{} after {} decisions: {}",
                setup.describe(),
                leak.decisions,
                leak.message
            ),
        )
        .at(location)
        .help(format!(
            "a seat must learn nothing its zones' visibility hides; replay with: rulebook play {}{} --players {players} --bots {players} --seed {seed}",
            folder.display(),
            setup.flags()
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
        check_options_are_declared(&folders, &args.options)?;
        let reports = check_all(&folders, args);
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

/// Refuses an `--option` that no game under the path (nor any of its variants) declares.
fn check_options_are_declared(folders: &[PathBuf], options: &[(String, String)]) -> Result<(), String> {
    for (key, _) in options {
        let declared = folders.iter().any(|f| {
            let Some(game) = load_game(f, &LoadOptions::default()).game else { return true };
            game.rules.params.contains_key(key)
                || game.rules.available_variants.iter().any(|v| {
                    load_game(f, &LoadOptions { variants: vec![v.name.clone()], options: vec![] })
                        .game
                        .is_some_and(|g| g.rules.params.contains_key(key))
                })
        });
        if !declared {
            return Err(format!(
                "--option {key}: no game here declares a parameter `{key}` (see `rulebook list` for each game's options)"
            ));
        }
    }
    Ok(())
}

fn print_one(format: Format, game: &str, d: &Diagnostic) {
    match format {
        Format::Human => println!("{}\n", crate::report::human(d)),
        Format::Json => println!("{}", crate::report::json(game, d)),
        Format::Github => println!("{}", crate::report::github(d)),
    }
}
