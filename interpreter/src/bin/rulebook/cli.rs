//! Command-line arguments (clap).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Rulebook: tabletop games as data. Play, simulate and check games written as TOML
/// components plus Rhai scripts.
#[derive(Parser, Debug)]
#[command(name = "rulebook", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// Folder holding the bundled games (default: $RULEBOOK_GAMES, else ./games, else the
    /// games folder of this source tree).
    #[arg(long, global = true, env = "RULEBOOK_GAMES", value_name = "DIR")]
    pub games_dir: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// List the games with their player counts, variants and parameters.
    List(ListArgs),
    /// Play bots against each other many times and summarise the results.
    Simulate(SimulateArgs),
    /// Compare two configurations of a game (base against a variant or a house rule): the same
    /// bots and seeds on both sides, every measure with its interval, every difference tested.
    Balance(BalanceArgs),
    /// Play a game for each value of one parameter and tabulate the measures against it.
    Sweep(SweepArgs),
    /// Search parameter ranges for the setting that best meets an objective (NTBEA).
    Tune(TuneArgs),
    /// Put the results files of a run's shards (`--shard I/N --out FILE` of simulate, balance
    /// or sweep) together and print the whole run's report, exactly as the run without
    /// `--shard` prints it.
    #[command(after_help = MERGE_HELP)]
    Merge(MergeArgs),
    /// Play in the terminal: people (hot seat) and bots.
    Play(PlayArgs),
    /// Check game folders: TOML, references, scripts, smoke playouts. Exit 1 on any error.
    Validate(ValidateArgs),
    /// Run scenario files (*.scenario): rulebook examples and house-rule checks.
    Test(TestArgs),
    /// Replay a recorded game (*.transcript) and check it reproduces.
    Replay(ReplayArgs),
    /// Print a readable summary of a game (Markdown): parameters, components, zones and who
    /// sees them, tracks, decisions, phases and steps, with the chosen variants and options.
    Explain(ExplainArgs),
    /// Show what variants and options (or another game folder, such as an edition built on
    /// this one) change against the game: declarations and script functions.
    Diff(DiffArgs),
    /// Print the JSON Schema (draft-07) of game or variant files.
    Schema(SchemaArgs),
    /// Print the script API reference (Markdown), generated from the engine.
    Api,
    /// Create a new game folder: a tiny complete game to edit into your own, with a scenario
    /// and a README.
    New(NewArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = COMPLETIONS_HELP)]
    Completions(CompletionsArgs),
    /// Serve a web table: a lobby opens tables of any game, with a private link per seat,
    /// bots, and tables kept in SQLite across restarts.
    Serve(ServeArgs),
}

/// `rulebook serve`
#[derive(Args, Debug)]
#[command(after_help = "Example:\n  \
    rulebook serve --addr 127.0.0.1:8080 --data rulebook-data\n  \
    then open http://127.0.0.1:8080/ and share each seat's link with its player.\n\n\
    The server has no accounts: anyone who can reach the address can open tables, and each\n\
    link is the key to its seat. Listen on 127.0.0.1 (the default) unless you mean to share it.")]
pub struct ServeArgs {
    /// The address to listen on (port 0: any free port, printed on start).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// The folder of the tables' database (created if missing).
    #[arg(long, value_name = "DIR", default_value = "rulebook-data")]
    pub data: PathBuf,
    /// The pause before each bot move, in milliseconds, so that people can follow the bots'
    /// moves one by one (0: bots move at once).
    #[arg(long, value_name = "MS", default_value_t = 700)]
    pub bot_delay: u64,
    /// How long a finished table that nobody watches stays in memory, in seconds; after that
    /// the server lets go of it and replays it from the database when someone opens it.
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub keep_finished: u64,
}

/// How to install the completion script, after `rulebook completions --help`.
const COMPLETIONS_HELP: &str = "Examples:\n  \
    rulebook completions bash > ~/.local/share/bash-completion/completions/rulebook\n  \
    rulebook completions zsh > ~/.zfunc/_rulebook      (with fpath+=~/.zfunc before compinit)\n  \
    rulebook completions fish > ~/.config/fish/completions/rulebook.fish";

/// An example after `rulebook merge --help`.
const MERGE_HELP: &str =
    "Example (interpreter/docs/DISTRIBUTED.md has recipes for GNU parallel, Slurm and Kubernetes):\n  \
    rulebook simulate GAME -p 2 -n 20000 --shard 1/2 --out shards/1.json\n  \
    rulebook simulate GAME -p 2 -n 20000 --shard 2/2 --out shards/2.json\n  \
    rulebook merge shards/*.json --json\n\
    prints the same bytes as: rulebook simulate GAME -p 2 -n 20000 --json";

