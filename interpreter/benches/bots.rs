//! What the search bots cost: one `mcts` decision (100 iterations, the game's default playout
//! depth) and one determinization (a sample of what the seat cannot see, drawn as a search
//! bot draws its samples: from a `Sampler` made once per decision), at a mid-game decision of
//! each bundled game. Time per iteration = decision time / 100.
//! Run with `cargo bench --bench bots`.

use criterion::{criterion_group, criterion_main, Criterion};
use rulebook::bot::{make_bot, BotSpec, SeatObservation};
use rulebook::rng::GameRng;
use rulebook::{Game, Session};
use std::hint::black_box;

mod common;

use common::{load, GAMES};

/// Iterations of the measured decision.
const ITERATIONS: u64 = 100;

/// A tracked game after `decisions` random decisions, at a decision with more than one option.
fn position(game: &Game, players: usize, decisions: usize) -> (Session<'_>, usize) {
    let mut s = Session::new_tracked(game, players, 7, false).expect("starts");
    let mut rng = GameRng::new(11);
    let mut taken = 0;
    loop {
        let p = s.first_to_act().expect("not over");
        if taken >= decisions && s.option_count(p) > 1 {
            return (s, p);
        }
        let n = s.option_count(p) as u64;
        s.apply_index(p, rng.below(n) as usize).expect("legal");
        taken += 1;
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("bots");
    group.sample_size(10);
    let spec = BotSpec::parse(&format!("mcts:iterations={ITERATIONS}")).expect("a bot");
    for (name, players) in GAMES {
        let game = load(name);
        let (session, seat) = position(&game, *players, 12);
        let sampler = rulebook::determinize::Sampler::new(&session, seat).expect("a tracked game");
        group.bench_function(format!("{name}_{players}p/sample"), |b| {
            let mut seed = 0;
            b.iter(|| {
                seed += 1;
                black_box(sampler.sample(seed).expect("samples"))
            })
        });
        group.bench_function(format!("{name}_{players}p/mcts_{ITERATIONS}_decision"), |b| {
            b.iter(|| {
                let mut bot = make_bot(&spec, &game, 1, seat).expect("a bot");
                black_box(bot.choose(&SeatObservation::new(&session, seat)).expect("chooses"))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
