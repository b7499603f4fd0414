//! Sharded runs: `--shard I/N --out FILE` on each shard, then `rulebook merge` of the files in
//! any order gives, byte for byte, what the run in one piece prints and writes; and merge
//! refuses files that do not make one whole run, saying which and why.

use std::path::Path;
use std::process::{Command, Output};

/// A fresh scratch folder for one test, removed when the guard is dropped.
fn scratch(tag: &str) -> crate::Scratch {
    crate::Scratch::new(&format!("shards-{tag}"))
}

/// Runs the binary in `dir` (a bundled game is found in the source tree's games folder).
fn rulebook_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(args)
        .current_dir(dir)
        .env_remove("RULEBOOK_GAMES")
        .output()
        .unwrap()
}

/// Runs and expects success; returns stdout.
fn ok(dir: &Path, args: &[&str]) -> Vec<u8> {
    let o = rulebook_in(dir, args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    o.stdout
}

/// `1..=n` in a fixed shuffled order (never sorted for n > 1).
fn shuffled(n: u64) -> Vec<u64> {
    let mut order: Vec<u64> = (1..=n).collect();
    let mut x = 0x9e37_79b9_7f4a_7c15_u64 ^ n;
    for i in (1..order.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    if n > 1 && order.windows(2).all(|w| w[0] < w[1]) {
        order.reverse();
    }
    order
}

/// `command` (its words before `--vs`, then `tail`, which may start with `--vs`) played whole
/// and in 1, 2, 3 and 7 shards: every merge, of the shards' files in shuffled order, prints the
/// same JSON and the same report, and writes the same results file and HTML page, as the whole.
fn merges_are_byte_identical(tag: &str, command: &[&str], tail: &[&str], html: bool) {
    let dir = scratch(tag);
    let with =
        |extra: &[&str]| -> Vec<String> { command.iter().chain(extra).chain(tail).map(|s| s.to_string()).collect() };
    let run = |extra: &[&str]| ok(&dir, &with(extra).iter().map(String::as_str).collect::<Vec<_>>());
    let json = run(&["--json", "--out", "whole.results"]);
    let page: &[&str] = if html { &["--html", "whole.html"] } else { &[] };
    let text = run(page);
    let whole = std::fs::read(dir.join("whole.results")).unwrap();
    for n in [1u64, 2, 3, 7] {
        for i in 1..=n {
            let (shard, out) = (format!("{i}/{n}"), format!("{n}-{i}.results"));
            let jobs = if i % 2 == 0 { "2" } else { "1" };
            run(&["--shard", &shard, "--out", &out, "--jobs", jobs]);
        }
        let files: Vec<String> = shuffled(n).iter().map(|i| format!("{n}-{i}.results")).collect();
        let merge = |extra: &[&str]| {
            let mut args = vec!["merge"];
            args.extend(files.iter().map(String::as_str));
            args.extend(extra);
            ok(&dir, &args)
        };
        assert_eq!(merge(&["--json"]), json, "{tag}: {n} shards, JSON");
        let merged_page: &[&str] = if html { &["--html", "merged.html"] } else { &[] };
        let mut extra = vec!["--out", "merged.results"];
        extra.extend(merged_page);
        assert_eq!(merge(&extra), text, "{tag}: {n} shards, report");
        assert!(std::fs::read(dir.join("merged.results")).unwrap() == whole, "{tag}: {n} shards, results file");
        if html {
            let same =
                std::fs::read(dir.join("merged.html")).unwrap() == std::fs::read(dir.join("whole.html")).unwrap();
            assert!(same, "{tag}: {n} shards, HTML page");
        }
    }
}

#[test]
fn simulate_in_shards_merges_into_the_whole_run() {
    merges_are_byte_identical("simulate", &["simulate", "goofspiel", "-p", "3", "-n", "40", "--seed", "3"], &[], false);
}

#[test]
fn balance_in_shards_merges_into_the_whole_run() {
    merges_are_byte_identical(
        "balance",
        &["balance", "goofspiel", "-p", "2", "-n", "40", "--seed", "5"],
        &["--vs", "--variant", "split-ties", "--seed", "6"],
        true,
    );
}

#[test]
fn sweep_in_shards_merges_into_the_whole_run() {
    merges_are_byte_identical(
        "sweep",
        &["sweep", "goofspiel", "-p", "2", "-n", "20", "--option", "cards=4,7", "--measure", "fairness"],
        &[],
        true,
    );
}

#[test]
fn a_shard_plays_only_its_games_and_the_seeds_stay_those_of_the_whole_run() {
    let dir = scratch("slice");
    ok(&dir, &["simulate", "goofspiel", "-p", "2", "-n", "10", "--seed", "1", "--out", "whole.results"]);
    ok(&dir, &["simulate", "goofspiel", "-p", "2", "-n", "10", "--seed", "1", "--shard", "2/3", "--out", "2.results"]);
    let read =
        |name: &str| -> serde_json::Value { serde_json::from_slice(&std::fs::read(dir.join(name)).unwrap()).unwrap() };
    let (whole, shard) = (read("whole.results"), read("2.results"));
    let games = shard["series"][0].as_array().unwrap();
    let indices: Vec<u64> = games.iter().map(|g| g["index"].as_u64().unwrap()).collect();
    assert_eq!(indices, [3, 4, 5], "shard 2 of 3 of ten games: games 3 to 5");
    assert_eq!(games[0], whole["series"][0][3]);
    assert_eq!(shard["shard"], serde_json::json!({"index": 2, "count": 3}));
    assert_eq!(shard["config"], whole["config"]);
}

/// A game folder copied into `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            copy_dir(&p, &to.join(p.file_name().unwrap()));
        } else {
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
}

/// A results file with one change made to its JSON.
fn tampered(dir: &Path, from: &str, to: &str, change: impl Fn(&mut serde_json::Value)) {
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join(from)).unwrap()).unwrap();
    change(&mut v);
    std::fs::write(dir.join(to), serde_json::to_string(&v).unwrap()).unwrap();
}

