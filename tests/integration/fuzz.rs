//! Fuzzing without a nightly toolchain: mutate the bundled games' files and random scenario
//! texts and feed them to the loader, a short playout and the scenario parser; a panic is a
//! bug (the input is written to `target/fuzz-crashes/`). Besides random edits, the mutations
//! make the attacks of the hardening work: paths out of the game folder, numbers that would
//! allocate without bound, scripts that flood memory, nest values deep or loop in engine
//! functions, and scenario text with control bytes and numbers that overflow. An abort or a
//! hang cannot be caught, so each input is written to `target/fuzz-current/` before it runs
//! (an aborted run leaves it there) and a watchdog aborts a run that takes over a minute.
//! CI runs a few seconds of each; run longer with
//! `FUZZ_SECONDS=600 cargo test --release --test integration fuzz -- --nocapture`.

use rulebook::rng::GameRng;
use rulebook::{load_game, LoadOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn budget() -> Duration {
    Duration::from_secs(std::env::var("FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3))
}

fn crash_dir() -> PathBuf {
    crate::root().join("target/fuzz-crashes")
}

/// Where the input being run is kept until it has run (an abort leaves it there).
fn current_dir() -> PathBuf {
    crate::root().join("target/fuzz-current")
}

/// A file outside every game folder with a marker no diagnostic may ever show.
const SECRET: &str = "RULEBOOK-FUZZ-SECRET-7f3a";

/// A file holding [`SECRET`], outside every game folder; removed when the returned path is
/// dropped.
fn secret_file() -> tempfile::TempPath {
    let p = tempfile::Builder::new().prefix("rulebook-fuzz-secret-").tempfile().unwrap().into_temp_path();
    std::fs::write(&p, format!("{SECRET} = 1\nfn secret() {{ \"{SECRET}\" }}\n")).unwrap();
    p
}

/// Aborts the process if `tick` is not advanced for a minute: a hang is a finding too.
fn watchdog(tick: std::sync::Arc<std::sync::atomic::AtomicU64>) {
    std::thread::spawn(move || {
        let mut last = u64::MAX;
        loop {
            std::thread::sleep(Duration::from_secs(60));
            let now = tick.load(std::sync::atomic::Ordering::Relaxed);
            if now == u64::MAX {
                return;
            }
            if now == last {
                eprintln!("a fuzz input ran for over a minute (a hang); it is in {}", current_dir().display());
                std::process::abort();
            }
            last = now;
        }
    });
}

/// Hostile lines for a game's TOML files: paths that leave the folder, numbers that would
/// allocate without bound or wrap.
fn hostile_toml(secret: &Path) -> Vec<String> {
    vec![
        format!("include = [\"{}\"]", secret.display()),
        "include = [\"../../../../../../../../etc/passwd\"]".into(),
        format!("scripts = [\"{}\"]", secret.display()),
        "scripts = [\"/proc/self/environ\"]".into(),
        "extends = \"../../../../../../..\"".into(),
        "max_players = 1000000000".into(),
        "max_players = 3000".into(),
        "repeat = 4294967297".into(),
        "count = 1000000000".into(),
        "instances = [{ value = { from = 1, to = 1000000000 } }]".into(),
        "max_decisions = 18446744073709551615".into(),
    ]
}

/// Hostile statements put at the start of a script function: each class of script attack.
const HOSTILE_RHAI: &[&str] = &[
    // a log line of 1 MiB, again and again
    "let s = \"x\"; while s.len() < 1000000 { s += s; } loop { game.log(s); }",
    // contexts of 512 KiB pushed for ever
    "let s = \"x\"; while s.len() < 500000 { s += s; } loop { game.run(\"x\", s); }",
    // a map of distinct large strings
    "let s = \"x\"; while s.len() < 500000 { s += s; } let m = #{}; let i = 0; loop { m[\"k\" + i] = s + i; i += 1; }",
    // strings kept in curried function pointers
    "let s = \"x\"; while s.len() < 500000 { s += s; } let f = Fn(\"print\"); let i = 0; loop { f = f.curry(s + i); i += 1; }",
    // a deeply nested value handed to the engine
    "let v = []; for i in 0..3000 { v = [v]; } game.set_var(\"x\", v); game.log(v.to_string());",
    // an engine loop with an unbounded count
    "game.deal(\"deck\", \"hand\", 9223372036854775807);",
    // a large list copied on every operation
    "let a = []; a.pad(99999, 0); loop { let b = a; b[0] = 1; }",
];

/// One hostile edit: a hostile line after a random line of a TOML file, or a hostile statement
/// at the start of a random function of a script.
fn mutate_hostile(text: &str, is_script: bool, secret: &Path, rng: &mut GameRng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if is_script {
        let starts: Vec<usize> =
            (0..lines.len()).filter(|i| lines[*i].trim_start().starts_with("fn ") && lines[*i].contains('{')).collect();
        if starts.is_empty() {
            return text.to_string();
        }
        let at = starts[rng.below(starts.len() as u64) as usize];
        let statement = HOSTILE_RHAI[rng.below(HOSTILE_RHAI.len() as u64) as usize];
        lines.insert(at + 1, statement.to_string());
    } else {
        let hostile = hostile_toml(secret);
        let line = hostile[rng.below(hostile.len() as u64) as usize].clone();
        let at = rng.below(lines.len() as u64 + 1) as usize;
        lines.insert(at, line);
    }
    lines.join("\n")
}

/// Copies a folder tree.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().filter_map(Result::ok) {
        let p = e.path();
        let dest = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// One random edit of a text: delete, duplicate or swap lines, change a number, insert or
/// delete characters, or cut the text short.
fn mutate(text: &str, rng: &mut GameRng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    let n = lines.len() as u64;
    let i = rng.below(n) as usize;
    match rng.below(7) {
        0 => {
            lines.remove(i);
        }
        1 => {
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        2 => {
            let j = rng.below(n) as usize;
            lines.swap(i, j);
        }
        3 => {
            let l = &lines[i];
            if let Some(pos) = l.find(|c: char| c.is_ascii_digit()) {
                let big = ["0", "-1", "999999999", "7", "100000000000000000000", "4294967297", "9223372036854775807"]
                    [rng.below(7) as usize];
                lines[i] = format!("{}{}{}", &l[..pos], big, &l[pos + 1..]);
            }
        }
        4 => {
            let chars =
                ['"', '[', ']', '{', '}', '=', ',', '#', '\\', 'x', '\n', ';', '(', ')', '.', 'é', '\0', '\u{1b}'];
            let c = chars[rng.below(chars.len() as u64) as usize];
            let l = &lines[i];
            let pos = (rng.below(l.len() as u64 + 1) as usize).min(l.len());
            let pos = (0..=pos).rev().find(|p| l.is_char_boundary(*p)).unwrap_or(0);
            lines[i] = format!("{}{}{}", &l[..pos], c, &l[pos..]);
        }
        5 => {
            let l = &lines[i];
            if !l.is_empty() {
                let pos = rng.below(l.len() as u64) as usize;
                if l.is_char_boundary(pos) && l.is_char_boundary(pos + 1) {
                    lines[i] = format!("{}{}", &l[..pos], &l[pos + 1..]);
                }
            }
        }
        _ => lines.truncate(i),
    }
    lines.join("\n")
}

fn files_of(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_of(&p));
        } else if p.extension().is_some_and(|x| x == "toml" || x == "rhai" || x == "scenario") {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn fuzz_game_loading_and_playouts() {
    let games: Vec<PathBuf> = std::fs::read_dir(crate::root().join("games"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("game.toml").is_file() && !p.join("game.toml").to_string_lossy().contains("verplicht"))
        .collect();
    // The mutated game, made afresh in a folder of the scratch folder for each input (a
    // panicking input is copied to the crash folder first).
    let scratch = crate::Scratch::new("fuzz");
    let work = scratch.join("game");
    let secret = secret_file();
    let tick = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    watchdog(tick.clone());
    let mut rng = GameRng::new(std::env::var("FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1));
    let started = Instant::now();
    let (mut runs, mut loaded, mut hostile) = (0u64, 0u64, 0u64);
    while started.elapsed() < budget() {
        let game = &games[rng.below(games.len() as u64) as usize];
        let _ = std::fs::remove_dir_all(&work);
        copy_dir(game, &work);
        let files: Vec<PathBuf> =
            files_of(&work).into_iter().filter(|p| p.extension().is_none_or(|x| x != "scenario")).collect();
        let target = &files[rng.below(files.len() as u64) as usize];
        let original = std::fs::read_to_string(target).unwrap();
        let mut text = original.clone();
        if rng.below(2) == 0 {
            hostile += 1;
            let is_script = target.extension().is_some_and(|x| x == "rhai");
            text = mutate_hostile(&text, is_script, &secret, &mut rng);
            #[cfg(unix)]
            if rng.below(4) == 0 {
                let _ = std::os::unix::fs::symlink(&secret, work.join("linked.rhai"));
            }
        } else {
            for _ in 0..=rng.below(3) {
                text = mutate(&text, &mut rng);
            }
        }
        std::fs::write(target, &text).unwrap();
        let _ = std::fs::remove_dir_all(current_dir());
        copy_dir(&work, &current_dir());
        let seed = rng.below(1 << 40);
        let result = std::panic::catch_unwind(|| {
            let l = load_game(&work, &LoadOptions::default());
            // Nothing of a file outside the game folder may reach a diagnostic.
            for d in &l.diagnostics {
                let text = format!("{} {}", d.message, d.help.clone().unwrap_or_default());
                assert!(!text.contains(SECRET), "a diagnostic shows a file outside the game: {text}");
                let quoted =
                    d.location.as_ref().is_some_and(|loc| loc.file.canonicalize().ok() == secret.canonicalize().ok());
                assert!(!quoted || d.unquoted, "a diagnostic would quote a file outside the game: {d:?}");
            }
            if let Some(g) = &l.game {
                if let Err(f) =
                    rulebook::sim::play_one(g, g.rules.min_players, 0, seed, &rulebook::bot::BotTable::default())
                {
                    assert!(!f.error.to_string().contains(SECRET), "a play error shows a file outside the game");
                }
            }
            l.game.is_some()
        });
        runs += 1;
        tick.store(runs, std::sync::atomic::Ordering::Relaxed);
        match result {
            Ok(ok) => loaded += u64::from(ok),
            Err(_) => {
                let dir = crash_dir().join(format!("load-{runs}"));
                copy_dir(&work, &dir);
                panic!(
                    "the engine panicked on a mutated {} ({}); input saved in {}",
                    game.display(),
                    target.display(),
                    dir.display()
                );
            }
        }
    }
    tick.store(u64::MAX, std::sync::atomic::Ordering::Relaxed);
    let _ = std::fs::remove_dir_all(current_dir());
    eprintln!(
        "fuzz_game_loading_and_playouts: {runs} mutated games ({hostile} with a hostile edit), {loaded} still loaded, no panic"
    );
    assert!(runs > 0);
}

#[test]
fn fuzz_scenario_parser_and_runner() {
    let seeds: Vec<String> = files_of(&crate::root().join("games"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "scenario"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let mut rng = GameRng::new(std::env::var("FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(2));
    let mut runner = rulebook::scenario::Runner::new(crate::rel("games"));
    let started = Instant::now();
    let (mut runs, mut parsed) = (0u64, 0u64);
    let path = crate::rel("games/goofspiel/scenarios/fuzz.scenario");
    while started.elapsed() < budget() {
        let mut text = seeds[rng.below(seeds.len() as u64) as usize].clone();
        for _ in 0..=rng.below(4) {
            text = mutate(&text, &mut rng);
        }
        runs += 1;
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let parsed = rulebook::scenario::parse(&path, &text);
            if let Err(e) = &parsed {
                // What an error quotes is escaped: no raw control bytes reach a terminal.
                assert!(
                    !e.message.chars().any(|c| c.is_control() && c != '\n'),
                    "raw control bytes in: {:?}",
                    e.message
                );
            }
            if let Ok(file) = parsed {
                // Running is part of the surface too (setup lines, expectations on odd input).
                if file.scenarios.len() <= 3 {
                    let _ = runner.run_file(&file);
                }
                true
            } else {
                false
            }
        }));
        match result {
            Ok(ok) => parsed += u64::from(ok),
            Err(_) => {
                std::fs::create_dir_all(crash_dir()).unwrap();
                let out = crash_dir().join(format!("scenario-{runs}.scenario"));
                std::fs::write(&out, &text).unwrap();
                panic!("the scenario parser or runner panicked; input saved in {}", out.display());
            }
        }
    }
    eprintln!("fuzz_scenario_parser_and_runner: {runs} mutated scenario files, {parsed} parsed, no panic");
    assert!(runs > 0);
}
