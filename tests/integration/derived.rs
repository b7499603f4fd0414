//! Derived vars kept from one state to the next (`rulebook::reads`): a value kept is the value
//! computed afresh, and a value is computed again only when something its script read changed.

use crate::load;
use rulebook::rng::GameRng;
use rulebook::view::{DerivedValues, View};
use rulebook::{Game, Session};

/// Plays `decisions` random decisions (or to the end), calling `each` with every state met.
fn play<'g>(game: &'g Game, players: usize, seed: u64, decisions: usize, mut each: impl FnMut(&Session<'g>)) {
    let mut s = game.start(players, seed).expect("starts");
    let mut rng = GameRng::new(seed);
    for _ in 0..decisions {
        each(&s);
        let Some(p) = s.first_to_act().filter(|_| !s.is_over()) else { break };
        let n = s.option_count(p);
        s.apply_index(p, rng.below(n as u64) as usize).expect("legal");
    }
}

#[test]
fn every_view_shows_the_derived_values_computed_afresh() {
    for (folder, players) in
        [("games/club-degli-spendaccioni", 4), ("games/club-degli-spendaccioni", 2), ("games/liars-dice", 2)]
    {
        let game = load(folder, &[], &[]);
        for seed in 0..2 {
            play(&game, players, seed, 250, |s| {
                for q in 0..players {
                    let kept = s.view(q);
                    let fresh = View::build(&game, s.state(), &DerivedValues::default(), Some(q));
                    assert_eq!(
                        kept.vars,
                        fresh.vars,
                        "{folder} {players}p seed {seed}, after {} decisions",
                        s.history().len()
                    );
                }
            });
        }
    }
}

#[test]
fn a_derived_value_is_computed_again_only_when_what_its_script_read_changed() {
    let game = load("games/club-degli-spendaccioni", &[], &[]);
    game.scripts.start_profile();
    let mut states = 0;
    play(&game, 4, 3, 200, |s| {
        states += 1;
        for q in 0..4 {
            s.view(q);
        }
    });
    let calls = |name: &str| game.scripts.profile().iter().find(|(f, _, _)| f == name).map_or(0, |(_, n, _)| *n);
    // Without keeping, each state computes both vars for each of the 4 seats. One seat's
    // decision changes mostly what that seat holds: the others' values are kept.
    for f in ["symbols_text", "scores_text"] {
        assert!(calls(f) > 0, "{f} is computed");
        assert!(
            calls(f) < states,
            "{f} computed {} times in {states} states of 4 seats (more than one in four)",
            calls(f)
        );
    }
}
