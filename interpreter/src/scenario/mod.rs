//! Scenario tests and transcripts: one small language (grammar in `scenario.pest`, reference
//! in `games/SCENARIOS.md`) that states a situation, the decisions taken and what must then be
//! true. Rulebook examples become scenarios; recorded games are transcripts in the same form.

pub mod parse;
pub mod record;
pub mod run;

pub use parse::{parse, Expectation, Header, ParseError, Scenario, ScenarioFile, Step, StepKind};
pub use record::{transcript, Setup};
pub use run::{Failure, Runner, ScenarioReport};
