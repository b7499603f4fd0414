//! Cross-check against OpenSpiel's goofspiel: replay the committed trajectories (prize order
//! and bids, produced by tests/oracle/goofspiel_oracle.py) and compare the returns.

use serde::Deserialize;

#[derive(Deserialize)]
struct Fixture {
    trajectories: Vec<Trajectory>,
}

#[derive(Deserialize)]
struct Trajectory {
    players: usize,
    num_cards: u32,
    prize_order: Vec<u32>,
    bids: Vec<Vec<u32>>,
    points: Vec<i64>,
    returns: Vec<f64>,
}

#[test]
fn goofspiel_returns_match_openspiel() {
    let text = std::fs::read_to_string(crate::root().join("tests/oracle/goofspiel_trajectories.json")).unwrap();
    let fixture: Fixture = serde_json::from_str(&text).unwrap();
    assert!(fixture.trajectories.len() >= 40);
    for (n, t) in fixture.trajectories.iter().enumerate() {
        let cards = t.num_cards.to_string();
        let game = crate::load("games/goofspiel", &[], &[("cards", &cards)]);
        let mut s = game.start(t.players, n as u64).unwrap();
        // Recreate OpenSpiel's prize order: the first prize is up, the rest wait in the deck
        // (top = last).
        let first = format!("prize-{}", t.prize_order[0]);
        let rest: Vec<String> = t.prize_order[1..].iter().rev().map(|v| format!("prize-{v}")).collect();
        s.arrange("deck", None, &rest.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
        s.arrange("prize", None, &[first.as_str()]).unwrap();
        for (turn, bids) in t.bids.iter().enumerate() {
            for (p, bid) in bids.iter().enumerate() {
                s.apply(p, &format!("p{}-{bid}", p + 1)).unwrap_or_else(|e| panic!("trajectory {n}, turn {turn}: {e}"));
            }
        }
        let outcome = s.outcome().unwrap_or_else(|| panic!("trajectory {n} did not finish"));
        assert_eq!(outcome.scores, t.points, "trajectory {n}: points");
        let returns: Vec<i64> = t.returns.iter().map(|r| *r as i64).collect();
        assert_eq!(outcome.scores, returns, "trajectory {n}: OpenSpiel returns");
    }
}

#[derive(Deserialize)]
struct DiceFixture {
    trajectories: Vec<DiceTrajectory>,
}

#[derive(Deserialize)]
struct DiceTrajectory {
    numdice: u32,
    dice_sides: u32,
    bidding_rule: String,
    /// Each player's faces in roll order (P1's first).
    dice: Vec<Vec<i64>>,
    decisions: Vec<DiceDecision>,
    returns: Vec<f64>,
}

#[derive(Deserialize)]
struct DiceDecision {
    player: usize,
    legal: Vec<String>,
    action: String,
}

/// OpenSpiel's action string (`2-5`, `Liar`) as the game's option id (`2x5`, `liar`).
fn liars_dice_option(action: &str) -> String {
    match action.split_once('-') {
        Some((quantity, face)) => format!("{quantity}x{face}"),
        None if action == "Liar" => "liar".to_string(),
        None => panic!("not a Liar's Dice action: {action}"),
    }
}

#[test]
fn liars_dice_matches_openspiel_decision_by_decision() {
    let text = std::fs::read_to_string(crate::root().join("tests/oracle/liars_dice_trajectories.json")).unwrap();
    let fixture: DiceFixture = serde_json::from_str(&text).unwrap();
    assert!(fixture.trajectories.len() >= 100);
    let mut games = std::collections::HashMap::new();
    let mut decisions = 0;
    for (n, t) in fixture.trajectories.iter().enumerate() {
        let key = (t.numdice, t.dice_sides, t.bidding_rule.clone());
        let game = games.entry(key).or_insert_with(|| {
            let (numdice, sides) = (t.numdice.to_string(), t.dice_sides.to_string());
            crate::load(
                "games/liars-dice",
                &[],
                &[("numdice", &numdice), ("dice_sides", &sides), ("bidding_rule", &t.bidding_rule)],
            )
        });
        // The roll step rolls P1's cup bottom to top, then P2's: OpenSpiel's chance order.
        let draws: Vec<i64> = t.dice.iter().flatten().copied().collect();
        let mut s = rulebook::Session::new_with_draws(game, 2, n as u64, &draws).unwrap();
        let cup = game.rules.zone("cup").unwrap();
        for (p, faces) in t.dice.iter().enumerate() {
            let st = s.state();
            let rolled: Vec<i64> = st.zones[cup][p]
                .cards
                .iter()
                .map(|c| st.components.list[*c as usize].props["face"].to_string().parse().unwrap())
                .collect();
            assert_eq!(&rolled, faces, "trajectory {n}: P{}'s dice", p + 1);
        }
        for (k, d) in t.decisions.iter().enumerate() {
            assert_eq!(s.to_act(), vec![d.player], "trajectory {n}, decision {k}: who bids");
            let ours: Vec<String> = s.options(d.player).into_iter().map(|o| o.id).collect();
            let theirs: Vec<String> = d.legal.iter().map(|a| liars_dice_option(a)).collect();
            assert_eq!(ours, theirs, "trajectory {n}, decision {k}: legal options (in OpenSpiel's order)");
            s.apply(d.player, &liars_dice_option(&d.action))
                .unwrap_or_else(|e| panic!("trajectory {n}, decision {k}: {e}"));
            decisions += 1;
        }
        let outcome = s.outcome().unwrap_or_else(|| panic!("trajectory {n} did not finish"));
        let returns: Vec<i64> = t.returns.iter().map(|r| *r as i64).collect();
        assert_eq!(outcome.scores, returns, "trajectory {n}: OpenSpiel returns");
        let winner = returns.iter().position(|r| *r > 0).unwrap();
        assert_eq!(outcome.winners, vec![winner], "trajectory {n}: winner");
    }
    assert!(decisions >= 500, "{decisions} decisions");
}
