//! What the per-game benches share: the allocator the `rulebook` binary uses, the bundled
//! games and player counts they measure, loading a bundled game, and a mid-game position.

use rulebook::rng::GameRng;
use rulebook::{load_game, Game, LoadOptions, Session};
use std::path::Path;

#[global_allocator]
static ALLOC: rulebook::alloc::Mimalloc = rulebook::alloc::Mimalloc;

/// The bundled games and player counts measured.
pub const GAMES: &[(&str, usize)] = &[
    ("goofspiel", 2),
    ("flaschenteufel", 4),
    ("adel-verpflichtet", 4),
    ("mille-grazie", 3),
    ("club-degli-spendaccioni", 4),
];

/// Loads a bundled game by folder name, with its defaults.
pub fn load(name: &str) -> Game {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games").join(name);
    load_game(&folder, &LoadOptions::default()).game.unwrap_or_else(|| panic!("{name} loads"))
}

/// One random bot step: the first seat to act picks among its options.
#[allow(dead_code)] // not every bench steps
pub fn step(s: &mut Session<'_>, rng: &mut GameRng) {
    let p = s.first_to_act().expect("a seat must act");
    let n = s.option_count(p);
    s.apply_index(p, rng.below(n as u64) as usize).expect("legal");
}

/// A seeded random game played to half its length, with a log (`logged`) or quiet.
#[allow(dead_code)] // not every bench starts mid-game
pub fn mid_game(game: &Game, players: usize, logged: bool) -> Session<'_> {
    let play = |decisions: usize| {
        let mut s = if logged { game.start(players, 7) } else { game.start_quiet(players, 7) }.expect("starts");
        let mut rng = GameRng::new(11);
        for _ in 0..decisions {
            if s.is_over() {
                break;
            }
            step(&mut s, &mut rng);
        }
        s
    };
    let length = play(usize::MAX).history().len();
    play(length / 2)
}
