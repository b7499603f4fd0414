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

/// What loading reports about a folder (its files, every variant, the lints), the setups the
/// smoke playouts then play (the game, then each variant, with the `--option` values they
/// declare), and (with `extremes`) the parameter bounds still to load: each integer
/// parameter at its declared minimum and maximum.
fn load_all(folder: &Path, options: &[(String, String)], extremes: bool) -> (Vec<Diagnostic>, Vec<Setup>, Vec<Bound>) {
    let declared = load_game(folder, &LoadOptions::default());
    let Some(plain) = declared.game else { return (declared.diagnostics, Vec::new(), Vec::new()) };
    let base_options = options_for(&plain, options);
    // Without `--option` values for it, the game as written is the game played (the same
    // files and options load the same game: it is not loaded twice).
    let (mut diags, game, plain) = if base_options.is_empty() {
        (declared.diagnostics, plain, None)
    } else {
        let base = load_game(folder, &LoadOptions { variants: vec![], options: base_options.clone() });
        let Some(game) = base.game else { return (base.diagnostics, Vec::new(), Vec::new()) };
        (base.diagnostics, game, Some(plain))
    };
    let plain = plain.as_ref().unwrap_or(&game);
    diags.extend(rulebook::lint::lint(&game));
    let mut setups = Vec::new();
    for v in &game.rules.available_variants {
        let variants = vec![v.name.clone()];
        let variant_only = load_game(folder, &LoadOptions { variants: variants.clone(), options: vec![] });
        let v_options = variant_only.game.as_ref().map(|g| options_for(g, options)).unwrap_or_default();
        let (variant_only, loaded) = if v_options.is_empty() {
            (None, variant_only)
        } else {
            (Some(variant_only), load_game(folder, &LoadOptions { variants, options: v_options.clone() }))
        };
        for mut d in loaded.diagnostics {
            d.message = format!("variant `{}`: {}", v.name, d.message);
            diags.push(d);
        }
        // Whether a variant changes anything is a property of the files, not of `--option`
        // values (which may well set what a variant sets): the game and the variant as written.
        if let Some(vg) = variant_only.as_ref().map_or(loaded.game.as_ref(), |only| only.game.as_ref()) {
            diags.extend(rulebook::lint::lint_variant(folder, &v.name, plain, vg));
        }
        if let Some(g) = loaded.game {
            diags.extend(rulebook::lint_numbers::numbers_in_variant_scripts(&game, &g));
            setups.push(Setup { variants: vec![v.name.clone()], options: v_options, leak_check: true, game: g });
        }
    }
    let mut bounds = Vec::new();
    for (key, param) in game.rules.params.iter().filter(|_| extremes) {
        for bound in [param.min, param.max].into_iter().flatten() {
            let value = bound.to_string();
            if base_options.iter().any(|(k, _)| k == key) || param.value.to_string() == value {
                continue;
            }
            let mut options = base_options.clone();
            options.push((key.clone(), value.clone()));
            bounds.push(Bound { key: key.clone(), value, options });
        }
    }
    setups.insert(0, Setup { variants: Vec::new(), options: base_options, leak_check: true, game });
    (diags, setups, bounds)
}

/// One integer parameter at one of its declared bounds, with the `--option` values besides.
struct Bound {
    key: String,
    value: String,
    /// Every `--option` the game is loaded with, this bound last.
    options: Vec<(String, String)>,
}

/// Loads a folder with one parameter at its bound: what it reports, and the setup that
/// checks the range plays.
fn load_bound(folder: &Path, bound: Bound) -> (Vec<Diagnostic>, Option<Setup>) {
    let Bound { key, value, options } = bound;
    let loaded = load_game(folder, &LoadOptions { variants: vec![], options: options.clone() });
    // A bound the game's own `[game] checks` refuse (E0319) is the game saying no on purpose,
    // not a fault of the range.
    let diags = loaded
        .diagnostics
        .into_iter()
        .filter(|d| d.is_error() && d.code != "E0319")
        .map(|mut d| {
            d.message = format!("with --option {key}={value} (its declared bound): {}", d.message);
            d
        })
        .collect();
    (diags, loaded.game.map(|game| Setup { variants: vec![], options, leak_check: false, game }))
}

/// The seed of smoke playout `i` (the leak check plays playout 0's game).
fn smoke_seed(i: u64) -> u64 {
    derive_seed(0x5EED, i)
}

