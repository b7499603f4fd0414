//! `rulebook sweep`: one parameter over a range or a list of values, the same bots and seeds
//! for each, the measures tabulated (and plotted) against it.

use crate::cli::{Cli, GameArgs, SweepArgs};
use crate::locate::load;
use rulebook::balance::{show_reading, Side, SideMeasure};
use rulebook::sim::{run as run_games, SimConfig};
use std::process::ExitCode;

/// Most values one sweep plays.
const MAX_VALUES: usize = 200;

pub fn run(cli: &Cli, args: &SweepArgs) -> Result<ExitCode, String> {
    let (key, values) = swept(&args.game.options)?;
    if args.games == 0 {
        return Err("--games 0: nothing to measure; play at least one game per value".into());
    }
    let bots = args.bots.table()?;
    let measures = asked_measures(&args.measure, args.players)?;
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut points = Vec::new();
    for v in &values {
        let mut config =
            GameArgs { game: args.game.game.clone(), variants: args.game.variants.clone(), options: Vec::new() };
        config.options = args
            .game
            .options
            .iter()
            .map(|(k, x)| if *k == key { (k.clone(), v.clone()) } else { (k.clone(), x.clone()) })
            .collect();
        let game = load(cli, &config).map_err(|e| format!("{key}={v}: {e}"))?;
        crate::locate::check_table(&game, args.players, &bots)?;
        let cfg = SimConfig::new(args.players, args.games, args.seed, bots.clone(), args.jobs);
        if tty {
            eprint!("\r{key}={v} ...");
        }
        let records = run_games(&game, &cfg, &|| {}).map_err(|f| format!("{key}={v}: {f}"))?;
        points.push((v.clone(), Side::measure(&format!("--option {key}={v}"), args.players, &records)));
    }
    if tty {
        eprint!("\r{}\r", " ".repeat(40));
    }
    let measures = available(measures, !args.measure.is_empty(), &points)?;
    let title = load(cli, &GameArgs { game: args.game.game.clone(), variants: Vec::new(), options: Vec::new() })?
        .rules
        .title
        .clone();
    if let Some(path) = &args.html {
        let page = rulebook::balance_html::sweep_page(&key, &points, &measures, &title)?;
        std::fs::write(path, page).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("report written to {}", path.display());
    }
    if args.json {
        let json = serde_json::json!({
            "game": args.game.game,
            "players": args.players,
            "games": args.games,
            "seed": args.seed,
            "bots": bots.to_string(),
            "parameter": key,
            "measures": measures.iter().map(SideMeasure::name).collect::<Vec<_>>(),
            "points": points.iter().map(|(v, s)| serde_json::json!({ "value": v, "measures": s })).collect::<Vec<_>>(),
        });
        println!("{json}");
    } else {
        print!("{}", table(&key, &points, &measures, args, &title, &bots.to_string())?);
    }
    Ok(ExitCode::SUCCESS)
}

/// The swept parameter and its values: the one `--option` written `KEY=A..B`, `KEY=A..B:STEP`
/// or `KEY=V1,V2,...`.
fn swept(options: &[(String, String)]) -> Result<(String, Vec<String>), String> {
    let ranged: Vec<&(String, String)> = options.iter().filter(|(_, v)| is_range(v)).collect();
    match ranged.as_slice() {
        [(key, spec)] => Ok((key.clone(), values(key, spec)?)),
        [] => Err("sweep needs one --option KEY=A..B[:STEP] or KEY=V1,V2,... (the parameter to sweep)".into()),
        _ => Err("sweep sweeps one parameter: give a range or a list to one --option only".into()),
    }
}

/// Whether an `--option` value is a range or a list of values.
pub fn is_range(value: &str) -> bool {
    value.contains("..") || value.contains(',')
}

/// The values of `A..B`, `A..B:STEP` (integers) or `V1,V2,...`.
pub fn values(key: &str, spec: &str) -> Result<Vec<String>, String> {
    let values: Vec<String> = if let Some((range, step)) = spec.split_once("..") {
        let (to, step) = step.split_once(':').unwrap_or((step, "1"));
        let num = |s: &str, what: &str| {
            s.trim().parse::<i64>().map_err(|_| format!("--option {key}={spec}: the {what} `{s}` is not an integer"))
        };
        let (from, to, step) = (num(range, "start")?, num(to, "end")?, num(step, "step")?);
        if step <= 0 || to < from {
            return Err(format!("--option {key}={spec}: write A..B[:STEP] with A <= B and a step above 0"));
        }
        let count = ((to - from) / step + 1) as usize;
        if count > MAX_VALUES {
            return Err(format!("--option {key}={spec}: {count} values, more than {MAX_VALUES}; use a larger step"));
        }
        (0..count).map(|i| (from + step * i as i64).to_string()).collect()
    } else {
        spec.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect()
    };
    if values.len() > MAX_VALUES {
        return Err(format!("--option {key}: {} values, more than {MAX_VALUES}", values.len()));
    }
    Ok(values)
}

/// The measures to show: those asked for, else the default set (wins:P1, shared-wins, length
/// and margin when the game has a score). Names are read before any game is played.
fn asked_measures(asked: &[String], players: usize) -> Result<Vec<SideMeasure>, String> {
    let names: Vec<&str> = if asked.is_empty() {
        vec!["wins:P1", "shared-wins", "length", "margin"]
    } else {
        asked.iter().map(String::as_str).collect()
    };
    names.iter().map(|n| SideMeasure::parse(n, players)).collect()
}

/// Drops the default measures the game cannot give; an asked-for measure it cannot give is an error.
fn available(
    mut measures: Vec<SideMeasure>,
    asked: bool,
    points: &[(String, Side)],
) -> Result<Vec<SideMeasure>, String> {
    for (v, side) in points {
        if asked {
            for m in &measures {
                side.reading(m).map_err(|e| format!("{e} (at {v})"))?;
            }
        } else {
            measures.retain(|m| side.reading(m).is_ok());
        }
    }
    Ok(measures)
}

fn table(
    key: &str,
    points: &[(String, Side)],
    measures: &[SideMeasure],
    args: &SweepArgs,
    title: &str,
    bots: &str,
) -> Result<String, String> {
    let mut out = format!(
        "{title}, {} players, {} games per value, seed {}, bots: {bots}\n",
        args.players, args.games, args.seed
    );
    let width = |m: &SideMeasure| m.name().chars().count().max(24);
    out.push_str(&format!("{key:<10}"));
    for m in measures {
        out.push_str(&format!(" {:<w$}", m.name(), w = width(m)));
    }
    out.push('\n');
    for (v, s) in points {
        out.push_str(&format!("{v:<10}"));
        for m in measures {
            out.push_str(&format!(" {:<w$}", show_reading(m, s.reading(m)?), w = width(m)));
        }
        out.push('\n');
    }
    Ok(out.lines().map(|l| format!("{}\n", l.trim_end())).collect())
}
