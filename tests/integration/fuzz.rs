//! Fuzzing without a nightly toolchain: mutate the bundled games' files and random scenario
//! texts and feed them to the loader, a short playout and the scenario parser; a panic is a
//! bug (the input is written to `target/fuzz-crashes/`). CI runs a few seconds of each; run
//! longer with `FUZZ_SECONDS=600 cargo test --release --test integration fuzz -- --nocapture`.

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
                let big = ["0", "-1", "999999999", "7", "100000000000000000000"][rng.below(5) as usize];
                lines[i] = format!("{}{}{}", &l[..pos], big, &l[pos + 1..]);
            }
        }
        4 => {
            let chars = ['"', '[', ']', '{', '}', '=', ',', '#', '\\', 'x', '\n', ';', '(', ')', '.', 'é'];
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
    let work = std::env::temp_dir().join(format!("rulebook-fuzz-{}", std::process::id()));
    let mut rng = GameRng::new(std::env::var("FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1));
    let started = Instant::now();
    let (mut runs, mut loaded) = (0u64, 0u64);
    while started.elapsed() < budget() {
        let game = &games[rng.below(games.len() as u64) as usize];
        let _ = std::fs::remove_dir_all(&work);
        copy_dir(game, &work);
        let files: Vec<PathBuf> =
            files_of(&work).into_iter().filter(|p| p.extension().is_none_or(|x| x != "scenario")).collect();
        let target = &files[rng.below(files.len() as u64) as usize];
        let original = std::fs::read_to_string(target).unwrap();
        let mut text = original.clone();
        for _ in 0..=rng.below(3) {
            text = mutate(&text, &mut rng);
        }
        std::fs::write(target, &text).unwrap();
        let seed = rng.below(1 << 40);
        let result = std::panic::catch_unwind(|| {
            let l = load_game(&work, &LoadOptions::default());
            if let Some(g) = &l.game {
                let _ = rulebook::sim::play_one(g, g.rules.min_players, 0, seed, "random");
            }
            l.game.is_some()
        });
        runs += 1;
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
    let _ = std::fs::remove_dir_all(&work);
    eprintln!("fuzz_game_loading_and_playouts: {runs} mutated games, {loaded} still loaded, no panic");
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
            if let Ok(file) = rulebook::scenario::parse(&path, &text) {
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
