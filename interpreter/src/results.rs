//! Results files: every game of a series (or of one shard of it) with the configuration that
//! played it. A long run is cut into shards by game index ([`Shard`]); each shard, played on any
//! machine, writes its games to a file, and [`merge`] puts the files back together into the
//! results of the whole run, refusing files that are not of one run or do not make it whole.
//! Games are seeded by index, so the merged games are exactly those of the unsharded run, and
//! a summary computed from them is too.

use crate::files::{read_text, FileError};
use crate::sim::GameRecord;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::io::Write;
use std::ops::Range;
use std::path::Path;

/// The `format` field of every results file.
pub const FORMAT: &str = "rulebook-results";

/// The version of the results file format this engine writes and reads.
pub const VERSION: u32 = 1;

/// The largest results file read.
pub const MAX_RESULTS_BYTES: u64 = 1 << 30;

/// Files and shards listed in one message at most.
const LISTED: usize = 8;

/// Shard `index` of `count` (counted from 1): a contiguous slice of a series' games, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, from 1 to `count`.
    pub index: u64,
    /// How many shards the series is cut into.
    pub count: u64,
}

impl Shard {
    /// The whole series: shard 1 of 1.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Reads `I/N` (1 <= I <= N).
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("`{text}` is not I/N: shard I of N, counted from 1 (1 <= I <= N), e.g. 3/8");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let number = |s: &str| s.trim().parse::<u64>().map_err(|_| bad());
        let shard = Shard { index: number(i)?, count: number(n)? };
        if shard.is_valid() {
            Ok(shard)
        } else {
            Err(bad())
        }
    }

    /// Whether `1 <= index <= count`.
    pub fn is_valid(&self) -> bool {
        self.index >= 1 && self.index <= self.count
    }

    /// Whether it is the whole series (1/1).
    pub fn is_whole(&self) -> bool {
        self.count == 1
    }

    /// The indices of its games in a series of `total`: shard I of N plays
    /// `(I-1)·total/N .. I·total/N` (rounded down), so the shards tile the series in order.
    pub fn games(&self, total: u64) -> Range<u64> {
        let at = |k: u64| (u128::from(k) * u128::from(total) / u128::from(self.count.max(1))) as u64;
        at(self.index.saturating_sub(1))..at(self.index)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Game indices for messages: `games 10–19`, `game 4`, `no games`.
pub fn games_text(range: &Range<u64>) -> String {
    match range.end.saturating_sub(range.start) {
        0 => "no games".into(),
        1 => format!("game {}", range.start),
        _ => format!("games {}–{}", range.start, range.end - 1),
    }
}

/// A results file: the games of one shard of a run (or of the whole run, shard 1/1) and
/// everything that run was configured with.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Results {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`] when written.
    pub version: u32,
    /// The engine that played the games (`rulebook 0.1.0`).
    pub engine: String,
    /// The command that played them: `simulate`, `balance` or `sweep`.
    pub command: String,
    /// Seats.
    pub players: usize,
    /// Games in each series of the whole run.
    pub games: u64,
    /// The rest of the command's configuration (its own shape per command).
    pub config: Value,
    /// Which shard these games are.
    pub shard: Shard,
    /// The games, one list per series the command plays (simulate one, balance two, sweep one
    /// per value), each in index order.
    pub series: Vec<Vec<GameRecord>>,
}

impl Results {
    /// Results of this engine.
    pub fn new(command: &str, players: usize, games: u64, config: Value, shard: Shard) -> Results {
        Results {
            format: FORMAT.into(),
            version: VERSION,
            engine: format!("rulebook {}", env!("CARGO_PKG_VERSION")),
            command: command.into(),
            players,
            games,
            config,
            shard,
            series: Vec::new(),
        }
    }

