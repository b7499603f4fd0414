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
