//! What tree search pays per node: saving a mid-game point of a session and coming back to
//! it (`Session::snapshot` / `Session::restore`), and one bot step (apply + options) in a copy,
//! next to the same step in a normal game. One mid-game position per bundled game: a seeded
//! random game played to half its length.
//! Run with `cargo bench --bench snapshot`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rulebook::rng::GameRng;
use std::hint::black_box;

mod common;

use common::{load, mid_game, step, GAMES};

fn bench(c: &mut Criterion) {
    for (name, players) in GAMES {
        let game = load(name);
        let mid = mid_game(&game, *players, false);
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