/// The shard files the refusal test merges in many wrong ways.
fn refusal_fixtures(dir: &Path) {
    let sim = ["simulate", "goofspiel", "-p", "2", "-n", "9"];
    for (seed, shard, out) in [("1", "1/3", "a1.results"), ("1", "2/3", "a2.results"), ("1", "3/3", "a3.results")]
        .into_iter()
        .chain([("2", "2/3", "b2.results"), ("1", "2/2", "c2.results")])
    {
        let mut args = sim.to_vec();
        args.extend(["--seed", seed, "--shard", shard, "--out", out]);
        ok(dir, &args);
    }
    std::fs::copy(dir.join("a1.results"), dir.join("again.results")).unwrap();
    std::fs::write(dir.join("garbage.results"), "these are not results\n").unwrap();
    std::fs::write(dir.join("other.json"), "{\"hello\": 1}\n").unwrap();
    let a1 = std::fs::read(dir.join("a1.results")).unwrap();
    std::fs::write(dir.join("cut.results"), &a1[..300]).unwrap();
    tampered(dir, "a2.results", "renumbered.results", |v| v["series"][0][1]["index"] = 7.into());
    tampered(dir, "a2.results", "winner.results", |v| v["series"][0][0]["winners"] = serde_json::json!([5]));
    tampered(dir, "a2.results", "future.results", |v| v["version"] = 99.into());
    // The same command line over edited game files: the fingerprint tells them apart.
    copy_dir(&crate::root().join("games/goofspiel"), &dir.join("edited"));
    let edited = ["simulate", "edited", "-p", "2", "-n", "9", "--seed", "1", "--shard"];
    ok(dir, &[&edited[..], &["1/2", "--out", "e1.results"]].concat());
    let toml = dir.join("edited/game.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{text}\n# a house rule\n")).unwrap();
    ok(dir, &[&edited[..], &["2/2", "--out", "e2.results"]].concat());
}

/// `"0123456789abcdef"` (a game's fingerprint, which changes with its files) as `"<fingerprint>"`.
fn without_fingerprints(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('"') {
        let (before, after) = rest.split_at(i + 1);
        out.push_str(before);
        let hex = after.get(..17).filter(|h| h.ends_with('"') && h[..16].chars().all(|c| c.is_ascii_hexdigit()));
        rest = match hex {
            Some(_) => {
                out.push_str("<fingerprint>\"");
                &after[17..]
            }
            None => after,
        };
    }
    out.push_str(rest);
    out
}

#[test]
fn merge_refuses_files_that_do_not_make_one_whole_run() {
    let dir = scratch("refusals");
    refusal_fixtures(&dir);
    let cases: &[&[&str]] = &[
        &["merge", "a1.results", "b2.results", "a3.results"],
        &["merge", "a1.results", "c2.results"],
        &["merge", "a2.results", "a1.results", "again.results", "a3.results"],
        &["merge", "a3.results", "a1.results"],
        &["merge", "a1.results"],
        &["merge", "e2.results", "e1.results"],
        &["merge", "garbage.results"],
        &["merge", "other.json"],
        &["merge", "cut.results"],
        &["merge", "future.results"],
        &["merge", "a1.results", "renumbered.results", "a3.results"],
        &["merge", "a1.results", "winner.results", "a3.results"],
        &["merge", "a1.results", "missing.results"],
        &["merge", "a1.results", "a2.results", "a3.results", "--html", "page.html"],
        &["simulate", "goofspiel", "-p", "2", "--shard", "2/3"],
        &["simulate", "goofspiel", "-p", "2", "--shard", "2/3", "--out", "x.results", "--json"],
        &["balance", "goofspiel", "-p", "2", "--shard", "1/2", "--out", "x.results", "--html", "x.html", "--vs"],
        &["balance", "goofspiel", "-p", "2", "--until-decided", "--shard", "1/2", "--out", "x.results", "--vs"],
        &["simulate", "goofspiel", "-p", "2", "--shard", "4/3", "--out", "x.results"],
        &["merge"],
    ];
    let mut report = String::new();
    for args in cases {
        let o = rulebook_in(&dir, args);
        let code = o.status.code().unwrap_or(-1);
        assert!(code == 1 || code == 2, "{args:?} exits with 1 (an error) or 2 (a usage error), not {code}");
        assert!(o.stdout.is_empty(), "{args:?} prints nothing on stdout");
        report.push_str(&format!(
            "$ rulebook {}\nexit {code}\n{}\n",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    assert!(!dir.join("x.results").exists(), "a refused shard writes no results");
    insta::assert_snapshot!(without_fingerprints(&report));
}

#[test]
fn a_balance_run_until_decided_writes_a_whole_results_file_that_merges_to_its_report() {
    let dir = scratch("until");
    let run = [
        "balance",
        "goofspiel",
        "-p",
        "2",
        "-n",
        "3000",
        "--seed",
        "5",
        "--until-decided",
        "--measure",
        "score:P1",
        "--margin",
        "1",
        "--json",
        "--out",
        "whole.results",
        "--vs",
        "--variant",
        "split-ties",
    ];
    let json = ok(&dir, &run);
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(v["sequential"]["pairs"].as_u64().unwrap() < 3000, "the test decided before the game limit");
    assert_eq!(ok(&dir, &["merge", "whole.results", "--json"]), json);
}
