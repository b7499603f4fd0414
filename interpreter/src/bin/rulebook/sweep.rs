//! `rulebook sweep`: one parameter over a range or a list of values, the same bots and seeds
//! for each, the measures tabulated (and plotted) against it.

use crate::cli::{Cli, GameArgs, SweepArgs};
use crate::locate::load;
use crate::shards::{config, finish, report_flag, series, to_value, Outputs, Played};
use rulebook::balance::{show_reading, Side, SideMeasure};
use rulebook::results::Results;
use rulebook::sim::{run as run_games, SimConfig};
use serde::{Deserialize, Serialize};
use std::process::ExitCode;

/// Most values one sweep plays.
const MAX_VALUES: usize = 200;

/// What a sweep's results file holds besides the players, the games and the records.
#[derive(Serialize, Deserialize)]
struct Config {
    /// The game (loaded with the first value; the title is the game's as it comes).
    game: Played,
    /// The swept parameter.
    parameter: String,
    /// Its values, one series of games each.
    values: Vec<String>,
    /// `--measure` as given (none: the default set).
    measures: Vec<String>,
    /// Series seed.
    seed: u64,
    /// The bots, as `--bot` names them.
    bots: String,
}

pub fn run(cli: &Cli, args: &SweepArgs) -> Result<ExitCode, String> {
    let (key, values) = swept(&args.game.options)?;
    if args.games == 0 {
        return Err("--games 0: nothing to measure; play at least one game per value".into());
    }
    let bots = args.bots.table()?;
    asked_measures(&args.measure, args.players)?;
    let shard = args.shards.shard(report_flag(args.json, args.html.is_some()))?;
    let range = shard.games(args.games);
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut all = Vec::new();
    let mut played = None;
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
        played.get_or_insert_with(|| Played::of(&game, &args.game, args.players));
        let cfg = SimConfig {
            first: range.start,
            ..SimConfig::new(args.players, range.end - range.start, args.seed, bots.clone(), args.jobs)
        };
        if tty {
            eprint!("\r{key}={v} ...");
        }
        all.push(run_games(&game, &cfg, &|| {}).map_err(|f| format!("{key}={v}: {f}"))?);
    }
    if tty {
        eprint!("\r{}\r", " ".repeat(40));
    }
    let mut game = played.ok_or("sweep needs at least one value")?;
    game.title = load(cli, &GameArgs { game: args.game.game.clone(), variants: Vec::new(), options: Vec::new() })?
        .rules
        .title
        .clone();
    let config = Config {
        game,
        parameter: key,
        values,
        measures: args.measure.clone(),
        seed: args.seed,
        bots: bots.to_string(),
    };
    let mut results = Results::new("sweep", args.players, args.games, to_value(&config)?, shard);
    results.series = all;
    let outputs = Outputs { json: args.json, html: args.html.as_deref() };
    finish(&results, args.shards.out.as_deref(), |r| report(r, &outputs))
}

/// The measures of a sweep's results (played here or merged from shards) against its
/// parameter: the table or JSON, and the HTML page if asked.
pub fn report(results: &Results, outputs: &Outputs) -> Result<(), String> {
    let c: Config = config(results)?;
    let all = series(results, c.values.len())?;
    let players = results.players;
    let key = &c.parameter;
    let points: Vec<(String, Side)> = c
        .values
        .iter()
        .zip(all)
        .map(|(v, records)| (v.clone(), Side::measure(&format!("--option {key}={v}"), players, records)))
        .collect();
    let measures = available(asked_measures(&c.measures, players)?, !c.measures.is_empty(), &points)?;
    if let Some(path) = outputs.html {
        let page = rulebook::balance_html::sweep_page(key, &points, &measures, &c.game.title)?;
        std::fs::write(path, page).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("report written to {}", path.display());
    }
    if outputs.json {
        let json = serde_json::json!({
            "game": c.game.game,
            "players": players,
            "games": results.games,
            "seed": c.seed,
            "bots": c.bots,
            "parameter": key,
            "measures": measures.iter().map(SideMeasure::name).collect::<Vec<_>>(),
            "points": points.iter().map(|(v, s)| serde_json::json!({ "value": v, "measures": s })).collect::<Vec<_>>(),
        });
        println!("{json}");
    } else {
        let head = format!(
            "{}, {players} players, {} games per value, seed {}, bots: {}\n",
            c.game.title, results.games, c.seed, c.bots
        );
        print!("{}", table(&head, key, &points, &measures)?);
    }
    Ok(())
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
    if values.is_empty() {
        return Err(format!("--option {key}={spec}: no values to sweep"));
    }
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

/// The table: `head`, then a row per value.
fn table(head: &str, key: &str, points: &[(String, Side)], measures: &[SideMeasure]) -> Result<String, String> {
    let mut out = head.to_string();
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
