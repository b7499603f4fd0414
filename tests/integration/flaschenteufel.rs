//! Flaschenteufel: every hand of every mode (3 and 4 players, Lopaka, Casa Luminosa) keeps all
//! 36 cards in play. Seeded random games are played with `play_one`, then replayed decision by
//! decision with `Session::apply`, and the full state is checked after every decision and at
//! every hand's end.

use crate::load;
use rulebook::rng::derive_seed;
use rulebook::sim::play_one;
use rulebook::Session;

/// Games per mode, each a match of `HANDS` hands.
const GAMES: u64 = 15;
const HANDS: &str = "3";

/// Cards in every zone slot of the game.
fn cards_in_zones(s: &Session<'_>) -> usize {
    s.state().zones.iter().flatten().map(|slot| slot.cards.len()).sum()
}

/// Cards in the named zones (every slot of each).
fn cards_in(s: &Session<'_>, zones: &[&str]) -> usize {
    let r = &s.game().rules;
    zones.iter().map(|z| s.state().zones[r.zone(z).unwrap()].iter().map(|slot| slot.cards.len()).sum::<usize>()).sum()
}

fn check(variants: &[&str], players: usize, seed: u64) {
    let game = load("games/flaschenteufel", variants, &[("hands", HANDS), ("target", "0")]);
    let hand_number = game.rules.track("hand_number").unwrap();
    // Where the cards of a finished hand lie: won, under the bottle, in the pot.
    let mut end_zones = vec!["won", "bottle", "pot"];
    if variants.contains(&"lopaka") {
        end_zones.extend(["lopaka_won", "lopaka_bottle"]);
    }
    for i in 0..GAMES {
        let seed = derive_seed(seed, i);
        let what = format!("{variants:?} with {players} players, game {i} (seed {seed})");
        let record = play_one(&game, players, i, seed, &rulebook::bot::BotTable::default())
            .unwrap_or_else(|f| panic!("{what}: {f}"));
        let mut s = game.start(players, seed).unwrap();
        assert_eq!(cards_in_zones(&s), 36, "{what}: after the first deal");
        let mut hand = s.state().tracks[hand_number][0];
        let mut hands_ended = 0;
        for m in &record.moves {
            s.apply(m.player, &m.option).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(cards_in_zones(&s), 36, "{what}: after {} chose {}", m.player, m.option);
            let now = s.state().tracks[hand_number][0];
            if now != hand {
                // A hand ended and the next was dealt in the same step: all 36 are back in hands,
                // the pot (and the face-down packets of Casa Luminosa).
                assert_eq!(now, hand + 1, "{what}");
                hands_ended += 1;
                hand = now;
            }
        }
        assert!(s.is_over(), "{what}: the match did not end");
        hands_ended += 1;
        // The last hand ended with every card won, under the bottle or in the pot.
        assert_eq!(cards_in(&s, &end_zones), 36, "{what}: at the end of the last hand");
        assert_eq!(hands_ended, 3, "{what}: a match of {HANDS} hands");
        assert_eq!(s.log_for(None).iter().filter(|l| l.contains(" scored: ")).count(), 3, "{what}");
    }
}

#[test]
fn every_hand_accounts_for_36_cards_with_3_players() {
    check(&[], 3, 31);
}

#[test]
fn every_hand_accounts_for_36_cards_with_4_players() {
    check(&[], 4, 41);
}

#[test]
fn every_hand_accounts_for_36_cards_with_lopaka() {
    check(&["lopaka"], 2, 21);
}

#[test]
fn every_hand_accounts_for_36_cards_in_casa_luminosa() {
    check(&["casa-luminosa"], 2, 22);
}

#[test]
fn a_match_stops_at_the_end_of_the_hand_that_reaches_the_target() {
    let game = load("games/flaschenteufel", &[], &[("target", "100")]);
    let score = game.rules.track("score").unwrap();
    let hand_number = game.rules.track("hand_number").unwrap();
    for i in 0..5 {
        let seed = derive_seed(7, i);
        let record = play_one(&game, 3, i, seed, &rulebook::bot::BotTable::default()).unwrap_or_else(|f| panic!("{f}"));
        let best = *record.scores.iter().max().unwrap();
        assert!(best >= 100, "game {i}: the match ended below the target: {:?}", record.scores);
        // One hand fewer would have stayed below the target: replay up to the last deal.
        let mut s = game.start(3, seed).unwrap();
        let mut before_last = None;
        for m in &record.moves {
            let hand = s.state().tracks[hand_number][0];
            s.apply(m.player, &m.option).unwrap();
            if s.state().tracks[hand_number][0] != hand {
                before_last = Some(s.state().tracks[score].clone());
            }
        }
        if let Some(scores) = before_last {
            assert!(scores.iter().all(|x| *x < 100), "game {i}: the match went on after the target: {scores:?}");
        }
        assert_eq!(s.outcome().unwrap().scores, record.scores);
    }
}
