//! `rulebook diff`: every bundled variant against its base game, and an edition against the
//! game it extends (snapshots); options show as changed values; JSON for tools.

use crate::load;

/// Every bundled game folder and the variants in its `variants/` folder.
fn variants() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(crate::root().join("games")).unwrap().filter_map(Result::ok) {
        let dir = entry.path().join("variants");
        let Ok(files) = std::fs::read_dir(&dir) else { continue };
        let game = entry.file_name().to_string_lossy().to_string();
        for f in files.filter_map(Result::ok) {
            let name = f.file_name().to_string_lossy().to_string();
            if let Some(v) = name.strip_suffix(".toml") {
                out.push((game.clone(), v.to_string()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_bundled_variant_is_diffed_against_its_base_game() {
    let found = variants();
    assert!(found.len() >= 8, "{found:?}");
    for (game, variant) in found {
        let base = load(&format!("games/{game}"), &[], &[]);
        let changed = load(&format!("games/{game}"), &[&variant], &[]);
        let d = rulebook::diff::diff(&base, &changed);
        assert!(!d.is_empty(), "variant {variant} of {game} changes nothing");
        let title = format!("--variant {variant} against {game}");
        insta::assert_snapshot!(format!("diff_{game}_{variant}"), rulebook::diff::text(&d, &title));
    }
}

#[test]
fn an_edition_is_diffed_against_the_game_it_extends() {
    let base = load("games/adel-verpflichtet", &[], &[]);
    let edition = load("games/adel-verplicht", &[], &[]);
    let d = rulebook::diff::diff(&base, &edition);
    insta::assert_snapshot!(
        "diff_adel-verplicht",
        rulebook::diff::text(&d, "adel-verplicht against adel-verpflichtet")
    );
}

#[test]
fn an_option_is_a_changed_value_and_nothing_is_no_difference() {
    let base = load("games/goofspiel", &[], &[]);
    let d = rulebook::diff::diff(&base, &load("games/goofspiel", &[], &[("cards", "8")]));
    let cards = d.declarations.iter().find(|c| c.what == "param `cards`").expect("cards changed");
    assert_eq!((cards.old.as_deref(), cards.new.as_deref()), (Some("13 (1 to 30)"), Some("8 (1 to 30)")));
    assert!(d.functions.is_empty());
    let same = rulebook::diff::diff(&base, &load("games/goofspiel", &[], &[]));
    assert!(same.is_empty());
    assert!(rulebook::diff::text(&same, "t").contains("No difference"));
}

#[test]
fn the_command_prints_text_or_json() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_rulebook"))
            .args(args)
            .current_dir(crate::root())
            .output()
            .unwrap()
    };
    let out = run(&["diff", "flaschenteufel", "--variant", "lopaka", "--json"]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let functions = json["functions"].as_array().unwrap();
    let cards_of = functions.iter().find(|f| f["name"] == "cards_of").expect("cards_of is replaced");
    assert!(
        cards_of["unified"].as_str().unwrap().contains("+    if who < 0 { game.cards(\"lopaka_\" + zone)"),
        "{cards_of}"
    );
    let out = run(&["diff", "adel-verpflichtet", "--against", "adel-verplicht"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("changed game players\n    - 2–5\n    + 3–6"), "{text}");
}
