//! `rulebook explain`: every bundled game summarised from its declarations (snapshots), and
//! the summary follows the chosen options and variants.

use crate::load;

#[test]
fn every_bundled_game_is_explained() {
    for name in [
        "goofspiel",
        "adel-verpflichtet",
        "adel-verplicht",
        "flaschenteufel",
        "mille-grazie",
        "club-degli-spendaccioni",
        "liars-dice",
    ] {
        let game = load(&format!("games/{name}"), &[], &[]);
        insta::assert_snapshot!(format!("explain_{name}"), rulebook::explain::markdown(&game));
    }
}

#[test]
fn the_summary_follows_options_and_variants() {
    let short = load("games/goofspiel", &[], &[("cards", "5")]);
    let text = rulebook::explain::markdown(&short);
    assert!(text.contains("| `cards` | 5 |"), "{text}");
    assert!(text.contains("Played 5 times:"), "{text}");
    assert!(text.contains("| `bid` | 5 per player |"), "{text}");
    let lopaka = load("games/flaschenteufel", &["lopaka"], &[]);
    let text = rulebook::explain::markdown(&lopaka);
    assert!(text.contains("- Variants applied: `lopaka`"), "{text}");
    let dice = load("games/liars-dice", &[], &[("dice_sides", "8")]);
    let text = rulebook::explain::markdown(&dice);
    assert!(text.contains("counts as every face (faces 1 to 8) |"), "{text}");
    assert!(text.contains("- Players: 2\n"), "{text}");
    let tricks = load("tests/fixtures/tricks", &["lowest"], &[]);
    let text = rulebook::explain::markdown(&tricks);
    assert!(text.contains("### Trick `trick`"), "{text}");
    assert!(text.contains("- Winner: the lowest `rank` of the suit led (a card whose `suit` is var `trump`"), "{text}");
    assert!(text.contains("- Leads the next trick: the same player"), "{text}");
    assert!(text.contains("1. play a trick: `trick`"), "{text}");
}

#[test]
fn the_command_prints_the_summary_and_refuses_an_unknown_game() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(["explain", "goofspiel", "--option", "cards=4"])
        .current_dir(crate::root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.starts_with("# Goofspiel\n") && text.contains("Played 4 times:"), "{text}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(["explain", "no-such-game"])
        .current_dir(crate::root())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-game"));
}
