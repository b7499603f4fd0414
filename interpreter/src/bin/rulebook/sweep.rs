//! `rulebook sweep`: one parameter over a range or a list of values, the same bots and seeds
//! for each, the measures tabulated (and plotted) against it.

use crate::cli::{Cli, GameArgs, SweepArgs};
use crate::locate::load;
use rulebook::balance::Side;
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
    let title = load(cli, &GameArgs { game: args.game.game.clone(), variants: Vec::new(), options: Vec::new() })?
        .rules
        .title
        .clone();
    if let Some(path) = &args.html {
        let page = rulebook::balance_html::sweep_page(&key, &points, &title)?;
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
            "points": points.iter().map(|(v, s)| serde_json::json!({ "value": v, "measures": s })).collect::<Vec<_>>(),
        });
        println!("{json}");
    } else {
        print!("{}", table(&key, &points, args, &title, &bots.to_string()));
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

fn table(key: &str, points: &[(String, Side)], args: &SweepArgs, title: &str, bots: &str) -> String {
    let mut out = format!(
        "{title}, {} players, {} games per value, seed {}, bots: {bots}\n",
        args.players, args.games, args.seed
    );
    out.push_str(&format!(
        "{key:<10} {:<24} {:>14} {:>18} {:>14}\n",
        "P1 win rate", "shared wins", "length (decisions)", "margin"
    ));
    for (v, s) in points {
        let p1 = &s.win_rate_by_seat[0];
        out.push_str(&format!(
            "{v:<10} {:<24} {:>13.1}% {:>18.2} {:>14}\n",
            format!("{:.1}% ({:.1}–{:.1})", p1.rate * 100.0, p1.interval[0] * 100.0, p1.interval[1] * 100.0),
            s.shared_wins.rate * 100.0,
            s.length.mean,
            s.margin.as_ref().map(|m| format!("{:.2}", m.mean)).unwrap_or_else(|| "-".into())
        ));
    }
    out
}
