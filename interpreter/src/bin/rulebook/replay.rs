//! `rulebook replay`: replay a transcript, check every decision and the final state.

use crate::cli::{Cli, ReplayArgs};
use crate::locate::games_dir;
use rulebook::scenario::{parse, Runner};
use std::process::ExitCode;

pub fn run(cli: &Cli, args: &ReplayArgs) -> Result<ExitCode, String> {
    let text = rulebook::files::read_text(&args.file, rulebook::files::MAX_SCRIPT_TEXT_BYTES)
        .map_err(|e| format!("cannot read {}: {e}", args.file.display()))?;
    let file = parse(&args.file, &text).map_err(|e| format!("{}: {}", e.location, e.message))?;
    if file.scenarios.is_empty() {
        return Err(format!("{}: no recorded game in this file", args.file.display()));
    }
    let mut runner = Runner::new(games_dir(cli));
    let mut ok = true;
    for sc in &file.scenarios {
        let mut lines = Vec::new();
        let mut seat_error = None;
        let mut decisions = 0;
        let report = runner.run(&file, sc, &mut |s| {
            decisions = s.history().len();
            let viewer = match &args.as_seat {
                None => None,
                Some(name) => match s.seat(name) {
                    Some(p) => Some(p),
                    None => {
                        seat_error = Some(format!("unknown seat `{name}`"));
                        None
                    }
                },
            };
            lines = s.log_for(viewer);
        });
        if let Some(e) = seat_error {
            return Err(e);
        }
        if args.log {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            for l in &lines {
                // A closed pipe (`| head`) ends the listing quietly.
                if writeln!(out, "{l}").is_err() {
                    return Ok(ExitCode::SUCCESS);
                }
            }
        }
        let hashed = sc
            .steps
            .iter()
            .any(|s| matches!(s.kind, rulebook::scenario::StepKind::Expect(rulebook::scenario::Expectation::Hash(_))));
        if report.passed() && hashed {
            eprintln!("{}: replayed {decisions} decisions; the final state matches", args.file.display());
        } else if report.passed() {
            eprintln!(
                "{}: replayed {decisions} decisions; every expectation holds (no state hash recorded)",
                args.file.display()
            );
        } else {
            ok = false;
            for f in &report.failures {
                eprintln!("{}:{}: {}", args.file.display(), f.line, f.message);
            }
            eprintln!("{}: replay diverged after {decisions} decisions", args.file.display());
        }
    }
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
