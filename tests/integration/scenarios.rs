//! Every bundled game's scenario files pass (the same check as `rulebook test games/`).

use rulebook::scenario::{parse, Runner};

#[test]
fn bundled_scenarios_pass() {
    let games = crate::rel("games");
    let files = rulebook::scenario::scenario_files(&games);
    assert!(!files.is_empty());
    let mut runner = Runner::new(games);
    let mut failures = Vec::new();
    let mut count = 0;
    for f in &files {
        let file = parse(f, &std::fs::read_to_string(f).unwrap()).unwrap_or_else(|e| panic!("{e}"));
        for r in runner.run_file(&file) {
            count += 1;
            for x in &r.failures {
                failures.push(format!("{}:{}: [{}] {}", f.display(), x.line, r.name, x.message));
            }
        }
    }
    assert!(count >= 10, "only {count} scenarios found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The engine's own fixtures carry scenarios too (mechanisms no bundled game uses yet).
#[test]
fn fixture_scenarios_pass() {
    let mut runner = Runner::new(crate::rel("games"));
    for case in [
        "tests/fixtures/bare-options/pick.scenario",
        "tests/fixtures/commit-to/scenarios/rules.scenario",
        "tests/fixtures/graph-walk/walk.scenario",
        "tests/fixtures/secret-dice/scenarios/rules.scenario",
        "tests/fixtures/tricks/scenarios/rules.scenario",
        "tests/fixtures/tricks/scenarios/below.scenario",
        "tests/fixtures/tricks/scenarios/scripted-winner.scenario",
        "tests/fixtures/tricks/scenarios/then-when.scenario",
        "tests/fixtures/tricks/scenarios/repainted.scenario",
        "tests/fixtures/tricks/scenarios/filtered.scenario",
    ] {
        let path = crate::rel(case);
        let file = parse(&path, &std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{e}"));
        for r in runner.run_file(&file) {
            assert!(r.passed(), "{case}: {:?}", r.failures);
        }
    }
}

/// games/SCENARIOS.md, "Expectations": a var named with a seat it does not have (or without
/// the one it needs), in an expectation or a setup line, stops its scenario with a message at
/// its line, as zones and tracks do; the other scenarios of the file still run.
#[test]
fn a_var_named_with_the_wrong_seats_stops_its_scenario_with_a_message() {
    let text = r#"game ../tests/fixtures/named-vars
players 2

scenario "a global var expected for a seat" {
    expect var leader P1 = P1
}

scenario "a global var set for a seat" {
    var leader P1 = P2
}

scenario "a per-player var expected without a seat" {
    expect var mine = c1
}

scenario "each var named as it is declared" {
    var leader = P2
    var mine P2 = c2
    expect var leader = P2
    expect var mine P2 = c2
}
"#;
    let path = crate::rel("games/seats.scenario");
    let file = parse(&path, text).unwrap_or_else(|e| panic!("{e}"));
    let reports = Runner::new(crate::rel("games")).run_file(&file);
    let first = |i: usize| reports[i].failures.first().map(|f| (f.line, f.message.clone()));
    assert_eq!(first(0), Some((5, "var `leader` is global: do not name a seat".into())));
    assert_eq!(first(1), Some((9, "setup: `leader` is global: do not name a player".into())));
    assert_eq!(first(2), Some((13, "var `mine` is per player: name a seat".into())));
    assert!(reports[3].passed(), "{:?}", reports[3].failures);
}
