//! `rulebook tune`: the declared parameters searched (NTBEA) for the setting that best meets
//! an objective, each setting judged from simulated games.

use crate::cli::{Cli, GameArgs, TuneArgs};
use crate::locate::load;
use crate::sweep::{is_range, values};
use rulebook::balance::{Rate, Side};
use rulebook::sim::{run as run_games, SimConfig};
use rulebook::tune::{best, ntbea, Search};
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
    let (point, mean_fitness, times) = best(&history).ok_or("no setting was evaluated")?;
    // The best setting measured again on four times the games, for its intervals.
    let check = measure(&point, args.games * 4)?;
    let fitness = objective.fitness(&check)?;
    let setting: Vec<(String, String)> =
        searched.iter().zip(&point).map(|((k, vs), i)| (k.clone(), vs[*i].clone())).collect();
    if args.json {
        let json = serde_json::json!({
            "game": args.game.game,
            "players": args.players,
            "objective": args.objective,
            "evaluations": history.iter().map(|(p, f)| serde_json::json!({ "setting": describe(&searched, p), "fitness": f })).collect::<Vec<_>>(),
            "best": { "setting": setting.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect::<serde_json::Map<_, _>>(),
                      "fitness": fitness, "search_fitness": mean_fitness, "times_evaluated": times, "measures": check },
        });
        println!("{json}");
    } else {
        let p1: &Rate = &check.win_rate_by_seat[0];
        println!(
            "objective {} over {} settings ({} games each), seed {}",
            args.objective,
            history.len(),
            args.games,
            args.seed
        );
        println!(
            "best: {}  (fitness {:.3} in the search, evaluated {times}x)",
            describe(&searched, &point),
            mean_fitness
        );
        println!("measured again over {} games: fitness {fitness:.3}", args.games * 4);
        println!(
            "  P1 win rate {:.1}% ({:.1}–{:.1}), fairness {:.3}, length {:.2} ({:.2}–{:.2}){}",
            p1.rate * 100.0,
            p1.interval[0] * 100.0,
            p1.interval[1] * 100.0,
            check.fairness,
            check.length.mean,
            check.length.interval[0],
            check.length.interval[1],
            check
                .margin
                .as_ref()
                .map(|m| format!(", margin {:.2} ({:.2}–{:.2})", m.mean, m.interval[0], m.interval[1]))
                .unwrap_or_default()
        );
        println!(
            "  rulebook balance {} -p {} --vs {}",
            args.game.game,
            args.players,
            setting.iter().map(|(k, v)| format!("--option {k}={v}")).collect::<Vec<_>>().join(" ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A setting as `key=value` pairs.
fn describe(searched: &[(String, Vec<String>)], p: &[usize]) -> String {
    searched.iter().zip(p).map(|((k, vs), i)| format!("{k}={}", vs[*i])).collect::<Vec<_>>().join(" ")
}
