//! The bad-input corpus: every broken game gets located diagnostics, never a panic.

use rulebook::{load_game, LoadOptions};

fn diagnostics(case: &str) -> String {
    let loaded = load_game(&crate::rel(&format!("tests/bad-input/{case}")), &LoadOptions::default());
    assert!(loaded.game.is_none(), "{case} should not load");
    assert!(!loaded.diagnostics.is_empty());
    for d in &loaded.diagnostics {
        assert!(d.location.is_some(), "{case}: unlocated diagnostic {d}");
    }
    loaded.diagnostics.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n")
}

#[test]
fn malformed_toml_reports_every_syntax_error() {
    let text = diagnostics("malformed-toml");
    assert_eq!(text.matches("E0100").count(), 3, "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn a_misspelt_zone_is_located_with_a_suggestion() {
    insta::assert_snapshot!(diagnostics("missing-zone"));
}

#[test]
fn a_missing_script_function_is_located() {
    insta::assert_snapshot!(diagnostics("missing-function"));
}

#[test]
fn a_rhai_syntax_error_is_located_in_the_script() {
    insta::assert_snapshot!(diagnostics("rhai-syntax"));
}

#[test]
fn an_unknown_key_lists_the_known_ones() {
    insta::assert_snapshot!(diagnostics("unknown-key"));
}

#[test]
fn a_missing_base_game_is_located() {
    insta::assert_snapshot!(diagnostics("bad-extends"));
}

#[test]
fn an_edge_to_a_missing_node_is_located() {
    insta::assert_snapshot!(diagnostics("bad-graph"));
}

#[test]
fn a_folder_without_game_toml_is_an_error() {
    let loaded = load_game(&crate::rel("tests/bad-input"), &LoadOptions::default());
    assert!(loaded.game.is_none());
    assert_eq!(loaded.diagnostics[0].code, "E0001");
}