    /// Writes the file (one line of JSON), through a temporary file beside it so that a run
    /// stopped while writing leaves no half file under the name.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let mut partial = path.as_os_str().to_owned();
        partial.push(".partial");
        let partial = std::path::PathBuf::from(partial);
        let cannot = |e: &dyn fmt::Display| format!("cannot write {}: {e}", path.display());
        let file = std::fs::File::create(&partial).map_err(|e| cannot(&e))?;
        let mut out = std::io::BufWriter::new(file);
        serde_json::to_writer(&mut out, self).map_err(|e| cannot(&e))?;
        out.write_all(b"\n").and_then(|_| out.flush()).map_err(|e| cannot(&e))?;
        drop(out);
        std::fs::rename(&partial, path).map_err(|e| cannot(&e))
    }

    /// Reads a results file and checks it holds exactly its shard's games.
    pub fn read(path: &Path) -> Result<Results, String> {
        let name = path.display();
        let text = read_text(path, MAX_RESULTS_BYTES).map_err(|e| match e {
            FileError::Missing => format!("{name}: no such file"),
            e => format!("{name}: cannot read it: {e}"),
        })?;
        let results = match serde_json::from_str::<Results>(&text) {
            Ok(r) if r.format == FORMAT && r.version == VERSION => r,
            Ok(_) | Err(_) => return Err(format!("{name}: {}", why_unreadable(&text))),
        };
        results.check_shard().map_err(|e| format!("{name}: {e}"))?;
        results.check_records().map_err(|e| format!("{name}: {e}"))?;
        Ok(results)
    }

    /// Each series holds exactly the games of the shard, in index order.
    fn check_shard(&self) -> Result<(), String> {
        if !self.shard.is_valid() {
            return Err(format!("shard {} does not exist (I/N with 1 <= I <= N)", self.shard));
        }
        let range = self.shard.games(self.games);
        for (k, series) in self.series.iter().enumerate() {
            let indices: Vec<u64> = series.iter().map(|r| r.index).collect();
            if !indices.iter().copied().eq(range.clone()) {
                return Err(format!(
                    "shard {} of {} games per series must hold {}, but its series {} holds {} records{}",
                    self.shard,
                    self.games,
                    games_text(&range),
                    k + 1,
                    indices.len(),
                    first_out_of_place(&indices, &range)
                ));
            }
        }
        Ok(())
    }

    /// Every record fits the run and agrees with the first of its series (the same number of
    /// scores and the same global tracks), so summaries can read them all alike.
    pub fn check_records(&self) -> Result<(), String> {
        let players = self.players;
        for series in &self.series {
            let Some(first) = series.first() else { continue };
            let names = |r: &GameRecord| r.tracks.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
            let first_tracks = names(first);
            for r in series {
                let game = r.index;
                if let Some(w) = r.winners.iter().find(|w| **w >= players) {
                    return Err(format!(
                        "game {game}: winner seat {w} in a {players}-player game (seats count from 0)"
                    ));
                }
                if r.scores.len() != first.scores.len() || (!r.scores.is_empty() && r.scores.len() != players) {
                    return Err(format!(
                        "game {game} has {} scores, game {} has {} ({players} players)",
                        r.scores.len(),
                        first.index,
                        first.scores.len()
                    ));
                }
                if names(r) != first_tracks {
                    return Err(format!("game {game} has other global tracks than game {}", first.index));
                }
            }
        }
        Ok(())
    }

    /// What must agree between the files of one run: all but the shard and the games.
    fn setup(&self) -> Value {
        serde_json::json!({
            "engine": self.engine,
            "command": self.command,
            "players": self.players,
            "games": self.games,
            "config": self.config,
            "series": self.series.len(),
        })
    }
}

/// Why a text is not a results file this engine reads.
fn why_unreadable(text: &str) -> String {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return format!("not a results file (not JSON: {e})"),
    };
    let written_by = "results files are written by `rulebook simulate|balance|sweep --out FILE`";
    if value.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return format!("not a results file ({written_by})");
    }
    match value.get("version").and_then(Value::as_u64) {
        Some(v) if v != u64::from(VERSION) => {
            format!("a results file of format version {v}; this rulebook reads version {VERSION}")
        }
        _ => match serde_json::from_value::<Results>(value) {
            Err(e) => format!("a damaged results file: {e}"),
            Ok(_) => format!("a damaged results file ({written_by})"),
        },
    }
}

/// ` (the first out of place: game 7 at position 3)`, or nothing.
fn first_out_of_place(indices: &[u64], range: &Range<u64>) -> String {
    let expected = range.clone().map(Some).chain(std::iter::repeat(None));
    indices
        .iter()
        .zip(expected)
        .position(|(got, want)| Some(*got) != want)
        .map(|i| format!(" (the first out of place: game {} at position {})", indices[i], i + 1))
        .unwrap_or_default()
}

/// The first place two JSON values differ: its path (`config.seed`) and both values.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<(String, String, String)> {
    let at = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                first_difference(x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null), &at(k))
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (p, q))| first_difference(p, q, &format!("{path}[{i}]")))
        }
        _ if a == b => None,
        _ => Some((path.to_string(), short(a), short(b))),
    }
}

/// What a difference at `path` means, where its name does not say.
fn hint(path: &str) -> &'static str {
    if path == "engine" {
        " (played by different versions of rulebook)"
    } else if path.ends_with("fingerprint") {
        " (the game's files differ)"
    } else {
        ""
    }
}

