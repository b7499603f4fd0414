//! `rulebook balance`: two configurations of a game, the same bots and seeds, compared.

use crate::cli::{BalanceArgs, Cli, GameArgs};
use crate::locate::load;
use crate::shards::{config, finish, report_flag, series, to_value, Outputs, Played};
use rulebook::balance::{compare, sequential, Difference, Measure, Report, Side, Spread, Verdict};
use rulebook::results::Results;
use rulebook::sim::{run as run_games, GameRecord, SimConfig};
use rulebook::Game;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::process::ExitCode;

/// What a balance run's results file holds besides the players, the games and the records.
#[derive(Serialize, Deserialize)]
struct Config {
    /// Side A.
    a: Played,
    /// Side B.
    b: Played,
    /// Series seed.
    seed: u64,
    /// Side B's own series seed (`--vs --seed S`).
    vs_seed: Option<u64>,
    /// The bots, as `--bot` names them.
    bots: String,
    /// `--until-decided`: the sequential test that decided how many games to play.
    until_decided: Option<Test>,
}

/// The sequential test of `--until-decided`.
#[derive(Clone, Serialize, Deserialize)]
struct Test {
    /// `--measure`.
    measure: String,
    /// `--margin`.
    margin: f64,
    /// `--batch`.
    batch: u64,
    /// `--games`: the most games per side.
    games: u64,
}

pub fn run(cli: &Cli, args: &BalanceArgs) -> Result<ExitCode, String> {
    let Some(other) = &args.vs_game else {
        return Err("balance compares two configurations: end the command with --vs [--variant W]... \
                    [--option K=W]... (nothing after --vs: the game as it comes)"
            .into());
    };
    if args.games == 0 {
        return Err("--games 0: nothing to compare; play at least one game per configuration".into());
    }
    let bots = args.bots.table()?;
    let shard = args.shards.shard(report_flag(args.json, args.html.is_some()))?;
    let games = [load(cli, &args.game)?, load(cli, other)?];
    for g in &games {
        crate::locate::check_table(g, args.players, &bots)?;
    }
    let test = until_decided(args)?;
    if args.batch == 0 {
        return Err("--batch 0: a batch must hold at least one game".into());
    }
    if test.is_some() && !shard.is_whole() {
        return Err(format!(
            "--shard {shard} with --until-decided: the sequential test decides after each batch how many games \
             to play, which no shard can know; shard a fixed number of games (--games) instead"
        ));
    }
    let range = shard.games(args.games);
    let records = play(&games, [&args.game, other], args, range, test.as_ref())?;
    let config = Config {
        a: Played::of(&games[0], &args.game, args.players),
        b: Played::of(&games[1], other, args.players),
        seed: args.seed,
        vs_seed: args.vs_seed,
        bots: bots.to_string(),
        until_decided: test,
    };
    let played = if config.until_decided.is_some() { records[0].len() as u64 } else { args.games };
    let mut results = Results::new("balance", args.players, played, to_value(&config)?, shard);
    results.series = records.into();
    let outputs = Outputs { json: args.json, html: args.html.as_deref() };
    finish(&results, args.shards.out.as_deref(), |r| report(r, &outputs))
}

/// The sequential test `--until-decided` asks for, if it does.
fn until_decided(args: &BalanceArgs) -> Result<Option<Test>, String> {
    if !args.until_decided {
        return Ok(None);
    }
    let measure = Measure::parse(&args.measure, args.players)?;
    let margin = match (args.margin, measure) {
        (Some(m), _) if m > 0.0 && m.is_finite() => m,
        (Some(m), _) => return Err(format!("--margin {m}: the smallest change that matters must be above 0")),
        (None, Measure::Wins(_)) => 0.05,
        (None, m) => return Err(format!("--until-decided on `{m}` needs --margin (in its units)")),
    };
    Ok(Some(Test { measure: measure.to_string(), margin, batch: args.batch, games: args.games }))
}

/// Plays the games of `range` on both sides (in batches until the sequential test decides,
/// with `--until-decided`).
fn play(
    games: &[Game; 2],
    configs: [&GameArgs; 2],
    args: &BalanceArgs,
    range: Range<u64>,
    test: Option<&Test>,
) -> Result<[Vec<GameRecord>; 2], String> {
    let bots = args.bots.table()?;
    let seeds = [args.seed, args.vs_seed.unwrap_or(args.seed)];
    let bar = crate::simulate::progress(2 * (range.end - range.start), &games[0].rules.name)?;
    let mut records = [Vec::new(), Vec::new()];
    let mut first = range.start;
    while first < range.end {
        let n = test.map_or(range.end - first, |t| t.batch.min(range.end - first));
        for side in 0..2 {
            let cfg = SimConfig { first, ..SimConfig::new(args.players, n, seeds[side], bots.clone(), args.jobs) };
            let batch = run_games(&games[side], &cfg, &crate::simulate::tick(&bar))
                .map_err(|f| format!("{}: {f}", flags(&configs[side].variants, &configs[side].options)))?;
            records[side].extend(batch);
        }
        first += n;
        if let Some(t) = test {
            let measure = Measure::parse(&t.measure, args.players)?;
            if sequential(measure, t.margin, &records[0], &records[1])?.verdict != Verdict::Undecided {
                break;
            }
        }
    }
    bar.finish_and_clear();
    Ok(records)
}