/// One piece of a setup's checks at one player count, run as a task of its own.
#[derive(Clone, Copy)]
enum Part {
    /// Smoke playout `i`.
    Playout(u64),
    /// The leak check, which plays smoke playout 0's game (same seed, same random bots) with a
    /// log and checks every decision: when it plays through, that playout has been played.
    LeakCheck,
}

/// What a part found: a failed playout (reported alone: the later parts would only fail it
/// again), a leak, or nothing.
enum Found {
    Nothing,
    Failed(Box<Diagnostic>),
    Leak(Box<Diagnostic>),
}

/// The parts of one setup at one player count, in report order.
fn parts(setup: &Setup, playouts: u64) -> Vec<Part> {
    // A parameter extreme gets one playout per player count: it checks the range plays.
    let playouts = if setup.leak_check { playouts } else { playouts.min(1) };
    match playouts {
        0 => Vec::new(),
        _ if setup.leak_check => std::iter::once(Part::LeakCheck).chain((1..playouts).map(Part::Playout)).collect(),
        _ => (0..playouts).map(Part::Playout).collect(),
    }
}

/// Runs one part.
fn run_part(folder: &Path, setup: &Setup, players: usize, part: Part) -> Found {
    match part {
        Part::Playout(i) => playout(folder, setup, players, i),
        Part::LeakCheck => match rulebook::leak::check_game(&setup.game, players, smoke_seed(0)) {
            Ok(None) => Found::Nothing,
            Ok(Some(leak)) => Found::Leak(Box::new(leak_warning(folder, setup, players, &leak))),
            // The game itself failed: the playout says where and how. If it plays through
            // without a log, what failed is what only the leak check reads: a seat's view.
            Err(e) => match playout(folder, setup, players, 0) {
                Found::Nothing => Found::Failed(Box::new(leak_check_failed(folder, setup, players, &e))),
                found => found,
            },
        },
    }
}

/// Smoke playout `i` of one setup and player count with random bots.
fn playout(folder: &Path, setup: &Setup, players: usize, i: u64) -> Found {
    let g = &setup.game;
    let seed = smoke_seed(i);
    let Err(f) = play_one(g, players, i, seed, &rulebook::bot::BotTable::default()) else {
        return Found::Nothing;
    };
    Found::Failed(Box::new(
        Diagnostic::error(
            "E0900",
            format!(
                "smoke playout with {players} players{} failed after {} decisions: {}{}",
                setup.describe(),
                f.moves.len(),
                failure_text(&f.error),
                f.moves
                    .last()
                    .map(|m| format!(" (last decision: P{} chose `{}`)", m.player + 1, m.option))
                    .unwrap_or_default()
            ),
        )
        .at(failure_location(setup, &f.error))
        .help(format!(
            "reproduce with: rulebook play {}{} --players {players} --bots {players} --seed {seed}",
            folder.display(),
            setup.flags()
        )),
    ))
}

/// What one setup's parts found, as its report: the first failed playout alone if one
/// failed, else the leak, if any.
fn report(found: impl IntoIterator<Item = Found>) -> Vec<Diagnostic> {
    let mut leak = None;
    for f in found {
        match f {
            Found::Failed(d) => return vec![*d],
            Found::Leak(d) => leak = leak.or(Some(*d)),
            Found::Nothing => {}
        }
    }
    leak.into_iter().collect()
}

/// Every diagnostic of each folder, in folder order. The folders are checked side by side on
/// `jobs` threads, and within each folder its parameter bounds load and its parts run as
/// tasks of their own, so that a thread done with one folder takes work from another (the
/// report is the same for any number).
fn check_all(folders: &[PathBuf], args: &ValidateArgs) -> Vec<Vec<Diagnostic>> {
    let jobs = args.jobs.unwrap_or_else(default_jobs).max(1);
    // A pool even for one thread: the scripts get the stack they need.
    let pool =
        rayon::ThreadPoolBuilder::new().num_threads(jobs).stack_size(rulebook::script::SCRIPT_STACK_BYTES).build();
    let check = |f: &PathBuf| check_folder(f, args);
    let (out, setups): (Vec<Vec<Diagnostic>>, Vec<Vec<Setup>>) = match pool {
        Ok(pool) => pool.install(|| folders.par_iter().map(check).unzip()),
        Err(_) => folders.iter().map(check).unzip(),
    };
    // Freeing every loaded game took a twentieth of the run, after everything else: a thread
    // of its own frees them while the report is printed (the process does not wait for it).
    std::thread::spawn(move || drop(setups));
    out
}

