//! `rulebook simulate`: many bot games, summarised.

use crate::cli::{Cli, SimulateArgs};
use crate::locate::load;
use crate::shards::{config, finish, report_flag, series, to_value, Outputs, Played};
use indicatif::{ProgressBar, ProgressStyle};
use rulebook::bot::BotTable;
use rulebook::results::Results;
use rulebook::scenario::{transcript, Setup};
use rulebook::sim::{run as run_games, run_each, summarize, GameRecord, Series, SimConfig, Summary, Tally};
use serde::{Deserialize, Serialize};
use std::io::IsTerminal;
use std::process::ExitCode;

/// What a simulation's results file holds besides the players, the games and the records.
#[derive(Serialize, Deserialize)]
struct Config {
    /// The game.
    game: Played,
    /// Series seed.
    seed: u64,
    /// The bots, as `--bot` names them.
    bots: String,
}

pub fn run(cli: &Cli, args: &SimulateArgs) -> Result<ExitCode, String> {
    let bots = args.bots.table()?;
    let shard = args.shards.shard(report_flag(args.json, false))?;
    let game = load(cli, &args.game)?;
    crate::locate::check_table(&game, args.players, &bots)?;
    let range = shard.games(args.games);
    // Without a results file or transcripts to write, each game is counted as it ends and
    // let go of: the series takes no more memory however long it is, and the shapes of games
    // (which only a results file holds) are not worked out.
    let keep = args.record.is_some() || args.shards.out.is_some();
    let cfg = SimConfig {
        keep_moves: args.record.is_some(),
        keep_shapes: keep,
        first: range.start,
        ..SimConfig::new(args.players, range.end - range.start, args.seed, bots.clone(), args.jobs)
    };
    let bar = progress(cfg.games, &game.rules.name)?;
    if args.profile {
        game.scripts.start_profile();
    }
    let played = Played::of(&game, &args.game, args.players);
    let about = Series {
        game: played.name.clone(),
        variants: played.applied.clone(),
        players: args.players,
        seed: args.seed,
        bot: bots.to_string(),
    };
    let started = std::time::Instant::now();
    let mut tally = Tally::new(args.players);
    let result = if keep {
        run_games(&game, &cfg, &tick(&bar))
    } else {
        run_each(&game, &cfg, &tick(&bar), |r| tally.add(&r)).map(|()| Vec::new())
    };
    bar.finish_and_clear();
    let records = result.map_err(|f| {
        let flags: String = args
            .game
            .variants
            .iter()
            .map(|v| format!(" --variant {v}"))
            .chain(args.game.options.iter().map(|(k, v)| format!(" --option {k}={v}")))
            .collect();
        format!(
            "{f}\n  reproduce with: rulebook play {}{flags} --players {p} --bots {p}{} --seed {}",
            args.game.game,
            bot_flags(&bots),
            f.seed,
            p = args.players
        )
    })?;
    let elapsed = started.elapsed();
    if args.profile {
        print_profile(&game, elapsed);
    }
    if let Some(dir) = &args.record {
        record(&game, args, &records, dir)?;
    }
    let outputs = Outputs { json: args.json, html: None };
    let games = cfg.games;
    let code = if keep {
        let config = Config { game: played, seed: args.seed, bots: bots.to_string() };
        let mut results = Results::new("simulate", args.players, args.games, to_value(&config)?, shard);
        results.series = vec![records];
        finish(&results, args.shards.out.as_deref(), |r| report(r, &outputs))?
    } else {
        show(&tally.summary(&about), &played, &outputs)?;
        ExitCode::SUCCESS
    };
    if !args.json {
        eprintln!(
            "{games} games in {:.2}s ({:.0} games/s)",
            elapsed.as_secs_f64(),
            games as f64 / elapsed.as_secs_f64().max(1e-9)
        );
    }
    Ok(code)
}

/// The summary of a simulation's results (played here or merged from shards), as a table or JSON.
pub fn report(results: &Results, outputs: &Outputs) -> Result<(), String> {
    let c: Config = config(results)?;
    let [records] = series(results, 1)? else { return Err("results of `simulate` hold one series".into()) };
    let about = Series {
        game: c.game.name.clone(),
        variants: c.game.applied.clone(),
        players: results.players,
        seed: c.seed,
        bot: c.bots,
    };
    show(&summarize(&about, records), &c.game, outputs)
}

