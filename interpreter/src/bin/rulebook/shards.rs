//! `--shard I/N` and `--out FILE` of simulate, balance and sweep, and `rulebook merge`: a run cut
//! into shards by game index, each shard's games written to a results file, and the files put
//! back together and reported by the same code that reports a run played in one piece.

use crate::cli::{GameArgs, MergeArgs, ShardArgs};
use rulebook::results::{games_text, merge as merge_results, Results, Shard};
use rulebook::sim::GameRecord;
use rulebook::Game;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::process::ExitCode;

/// How a report is given: a table (or JSON) on stdout, and an HTML page when asked.
pub struct Outputs<'a> {
    /// JSON instead of the table.
    pub json: bool,
    /// Where to write the HTML page.
    pub html: Option<&'a Path>,
}

/// The game a run played, as its command line named it, and what its reports show of it, so
/// that `merge` needs no game files.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Played {
    /// GAME as written.
    pub game: String,
    /// `--variant` as written.
    pub variants: Vec<String>,
    /// `--option` as written.
    pub options: Vec<(String, String)>,
    /// The game's name.
    pub name: String,
    /// The title reports show.
    pub title: String,
    /// The variants the loader applied.
    pub applied: Vec<String>,
    /// Each seat's name.
    pub seats: Vec<String>,
    /// [`Game::fingerprint`]: shards of one run played the same files.
    pub fingerprint: String,
}

impl Played {
    /// `game`, loaded from `args`, for `players` seats.
    pub fn of(game: &Game, args: &GameArgs, players: usize) -> Played {
        let r = &game.rules;
        Played {
            game: args.game.clone(),
            variants: args.variants.clone(),
            options: args.options.clone(),
            name: r.name.clone(),
            title: r.title.clone(),
            applied: r.variants.clone(),
            seats: (0..players).map(|p| r.seat_name(p)).collect(),
            fingerprint: game.fingerprint(),
        }
    }
}

impl ShardArgs {
    /// The shard to play (the whole run without `--shard`), refusing what a shard cannot do:
    /// it writes its games to `--out` and prints no report (`report` names the report flag
    /// given, if any).
    pub fn shard(&self, report: Option<&str>) -> Result<Shard, String> {
        let Some(shard) = self.shard.filter(|s| !s.is_whole()) else {
            return Ok(Shard::WHOLE);
        };
        if self.out.is_none() {
            return Err(format!(
                "--shard {shard} needs --out FILE: a shard's games go to a results file, and `rulebook merge` \
                 puts the shards' files together"
            ));
        }
        if let Some(flag) = report {
            return Err(format!(
                "--shard {shard} with {flag}: a shard holds part of the games and prints no report; \
                 give {flag} to `rulebook merge`"
            ));
        }
        Ok(shard)
    }
}

/// The report flag given (`--json`, `--html`), for [`ShardArgs::shard`].
pub fn report_flag(json: bool, html: bool) -> Option<&'static str> {
    match (json, html) {
        (true, _) => Some("--json"),
        (_, true) => Some("--html"),
        _ => None,
    }
}

/// Writes the results to `out` if asked; then a shard says what it wrote (on stderr) and the
/// whole run is reported.
pub fn finish(
    results: &Results,
    out: Option<&Path>,
    report: impl FnOnce(&Results) -> Result<(), String>,
) -> Result<ExitCode, String> {
    if let Some(path) = out {
        results.write(path)?;
    }
    match out {
        Some(path) if !results.shard.is_whole() => eprintln!(
            "shard {} ({} of {}) written to {}",
            results.shard,
            games_text(&results.shard.games(results.games)),
            results.games,
            path.display()
        ),
        _ => report(results)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The command's configuration in a results file.
pub fn config<T: DeserializeOwned>(r: &Results) -> Result<T, String> {
    serde_json::from_value(r.config.clone())
        .map_err(|e| format!("results of `{}` with a configuration this rulebook cannot read: {e}", r.command))
}

/// The `n` series of games of a results file.
pub fn series(r: &Results, n: usize) -> Result<&[Vec<GameRecord>], String> {
    if r.series.len() == n {
        Ok(&r.series)
    } else {
        Err(format!("results of `{}` hold {} series of games, not {n}", r.command, r.series.len()))
    }
}

/// A configuration as JSON, for [`Results::new`].
pub fn to_value(config: &impl Serialize) -> Result<serde_json::Value, String> {
    serde_json::to_value(config).map_err(|e| e.to_string())
}

/// `rulebook merge`: the shards' files, put together, reported as their command reports.
pub fn merge(args: &MergeArgs) -> Result<ExitCode, String> {
    let files = args
        .files
        .iter()
        .map(|p| Ok((p.display().to_string(), Results::read(p)?)))
        .collect::<Result<Vec<_>, String>>()?;
    let whole = merge_results(files)?;
    if args.html.is_some() && whole.command == "simulate" {
        return Err("--html: simulate has no HTML report (balance and sweep have)".into());
    }
    let outputs = Outputs { json: args.json, html: args.html.as_deref() };
    let report = |r: &Results| match r.command.as_str() {
        "simulate" => crate::simulate::report(r, &outputs),
        "balance" => crate::balance::report(r, &outputs),
        "sweep" => crate::sweep::report(r, &outputs),
        other => Err(format!("results of `{other}`: merge reports simulate, balance and sweep")),
    };
    finish(&whole, args.out.as_deref(), report)
}
