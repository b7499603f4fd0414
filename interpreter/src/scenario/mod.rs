//! Scenario tests and transcripts: one small language (grammar in `scenario.pest`, reference
//! in `games/SCENARIOS.md`) that states a situation, the decisions taken and what must then be
//! true. Rulebook examples become scenarios; recorded games are transcripts in the same form.

pub mod parse;
pub mod record;
pub mod run;

pub use parse::{parse, Expectation, Header, ParseError, Scenario, ScenarioFile, Step, StepKind};
pub use record::{transcript, Setup};
pub use run::{Failure, Runner, ScenarioReport};

/// Every `*.scenario` file under a path (or the path itself if it is a file), sorted.
pub fn scenario_files(path: &std::path::Path) -> Vec<std::path::PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut out = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "scenario") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
