//! What a seat's screen and `rulebook validate`'s leak check cost: building every seat's view
//! at a mid-game point (a seeded random game played to half its length), and the leak check
//! of one whole seeded game (`rulebook::leak::check_game`, which builds every seat's view after
//! every decision and tries alternatives of each hidden commit).
//! Run with `cargo bench --bench views`.

use criterion::{criterion_group, criterion_main, Criterion};
use rulebook::rng::GameRng;
use rulebook::{load_game, Game, LoadOptions, Session};
use std::hint::black_box;
use std::path::Path;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The bundled games and player counts measured.
const GAMES: &[(&str, usize)] = &[
    ("goofspiel", 2),
    ("flaschenteufel", 4),
    ("adel-verpflichtet", 4),
    ("mille-grazie", 3),
    ("club-degli-spendaccioni", 4),
];

fn load(name: &str) -> Game {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games").join(name);
    load_game(&folder, &LoadOptions::default()).game.unwrap_or_else(|| panic!("{name} loads"))
}

/// Plays `decisions` random decisions (or to the end) from a fresh session.
fn play(game: &Game, players: usize, decisions: usize) -> Session<'_> {
    let mut s = game.start(players, 7).expect("starts");
    let mut rng = GameRng::new(11);
    for _ in 0..decisions {
        let Some(p) = s.first_to_act().filter(|_| !s.is_over()) else { break };
        let n = s.option_count(p);
        s.apply_index(p, rng.below(n as u64) as usize).expect("legal");
    }
    s
}

fn bench(c: &mut Criterion) {
    for (name, players) in GAMES {
        let game = load(name);
        let length = play(&game, *players, usize::MAX).history().len();
        let mid = play(&game, *players, length / 2);
        let mut group = c.benchmark_group(format!("{name}_{players}p"));
        // Derived values are computed once per state: the first build pays for them.
        group.bench_function("every_seats_view_mid_game", |b| {
            b.iter(|| {
                for p in 0..*players {
                    black_box(mid.view(p));
                }
            })
        });
        group.sample_size(10);
        group.bench_function("leak_check_one_game", |b| {
            b.iter(|| rulebook::leak::check_game(&game, *players, black_box(5)).expect("plays"))
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
