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
        "tests/fixtures/graph-walk/walk.scenario",
        "tests/fixtures/secret-dice/scenarios/rules.scenario",
        "tests/fixtures/tricks/scenarios/rules.scenario",
    ] {
        let path = crate::rel(case);
        let file = parse(&path, &std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{e}"));
        for r in runner.run_file(&file) {
            assert!(r.passed(), "{case}: {:?}", r.failures);
        }
    }
}
