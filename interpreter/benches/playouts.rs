//! Random playouts per second: Goofspiel (13 cards, 2 players) through the engine (keeping each
//! game's moves, and as `simulate` plays it, without them), next to a hand-written Rust
//! implementation of the same game as the speed of light.
//! Run with `cargo bench --bench playouts`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rulebook::rng::{derive_seed, GameRng};
use rulebook::sim::{play_keeping, play_one, Keep};
use rulebook::{load_game, LoadOptions};
use std::path::Path;

#[global_allocator]
static ALLOC: rulebook::alloc::Mimalloc = rulebook::alloc::Mimalloc;

/// Goofspiel written directly in Rust: the same rules and the same kind of random bot.
fn hand_written_playout(cards: usize, players: usize, seed: u64) -> Vec<i64> {
    let mut rng = GameRng::new(seed);
    let mut deck: Vec<i64> = (1..=cards as i64).collect();
    rng.shuffle(&mut deck);
    let mut hands: Vec<Vec<i64>> = vec![(1..=cards as i64).collect(); players];
    let mut scores = vec![0; players];
    let mut bids = vec![0; players];
    for prize in deck {
        for (p, hand) in hands.iter_mut().enumerate() {
            let i = rng.below(hand.len() as u64) as usize;
            bids[p] = hand.swap_remove(i);
        }
        let best = *bids.iter().max().unwrap();
        let mut winners = (0..players).filter(|p| bids[*p] == best);
        if let (Some(w), None) = (winners.next(), winners.next()) {
            scores[w] += prize;
        }
    }
    scores
}

fn bench(c: &mut Criterion) {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games/goofspiel");
    let game = load_game(&folder, &LoadOptions::default()).game.expect("goofspiel loads");
    let mut group = c.benchmark_group("goofspiel_13_cards_2_players");
    group.throughput(Throughput::Elements(1));
    // Random bots for every seat, made once: as `simulate` makes its table once for a series.
    let bots = rulebook::bot::BotTable::default();
    let mut i = 0u64;
    group.bench_function("rulebook_random_playout", |b| {
        b.iter(|| {
            i += 1;
            play_one(&game, 2, i, derive_seed(1, i), &bots).expect("plays")
        })
    });
    // What `simulate` plays when it writes no results file: the same game, its moves and shape
    // not kept.
    let mut k = 0u64;
    group.bench_function("rulebook_simulate_playout", |b| {
        b.iter(|| {
            k += 1;
            play_keeping(&game, 2, k, derive_seed(1, k), &bots, Keep::COUNT).expect("plays")
        })
    });
    let mut j = 0u64;
    group.bench_function("hand_written_rust_playout", |b| {
        b.iter(|| {
            j += 1;
            hand_written_playout(13, 2, derive_seed(1, j))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
