//! What a seat's screen and `rulebook validate`'s leak check cost: building every seat's view
//! at a mid-game point (a seeded random game played to half its length), and the leak check
//! of one whole seeded game (`rulebook::leak::check_game`, which builds every seat's view after
//! every decision and tries alternatives of each hidden commit).
//! Run with `cargo bench --bench views`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

mod common;

use common::{load, mid_game, GAMES};

fn bench(c: &mut Criterion) {
    for (name, players) in GAMES {
        let game = load(name);
        let mid = mid_game(&game, *players, true);
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