/// `rulebook merge`
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Results files, one per shard of the run, in any order.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Print one JSON object instead of the report (as the command's `--json` does).
    #[arg(long)]
    pub json: bool,
    /// Also write the HTML report (balance and sweep).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Also write the whole run's results file (the same as the run without `--shard` writes
    /// with `--out`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// `--shard` and `--out`, for the commands whose games can be played in shards.
#[derive(Args, Debug, Clone)]
pub struct ShardArgs {
    /// Play only shard I of N, I counted from 1 (1/8, 2/8, ..., 8/8): a contiguous slice of
    /// the games, by game index (of both sides with balance, of every value with sweep). Needs
    /// --out and prints no report; `rulebook merge` puts the shards' files together into the
    /// whole run's.
    #[arg(long, value_name = "I/N", value_parser = rulebook::results::Shard::parse)]
    pub shard: Option<rulebook::results::Shard>,
    /// Write every game's record (index, seed, winners, scores, length, ...) and the run's
    /// configuration to this results file, for `rulebook merge`.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// `rulebook new`
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    rulebook new NAME                               (creates ./NAME)\n  \
    rulebook new NAME --dir games                   (creates games/NAME), then:\n  \
    rulebook validate --deny warnings games/NAME\n  \
    rulebook test games/NAME\n  \
    rulebook play games/NAME --players 2 --bots 1")]
pub struct NewArgs {
    /// The game's folder name: letters, digits, `-` and `_`, starting with a letter or digit.
    pub name: String,
    /// The folder to create the game in (created if missing).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
}

/// `rulebook completions`
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `rulebook explain`
#[derive(Args, Debug)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub game: GameArgs,
}

/// `rulebook diff`
#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The changed game: the base game itself with `--variant` and `--option`, or another
    /// game folder (also with them), e.g. an edition against its base.
    #[arg(long, value_name = "GAME")]
    pub against: Option<String>,
    #[command(flatten)]
    pub game: GameArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Which schema.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaFor {
    /// game.toml and the files it includes.
    Game,
    /// variants/*.toml.
    Variant,
}

/// `rulebook schema`
#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// Which file kind.
    #[arg(value_enum, default_value_t = SchemaFor::Game)]
    pub kind: SchemaFor,
    /// Write both schemas into this folder (as game.schema.json and variant.schema.json)
    /// instead of printing one.
    #[arg(long, value_name = "DIR")]
    pub write: Option<PathBuf>,
}

/// `rulebook test`
#[derive(Args, Debug)]
pub struct TestArgs {
    /// Scenario files or folders to search for *.scenario (default: the games folder).
    pub paths: Vec<PathBuf>,
    /// Print every scenario, not only failures.
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

/// `rulebook replay`
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The transcript.
    pub file: PathBuf,
    /// Print the game's log.
    #[arg(long)]
    pub log: bool,
    /// With --log: the log as this seat saw it (e.g. P2), redacted.
    #[arg(long = "as", value_name = "SEAT", requires = "log")]
    pub as_seat: Option<String>,
}

/// Which game and how to set it up.
#[derive(Args, Debug, Clone)]
pub struct GameArgs {
    /// A game folder, or the name of a bundled game.
    pub game: String,
    /// Apply a variant (repeatable; applied in order).
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
    /// Set a parameter the game declares, e.g. `--option cards=6` (repeatable).
    #[arg(long = "option", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub options: Vec<(String, String)>,
}

fn parse_key_value(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| format!("`{s}` is not KEY=VALUE"))
}

/// `rulebook list`
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `--bot` and `--bot-option`, for every command that seats bots.
#[derive(Args, Debug)]
pub struct BotArgs {
    /// The bots: `NAME[:KEY=VALUE,...]` for every bot seat, `P2=NAME...` for one seat (repeat
    /// the flag). Bots: random, first, greedy, mcts (see below).
    #[arg(long, value_name = "[SEAT=]BOT", default_value = "random")]
    pub bot: Vec<String>,
    /// An option for every bot that takes it, e.g. `iterations=500` (repeatable).
    #[arg(long, value_name = "KEY=VALUE")]
    pub bot_option: Vec<String>,
}

impl BotArgs {
    /// The table of bots these flags name.
    pub fn table(&self) -> Result<rulebook::bot::BotTable, String> {
        rulebook::bot::BotTable::parse(&self.bot, &self.bot_option)
    }
}

