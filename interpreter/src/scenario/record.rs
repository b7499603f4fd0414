//! Writing a played game as a transcript: the scenario language, with every decision and a
//! final expectation holding the hash of the final state.

use super::parse::quote;
use crate::Session;
use std::fmt::Write;

/// How the game was set up, as the transcript's header says it.
pub struct Setup<'a> {
    /// The game as named on the command line (bundled name or folder).
    pub game: &'a str,
    /// Variants.
    pub variants: &'a [String],
    /// Parameter values.
    pub options: &'a [(String, String)],
}

/// The transcript of a session so far.
pub fn transcript(setup: &Setup<'_>, session: &Session<'_>, title: &str) -> String {
    let r = &session.game().rules;
    let mut out = String::new();
    let _ = writeln!(out, "# Rulebook transcript of {} — replay with `rulebook replay FILE`", r.title);
    let _ = writeln!(out, "game {}", quote(setup.game));
    for v in setup.variants {
        let _ = writeln!(out, "variant {}", quote(v));
    }
    for (k, v) in setup.options {
        let value = if v.parse::<i64>().is_ok() || v == "true" || v == "false" {
            v.clone()
        } else {
            format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""))
        };
        let _ = writeln!(out, "option {k} = {value}");
    }
    let _ = writeln!(out, "players {}", session.players());
    let _ = writeln!(out, "seed {}", session.seed());
    let _ = writeln!(out);
    let _ = writeln!(out, "scenario {} {{", quote_always(title));
    for m in session.history() {
        let line = format!("    {} chooses {}", r.seat_name(m.player), quote(&m.option));
        match m.label.as_deref().filter(|l| *l != &*m.option) {
            Some(label) => {
                let _ = writeln!(out, "{line:<32} # {}", label.replace('\n', " "));
            }
            None => {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    match session.outcome() {
        Some(o) => {
            let _ = writeln!(out, "    expect over");
            let names: Vec<String> = o.winners.iter().map(|w| r.seat_name(*w)).collect();
            let _ = writeln!(
                out,
                "    expect winners {}",
                if names.is_empty() { "nobody".to_string() } else { names.join(" ") }
            );
        }
        None => {
            let _ = writeln!(out, "    expect not over");
        }
    }
    let _ = writeln!(out, "    expect hash \"{}\"", session.state_hash());
    let _ = writeln!(out, "}}");
    out
}

fn quote_always(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}
