//! The `rulebook` command line: list, play, simulate (in shards too, merged) and validate games.

mod balance;
mod cli;
mod input;
mod list;
mod locate;
mod new;
mod play;
mod render;
mod replay;
mod report;
mod serve;
mod shards;
mod simulate;
mod sweep;
mod test;
mod tune;
mod validate;

use clap::Parser;
use std::process::ExitCode;

/// A faster allocator: the engine clones small states per decision (its transactions), and
/// the system allocator was a third of simulation time in profiles. Wrapped in the counter
/// that gives script calls their memory budget.
#[global_allocator]
static ALLOC: rulebook::alloc::Counting<rulebook::alloc::Mimalloc> =
    rulebook::alloc::Counting(rulebook::alloc::Mimalloc);

/// `rulebook schema`: print one schema or write both.
fn schema(args: &cli::SchemaArgs) -> Result<ExitCode, String> {
    use rulebook::schema::{schema_json, SchemaKind};
    match &args.write {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            for kind in [SchemaKind::Game, SchemaKind::Variant] {
                let path = dir.join(kind.file_name());
                std::fs::write(&path, schema_json(kind))
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                eprintln!("wrote {}", path.display());
            }
        }
        None => print!(
            "{}",
            schema_json(match args.kind {
                cli::SchemaFor::Game => SchemaKind::Game,
                cli::SchemaFor::Variant => SchemaKind::Variant,
            })
        ),
    }
    Ok(ExitCode::SUCCESS)
}

/// `rulebook completions`: the shell's completion script, on stdout.
fn completions(args: &cli::CompletionsArgs) -> Result<ExitCode, String> {
    use clap::CommandFactory;
    use std::io::Write;
    // Into a buffer first: the generator panics when its writer fails (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cli::Cli::command(), "rulebook", &mut script);
    std::io::stdout().write_all(&script).map_err(|e| format!("cannot write the completion script: {e}"))?;
    Ok(ExitCode::SUCCESS)
}

/// A command whose output goes into a reader that stops early (`rulebook play ... | head`) ends
/// quietly at its next line, as Unix tools do, instead of panicking in `println!`: SIGPIPE gets
/// back its default action, which Rust's runtime sets to "ignore". Not for `serve`, whose
/// sockets must outlive a browser that goes away.
fn end_quietly_when_the_output_closes() {
    #[cfg(unix)]
    // SAFETY: called before any other thread starts; it only sets a signal's disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    let (args, vs) = cli::split_vs(std::env::args().collect());
    let mut cli = cli::Cli::parse_from(args);
    if !matches!(cli.command, cli::Command::Serve(_)) {
        end_quietly_when_the_output_closes();
    }
    if let (cli::Command::Balance(b), Some(words)) = (&mut cli.command, vs) {
        match cli::parse_vs(&b.game.game, &words) {
            Ok((g, seed)) => {
                b.vs_game = Some(g);
                b.vs_seed = seed;
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    }
    // Scripts run on this thread (and on simulate's workers): give it the stack they need.
    let worker = std::thread::Builder::new().stack_size(rulebook::script::SCRIPT_STACK_BYTES).spawn(move || run(&cli));
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(e) => {
            eprintln!("error: cannot start the main thread: {e}");
            ExitCode::from(1)
        }
    }
}

/// `rulebook diff`: the base game as it comes against the configured one (or another folder).
fn diff(cli: &cli::Cli, args: &cli::DiffArgs) -> Result<ExitCode, String> {
    let plain = cli::GameArgs { game: args.game.game.clone(), variants: Vec::new(), options: Vec::new() };
    let base = locate::load(cli, &plain)?;
    let changed_args = cli::GameArgs {
        game: args.against.clone().unwrap_or_else(|| args.game.game.clone()),
        variants: args.game.variants.clone(),
        options: args.game.options.clone(),
    };
    let changed = locate::load(cli, &changed_args)?;
    let d = rulebook::diff::diff(&base, &changed);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&d).map_err(|e| e.to_string())?);
    } else {
        let mut what: Vec<String> = Vec::new();
        if let Some(other) = &args.against {
            what.push(other.clone());
        }
        what.extend(changed_args.variants.iter().map(|v| format!("--variant {v}")));
        what.extend(changed_args.options.iter().map(|(k, v)| format!("--option {k}={v}")));
        let title = if what.is_empty() {
            format!("{} against itself", args.game.game)
        } else {
            format!("{} against {}", what.join(" "), args.game.game)
        };
        print!("{}", rulebook::diff::text(&d, &title));
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs the command the user gave.
fn run(cli: &cli::Cli) -> ExitCode {
    let result = match &cli.command {
        cli::Command::List(a) => list::run(cli, a),
        cli::Command::Simulate(a) => simulate::run(cli, a),
        cli::Command::Balance(a) => balance::run(cli, a),
        cli::Command::Sweep(a) => sweep::run(cli, a),
        cli::Command::Tune(a) => tune::run(cli, a),
        cli::Command::Merge(a) => shards::merge(a),
        cli::Command::Play(a) => play::run(cli, a),
        cli::Command::Validate(a) => validate::run(cli, a),
        cli::Command::Test(a) => test::run(cli, a),
        cli::Command::Replay(a) => replay::run(cli, a),
        cli::Command::Explain(a) => locate::load(cli, &a.game).map(|game| {
            print!("{}", rulebook::explain::markdown(&game));
            ExitCode::SUCCESS
        }),
        cli::Command::Diff(a) => diff(cli, a),
        cli::Command::Schema(a) => schema(a),
        cli::Command::Api => {
            print!("{}", rulebook::api_doc::markdown());
            Ok(ExitCode::SUCCESS)
        }
        cli::Command::New(a) => new::run(a),
        cli::Command::Completions(a) => completions(a),
        cli::Command::Serve(a) => serve::run(cli, a),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}
