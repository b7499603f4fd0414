//! Plain-text rendering of a seat's view for the terminal.

use rulebook::View;
use std::fmt::Write;

/// Renders a view as text: tracks, zones, variables and the pending decision.
pub fn view(v: &View) -> String {
    let mut out = String::new();
    let who = v.viewer.map(|p| v.seats[p].clone()).unwrap_or_else(|| "spectator".into());
    let _ = writeln!(out, "== {} — {who}'s view (current player: {}) ==", v.game, v.seats[v.current]);
    let owner = |o: Option<usize>| o.map(|p| format!(" ({})", v.seats[p])).unwrap_or_default();
    let mut tracks: Vec<String> = Vec::new();
    for t in &v.tracks {
        tracks.push(format!("{}{}: {}", t.name, owner(t.owner), t.value));
    }
    if !tracks.is_empty() {
        let _ = writeln!(out, "{}", tracks.join(" · "));
    }
    for z in &v.zones {
        let name = format!("{}{}", z.name, owner(z.owner));
        let shown: Vec<&str> = z.cards.iter().map(|c| c.label.as_str()).collect();
        let line = match (z.count, shown.is_empty()) {
            (None, _) => "(hidden)".to_string(),
            (Some(0), _) => "—".to_string(),
            (Some(n), true) => format!("{n} face down"),
            (Some(n), false) if n == shown.len() => shown.join(" "),
            (Some(n), false) => format!("{} (top of {n})", shown.join(" ")),
        };
        let _ = writeln!(out, "  {name:<24} {line}");
    }
    for x in &v.vars {
        let _ = writeln!(out, "  {}{}: {}", x.name, owner(x.owner), x.value);
    }
    if let Some(p) = &v.pending {
        let waiting: Vec<&str> = p.waiting_for.iter().map(|s| v.seats[*s].as_str()).collect();
        let _ = write!(out, "-- {}: {} (waiting for {})", p.decision, p.prompt, waiting.join(", "));
        if p.commit && !p.committed.is_empty() {
            let done: Vec<&str> = p.committed.iter().map(|s| v.seats[*s].as_str()).collect();
            let _ = write!(out, "; committed: {}", done.join(", "));
        }
        let _ = writeln!(out);
        if let Some(c) = &p.my_commit {
            let _ = writeln!(out, "   you committed: {c}");
        }
    }
    if let Some(o) = &v.outcome {
        let names: Vec<&str> = o.winners.iter().map(|s| v.seats[*s].as_str()).collect();
        let _ = writeln!(
            out,
            "** game over: {} **",
            if names.is_empty() { "nobody won".into() } else { format!("{} won", names.join(" and ")) }
        );
    }
    out
}
