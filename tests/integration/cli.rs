//! The `rulebook` command line, run as a user would.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn rulebook(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rulebook")).args(args).current_dir(crate::root()).output().unwrap()
}

/// `rulebook ARGS` started with its standard input, output and error piped.
fn spawn_piped(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(args)
        .current_dir(crate::root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn with_input(args: &[&str], input: &str) -> Output {
    let mut child = spawn_piped(args);
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// Brief, non-negotiable 4 (never a panic): a game played into a pipe whose reader has gone
/// (`rulebook play ... | head`) ends at its next line without a panic, as Unix tools do.
#[test]
fn play_ends_quietly_when_its_output_pipe_closes() {
    let mut child = spawn_piped(&["play", "games/goofspiel", "--players", "2", "--seed", "1"]);
    // The reader goes before the game reads its first line, so a line it prints after that
    // finds the pipe closed. The game may already be gone when the input is written.
    drop(child.stdout.take());
    let _ = child.stdin.take().unwrap().write_all(b"view\nview\nquit\n");
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

#[test]
fn list_shows_goofspiel_with_its_variants() {
    let o = rulebook(&["list"]);
    assert!(o.status.success());
    let out = text(&o.stdout);
    assert!(out.contains("goofspiel") && out.contains("2–8 players"), "{out}");
    assert!(out.contains("Liar's Dice — 2 players\n"), "a fixed count is one number: {out}");
    assert!(out.contains("--variant rollover"), "{out}");
    assert!(out.contains("--option cards=13"), "{out}");
    // One description column for every game: where the description of each flag line starts
    // (a flag too long for the column stands alone, its description on the next line).
    let columns: Vec<usize> = out
        .lines()
        .filter(|l| l.starts_with("    "))
        .filter_map(|l| {
            let flag = l.len() - l.trim_start().len();
            let start = if l[flag..].starts_with("--") { flag + l[flag..].find("  ")? } else { 0 };
            Some(start + l[start..].find(|c: char| c != ' ')?)
        })
        .collect();
    assert!(columns.len() > 10 && columns.iter().all(|c| *c == columns[0]), "{columns:?}\n{out}");
}

#[test]
fn simulate_json_is_the_same_on_every_run_and_with_any_jobs() {
    let args = ["simulate", "goofspiel", "--players", "2", "--games", "300", "--seed", "7", "--json"];
    let one = rulebook(&args);
    assert!(one.status.success(), "{}", text(&one.stderr));
    let again = rulebook(&args);
    let mut parallel_args = args.to_vec();
    parallel_args.extend(["--jobs", "2"]);
    let parallel = rulebook(&parallel_args);
    assert_eq!(one.stdout, again.stdout);
    assert_eq!(one.stdout, parallel.stdout);
    let v: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(v["games"], 300);
    assert_eq!(v["length"]["mean"], 26.0);
    let wins: u64 = v["wins_by_seat"].as_array().unwrap().iter().map(|w| w.as_u64().unwrap()).sum();
    assert!(wins >= 300 - v["no_winner"].as_u64().unwrap());
}

/// The calls of one function in one of `--profile`'s tables (the one after `title`).
fn profiled_calls(profile: &str, title: &str, function: &str) -> Option<u64> {
    let table = profile.split(title).nth(1)?;
    let table = table.split("\n\n").next()?;
    let row = table.lines().find(|l| l.split_whitespace().next() == Some(function))?;
    row.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn simulate_profile_shows_the_functions_scripts_call_too() {
    let o = rulebook(&["simulate", "mille-grazie", "--players", "3", "--games", "2", "--jobs", "2", "--profile"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    let calls = |title, f| profiled_calls(&err, title, f).unwrap_or_else(|| panic!("no `{f}` under `{title}`:\n{err}"));
    // The engine asks `journey_goes_on` before each road (and `travel_options` once per road
    // decision); a call with roads left asks `unused_road_left`, a function only scripts call.
    let options = calls("script function", "travel_options");
    let goes_on = calls("script function", "journey_goes_on");
    let left = calls("called by scripts", "unused_road_left");
    assert!(options > 0 && goes_on >= options && left > 0 && left <= goes_on, "{err}");
    assert!(profiled_calls(&err, "script function", "unused_road_left").is_none(), "{err}");
}

#[test]
fn simulate_refuses_a_bad_player_count() {
    let o = rulebook(&["simulate", "goofspiel", "--players", "9", "--games", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("2–8 players, not 9"));
}

#[test]
fn validate_accepts_goofspiel_and_rejects_broken_games() {
    let ok = rulebook(&["validate", "games/goofspiel"]);
    assert!(ok.status.success(), "{}{}", text(&ok.stdout), text(&ok.stderr));
    let bad = rulebook(&["validate", "tests/bad-input/missing-zone", "tests/bad-input/rhai-syntax"]);
    assert_eq!(bad.status.code(), Some(1));
    let out = text(&bad.stdout);
    assert!(out.contains("error[E0310]: unknown zone `hnad` (did you mean `hand`?)"), "{out}");
    assert!(out.contains("--> tests/bad-input/missing-zone/game.toml:9:8"), "{out}");
    assert!(out.contains("--> tests/bad-input/rhai-syntax/rules.rhai:2:13"), "{out}");
    let github = rulebook(&["validate", "--format", "github", "tests/bad-input/missing-zone"]);
    assert_eq!(
        text(&github.stdout).lines().next().unwrap(),
        "::error file=tests/bad-input/missing-zone/game.toml,line=9,col=8,title=E0310::unknown zone `hnad` (did you mean `hand`?)"
    );
    let json = rulebook(&["validate", "--format", "json", "tests/bad-input/missing-zone"]);
    let line: serde_json::Value = serde_json::from_str(text(&json.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(line["code"], "E0310");
    assert_eq!(line["line"], 9);
    assert_eq!(line["column"], 8);
}

#[test]
fn validate_reports_a_smoke_playout_failure_with_its_seed() {
    let o = rulebook(&["validate", "tests/fixtures/failing-reveal"]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(out.contains("E0900") && out.contains("--seed"), "{out}");
}

#[test]
fn play_against_a_bot_to_the_end() {
    // Always bid the first card offered: `#1`, since the cards are named by numbers.
    let o = with_input(&["play", "goofspiel", "--players", "2", "--bots", "1", "--seed", "3"], &"#1\n".repeat(13));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("game over"), "{out}");
    assert!(!out.contains("P2 committed 1"), "the bot's bid leaked");
}

#[test]
fn an_illegal_option_typed_in_play_is_explained() {
    let o = with_input(&["play", "goofspiel", "--players", "2", "--bots", "1", "--seed", "3"], "p2-4\n");
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("`p2-4` is not a legal option for P1 in `bid`"), "{err}");
}

#[test]
fn a_typed_number_is_an_id_or_label_and_hash_n_a_place_in_the_list() {
    // The fixture's bids are options with ids 0 to 4 ("0 chips" ... "4 chips"): `1` is the
    // option with id 1 (the second in the list), `#1` the first in the list (id 0).
    let game = ["play", "tests/fixtures/dice-bid", "--players", "2", "--seed", "1", "--option", "rounds=1"];
    let o = with_input(&game, "1\n#1\n");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("bid revealed: P1 1 chips, P2 0 chips"), "{out}");
    assert!(out.contains(" #1) 0 chips [0]") && out.contains(" #5) 4 chips [4]"), "numbered with #: {out}");
    assert!(out.contains("#N is the Nth option in the list"), "the rule is shown: {out}");
    // `5` names no option here (ids 0 to 4): it is refused, never read as a place in the list.
    let o = with_input(&game, "5\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("`5` is not a legal option for P1 in `bid`"), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("type #5 for place 5 in the list"), "{}", text(&o.stderr));
    let o = with_input(&game, "#6\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("there is no option #6: the list has #1 to #5"), "{}", text(&o.stderr));
    // Where no option is named by a number, the list is numbered plainly and `2` is the
    // second option (the fixture's roads, named by their ids).
    let o = with_input(&["play", "tests/fixtures/graph-walk", "--players", "2", "--seed", "1"], "2\n#1\n1\n1\n");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("  1) ab (green) to B [ab]") && !out.contains("#1) ab"), "{out}");
    assert!(out.contains("P1 chose ad (red) to D") && out.contains("P2 chose ab (green) to B"), "{out}");
}

#[test]
fn hot_seat_hides_each_players_bid() {
    let o = with_input(
        &["play", "goofspiel", "--players", "2", "--seed", "4", "--option", "cards=2"],
        "p1-2\np2-1\n1\n2\n",
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    // Everything printed before the first reveal: P1's turn, then P2's screen.
    let before_reveal = out.split("bid revealed").next().unwrap();
    assert!(before_reveal.contains("P2 to play"), "{out}");
    assert!(before_reveal.contains("P1 committed (bid)"), "{out}");
    assert!(!before_reveal.contains("P1 committed 2"), "P1's bid leaked to the table: {out}");
    let p2_screen = before_reveal.split("P2 to play").nth(1).unwrap();
    assert!(p2_screen.contains("hand (P1)                2 face down") || p2_screen.contains("hand (P1)"), "{out}");
    assert!(!p2_screen.contains("you committed"), "{out}");
    assert!(out.contains("bid revealed: P1 2, P2 1"), "{out}");
}

#[test]
fn unknown_game_and_option_errors_are_clear() {
    let o = rulebook(&["simulate", "goofspeil", "--players", "2"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("no game `goofspeil`"));
    let o = rulebook(&["simulate", "goofspiel", "--players", "2", "--option", "card=3"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("unknown parameter `card` (did you mean `cards`?)"), "{}", text(&o.stderr));
}

#[test]
fn validate_plays_a_chosen_option_and_refuses_one_no_game_declares() {
    let o = rulebook(&["validate", "--deny", "warnings", "--option", "cards=5", "games/goofspiel"]);
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    let o = rulebook(&["validate", "--option", "cards=99", "games/goofspiel"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stdout).contains("cards=99: must be between 1 and 30"), "{}", text(&o.stdout));
    let o = rulebook(&["validate", "--option", "nosuch=6", "games/goofspiel"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("no game here declares a parameter `nosuch`"), "{}", text(&o.stderr));
    // The declared bounds are played too (tests/bad-input/param-bound-breaks fails at its max);
    // --no-extremes leaves them out.
    let o = rulebook(&["validate", "--no-extremes", "tests/bad-input/param-bound-breaks"]);
    assert!(o.status.success(), "{}", text(&o.stdout));
}

#[test]
fn test_runs_the_bundled_scenarios_and_counts_them() {
    let o = rulebook(&["test", "games/goofspiel"]);
    assert!(o.status.success(), "{}", text(&o.stdout));
    let out = text(&o.stdout);
    let last = out.lines().last().unwrap();
    assert!(last.ends_with("passed, 0 failed"), "{out}");
}

/// Copies a folder tree (game folders are small).
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn a_scenario_naming_its_own_game_runs_from_a_folder_outside_the_games() {
    // A game folder copied elsewhere, run from a directory with no ./games: its scenarios say
    // `game goofspiel`, which names the folder they are in.
    let dir = crate::Scratch::new("elsewhere");
    copy_tree(&crate::root().join("games/goofspiel"), &dir.join("collection/goofspiel"));
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_rulebook"))
            .args(args)
            .current_dir(&dir)
            .env_remove("RULEBOOK_GAMES")
            .output()
            .unwrap()
    };
    let o = run(&["test", "--games-dir", "nowhere", "collection/goofspiel"]);
    assert!(o.status.success(), "{}", text(&o.stdout));
    // A name that is nowhere: the message says where it looked, in a user's words.
    std::fs::write(
        dir.join("collection/goofspiel/scenarios/lost.scenario"),
        "game nosuch\nplayers 2\n\nscenario \"lost\" {\n}\n",
    )
    .unwrap();
    let o = run(&["test", "--games-dir", "nowhere", "collection/goofspiel/scenarios/lost.scenario"]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(out.contains("no game `nosuch` (this scenario is in the game folder"), "{out}");
    assert!(out.contains("rulebook test --games-dir DIR") && !out.contains("interpreter"), "{out}");
}

#[test]
fn test_reports_a_changed_expectation_with_its_line() {
    let dir = crate::Scratch::new("test");
    let original = std::fs::read_to_string(crate::root().join("games/goofspiel/scenarios/rules.scenario")).unwrap();
    let changed = original.replacen("expect track score P1 = 4", "expect track score P1 = 5", 1);
    let line = changed.lines().position(|l| l.contains("expect track score P1 = 5")).unwrap() + 1;
    let file = dir.join("changed.scenario");
    std::fs::write(&file, changed).unwrap();
    let o = rulebook(&["test", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(out.contains(&format!("changed.scenario:{line}: expected track score P1 = 5, got 4")), "{out}");
    assert!(out.lines().last().unwrap().ends_with("1 failed"), "{out}");
}

#[test]
fn recorded_games_replay_and_an_altered_decision_is_named() {
    // A folder `--record` makes (it does not exist before).
    let scratch = crate::Scratch::new("rec");
    let dir = scratch.join("records");
    let o = rulebook(&[
        "simulate",
        "goofspiel",
        "--players",
        "3",
        "--games",
        "5",
        "--seed",
        "1",
        "--record",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert_eq!(files.len(), 5);
    for f in &files {
        let r = rulebook(&["replay", f.to_str().unwrap()]);
        assert!(r.status.success(), "{}: {}", f.display(), text(&r.stderr));
    }
    // Replace P1's first bid by a card P1 bids later: that later decision becomes illegal.
    let t = std::fs::read_to_string(&files[0]).unwrap();
    let bids: Vec<&str> = t
        .lines()
        .filter(|l| l.trim_start().starts_with("P1 chooses"))
        .map(|l| l.split_whitespace().nth(2).unwrap())
        .collect();
    let (first, later) = (bids[0], bids[1]);
    let altered = t.replacen(&format!("P1 chooses {first} "), &format!("P1 chooses {later} "), 1);
    let later_line =
        altered.lines().enumerate().filter(|(_, l)| l.contains(&format!("P1 chooses {later} "))).nth(1).unwrap().0 + 1;
    std::fs::write(&files[0], altered).unwrap();
    let r = rulebook(&["replay", files[0].to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(1));
    let err = text(&r.stderr);
    assert!(err.contains(&format!(":{later_line}: P1 chooses {later}: `{later}` is not a legal option")), "{err}");
    // A truncated transcript fails at its end.
    let cut: String = t.lines().take(10).chain(["    expect hash \"0\"", "}"]).collect::<Vec<_>>().join("\n");
    std::fs::write(&files[1], cut).unwrap();
    let r = rulebook(&["replay", files[1].to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(1));
}

#[test]
fn replay_prints_the_log_redacted_for_a_seat() {
    let dir = crate::Scratch::new("play");
    let file = dir.join("game.transcript");
    let o = with_input(
        &[
            "play",
            "goofspiel",
            "--players",
            "2",
            "--bots",
            "1",
            "--seed",
            "5",
            "--option",
            "cards=3",
            "--record",
            file.to_str().unwrap(),
        ],
        "#1\n#1\n#1\n",
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let full = rulebook(&["replay", file.to_str().unwrap(), "--log"]);
    assert!(full.status.success(), "{}", text(&full.stderr));
    let as_p1 = rulebook(&["replay", file.to_str().unwrap(), "--log", "--as", "P1"]);
    let full_log = text(&full.stdout);
    let p1_log = text(&as_p1.stdout);
    assert!(full_log.lines().any(|l| l.starts_with("P2 committed ") && l != "P2 committed (bid)"), "{full_log}");
    assert!(p1_log.lines().all(|l| !l.starts_with("P2 committed ") || l == "P2 committed (bid)"), "{p1_log}");
}

#[test]
fn committed_schemas_match_the_engine() {
    use rulebook::schema::{schema_json, SchemaKind};
    for kind in [SchemaKind::Game, SchemaKind::Variant] {
        let committed = std::fs::read_to_string(crate::root().join("schemas").join(kind.file_name())).unwrap();
        assert!(
            committed == schema_json(kind),
            "schemas/{} is out of date: run `rulebook schema --write schemas`",
            kind.file_name()
        );
    }
    let o = rulebook(&["schema", "variant"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(v["title"], "Rulebook variant file");
    assert_eq!(v["definitions"]["ZoneDef"]["additionalProperties"], false);
}

#[test]
fn every_bundled_toml_file_names_its_schema() {
    let mut missing = Vec::new();
    let mut dirs = vec![crate::root().join("games")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "toml") {
                let first = std::fs::read_to_string(&p).unwrap().lines().next().unwrap_or_default().to_string();
                let want = if p.parent().is_some_and(|d| d.ends_with("variants")) {
                    "variant.schema.json"
                } else {
                    "game.schema.json"
                };
                if !(first.starts_with("#:schema ") && first.ends_with(want)) {
                    missing.push(p.display().to_string());
                }
            }
        }
    }
    assert!(missing.is_empty(), "these files do not start with a `#:schema` line: {missing:?}");
}

#[test]
fn script_api_reference_is_generated_and_complete() {
    let committed = std::fs::read_to_string(crate::root().join("games/SCRIPT_API.md")).unwrap();
    assert!(
        committed == rulebook::api_doc::markdown(),
        "games/SCRIPT_API.md is out of date: run `rulebook api > games/SCRIPT_API.md`"
    );
    let entries = rulebook::api_doc::entries();
    assert!(entries.len() >= 60, "{}", entries.len());
    let undocumented: Vec<&str> = entries.iter().filter(|e| e.doc.is_empty()).map(|e| e.call.as_str()).collect();
    assert!(undocumented.is_empty(), "undocumented script functions: {undocumented:?}");
}

#[test]
fn every_diagnostic_code_is_explained() {
    let page = std::fs::read_to_string(crate::root().join("games/DIAGNOSTICS.md")).unwrap();
    let mut missing = Vec::new();
    let mut dirs = vec![crate::root().join("interpreter/src")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                for (i, _) in text.match_indices("\"E0").chain(text.match_indices("\"W0")) {
                    let code = &text[i + 1..i + 6];
                    if code[1..].chars().all(|c| c.is_ascii_digit()) && !page.contains(&format!("| {code} |")) {
                        missing.push(code.to_string());
                    }
                }
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(missing.is_empty(), "codes missing from games/DIAGNOSTICS.md: {missing:?}");
}

/// Copies a bundled game into a temporary folder for a test to break (removed when the guard
/// is dropped).
fn copy_of(game: &str, tag: &str) -> crate::Scratch {
    fn copy(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().filter_map(Result::ok) {
            let dest = to.join(e.file_name());
            if e.path().is_dir() {
                copy(&e.path(), &dest);
            } else {
                std::fs::copy(e.path(), dest).unwrap();
            }
        }
    }
    let to = crate::Scratch::new(&format!("copy-{tag}"));
    copy(&crate::root().join("games").join(game), &to);
    to
}

#[test]
fn faults_injected_into_a_bundled_game_are_located() {
    type Fault = (&'static str, &'static str, fn(&str) -> String, &'static str);
    let faults: [Fault; 5] = [
        ("syntax", "game.toml", |t| t.replacen("min_players = 2", "min_players = = 2", 1), "E0100"),
        (
            "unknown-key",
            "game.toml",
            |t| t.replacen("per_player = true\nordered", "per_playr = true\nordered", 1),
            "E0102",
        ),
        ("dangling", "game.toml", |t| t.replacen("from = \"hand\"", "from = \"hands\"", 1), "E0310"),
        ("rhai-syntax", "rules.rhai", |t| t.replacen("let best = -1;", "let best = ;", 1), "E0200"),
        (
            "endless-loop",
            "rules.rhai",
            |t| t.replacen("let prize = game.top(\"prize\");", "let prize = game.top(\"prize\"); loop {}", 1),
            "E0900",
        ),
    ];
    for (tag, file, edit, code) in faults {
        let dir = copy_of("goofspiel", tag);
        let path = dir.join(file);
        let original = std::fs::read_to_string(&path).unwrap();
        let broken = edit(&original);
        assert_ne!(original, broken, "{tag}: the fault was not injected");
        std::fs::write(&path, broken).unwrap();
        let args = ["validate", "--format", "json", dir.to_str().unwrap()];
        let started = std::time::Instant::now();
        let o = rulebook(&args);
        assert_eq!(o.status.code(), Some(1), "{tag}");
        let out = text(&o.stdout);
        let first: serde_json::Value = serde_json::from_str(
            out.lines().find(|l| l.contains(code)).unwrap_or_else(|| panic!("{tag}: no {code}: {out}")),
        )
        .unwrap();
        assert!(first["line"].as_u64().is_some() && first["file"].as_str().is_some(), "{tag}: not located: {first}");
        // A generous bound that only catches a hang (the loop is stopped by its operation budget).
        assert!(started.elapsed().as_secs() < 120, "{tag} took {:?}", started.elapsed());
    }
}

#[test]
fn balance_compares_two_configurations_on_the_same_seeds() {
    let o = rulebook(&["balance", "goofspiel", "-p", "2", "-n", "300", "--json", "--vs", "--variant", "split-ties"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["a"]["config"], "(as it comes)");
    assert_eq!(v["b"]["config"], "--variant split-ties");
    let diff = |name: &str| v["differences"].as_array().unwrap().iter().find(|d| d["measure"] == name).unwrap().clone();
    // Split ties share a tied prize instead of discarding it: every seat scores more, and the
    // same seeds and bids decide the same winners.
    let score = diff("P1 score");
    assert!(score["difference"].as_f64().unwrap() > 1.0 && score["p_holm"].as_f64().unwrap() < 0.01, "{score}");
    let wins = diff("P1 win rate");
    assert!(wins["p"].as_f64().unwrap() > 0.5, "{wins}");
    let lo = v["a"]["win_rate_by_seat"][0]["interval"][0].as_f64().unwrap();
    assert!(lo > 0.3 && lo < 0.6, "a Wilson interval around a rate near one half: {lo}");
    assert!(v["note"].as_str().unwrap().contains("Holm"));
}

#[test]
fn balance_refuses_what_it_cannot_compare() {
    for (args, message) in [
        (vec!["balance", "goofspiel", "-p", "2"], "end the command with --vs"),
        (vec!["balance", "goofspiel", "-p", "2", "-n", "0", "--vs"], "--games 0"),
        (vec!["balance", "goofspiel", "-p", "2", "--vs", "--variant", "nope"], "nope"),
        (
            vec!["balance", "goofspiel", "-p", "2", "--vs", "--jobs", "2"],
            "only --variant, --option and --seed may follow",
        ),
        (vec!["balance", "goofspiel", "-p", "2", "--vs", "--option", "cards=99"], "cards"),
    ] {
        let o = rulebook(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(text(&o.stderr).contains(message), "{args:?}: {}", text(&o.stderr));
    }
}

#[test]
fn balance_report_reads_as_a_table() {
    let o = rulebook(&["balance", "goofspiel", "-p", "2", "-n", "200", "--seed", "4", "--vs", "--option", "cards=8"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    insta::assert_snapshot!(text(&o.stdout));
}

#[test]
fn balance_until_decided_stops_when_the_sequential_test_decides() {
    // Split ties raise every score by several points: a margin of one point is decided fast.
    let o = rulebook(&[
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
        "--vs",
        "--variant",
        "split-ties",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["sequential"]["verdict"], "changed", "{}", v["sequential"]);
    assert!(v["sequential"]["pairs"].as_u64().unwrap() < 3000);
    assert_eq!(v["a"]["games"], v["sequential"]["pairs"]);
    // The same game with other seeds: no change of the first seat's win rate beyond 10 points.
    let o = rulebook(&[
        "balance",
        "goofspiel",
        "-p",
        "2",
        "-n",
        "3000",
        "--seed",
        "5",
        "--until-decided",
        "--margin",
        "0.1",
        "--json",
        "--vs",
        "--seed",
        "6",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["sequential"]["verdict"], "no-change", "{}", v["sequential"]);
    let o = rulebook(&["balance", "goofspiel", "-p", "2", "--until-decided", "--measure", "length", "--vs"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("needs --margin"), "{}", text(&o.stderr));
}

#[test]
fn balance_writes_a_self_contained_html_report_with_plots() {
    let dir = crate::Scratch::new("balance");
    let page = dir.join("report.html");
    let o = rulebook(&[
        "balance",
        "goofspiel",
        "-p",
        "2",
        "-n",
        "100",
        "--html",
        page.to_str().unwrap(),
        "--vs",
        "--variant",
        "split-ties",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(html.matches("<svg").count(), 5, "win rates, lengths, margins, scores, shape");
    assert!(html.contains("<td>P1 win rate</td>") && html.contains("--variant split-ties"));
    for fetch in ["src=", "href=", "@import", "<script", "<link"] {
        assert!(!html.contains(fetch), "the page fetches nothing and runs nothing: {fetch}");
    }
}

#[test]
fn sweep_tabulates_measures_against_one_parameter() {
    let o = rulebook(&["sweep", "goofspiel", "-p", "2", "-n", "200", "--json", "--option", "cards=4..10:3"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let points = v["points"].as_array().unwrap();
    let values: Vec<&str> = points.iter().map(|p| p["value"].as_str().unwrap()).collect();
    assert_eq!(values, ["4", "7", "10"]);
    let lengths: Vec<f64> = points.iter().map(|p| p["measures"]["length"]["mean"].as_f64().unwrap()).collect();
    assert_eq!(lengths, [8.0, 14.0, 20.0], "two bids a card");
    let o = rulebook(&["sweep", "goofspiel", "-p", "2", "-n", "50", "--option", "cards=5,8"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("cards      wins:P1"), "{}", text(&o.stdout));
    let o = rulebook(&[
        "sweep",
        "goofspiel",
        "-p",
        "3",
        "-n",
        "40",
        "--option",
        "cards=4,8",
        "--measure",
        "fairness",
        "--measure",
        "wins:P3",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["measures"], serde_json::json!(["fairness", "wins:P3"]));
    for (args, message) in [
        (vec!["--option", "cards=8"], "needs one --option KEY=A..B"),
        (vec!["--option", "cards=4..8:0"], "a step above 0"),
        (vec!["--option", "cards=x..8"], "is not an integer"),
        (vec!["--option", "cards=4..8", "--option", "target=1,2"], "one parameter"),
        (vec!["--option", "cards=12..40:10"], "cards=32: must be between 1 and 30"),
        (vec!["--option", "cards=4,5", "--measure", "speed"], "unknown measure `speed`"),
        (vec!["--option", "cards=4,5", "--measure", "wins:P3"], "P1..P2"),
        (vec!["--option", "cards=4,5", "--measure", "track:round"], "no global track"),
    ] {
        let mut all = vec!["sweep", "goofspiel", "-p", "2", "-n", "5"];
        all.extend(args.iter());
        let o = rulebook(&all);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(text(&o.stderr).contains(message), "{args:?}: {}", text(&o.stderr));
    }
}

#[test]
fn tune_searches_a_parameter_for_an_objective() {
    // Three players bid once a card each: 21 or 24 decisions (7 or 8 cards) meet 20..24.
    let o = rulebook(&[
        "tune",
        "goofspiel",
        "-p",
        "3",
        "--option",
        "cards=3..13",
        "--objective",
        "length=20..24",
        "-n",
        "50",
        "--evaluations",
        "15",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let cards = v["best"]["setting"]["cards"].as_str().unwrap();
    assert!(cards == "7" || cards == "8", "{}", v["best"]);
    assert_eq!(v["best"]["fitness"], 0.0);
    let top = v["top"].as_array().unwrap();
    assert_eq!(top.len(), 3, "the three best settings, measured again");
    assert_eq!(top[0], v["best"]);
    assert!(top[2]["fitness"].as_f64().unwrap() <= top[0]["fitness"].as_f64().unwrap());
    assert_eq!(v["evaluations"].as_array().unwrap().len(), 15);
    let o = rulebook(&[
        "tune",
        "goofspiel",
        "-p",
        "2",
        "--option",
        "cards=4..8",
        "--objective",
        "fair-seats",
        "-n",
        "40",
        "--evaluations",
        "4",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("1. cards="), "{}", text(&o.stdout));
    for (args, message) in [
        (vec!["--option", "cards=4..8", "--objective", "short"], "unknown objective `short`"),
        (vec!["--option", "cards=8", "--objective", "fair-seats"], "at least one --option KEY=A..B"),
        (vec!["--option", "cards=4..8", "--objective", "length=9..3"], "LO <= HI"),
    ] {
        let mut all = vec!["tune", "goofspiel", "-p", "2", "-n", "5", "--evaluations", "2"];
        all.extend(args.iter());
        let o = rulebook(&all);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(text(&o.stderr).contains(message), "{args:?}: {}", text(&o.stderr));
    }
}

#[test]
fn completions_are_printed_for_every_shell() {
    let o = rulebook(&["completions", "bash"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("simulate") && out.contains("_rulebook"), "{out}");
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let o = rulebook(&["completions", shell]);
        assert!(o.status.success() && text(&o.stdout).contains("simulate"), "{shell}: {}", text(&o.stderr));
    }
    let o = rulebook(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2), "an unknown shell is a usage error");
}

/// Runs the binary in `dir`.
fn rulebook_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rulebook")).args(args).current_dir(dir).output().unwrap()
}

#[test]
fn new_makes_a_game_that_validates_tests_and_plays_out_of_the_box() {
    let root = crate::Scratch::new("new");
    // Into --dir (made if missing), from anywhere: the game lies outside ./games.
    let dir = root.join("house");
    let o = rulebook(&["new", "my-game", "--dir", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let game = dir.join("my-game");
    for file in ["game.toml", "rules.rhai", "scenarios/rules.scenario", "README.md"] {
        assert!(game.join(file).is_file(), "{file} is missing");
    }
    let toml = std::fs::read_to_string(game.join("game.toml")).unwrap();
    assert!(toml.starts_with("#:schema ../../schemas/game.schema.json\n"), "{toml}");
    assert!(toml.contains("title = \"My game\""), "{toml}");
    assert!(text(&o.stdout).contains("no schemas/game.schema.json above"), "{}", text(&o.stdout));
    let path = game.to_str().unwrap();
    let v = rulebook(&["validate", "--deny", "warnings", path]);
    assert!(v.status.success(), "{}{}", text(&v.stdout), text(&v.stderr));
    let t = rulebook(&["test", path]);
    assert!(t.status.success(), "{}", text(&t.stdout));
    let last = text(&t.stdout).lines().last().unwrap_or_default().to_string();
    assert!(last.ends_with(" passed, 0 failed") && !last.starts_with("0 "), "{last}");
    let p = rulebook(&["play", path, "--players", "3", "--bots", "3", "--seed", "1"]);
    assert!(p.status.success() && text(&p.stdout).contains("game over"), "{}", text(&p.stderr));
    let s = rulebook(&["simulate", path, "--players", "4", "--games", "20"]);
    assert!(s.status.success(), "{}", text(&s.stderr));

    // The default folder is the current one; a schemas/ folder above is found and pointed at.
    std::fs::create_dir_all(root.join("schemas")).unwrap();
    std::fs::write(root.join("schemas/game.schema.json"), "{}").unwrap();
    let o = rulebook_in(&dir, &["new", "second"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("rulebook test second\n"), "{}", text(&o.stdout));
    let toml = std::fs::read_to_string(dir.join("second/game.toml")).unwrap();
    assert!(toml.starts_with("#:schema ../../schemas/game.schema.json\n"), "{toml}");
    let o = rulebook_in(&root, &["new", "deeper", "--dir", "a/b"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let toml = std::fs::read_to_string(root.join("a/b/deeper/game.toml")).unwrap();
    assert!(toml.starts_with("#:schema ../../../schemas/game.schema.json\n"), "{toml}");
    let t = rulebook_in(&root, &["test", "a/b/deeper"]);
    assert!(t.status.success(), "{}", text(&t.stdout));

    // Refusals: an existing folder (or file), and names that are not one plain folder name.
    let again = rulebook(&["new", "my-game", "--dir", dir.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(1));
    assert!(text(&again.stderr).contains("my-game already exists"), "{}", text(&again.stderr));
    std::fs::write(dir.join("a-file"), "").unwrap();
    let file = rulebook(&["new", "a-file", "--dir", dir.to_str().unwrap()]);
    assert_eq!(file.status.code(), Some(1));
    assert!(text(&file.stderr).contains("a-file already exists"), "{}", text(&file.stderr));
    for bad in ["../escape", "a/b", "", ".", "-x", "with space"] {
        let o = rulebook_in(&dir, &["new", "--", bad]);
        assert_eq!(o.status.code(), Some(1), "{bad:?}: {}", text(&o.stderr));
        assert!(text(&o.stderr).contains("is not a plain folder name"), "{bad:?}: {}", text(&o.stderr));
        assert!(!text(&o.stderr).contains("panicked"), "{}", text(&o.stderr));
    }
    assert!(!root.join("escape").exists() && !dir.join("a").exists());
}

/// A `label_by` script that fails is found by `validate`'s leak check (its game keeps a log,
/// which reads every chosen option's label) and located at the script, not the game file.
#[test]
fn a_failing_label_script_is_located_in_the_script() {
    let o = rulebook(&["validate", "--format", "json", "--option", "broken=1", "tests/fixtures/labelled-options"]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    let line = out.lines().find(|l| l.contains("E0900")).unwrap_or_else(|| panic!("no E0900: {out}"));
    let d: serde_json::Value = serde_json::from_str(line).unwrap();
    assert!(d["file"].as_str().is_some_and(|f| f.ends_with("rules.rhai")), "{d}");
    assert!(d["message"].as_str().is_some_and(|m| m.contains("script `broken_label` failed")), "{d}");
}
