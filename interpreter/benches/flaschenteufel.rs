//! Random 4-player hands of Flaschenteufel per second: one hand (deal, pot, passing, eight
//! tricks with follow-suit and the bottle, scoring) played by random bots through the engine,
//! (keeping its moves, and as `simulate` plays it, without them), next to a hand-written Rust
//! version of the same hand as the speed of light.
//! Run with `cargo bench --bench flaschenteufel`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rulebook::rng::{derive_seed, GameRng};
use rulebook::sim::{play_keeping, play_one, Keep};
use rulebook::{load_game, LoadOptions};
use std::path::Path;

#[global_allocator]
static ALLOC: rulebook::alloc::Mimalloc = rulebook::alloc::Mimalloc;

/// Suits (0 yellow, 1 blue, 2 red) and coins of cards 1..=37 (19 is not a card).
fn deck() -> Vec<(i64, u8, i64)> {
    let suits: [&[i64]; 3] = [
        &[1, 2, 3, 5, 7, 9, 12, 15, 18, 22, 25, 28],
        &[4, 6, 8, 10, 13, 17, 20, 24, 27, 30, 32, 34],
        &[11, 14, 16, 21, 23, 26, 29, 31, 33, 35, 36, 37],
    ];
    let mut cards = Vec::new();
    for (s, numbers) in suits.iter().enumerate() {
        for (i, n) in numbers.iter().enumerate() {
            cards.push((*n, s as u8, i as i64 / 2 + 1));
        }
    }
    cards
}

/// One 4-player hand written directly in Rust, with the same kind of random choices.
fn hand_written_hand(seed: u64) -> Vec<i64> {
    const N: usize = 4;
    let mut rng = GameRng::new(seed);
    let mut cards = deck();
    rng.shuffle(&mut cards);
    let mut hands: Vec<Vec<(i64, u8, i64)>> = cards.chunks(9).map(<[_]>::to_vec).collect();
    let pick = |rng: &mut GameRng, h: &mut Vec<(i64, u8, i64)>| h.swap_remove(rng.below(h.len() as u64) as usize);
    let pot: i64 = (0..N).map(|p| pick(&mut rng, &mut hands[p]).2).sum();
    let left: Vec<_> = (0..N).map(|p| pick(&mut rng, &mut hands[p])).collect();
    let right: Vec<_> = (0..N).map(|p| pick(&mut rng, &mut hands[p])).collect();
    for p in 0..N {
        hands[(p + 1) % N].push(left[p]);
        hands[(p + N - 1) % N].push(right[p]);
    }
    let (mut price, mut bottle, mut bottle_card) = (19, None::<usize>, (0, 0, 0));
    let mut won = [0i64; N];
    let mut leader = 0;
    while !hands[0].is_empty() {
        let mut trick = Vec::with_capacity(N);
        for k in 0..N {
            let p = (leader + k) % N;
            let led = trick.first().map(|(_, c): &(usize, (i64, u8, i64))| c.1);
            let legal: Vec<usize> = match led {
                Some(s) if hands[p].iter().any(|c| c.1 == s) => {
                    (0..hands[p].len()).filter(|i| hands[p][*i].1 == s).collect()
                }
                _ => (0..hands[p].len()).collect(),
            };
            let i = legal[rng.below(legal.len() as u64) as usize];
            trick.push((p, hands[p].swap_remove(i)));
        }
        let low = trick.iter().filter(|t| t.1 .0 < price).max_by_key(|t| t.1 .0).copied();
        let (w, card) = low.unwrap_or_else(|| *trick.iter().max_by_key(|t| t.1 .0).expect("four cards"));
        for (_, c) in &trick {
            if low.is_none() || c.0 != card.0 {
                won[w] += c.2;
            }
        }
        if low.is_some() {
            if let Some(b) = bottle {
                won[b] += bottle_card.2;
            }
            (price, bottle, bottle_card) = (card.0, Some(w), card);
        }
        leader = w;
    }
    (0..N).map(|p| if bottle == Some(p) { -pot } else { won[p] }).collect()
}

fn bench(c: &mut Criterion) {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games/flaschenteufel");
    let options = vec![("hands".to_string(), "1".to_string()), ("target".to_string(), "0".to_string())];
    let game = load_game(&folder, &LoadOptions { variants: vec![], options }).game.expect("flaschenteufel loads");
    let mut group = c.benchmark_group("flaschenteufel_4_players_one_hand");
    group.throughput(Throughput::Elements(1));
    // Random bots for every seat, made once: as `simulate` makes its table once for a series.
    let bots = rulebook::bot::BotTable::default();
    let mut i = 0u64;
    group.bench_function("rulebook_random_hand", |b| {
        b.iter(|| {
            i += 1;
            play_one(&game, 4, i, derive_seed(1, i), &bots).expect("plays")
        })
    });
    // What `simulate` plays when it writes no results file: the same hand, its moves and
    // shape not kept.
    let mut k = 0u64;
    group.bench_function("rulebook_simulate_hand", |b| {
        b.iter(|| {
            k += 1;
            play_keeping(&game, 4, k, derive_seed(1, k), &bots, Keep::COUNT).expect("plays")
        })
    });
    let mut j = 0u64;
    group.bench_function("hand_written_rust_hand", |b| {
        b.iter(|| {
            j += 1;
            hand_written_hand(derive_seed(1, j))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
