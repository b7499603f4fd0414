//! The bad-input corpus (`tests/bad-input/`): one fault per game folder. Each gets exit code 1
//! from `rulebook validate --deny warnings` and located diagnostics, snapshotted; never a
//! panic or a hang.

use rulebook::{load_game, LoadOptions};

#[test]
fn every_broken_game_fails_validation_with_located_diagnostics() {
    insta::glob!("../bad-input", "*/game.toml", |path| {
        let folder = path.parent().expect("case folder");
        let name = folder.file_name().unwrap().to_string_lossy().to_string();
        let rel = format!("tests/bad-input/{name}");
        // A deadline: a hang is a finding, not a stuck test run.
        let args = ["validate", "--deny", "warnings", "--playouts", "2", &rel];
        let out = crate::hardening::run_with_deadline(&args, b"", std::time::Duration::from_secs(120));
        assert_eq!(out.status.code(), Some(1), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(stdout.contains("-->"), "{name}: no located diagnostic:\n{stdout}");
        insta::assert_snapshot!(name.clone(), stdout);
    });
}

#[test]
fn malformed_toml_reports_every_syntax_error() {
    let loaded = load_game(&crate::rel("tests/bad-input/malformed-toml"), &LoadOptions::default());
    assert!(loaded.game.is_none());
    assert_eq!(loaded.diagnostics.iter().filter(|d| d.code == "E0100").count(), 3);
    assert!(loaded.diagnostics.iter().all(|d| d.location.is_some()));
}

#[test]
fn a_folder_without_game_toml_is_an_error() {
    let loaded = load_game(&crate::rel("tests/bad-input"), &LoadOptions::default());
    assert!(loaded.game.is_none());
    assert_eq!(loaded.diagnostics[0].code, "E0001");
}
