//! Plain-text rendering of a seat's view for the terminal.

use rulebook::View;
use std::fmt::Write;

/// Renders a view as text: tracks, zones, variables and the pending decision.
pub fn view(v: &View) -> String {
    let mut out = String::new();
    let who = v.viewer.map(|p| v.seats[p].clone()).unwrap_or_else(|| "spectator".into());
    let _ = writeln!(out, "== {} — {who}'s view (current player: {}) ==", v.game, v.seats[v.current]);
    let owner = |o: Option<usize>| o.map(|p| format!(" ({})", v.seats[p])).unwrap_or_default();
    // Values of the same name are shown on one line: `score: P1 3 · P2 5`.
    let grouped = |values: &[rulebook::view::ValueView]| {
        let mut lines: Vec<(String, Vec<String>)> = Vec::new();
        for x in values {
            let shown = match &x.value {
                // A seat or a component, by name.
                _ if x.shown.is_some() => x.shown.clone().unwrap_or_default(),
                rulebook::Value::Str(s) if s.is_empty() => continue,
                rulebook::Value::List(l) if l.is_empty() => continue,
                rulebook::Value::Unit => continue,
                other => other.to_string(),
            };
            let shown = match &x.space {
                Some(space) => format!("{shown} ({space})"),
                None => shown,
            };
            let item = match x.owner {
                Some(p) => format!("{} {shown}", v.seats[p]),
                None => shown,
            };
            match lines.iter_mut().find(|(n, _)| *n == x.name) {
                Some((_, items)) => items.push(item),
                None => lines.push((x.name.clone(), vec![item])),
            }
        }
        lines
    };
    for (name, items) in grouped(&v.tracks) {
        let _ = writeln!(out, "{name}: {}", items.join(" · "));
    }
    for z in &v.zones {
        let name = format!("{}{}", z.name, owner(z.owner));
        if !z.places.is_empty() {
            // Numbered places in order, the empty ones too: `slot 1: card 7 (red) · slot 2: empty`.
            let places: Vec<String> = z
                .places
                .iter()
                .map(|p| format!("{}: {}", p.label, p.card.as_ref().map_or("empty", |c| c.label.as_str())))
                .collect();
            let _ = writeln!(out, "  {name:<24} {}", places.join(" · "));
            continue;
        }
        let shown: Vec<&str> = z.cards.iter().map(|c| c.label.as_str()).collect();
        let line = match (z.count, shown.is_empty()) {
            // Nothing to see, or nothing there: not worth a line.
            (None, _) | (Some(0), _) => continue,
            (Some(n), true) => format!("{n} face down"),
            (Some(n), false) if n == shown.len() => shown.join(" "),
            (Some(n), false) => format!("{} (top of {n})", shown.join(" ")),
        };
        let _ = writeln!(out, "  {name:<24} {line}");
    }
    for (name, items) in grouped(&v.vars) {
        let text = items.join(" · ");
        // A multi-line value (a drawn board) starts on its own line.
        if text.contains('\n') {
            let _ = writeln!(out, "  {name}:{text}");
        } else {
            let _ = writeln!(out, "  {name}: {text}");
        }
    }
    for block in grid_blocks(v, WIDTH) {
        let _ = writeln!(out, "{block}");
    }
    for s in &v.shown {
        let cards: Vec<&str> = s.cards.iter().map(|c| c.label.as_str()).collect();
        let _ = writeln!(out, "  shown to all — {}: {}", s.caption, cards.join(", "));
    }
    if let Some(p) = &v.pending {
        let waiting: Vec<&str> = p.waiting_for.iter().map(|s| v.seats[*s].as_str()).collect();
        let _ = write!(out, "-- {}: {} (waiting for {})", p.decision, p.prompt, waiting.join(", "));
        if p.commit && !p.committed.is_empty() {
            let done: Vec<&str> = p.committed.iter().map(|s| v.seats[*s].as_str()).collect();
            let _ = write!(out, "; committed: {}", done.join(", "));
        }
        let _ = writeln!(out);
        if !p.my_set.is_empty() {
            let cards: Vec<&str> = p.my_set.iter().map(|c| c.label.as_str()).collect();
            let _ = writeln!(out, "   your set so far: {}", cards.join(" + "));
        }
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

/// The width grids are packed into.
const WIDTH: usize = 100;

/// The view's grids drawn as text, side by side while they fit in `width` columns (the
/// players' copies of one grid stand next to each other), each block indented by two spaces.
fn grid_blocks(v: &View, width: usize) -> Vec<String> {
    let drawn: Vec<Vec<String>> = v.grids.iter().map(|g| rulebook::grid_text::lines(g, &v.seats)).collect();
    let w = |b: &Vec<String>| b.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let mut out = Vec::new();
    let mut row: Vec<&Vec<String>> = Vec::new();
    let flush = |row: &mut Vec<&Vec<String>>, out: &mut Vec<String>| {
        if row.is_empty() {
            return;
        }
        let height = row.iter().map(|b| b.len()).max().unwrap_or(0);
        let mut text = String::new();
        for i in 0..height {
            let mut line = String::from(" ");
            for b in row.iter() {
                let cell = b.get(i).map(String::as_str).unwrap_or("");
                line.push_str(&format!(" {cell:<0$} ", w(b)));
            }
            text.push_str(line.trim_end());
            text.push('\n');
        }
        out.push(text.trim_end_matches('\n').to_string());
        row.clear();
    };
    for (i, b) in drawn.iter().enumerate() {
        let used: usize = row.iter().map(|b| w(b) + 2).sum::<usize>() + 1;
        let same_grid = i > 0 && v.grids[i - 1].name == v.grids[i].name;
        if !row.is_empty() && (!same_grid || used + w(b) + 2 > width) {
            flush(&mut row, &mut out);
        }
        row.push(b);
    }
    flush(&mut row, &mut out);
    out
}

/// Renders numbered options, several to a line when they are short.
pub fn options(options: &[rulebook::OptionInfo]) -> String {
    // When a number could be an option's id or label, a typed number is only ever that: the
    // list is numbered `#N` (what the player types for a place in the list) and a line says so.
    let named_by_numbers = numbers_name_options(options);
    let mark = if named_by_numbers { "#" } else { "" };
    let cells: Vec<String> = options
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let n = format!("{mark}{}", i + 1);
            if o.id == o.label {
                format!("{n:>3}) {}", o.label)
            } else {
                format!("{n:>3}) {} [{}]", o.label, o.id)
            }
        })
        .collect();
    let width = cells.iter().map(|c| c.chars().count()).max().unwrap_or(0) + 2;
    let per_line = (96 / width.max(1)).max(1);
    let mut out = String::new();
    for row in cells.chunks(per_line) {
        for c in row {
            let _ = write!(out, "{c:<width$}");
        }
        out = out.trim_end().to_string();
        out.push('\n');
    }
    if named_by_numbers {
        out.push_str(NUMBERS_HINT);
        out.push('\n');
    }
    out
}

/// The line under an options list whose ids or labels are numbers.
pub const NUMBERS_HINT: &str = "  (a number is the option with that id or label; #N is the Nth option in the list)";

/// Whether some option's id or label is a number, so that a typed number could name it.
pub fn numbers_name_options(options: &[rulebook::OptionInfo]) -> bool {
    let number = |s: &str| s.trim().parse::<i64>().is_ok();
    options.iter().any(|o| number(&o.id) || number(&o.label))
}