/// A JSON value for a message, cut after 80 characters.
fn short(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// `a (1/3), b (2/3), ...`: the shards the files hold, at most [`LISTED`] of them.
fn listing(files: &[(String, Results)]) -> String {
    let mut out: Vec<String> = files.iter().take(LISTED).map(|(n, r)| format!("{} ({n})", r.shard)).collect();
    if files.len() > LISTED {
        out.push(format!("and {} more", files.len() - LISTED));
    }
    out.join(", ")
}

/// Puts the results files of one run's shards (named for messages, in any order) back
/// together into the results of the whole run (shard 1/1), or says why they do not make one:
/// files of different runs, shards of different cuts, a shard given twice, shards missing.
pub fn merge(files: Vec<(String, Results)>) -> Result<Results, String> {
    let Some((first_name, first)) = files.first() else {
        return Err("merge needs the results files of a run's shards".into());
    };
    let setup = first.setup();
    for (name, r) in &files[1..] {
        if let Some((path, a, b)) = first_difference(&setup, &r.setup(), "") {
            return Err(format!(
                "{first_name} and {name} are not shards of one run: `{path}` is {a} in {first_name} but {b} in \
                 {name}{}",
                hint(&path)
            ));
        }
        if r.shard.count != first.shard.count {
            return Err(format!(
                "{first_name} is shard {} but {name} is shard {}: the shards of one run are all cut the same way \
                 (the same N in --shard I/N)",
                first.shard, r.shard
            ));
        }
    }
    let mut files = files;
    files.sort_by_key(|(_, r)| r.shard.index);
    check_each_shard_once(&files)?;
    let mut parts = files.into_iter().map(|(_, r)| r);
    let mut whole = parts.next().ok_or("merge needs the results files of a run's shards")?;
    whole.shard = Shard::WHOLE;
    for r in parts {
        for (all, part) in whole.series.iter_mut().zip(r.series) {
            all.extend(part);
        }
    }
    whole.check_records().map_err(|e| format!("the shards do not make one run: {e}"))?;
    Ok(whole)
}

/// Files sorted by shard: refuses a shard given twice and shards missing, naming them.
fn check_each_shard_once(files: &[(String, Results)]) -> Result<(), String> {
    for pair in files.windows(2) {
        let ((a, ra), (b, rb)) = (&pair[0], &pair[1]);
        if ra.shard == rb.shard {
            return Err(format!(
                "{a} and {b} are both shard {} ({}): give each shard once",
                ra.shard,
                games_text(&ra.shard.games(ra.games))
            ));
        }
    }
    let (count, games) = (files[0].1.shard.count, files[0].1.games);
    let mut missing = Vec::new();
    let mut next = 1;
    for index in files.iter().map(|(_, r)| r.shard.index).chain([count + 1]) {
        if index > next {
            missing.push(next..index);
        }
        next = index + 1;
    }
    if missing.is_empty() {
        return Ok(());
    }
    let shards: Vec<String> = missing
        .iter()
        .take(LISTED)
        .map(|m| {
            let (from, to) = (Shard { index: m.start, count }, Shard { index: m.end - 1, count });
            let span = from.games(games).start..to.games(games).end;
            let which = if m.end - m.start == 1 { format!("{from}") } else { format!("{from} to {to}") };
            format!("{which} ({})", games_text(&span))
        })
        .collect();
    let more =
        if missing.len() > LISTED { format!(" and {} more gaps", missing.len() - LISTED) } else { String::new() };
    Err(format!("shards missing: {}{more}; the files given hold {}", shards.join(", "), listing(files)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_tile_a_series_in_order() {
        for total in [0, 1, 5, 40, 1001] {
            for count in 1..=9 {
                let mut next = 0;
                for index in 1..=count {
                    let r = Shard { index, count }.games(total);
                    assert_eq!(r.start, next, "{index}/{count} of {total}");
                    next = r.end;
                }
                assert_eq!(next, total);
            }
        }
        assert_eq!(Shard { index: 3, count: 3 }.games(u64::MAX).end, u64::MAX);
    }

    #[test]
    fn a_shard_is_written_i_of_n_from_one() {
        assert_eq!(Shard::parse("3/8"), Ok(Shard { index: 3, count: 8 }));
        assert_eq!(Shard::parse("1/1"), Ok(Shard::WHOLE));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", ""] {
            assert!(Shard::parse(bad).unwrap_err().contains("counted from 1"), "{bad}");
        }
        assert_eq!(games_text(&(3..4)), "game 3");
        assert_eq!(games_text(&(3..3)), "no games");
        assert_eq!(games_text(&(0..10)), "games 0–9");
    }

    #[test]
    fn the_first_difference_is_named_by_its_path() {
        let a = serde_json::json!({"config": {"seed": 7, "bots": "random"}, "players": 2});
        let b = serde_json::json!({"config": {"seed": 8, "bots": "random"}, "players": 2});
        assert_eq!(first_difference(&a, &b, ""), Some(("config.seed".into(), "7".into(), "8".into())));
        assert_eq!(first_difference(&a, &a, ""), None);
    }
}
