//! What tree search pays per node: saving a mid-game point of a session and coming back to
//! it (`Session::snapshot` / `Session::restore`), and one bot step (apply + options) in a copy,
//! next to the same step in a normal game. One mid-game position per bundled game: a seeded
//! random game played to half its length.
//! Run with `cargo bench --bench snapshot`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
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

/// Plays `decisions` random decisions (or to the end) from a fresh quiet session.
fn play(game: &Game, players: usize, decisions: usize) -> Session<'_> {
    let mut s = game.start_quiet(players, 7).expect("starts");
    let mut rng = GameRng::new(11);
    for _ in 0..decisions {
        if s.is_over() {
            break;
        }
        step(&mut s, &mut rng);
    }
    s
}

/// One random bot step: the first seat to act picks among its options.
fn step(s: &mut Session<'_>, rng: &mut GameRng) {
    let p = s.first_to_act().expect("a seat must act");
    let n = s.option_count(p);
    s.apply_index(p, rng.below(n as u64) as usize).expect("legal");
}

fn bench(c: &mut Criterion) {
    for (name, players) in GAMES {
        let game = load(name);
        let length = play(&game, *players, usize::MAX).history().len();
        let mid = play(&game, *players, length / 2);
        let mut group = c.benchmark_group(format!("{name}_{players}p_mid_game"));
        group.bench_function("snapshot", |b| b.iter(|| black_box(mid.snapshot())));
        let saved = mid.snapshot();
        let mut copy = mid.clone();
        group.bench_function("restore", |b| b.iter(|| copy.restore(black_box(&saved)).expect("goes back")));
        let mut rng = GameRng::new(3);
        group.bench_function("step_after_restore", |b| {
            b.iter(|| {
                copy.restore(&saved).expect("goes back");
                step(&mut copy, &mut rng);
            })
        });
        group.bench_function("restore_only", |b| b.iter(|| copy.restore(&saved).expect("goes back")));
        group.bench_function("step_in_a_fresh_clone", |b| {
            b.iter_batched(|| mid.clone(), |mut s| step(&mut s, &mut rng), BatchSize::SmallInput)
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
