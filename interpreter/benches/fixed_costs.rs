//! The engine's fixed costs on a short scripted game, tests/fixtures/dice-bid (issue 15,
//! point 7): starting a game (initial state, the first script and the first options), a whole
//! random playout, and a script call: an empty function (what a call costs before its first
//! line runs) and the game's `roll` (two calls on `game`), each run compiled inside a
//! transaction as the engine makes its calls, and interpreted by Rhai outside one. `benches/openspiel_dice_bid.py`
//! plays the same game in OpenSpiel's Python loop for comparison.
//! Run with `cargo bench --bench fixed_costs`.

use criterion::{criterion_group, criterion_main, Criterion};
use rulebook::rng::derive_seed;
use rulebook::rules::FnRef;
use rulebook::script::{Scripts, Work};
use rulebook::sim::play_one;
use rulebook::{load_game, LoadOptions, Value};
use std::hint::black_box;
use std::path::Path;

#[global_allocator]
static ALLOC: rulebook::alloc::Mimalloc = rulebook::alloc::Mimalloc;

fn bench(c: &mut Criterion) {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/dice-bid");
    let game = load_game(&folder, &LoadOptions::default()).game.expect("dice-bid loads");
    let mut group = c.benchmark_group("dice_bid_2p");
    // Random bots for every seat, made once: as `simulate` makes its table once for a series.
    let bots = rulebook::bot::BotTable::default();
    let mut i = 0u64;
    group.bench_function("start_game", |b| {
        b.iter(|| {
            i += 1;
            black_box(game.start_quiet(2, derive_seed(1, i)).expect("starts"));
        })
    });
    group.bench_function("random_playout", |b| {
        b.iter(|| {
            i += 1;
            play_one(&game, 2, i, derive_seed(1, i), &bots).expect("plays")
        })
    });
    let state = game.start_quiet(2, 1).expect("starts").state().clone();
    let mut work = Some(Work::new(state, false));
    let mut call = |scripts: &Scripts, name: &str| {
        let f = FnRef { name: name.to_string(), with_ctx: false };
        let (w, r) = scripts.call(&game.rules, work.take().expect("work"), &f, Vec::new(), &Value::Unit);
        work = Some(w);
        r.expect("runs")
    };
    let mut empty = Scripts::new();
    empty.add(Path::new("empty.rhai"), "fn nothing(game) { }").expect("compiles");
    // As the engine makes them: inside a transaction (applying a choice, starting a game),
    // where script functions run compiled. Outside one, Rhai interprets the call.
    use rulebook::script::transaction as compiled;
    group.bench_function("empty_script_call", |b| b.iter(|| compiled(|| call(&empty, "nothing"))));
    group.bench_function("roll_script_call", |b| b.iter(|| compiled(|| call(&game.scripts, "roll"))));
    group.bench_function("empty_script_call_interpreted", |b| b.iter(|| call(&empty, "nothing")));
    group.bench_function("roll_script_call_interpreted", |b| b.iter(|| call(&game.scripts, "roll")));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