/// Every diagnostic of one folder, and the setups it was played in: loads it, then each of its
/// parameter bounds, then runs the smoke playouts and leak checks of every setup and player
/// count as separate tasks, the costliest first.
fn check_folder(folder: &Path, args: &ValidateArgs) -> (Vec<Diagnostic>, Vec<Setup>) {
    let (mut out, mut setups, bounds) = load_all(folder, &args.options, !args.no_extremes);
    let loaded: Vec<(Vec<Diagnostic>, Option<Setup>)> = bounds.into_par_iter().map(|b| load_bound(folder, b)).collect();
    for (diags, setup) in loaded {
        out.extend(diags);
        setups.extend(setup);
    }
    // One group per setup and player count; one task per part of a group, in report order.
    let groups: Vec<(&Setup, usize)> =
        setups.iter().flat_map(|s| player_counts(s).into_iter().map(move |p| (s, p))).collect();
    let tasks: Vec<(usize, Part)> = groups
        .iter()
        .enumerate()
        .flat_map(|(gi, (s, _))| parts(s, args.playouts).into_iter().map(move |p| (gi, p)))
        .collect();
    // Run long tasks first, so that no thread is left with one at the end while the others
    // idle: a leak check costs a few playouts, and a game grows with its players.
    let cost = |(gi, part): &(usize, Part)| groups[*gi].1 * if matches!(part, Part::LeakCheck) { 4 } else { 1 };
    let mut by_cost: Vec<usize> = (0..tasks.len()).collect();
    by_cost.sort_by_key(|k| std::cmp::Reverse(cost(&tasks[*k])));
    let run = |k: &usize| {
        let (gi, part) = tasks[*k];
        let (setup, players) = groups[gi];
        run_part(folder, setup, players, part)
    };
    let found: Vec<Found> = by_cost.par_iter().map(run).collect();
    let mut in_order: Vec<Option<Found>> = (0..tasks.len()).map(|_| None).collect();
    for (k, f) in by_cost.into_iter().zip(found) {
        in_order[k] = Some(f);
    }
    let mut results = tasks.iter().map(|(gi, _)| *gi).zip(in_order).peekable();
    for gi in 0..groups.len() {
        let mut found = Vec::new();
        while let Some((_, f)) = results.next_if(|(g, _)| *g == gi) {
            found.extend(f);
        }
        out.extend(report(found));
    }
    drop(groups);
    (out, setups)
}

/// Where a failed game points: a script's failure into the script, a flow that never stops
/// at the `[flow]` table, other rule failures at the game file.
fn failure_location(setup: &Setup, error: &rulebook::PlayError) -> Option<Location> {
    match error {
        rulebook::PlayError::Script(e) => e.location.clone(),
        rulebook::PlayError::StepLimit(_) | rulebook::PlayError::DecisionLimit(_) => {
            setup.game.sources.locate_key("flow", "")
        }
        _ => game_file(setup),
    }
}

/// What failed, without the location the diagnostic shows itself.
fn failure_text(error: &rulebook::PlayError) -> String {
    match error {
        rulebook::PlayError::Script(e) => format!("script `{}` failed: {}", e.function, e.message),
        other => other.to_string(),
    }
}

/// Where a diagnostic about a whole setup points: the start of its game file.
fn game_file(setup: &Setup) -> Option<Location> {
    setup.game.sources.files().first().map(|f| Location { file: f.path.clone(), line: 1, column: 1 })
}

/// The leak check's game failing where the smoke playout of the same game did not (a seat's
/// view that cannot be built, which only the leak check reads).
fn leak_check_failed(folder: &Path, setup: &Setup, players: usize, error: &rulebook::PlayError) -> Diagnostic {
    let text = failure_text(error);
    Diagnostic::error("E0900", format!("leak check with {players} players{} failed: {text}", setup.describe()))
        .at(failure_location(setup, error))
        .help(format!(
            "replay with: rulebook play {}{} --players {players} --bots {players} --seed {}",
            folder.display(),
            setup.flags(),
            smoke_seed(0)
        ))
}

/// The leak check's finding as a warning naming what leaked and how to reproduce it.
fn leak_warning(folder: &Path, setup: &Setup, players: usize, leak: &rulebook::leak::Leak) -> Diagnostic {
    Diagnostic::warning(
        "W0007",
        format!("leak with {players} players{} after {} decisions: {}", setup.describe(), leak.decisions, leak.message),
    )
    .at(game_file(setup))
    .help(format!(
        "a seat must learn nothing its zones' visibility hides; replay with: rulebook play {}{} --players {players} --bots {players} --seed {}",
        folder.display(),
        setup.flags(),
        smoke_seed(0)
    ))
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