/// The bots and their options, for the help of the commands that take `--bot`.
pub fn bots_help() -> String {
    let mut out = String::from("Bots (--bot NAME or --bot NAME:KEY=VALUE,...; --bot P2=NAME for one seat):\n");
    for b in rulebook::bot::BOTS {
        out.push_str(&format!("  {:<8} {}\n", b.name, b.about));
        for (k, what) in b.options {
            out.push_str(&format!("  {:<8}   {k}: {what}\n", ""));
        }
    }
    out.push_str("Search bots (greedy, mcts) see only their seat's view: they sample what it cannot see.");
    out
}

/// `rulebook simulate`
#[derive(Args, Debug)]
#[command(after_help = bots_help())]
pub struct SimulateArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Number of seats.
    #[arg(long, short = 'p')]
    pub players: usize,
    /// Number of games.
    #[arg(long, short = 'n', default_value_t = 100)]
    pub games: u64,
    /// Seed of the series (each game derives its own).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[command(flatten)]
    pub bots: BotArgs,
    /// Worker threads (the result is the same for any number).
    #[arg(long, short = 'j', default_value_t = 1)]
    pub jobs: usize,
    #[command(flatten)]
    pub shards: ShardArgs,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Write each game as a transcript into this folder.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// Print where script time goes: calls and time per script function the engine calls,
    /// then per function the scripts call (time including callees), on stderr.
    #[arg(long)]
    pub profile: bool,
}

/// `rulebook balance`
#[derive(Args, Debug)]
#[command(after_help = balance_help())]
pub struct BalanceArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Number of seats.
    #[arg(long, short = 'p')]
    pub players: usize,
    /// Games per configuration.
    #[arg(long, short = 'n', default_value_t = 500)]
    pub games: u64,
    /// Seed of the series: both configurations play the same seeds.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The bots (the same on both sides).
    #[command(flatten)]
    pub bots: BotArgs,
    /// Worker threads (the result is the same for any number).
    #[arg(long, short = 'j', default_value_t = 1)]
    pub jobs: usize,
    #[command(flatten)]
    pub shards: ShardArgs,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Also write the report as one self-contained HTML page with plots (inline SVG).
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
    /// Play in batches until a sequential test (SPRT) decides "changed" or "no change beyond
    /// ±margin" on `--measure`, or `--games` per side are played.
    #[arg(long)]
    pub until_decided: bool,
    /// The measure the sequential test follows: `wins:P1` (default), `score:P2`, `length` or
    /// `margin`.
    #[arg(long, default_value = "wins:P1")]
    pub measure: String,
    /// The smallest change that matters, in the measure's units (default 0.05 for `wins`;
    /// required for the others).
    #[arg(long)]
    pub margin: Option<f64>,
    /// Games per side in each batch of `--until-decided`.
    #[arg(long, default_value_t = 100)]
    pub batch: u64,
    /// The second configuration follows: `--vs [--variant W]... [--option K=W]... [--seed S]`
    /// (nothing after it: the game as it comes). Must come last.
    #[arg(long)]
    pub vs: bool,
    /// The second configuration, read from what follows `--vs`.
    #[arg(skip)]
    pub vs_game: Option<GameArgs>,
    /// The series seed of the second configuration, when `--vs --seed S` gives one (the sides
    /// then play different games: a check that a measure does not change by chance).
    #[arg(skip)]
    pub vs_seed: Option<u64>,
}

/// `rulebook sweep`
#[derive(Args, Debug)]
#[command(after_help = format!("Example: rulebook sweep GAME -p 2 -n 1000 --option KEY=4..13:3\n\n{}", bots_help()))]
pub struct SweepArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Number of seats.
    #[arg(long, short = 'p')]
    pub players: usize,
    /// Games per value.
    #[arg(long, short = 'n', default_value_t = 500)]
    pub games: u64,
    /// Seed of the series: every value plays the same seeds.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[command(flatten)]
    pub bots: BotArgs,
    /// Worker threads (the result is the same for any number).
    #[arg(long, short = 'j', default_value_t = 1)]
    pub jobs: usize,
    #[command(flatten)]
    pub shards: ShardArgs,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also write the sweep as one self-contained HTML page with plots.
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
    /// A measure to tabulate and plot against the parameter (repeatable; default: wins:P1,
    /// shared-wins, length and, with a score, margin). Measures: wins:P1 (any seat), score:P1,
    /// length, margin, shared-wins, first-seat-advantage, fairness, lead-changes, drama,
    /// decided-at, track:NAME.
    #[arg(long, value_name = "MEASURE")]
    pub measure: Vec<String>,
}