/// A summary as a table or JSON, on stdout.
fn show(summary: &Summary, game: &Played, outputs: &Outputs) -> Result<(), String> {
    if outputs.json {
        println!("{}", serde_json::to_string(summary).map_err(|e| e.to_string())?);
    } else {
        print_table(summary, game);
    }
    Ok(())
}

/// A progress bar of games on stderr when it is a terminal (simulate, balance).
pub(crate) fn progress(len: u64, name: &str) -> Result<ProgressBar, String> {
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

/// What a series calls after each game: moves `bar` on, unless it is hidden (off a terminal),
/// where moving it would still read the clock at every game.
pub(crate) fn tick(bar: &ProgressBar) -> impl Fn() + Sync + '_ {
    let hidden = bar.is_hidden();
    move || {
        if !hidden {
            bar.inc(1);
        }
    }
}

/// Where script time went (`--profile`), on stderr: the functions the engine calls, then
/// those the scripts call (their time includes their callees', so that table does not add up).
fn print_profile(game: &rulebook::Game, elapsed: std::time::Duration) {
    let total = elapsed.as_secs_f64().max(1e-9);
    let table = |title: &str, rows: Vec<(String, u64, std::time::Duration)>| {
        eprintln!("{title:<32} {:>10} {:>10} {:>7} {:>9}", "calls", "time (ms)", "% run", "µs/call");
        for (name, calls, time) in rows {
            let ms = time.as_secs_f64() * 1000.0;
            eprintln!(
                "{name:<32} {calls:>10} {ms:>10.1} {:>6.1}% {:>9.1}",
                ms / 10.0 / total,
                ms * 1000.0 / calls.max(1) as f64
            );
        }
    };
    table("script function", game.scripts.profile());
    let nested = game.scripts.nested_profile();
    if !nested.is_empty() {
        eprintln!();
        table("called by scripts (with callees)", nested);
    }
}

/// The `--bot` flags that make this table of bots again.
fn bot_flags(bots: &BotTable) -> String {
    let mut out: String = bots.seats.iter().map(|(s, b)| format!(" --bot P{}={b}", s + 1)).collect();
    out.push_str(&format!(" --bot {}", bots.default));
    out
}

fn print_table(s: &Summary, game: &Played) {
    let variants = if s.variants.is_empty() { String::new() } else { format!(" [{}]", s.variants.join(", ")) };
    println!("{}{} — {} games, {} players, seed {}, bot {}", game.title, variants, s.games, s.players, s.seed, s.bot);
    println!("{:<8} {:>8} {:>8} {:>12}", "seat", "wins", "rate", "mean score");
    for p in 0..s.players {
        let score = s.mean_score_by_seat.get(p).map(|x| format!("{x:.2}")).unwrap_or_else(|| "-".into());
        println!(
            "{:<8} {:>8} {:>7.1}% {:>12}",
            game.seats.get(p).cloned().unwrap_or_else(|| format!("P{}", p + 1)),
            s.wins_by_seat[p],
            s.win_rate_by_seat[p] * 100.0,
            score
        );
    }
    println!("shared wins: {}   no winner: {}", s.shared_wins, s.no_winner);
    println!("length (decisions): mean {:.1}, min {}, max {}", s.length.mean, s.length.min, s.length.max);
    for (name, t) in &s.tracks {
        println!("final {name}: mean {:.1}, min {}, max {}", t.mean, t.min, t.max);
    }
    if let Some(sp) = &s.score_spread {
        println!("score spread (best - worst): mean {:.1}, min {}, max {}", sp.mean, sp.min, sp.max);
    }
}

/// Writes one transcript per game into `dir`.
fn record(
    game: &rulebook::Game,
    args: &SimulateArgs,
    records: &[GameRecord],
    dir: &std::path::Path,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let setup = Setup { game: &args.game.game, variants: &args.game.variants, options: &args.game.options };
    for r in records {
        let mut s = game.start(args.players, r.seed).map_err(|e| e.to_string())?;
        for m in &r.moves {
            s.apply(m.player, &m.option).map_err(|e| format!("game {} does not replay: {e}", r.index))?;
        }
        let title = format!("{} game {} of simulation seed {}", game.rules.title, r.index, args.seed);
        let path = dir.join(format!("{}-{:05}.transcript", game.rules.name, r.index));
        std::fs::write(&path, transcript(&setup, &s, &title))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    eprintln!("{} transcripts written to {}", records.len(), dir.display());
    Ok(())
}
