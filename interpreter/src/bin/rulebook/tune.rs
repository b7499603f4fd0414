//! `rulebook tune`: the declared parameters searched (NTBEA) for the setting that best meets
//! an objective, each setting judged from simulated games.

use crate::cli::{Cli, GameArgs, TuneArgs};
use crate::locate::load;
use crate::sweep::{is_range, values};
use rulebook::balance::{Rate, Side};
use rulebook::sim::{run as run_games, SimConfig};
use rulebook::tune::{ntbea, ranked, Search};
use std::process::ExitCode;

/// What a setting is judged by (higher fitness is better).
#[derive(Clone, Copy, Debug)]
enum Objective {
    /// Even wins: CardStock's fairness.
    FairSeats,
    /// Mean length within a range: minus the distance to it.
    Length(f64, f64),
    /// Mean winner's margin within a range: minus the distance to it.
    Margin(f64, f64),
}

impl Objective {
    fn parse(text: &str) -> Result<Objective, String> {
        let range = |spec: &str| -> Result<(f64, f64), String> {
            let (a, b) = spec.split_once("..").ok_or(format!("`{text}`: write LO..HI"))?;
            let (a, b) = (a.trim().parse::<f64>(), b.trim().parse::<f64>());
            match (a, b) {
                (Ok(a), Ok(b)) if a <= b => Ok((a, b)),
                _ => Err(format!("`{text}`: LO..HI must be two numbers, LO <= HI")),
            }
        };
        match text.split_once('=') {
            None if text == "fair-seats" => Ok(Objective::FairSeats),
            Some(("length", r)) => range(r).map(|(a, b)| Objective::Length(a, b)),
            Some(("margin", r)) => range(r).map(|(a, b)| Objective::Margin(a, b)),
            _ => Err(format!("unknown objective `{text}`: use fair-seats, length=LO..HI or margin=LO..HI")),
        }
    }

    fn fitness(self, s: &Side) -> Result<f64, String> {
        // `+ 0.0` turns a negative zero (inside the range) into a plain one.
        let miss = |x: f64, lo: f64, hi: f64| -((lo - x).max(0.0) + (x - hi).max(0.0)) + 0.0;
        match self {
            Objective::FairSeats => Ok(s.fairness),
            Objective::Length(lo, hi) => Ok(miss(s.length.mean, lo, hi)),
            Objective::Margin(lo, hi) => s
                .margin
                .as_ref()
                .map(|m| miss(m.mean, lo, hi))
                .ok_or("objective `margin`: the game declares no score (`[game] score`)".into()),
        }
    }
}