/// The comparison of a balance run's results (played here or merged from shards): the table
/// or JSON, and the HTML page if asked.
pub fn report(results: &Results, outputs: &Outputs) -> Result<(), String> {
    let c: Config = config(results)?;
    let [ra, rb] = series(results, 2)? else { return Err("results of `balance` hold two series".into()) };
    let players = results.players;
    let a = Side::measure(&flags(&c.a.variants, &c.a.options), players, ra);
    let mut b_flags = flags(&c.b.variants, &c.b.options);
    if let Some(s) = c.vs_seed {
        b_flags.push_str(&format!(" (seed {s})"));
    }
    let b = Side::measure(&b_flags, players, rb);
    let mut report = compare(&c.a.name, c.seed, &c.bots, players, a, b);
    report.sequential = match &c.until_decided {
        Some(t) => Some(sequential(Measure::parse(&t.measure, players)?, t.margin, ra, rb)?),
        None => None,
    };
    if let Some(path) = outputs.html {
        let page = rulebook::balance_html::page(&report, &c.a.title)?;
        std::fs::write(path, page).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("report written to {}", path.display());
    }
    if outputs.json {
        println!("{}", serde_json::to_string(&report).map_err(|e| e.to_string())?);
    } else {
        print!("{}", text(&report, &c.a.title));
    }
    Ok(())
}

/// A configuration as the flags that make it (`--variant NAME --option KEY=VALUE`).
fn flags(variants: &[String], options: &[(String, String)]) -> String {
    let words: Vec<String> = variants
        .iter()
        .map(|v| format!("--variant {v}"))
        .chain(options.iter().map(|(k, v)| format!("--option {k}={v}")))
        .collect();
    if words.is_empty() {
        "(as it comes)".into()
    } else {
        words.join(" ")
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// One side's value with its interval: a rate in percent, a mean as it is.
fn value(d: &Difference, x: f64, interval: [f64; 2]) -> String {
    if d.test == "two-proportion z" {
        format!("{} ({}–{})", pct(x), pct(interval[0]), pct(interval[1]))
    } else {
        format!("{x:.2} ({:.2}–{:.2})", interval[0], interval[1])
    }
}

/// The difference, in points for rates.
fn change(d: &Difference) -> String {
    let is_rate = d.test == "two-proportion z";
    let f = |x: f64| if is_rate { format!("{:+.1}", x * 100.0) } else { format!("{x:+.2}") };
    let unit = if is_rate { " pts" } else { "" };
    format!("{}{unit} ({} to {})", f(d.difference), f(d.interval[0]), f(d.interval[1]))
}

/// A histogram as a row of bars (▁ to █), scaled to its fullest bin.
fn sparkline(s: &Spread) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = s.histogram.counts.iter().copied().max().unwrap_or(0).max(1);
    s.histogram.counts.iter().map(|c| if *c == 0 { ' ' } else { BARS[((*c * 7) / max) as usize] }).collect()
}

/// The terminal report.
fn text(r: &Report, title: &str) -> String {
    let mut out = format!(
        "{title}, {} players, {} games per side, seed {}, bots: {}\n  A: {}\n  B: {}\n\n",
        r.players, r.a.games, r.seed, r.bots, r.a.config, r.b.config
    );
    out.push_str(&format!("{:<22} {:<24} {:<24} {:<28} {:>7} {:>7}\n", "measure", "A", "B", "B − A", "p", "p_holm"));
    for d in &r.differences {
        let mark = if d.p_holm < 0.05 { " *" } else { "" };
        let (a, b) = (value(d, d.a, d.a_interval), value(d, d.b, d.b_interval));
        out.push_str(&format!(
            "{:<22} {a:<24} {b:<24} {:<28} {:>7.4} {:>7.4}{mark}\n",
            d.measure,
            change(d),
            d.p,
            d.p_holm
        ));
    }
    out.push_str(&format!("fairness (1 = even wins): A {:.3}, B {:.3}\n", r.a.fairness, r.b.fairness));
    out.push_str(&format!(
        "\nfirst-seat advantage (P1 win rate − fair share): A {:+.1} pts, B {:+.1} pts\n",
        r.a.first_seat_advantage * 100.0,
        r.b.first_seat_advantage * 100.0
    ));
    for (label, s) in [("A", &r.a), ("B", &r.b)] {
        let q = s.length.quantiles;
        out.push_str(&format!(
            "length {label}: {:.0} to {:.0} decisions, quartiles {:.0} / {:.0} / {:.0}  {}\n",
            s.length.range[0],
            s.length.range[1],
            q[1],
            q[2],
            q[3],
            sparkline(&s.length)
        ));
    }
    if let Some(s) = &r.sequential {
        let verdict = match s.verdict {
            Verdict::Changed => format!("CHANGED (B − A = {:+.3})", s.difference),
            Verdict::NoChange => format!("NO CHANGE beyond ±{}", s.margin),
            Verdict::Undecided => "UNDECIDED: the game limit came first (raise --games)".into(),
        };
        out.push_str(&format!(
            "\nsequential test of {} (margin ±{}, 5% error each way): {verdict} after {} game pairs \
             (log-likelihood ratios {:+.2} up, {:+.2} down; bounds {:.2} and {:.2})\n",
            s.measure, s.margin, s.pairs, s.llr_up, s.llr_down, s.bounds[0], s.bounds[1]
        ));
    }
    out.push_str(&format!("\n* p_holm < 0.05. {}\n", r.note));
    out
}