/// `rulebook tune`
#[derive(Args, Debug)]
#[command(after_help = format!(
    "Example: rulebook tune GAME -p 3 --option KEY=3..13 --objective length=20..24 -n 200\n\n\
     Objectives: fair-seats (even wins: CardStock's fairness), length=LO..HI (mean decisions in the\n\
     range), margin=LO..HI (mean winner's margin in the range).\n\n{}",
    bots_help()
))]
pub struct TuneArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Number of seats.
    #[arg(long, short = 'p')]
    pub players: usize,
    /// What to aim for: `fair-seats`, `length=LO..HI` or `margin=LO..HI`.
    #[arg(long)]
    pub objective: String,
    /// Games per evaluated setting.
    #[arg(long, short = 'n', default_value_t = 200)]
    pub games: u64,
    /// Settings evaluated in all.
    #[arg(long, default_value_t = 30)]
    pub evaluations: usize,
    /// How many of the best settings to measure again (on four times the games) and report
    /// with their intervals.
    #[arg(long, default_value_t = 3)]
    pub top: usize,
    /// Seed of the search and of the games.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[command(flatten)]
    pub bots: BotArgs,
    /// Worker threads (the result is the same for any number).
    #[arg(long, short = 'j', default_value_t = 1)]
    pub jobs: usize,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Help after `rulebook balance --help`: an example and the bots.
pub fn balance_help() -> String {
    format!(
        "Example: rulebook balance GAME -p 2 -n 2000 --vs --variant VARIANT\n\
         (side A: the game as it comes; side B: with the variant; both play the same seeds)\n\
         rulebook balance GAME -p 2 -n 5000 --until-decided --vs --seed 1   (the same game, other seeds)\n\n{}",
        bots_help()
    )
}

/// Splits the words after `--vs` off the command line (clap cannot read two sets of
/// `--variant`/`--option`): the rest for clap, and the second configuration's words.
pub fn split_vs(args: Vec<String>) -> (Vec<String>, Option<Vec<String>>) {
    if args.get(1).map(String::as_str) != Some("balance") && !args.iter().any(|a| a == "balance") {
        return (args, None);
    }
    match args.iter().position(|a| a == "--vs") {
        Some(i) => (args[..=i].to_vec(), Some(args[i + 1..].to_vec())),
        None => (args, None),
    }
}

/// Reads the second configuration: only `--variant`, `--option` and `--seed` may follow `--vs`.
pub fn parse_vs(game: &str, words: &[String]) -> Result<(GameArgs, Option<u64>), String> {
    let mut out = GameArgs { game: game.to_string(), variants: Vec::new(), options: Vec::new() };
    let mut seed = None;
    let mut it = words.iter();
    while let Some(w) = it.next() {
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (w.as_str(), None),
        };
        let mut value = || inline.clone().or_else(|| it.next().cloned()).ok_or(format!("`{flag}` needs a value"));
        match flag {
            "--variant" => out.variants.push(value()?),
            "--option" => out.options.push(parse_key_value(&value()?)?),
            "--seed" => {
                let v = value()?;
                seed = Some(v.parse().map_err(|_| format!("--seed `{v}` after --vs is not a number"))?);
            }
            other => {
                return Err(format!(
                "after --vs only --variant, --option and --seed may follow (the second configuration), not `{other}`"
            ))
            }
        }
    }
    Ok((out, seed))
}

/// `rulebook play`
#[derive(Args, Debug)]
#[command(after_help = bots_help())]
pub struct PlayArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Number of seats.
    #[arg(long, short = 'p')]
    pub players: usize,
    /// Make the last N seats bots (seats named in `--bot P2=...` are bots too).
    #[arg(long, default_value_t = 0)]
    pub bots: usize,
    #[command(flatten)]
    pub bot_args: BotArgs,
    /// Seed (default: from the clock, printed so the game can be replayed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Write the game as a transcript to this file when it ends.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
}

/// Output format of `validate`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Messages for people.
    Human,
    /// One JSON object per diagnostic, one per line.
    Json,
    /// GitHub Actions workflow commands (annotations on pull requests).
    Github,
}

/// `rulebook validate`
#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// Game folders, or folders of game folders.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Smoke playouts per player count and variant (0 to skip).
    #[arg(long, default_value_t = 3)]
    pub playouts: u64,
    /// Threads for the smoke playouts and leak checks (default: one per core; the report is
    /// the same for any number).
    #[arg(short, long)]
    pub jobs: Option<usize>,
    /// Treat warnings as errors (`--deny warnings`).
    #[arg(long, value_name = "warnings", value_parser = ["warnings"])]
    pub deny: Option<String>,
    /// Set a parameter for every game (and variant) that declares it, e.g. `--option cards=6`
    /// (repeatable): the smoke playouts and leak checks play with it.
    #[arg(long = "option", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub options: Vec<(String, String)>,
    /// Skip the extra smoke playouts with each integer parameter at its declared minimum and
    /// maximum.
    #[arg(long)]
    pub no_extremes: bool,
}