pub fn run(cli: &Cli, args: &TuneArgs) -> Result<ExitCode, String> {
    let objective = Objective::parse(&args.objective)?;
    if args.games == 0 || args.evaluations == 0 {
        return Err("--games and --evaluations must be at least 1".into());
    }
    let bots = args.bots.table()?;
    let searched: Vec<(String, Vec<String>)> = args
        .game
        .options
        .iter()
        .filter(|(_, v)| is_range(v))
        .map(|(k, v)| values(k, v).map(|vs| (k.clone(), vs)))
        .collect::<Result<_, _>>()?;
    if searched.is_empty() {
        return Err("tune needs at least one --option KEY=A..B[:STEP] or KEY=V1,V2,... to search".into());
    }
    let config = |p: &[usize]| GameArgs {
        game: args.game.game.clone(),
        variants: args.game.variants.clone(),
        options: args
            .game
            .options
            .iter()
            .map(|(k, v)| match searched.iter().position(|(key, _)| key == k) {
                Some(i) => (k.clone(), searched[i].1[p[i]].clone()),
                None => (k.clone(), v.clone()),
            })
            .collect(),
    };
    let measure = |p: &[usize], games: u64| -> Result<Side, String> {
        let g = load(cli, &config(p))?;
        crate::locate::check_table(&g, args.players, &bots)?;
        let cfg = SimConfig::new(args.players, games, args.seed, bots.clone(), args.jobs);
        let records = run_games(&g, &cfg, &|| {}).map_err(|f| f.to_string())?;
        Ok(Side::measure(&describe(&searched, p), args.players, &records))
    };
    let sizes: Vec<usize> = searched.iter().map(|(_, v)| v.len()).collect();
    let search = Search { evaluations: args.evaluations, ..Search::default() };
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut done = 0;
    let history = ntbea(&sizes, &search, args.seed, |p| {
        done += 1;
        if tty {
            eprint!("\revaluation {done}/{}: {}    ", args.evaluations, describe(&searched, p));
        }
        objective.fitness(&measure(p, args.games)?)
    })?;
    if tty {
        eprint!("\r{}\r", " ".repeat(60));
    }
    // The best settings measured again on four times the games, for their intervals.
    let mut top = Vec::new();
    for (point, search_fitness, times) in ranked(&history).into_iter().take(args.top.max(1)) {
        let check = measure(&point, args.games * 4)?;
        let fitness = objective.fitness(&check)?;
        top.push(Checked { point, search_fitness, times, fitness, check });
    }
    // Ranked again by the larger measurement (stable: ties keep the search's order).
    top.sort_by(|a, b| b.fitness.total_cmp(&a.fitness));
    let setting = |p: &[usize]| -> Vec<(String, String)> {
        searched.iter().zip(p).map(|((k, vs), i)| (k.clone(), vs[*i].clone())).collect()
    };
    if args.json {
        let checked = |c: &Checked| {
            serde_json::json!({
                "setting": setting(&c.point).into_iter().map(|(k, v)| (k, serde_json::Value::String(v))).collect::<serde_json::Map<_, _>>(),
                "fitness": c.fitness, "search_fitness": c.search_fitness, "times_evaluated": c.times, "measures": c.check,
            })
        };
        let json = serde_json::json!({
            "game": args.game.game,
            "players": args.players,
            "objective": args.objective,
            "evaluations": history.iter().map(|(p, f)| serde_json::json!({ "setting": describe(&searched, p), "fitness": f })).collect::<Vec<_>>(),
            "best": checked(&top[0]),
            "top": top.iter().map(checked).collect::<Vec<_>>(),
        });
        println!("{json}");
    } else {
        println!(
            "objective {} over {} settings ({} games each), seed {}",
            args.objective,
            history.len(),
            args.games,
            args.seed
        );
        println!(
            "the {} best of the search, measured again over {} games each and ranked by that:",
            top.len(),
            args.games * 4
        );
        for (rank, c) in top.iter().enumerate() {
            let p1: &Rate = &c.check.win_rate_by_seat[0];
            println!(
                "{}. {}  fitness {:.3} (search: {:.3}, evaluated {}x)",
                rank + 1,
                describe(&searched, &c.point),
                c.fitness,
                c.search_fitness,
                c.times
            );
            println!(
                "   P1 win rate {:.1}% ({:.1}–{:.1}), fairness {:.3}, length {:.2} ({:.2}–{:.2}){}",
                p1.rate * 100.0,
                p1.interval[0] * 100.0,
                p1.interval[1] * 100.0,
                c.check.fairness,
                c.check.length.mean,
                c.check.length.interval[0],
                c.check.length.interval[1],
                c.check
                    .margin
                    .as_ref()
                    .map(|m| format!(", margin {:.2} ({:.2}–{:.2})", m.mean, m.interval[0], m.interval[1]))
                    .unwrap_or_default()
            );
        }
        println!(
            "compare the best with the game as it comes:\n  rulebook balance {} -p {} --vs {}",
            args.game.game,
            args.players,
            setting(&top[0].point).iter().map(|(k, v)| format!("--option {k}={v}")).collect::<Vec<_>>().join(" ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A setting of the search measured again.
struct Checked {
    point: Vec<usize>,
    search_fitness: f64,
    times: usize,
    fitness: f64,
    check: Side,
}

/// A setting as `key=value` pairs.
fn describe(searched: &[(String, Vec<String>)], p: &[usize]) -> String {
    searched.iter().zip(p).map(|((k, vs), i)| format!("{k}={}", vs[*i])).collect::<Vec<_>>().join(" ")
}
