//! `rulebook balance`: two configurations of a game, the same bots and seeds, compared.

use crate::cli::{BalanceArgs, Cli, GameArgs};
use crate::locate::load;
use indicatif::{ProgressBar, ProgressStyle};
use rulebook::balance::{compare, sequential, Difference, Measure, Report, Side, Spread, Verdict};
use rulebook::sim::{run as run_games, SimConfig};
use std::io::IsTerminal;
use std::process::ExitCode;

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
    let games = [load(cli, &args.game)?, load(cli, other)?];
    for g in &games {
        crate::locate::check_table(g, args.players, &bots)?;
    }
    let test = match args.until_decided {
        false => None,
        true => {
            let measure = Measure::parse(&args.measure, args.players)?;
            let margin = match (args.margin, measure) {
                (Some(m), _) if m > 0.0 && m.is_finite() => m,
                (Some(m), _) => return Err(format!("--margin {m}: the smallest change that matters must be above 0")),
                (None, Measure::Wins(_)) => 0.05,
                (None, m) => return Err(format!("--until-decided on `{m}` needs --margin (in its units)")),
            };
            Some((measure, margin))
        }
    };
    if args.batch == 0 {
        return Err("--batch 0: a batch must hold at least one game".into());
    }
    let mut cfg = SimConfig::new(args.players, args.games, args.seed, bots.clone(), args.jobs);
    let bar = progress(2 * args.games, &games[0].rules.name)?;
    let mut records = [Vec::new(), Vec::new()];
    let mut decided = None;
    while cfg.first < args.games {
        cfg.games = if test.is_some() { args.batch.min(args.games - cfg.first) } else { args.games };
        for (side, (g, config)) in games.iter().zip([&args.game, other]).enumerate() {
            let side_cfg = SimConfig {
                seed: if side == 1 { args.vs_seed.unwrap_or(args.seed) } else { args.seed },
                ..cfg.clone()
            };
            let batch = run_games(g, &side_cfg, &|| bar.inc(1)).map_err(|f| format!("{}: {f}", flags(config)))?;
            records[side].extend(batch);
        }
        cfg.first += cfg.games;
        if let Some((measure, margin)) = test {
            let s = sequential(measure, margin, &records[0], &records[1])?;
            let done = s.verdict != Verdict::Undecided;
            decided = Some(s);
            if done {
                break;
            }
        }
    }
    bar.finish_and_clear();
    let [ra, rb] = records;
    let a = Side::measure(&flags(&args.game), args.players, &ra);
    let mut b_flags = flags(other);
    if let Some(s) = args.vs_seed {
        b_flags.push_str(&format!(" (seed {s})"));
    }
    let b = Side::measure(&b_flags, args.players, &rb);
    let mut report = compare(&games[0].rules.name, args.seed, &bots.to_string(), args.players, a, b);
    report.sequential = decided;
    if let Some(path) = &args.html {
        let page = rulebook::balance_html::page(&report, &games[0].rules.title)?;
        std::fs::write(path, page).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("report written to {}", path.display());
    }
    if args.json {
        println!("{}", serde_json::to_string(&report).map_err(|e| e.to_string())?);
    } else {
        print!("{}", text(&report, &games[0].rules.title));
    }
    Ok(ExitCode::SUCCESS)
}

fn progress(len: u64, name: &str) -> Result<ProgressBar, String> {
    if !std::io::stderr().is_terminal() {
        return Ok(ProgressBar::hidden());
    }
    let b = ProgressBar::new(len);
    b.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:40}] {pos}/{len} games ({per_sec}, eta {eta})")
            .map_err(|e| e.to_string())?
            .progress_chars("=> "),
    );
    b.set_message(name.to_string());
    Ok(b)
}

/// A configuration as the flags that make it (`--variant split-ties --option cards=8`).
fn flags(g: &GameArgs) -> String {
    let words: Vec<String> = g
        .variants
        .iter()
        .map(|v| format!("--variant {v}"))
        .chain(g.options.iter().map(|(k, v)| format!("--option {k}={v}")))
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
