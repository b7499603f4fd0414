//! `rulebook diff`: what a configuration (variants and options, or a whole other game folder
//! such as an edition built on a base game) changes against a base game. Declarations are
//! compared one by one as one-line summaries (a parameter's value and range, a zone's owner
//! and visibility, a phase's steps...); script functions by their source text, with a unified
//! diff of each one replaced.

use crate::explain::{
    component_counts, count_text, function, int_spec, param_allowed, range_text, step_text, who_sees, whose,
};
use crate::rules::{OptionSource, Repeat, Rules};
use crate::Game;
use indexmap::IndexMap;
use serde::Serialize;
use std::fmt::Write;

/// Everything a configuration changes against a base game.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct GameDiff {
    /// Declarations changed, added or removed, in the order of the game file's sections.
    pub declarations: Vec<Change>,
    /// Script functions replaced, added or removed, by name.
    pub functions: Vec<FunctionChange>,
}

/// One declaration that differs: `old` is missing for an added one, `new` for a removed one.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Change {
    /// What is declared, e.g. "param `cards`" or "zone `hand`".
    pub what: String,
    /// Its summary in the base game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    /// Its summary in the changed game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
}

/// A script function whose source differs.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct FunctionChange {
    /// The function's name.
    pub name: String,
    /// Where the base game defines it (missing for an added function).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_file: Option<String>,
    /// Where the changed game defines it (missing for a removed function).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_file: Option<String>,
    /// A unified diff of the two sources (all `+` lines for an added function, all `-` for a
    /// removed one).
    pub unified: String,
}

impl GameDiff {
    /// Whether the two games are declared and scripted alike.
    pub fn is_empty(&self) -> bool {
        self.declarations.is_empty() && self.functions.is_empty()
    }
}

/// What `changed` changes against `base`.
pub fn diff(base: &Game, changed: &Game) -> GameDiff {
    let (old, new) = (declarations(base), declarations(changed));
    let mut out = GameDiff::default();
    for (what, o) in &old {
        match new.get(what) {
            Some(n) if n == o => {}
            n => out.declarations.push(Change { what: what.clone(), old: Some(o.clone()), new: n.cloned() }),
        }
    }
    for (what, n) in new.iter().filter(|(w, _)| !old.contains_key(*w)) {
        out.declarations.push(Change { what: what.clone(), old: None, new: Some(n.clone()) });
    }
    out.declarations.sort_by_key(|c| section_rank(&c.what));
    let (old_fns, new_fns) = (functions(base), functions(changed));
    let names: std::collections::BTreeSet<&String> = old_fns.keys().chain(new_fns.keys()).collect();
    for name in names {
        let (o, n) = (old_fns.get(name), new_fns.get(name));
        if o.map(|f| &f.1) == n.map(|f| &f.1) {
            continue;
        }
        let unified = similar::TextDiff::from_lines(o.map_or("", |f| f.1.as_str()), n.map_or("", |f| f.1.as_str()))
            .unified_diff()
            .context_radius(3)
            .header(o.map_or("/dev/null", |f| f.0.as_str()), n.map_or("/dev/null", |f| f.0.as_str()))
            .to_string();
        out.functions.push(FunctionChange {
            name: name.clone(),
            old_file: o.map(|f| f.0.clone()),
            new_file: n.map(|f| f.0.clone()),
            unified,
        });
    }
    out
}

/// The order of the sections of a game file, for sorting changes.
const SECTIONS: &[&str] =
    &["game", "param", "component", "zone", "track", "var", "table", "decision", "trick", "phase", "flow"];

fn section_rank(what: &str) -> usize {
    let first = what.split(' ').next().unwrap_or_default();
    SECTIONS.iter().position(|s| *s == first).unwrap_or(SECTIONS.len())
}

/// Every declaration of a game as `what -> one-line summary`, section by section.
fn declarations(game: &Game) -> IndexMap<String, String> {
    let r = &game.rules;
    let mut d = IndexMap::new();
    d.insert("game title".to_string(), r.title.clone());
    d.insert("game players".to_string(), crate::explain::players_range(r));
    for (name, p) in &r.params {
        let allowed = param_allowed(p);
        let text = if allowed == "any" { p.value.to_string() } else { format!("{} ({allowed})", p.value) };
        d.insert(format!("param `{name}`"), text);
    }
    let counts = component_counts(game);
    for (kind, t) in r.component_types.iter().enumerate() {
        let zones: Vec<String> = r
            .components
            .iter()
            .filter(|c| c.kind == kind)
            .filter_map(|c| c.zone.map(|z| format!("`{}`", r.zones[z].name)))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let label = t.label.as_ref().map(|l| format!("; labelled `{l}`")).unwrap_or_default();
        let at = if zones.is_empty() { String::new() } else { format!(" in {}", zones.join(", ")) };
        d.insert(format!("component `{}`", t.name), format!("{}{at}{label}", count_text(&counts[kind])));
    }
    for z in &r.zones {
        let cap = z.capacity.as_ref().map(|c| format!("; at most {}", int_spec(c))).unwrap_or_default();
        let order = if z.ordered { "a pile" } else { "a set" };
        let text =
            format!("{}; seen by {}; {order}{cap}", whose(z.per_player), who_sees(z.visible, z.per_player, true));
        d.insert(format!("zone `{}`", z.name), text);
    }
    for t in &r.tracks {
        let range = range_text(t.min, t.max);
        let text = format!(
            "{}; starts at {}; range {range}; seen by {}",
            whose(t.per_player),
            int_spec(&t.start),
            who_sees(t.visible, t.per_player, false)
        );
        d.insert(format!("track `{}`", t.name), text);
    }
    for v in &r.vars {
        let value = match &v.derived {
            Some(f) => format!("computed by {}", function(f)),
            None => format!("starts as {:?}", v.default.to_string()),
        };
        d.insert(
            format!("var `{}`", v.name),
            format!("{}; {value}; seen by {}", whose(v.per_player), who_sees(v.visible, v.per_player, false)),
        );
    }
    for (name, t) in &r.tables {
        d.insert(format!("table `{name}`"), t.to_string());
    }
    for dec in &r.decisions {
        d.insert(format!("decision `{}`", dec.name), decision_text(r, dec));
    }
    for t in &r.tricks {
        let lines: Vec<String> = crate::explain::trick_lines(r, t).iter().map(|l| lowercase_first(l)).collect();
        d.insert(format!("trick `{}`", t.name), lines.join("; "));
    }
    for p in &r.phases {
        let repeat = match &p.repeat {
            Repeat::Once => "once".to_string(),
            Repeat::Times(n) => format!("{n} times"),
            Repeat::While(f) => format!("while {}", function(f)),
            Repeat::WhileCards(z) => format!("while zone `{}` holds a component", r.zones[*z].name),
        };
        let each = if p.for_each_player { ", for each player" } else { "" };
        let steps: Vec<String> = p.steps.iter().map(|s| step_text(r, s)).collect();
        d.insert(format!("phase `{}`", p.name), format!("{repeat}{each}: {}", steps.join("; ")));
    }
    let start = r.phases.get(r.start).map(|p| format!("phase `{}`", p.name)).unwrap_or_default();
    d.insert("flow start".to_string(), start);
    d.insert("flow setup".to_string(), r.setup.as_ref().map(function).unwrap_or_else(|| "none".into()));
    d.insert(
        "flow winners".to_string(),
        r.winners.as_ref().map(function).unwrap_or_else(|| "the highest score".into()),
    );
    d.insert(
        "flow score".to_string(),
        r.score.map(|t| format!("track `{}`", r.tracks[t].name)).unwrap_or_else(|| "none".into()),
    );
    d
}

/// `Winner: ...` -> `winner: ...`, for a sentence joined into one line.
fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |c| c.to_lowercase().chain(chars).collect())
}

fn decision_text(r: &Rules, d: &crate::rules::DecisionInfo) -> String {
    let mut parts = vec![format!("prompt {:?}", d.prompt)];
    parts.push(match &d.source {
        OptionSource::Zone { zone, filter } => {
            format!(
                "from `{}`{}",
                r.zones[*zone].name,
                filter.as_ref().map(|f| format!(" if {}", function(f))).unwrap_or_default()
            )
        }
        OptionSource::Script(f) => format!("options by {}", function(f)),
    });
    if let Some(s) = &d.subset {
        parts.push(format!(
            "a set of {}..{}",
            s.min,
            if s.max == usize::MAX { String::new() } else { s.max.to_string() }
        ));
    }
    let hooks = [
        ("label_by", &d.label_by),
        ("then", &d.then),
        ("reveal", &d.reveal),
        ("auto", &d.auto),
        ("auto_if", &d.auto_if),
    ];
    for (what, f) in hooks {
        if let Some(f) = f {
            parts.push(format!("{what} {}", function(f)));
        }
    }
    if let Some(to) = d.to {
        parts.push(format!("to `{}`", r.zones[to].name));
    }
    if let Some(f) = &d.follow {
        parts.push(format!("follow `{}`", f.by));
    }
    if let Some(c) = &d.contest {
        let mut contest = format!("contest by `{}` ({:?}, ties {:?})", c.by, c.best, c.ties).to_lowercase();
        let zone = |z: Option<usize>| z.map(|z| format!("`{}`", r.zones[z].name));
        for (what, z) in [
            ("played to", zone(c.played_to)),
            ("stake", zone(c.stake)),
            ("stake to", zone(c.stake_to)),
            ("unclaimed to", zone(c.unclaimed_to)),
            ("score on", c.score.map(|t| format!("`{}`", r.tracks[t].name))),
            ("winner in", c.winner_var.map(|v| format!("`{}`", r.vars[v].name))),
        ] {
            if let Some(z) = z {
                let _ = write!(contest, ", {what} {z}");
            }
        }
        parts.push(contest);
    }
    if d.secret {
        parts.push("secret".into());
    }
    if d.skip_if_no_options {
        parts.push("skipped without options".into());
    }
    parts.join("; ")
}

/// Every script function as `name -> (file, source text)`.
fn functions(game: &Game) -> IndexMap<String, (String, String)> {
    let mut out = IndexMap::new();
    let mut names: Vec<String> = game.scripts.function_arities().into_iter().map(|(n, _)| n).collect();
    names.sort();
    names.dedup();
    for name in names {
        let Some(path) = game.scripts.function_file(&name) else { continue };
        let Some(file) = game.sources.files().iter().rev().find(|f| f.path == path) else { continue };
        if let Some(source) = function_source(&file.text, &name) {
            out.insert(name, (display_path(game, path), source));
        }
    }
    out
}

/// A file's path relative to the game's folder (or its parent, for a base game's files).
fn display_path(game: &Game, path: &std::path::Path) -> String {
    let base = game.rules.folder.parent().unwrap_or(&game.rules.folder);
    path.strip_prefix(base).unwrap_or(path).display().to_string()
}

/// The source of `fn name(...) { ... }` in a script file, with the doc comments above it: from
/// its first comment line to its closing brace (strings and comments do not count as braces).
pub fn function_source(text: &str, name: &str) -> Option<String> {
    let header = format!("fn {name}(");
    let mut start = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with(&header) || t.starts_with(&format!("private {header}")) {
            start = Some(offset);
        }
        offset += line.len();
    }
    let start = start?;
    let end = closing_brace(&text[start..])? + start + 1;
    let before = &text[..start];
    let comments: usize =
        before.lines().rev().take_while(|l| l.trim_start().starts_with("//")).map(|l| l.len() + 1).sum();
    Some(text[start.saturating_sub(comments).min(start)..end].trim_end().to_string() + "\n")
}

/// The offset of the brace that closes the first `{` of `code`, skipping strings, template
/// strings and comments.
fn closing_brace(code: &str) -> Option<usize> {
    let bytes = code.as_bytes();
    let (mut depth, mut i) = (0i32, 0usize);
    let mut opened = false;
    while i < bytes.len() {
        if let Some(end) = crate::lint_numbers::past_comment(code, i) {
            i = end;
            continue;
        }
        match bytes[i] {
            b'"' | b'`' | b'\'' => {
                i = crate::lint_numbers::skip_quoted(bytes, i);
                continue;
            }
            b'{' => {
                depth += 1;
                opened = true;
            }
            b'}' => {
                depth -= 1;
                if opened && depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The diff as text for a terminal: declarations, then functions with their unified diffs.
pub fn text(d: &GameDiff, title: &str) -> String {
    let mut out = format!("{title}\n");
    if d.is_empty() {
        out.push_str("\nNo difference: the same declarations and script functions.\n");
        return out;
    }
    let count = |f: &dyn Fn(&Change) -> bool| d.declarations.iter().filter(|c| f(c)).count();
    let _ = writeln!(
        out,
        "\nDeclarations: {} changed, {} added, {} removed",
        count(&|c| c.old.is_some() && c.new.is_some()),
        count(&|c| c.old.is_none()),
        count(&|c| c.new.is_none())
    );
    for c in &d.declarations {
        match (&c.old, &c.new) {
            (Some(o), Some(n)) => {
                let _ = writeln!(out, "  changed {}\n    - {o}\n    + {n}", c.what);
            }
            (None, Some(n)) => {
                let _ = writeln!(out, "  added   {}: {n}", c.what);
            }
            (Some(o), None) => {
                let _ = writeln!(out, "  removed {}: {o}", c.what);
            }
            (None, None) => {}
        }
    }
    let fcount = |f: &dyn Fn(&FunctionChange) -> bool| d.functions.iter().filter(|c| f(c)).count();
    let _ = writeln!(
        out,
        "\nScript functions: {} replaced, {} added, {} removed",
        fcount(&|f| f.old_file.is_some() && f.new_file.is_some()),
        fcount(&|f| f.old_file.is_none()),
        fcount(&|f| f.new_file.is_none())
    );
    for f in &d.functions {
        let what = match (&f.old_file, &f.new_file) {
            (Some(o), Some(n)) if o == n => format!("replaced `{}` (in {n})", f.name),
            (Some(o), Some(n)) => format!("replaced `{}` ({o} -> {n})", f.name),
            (None, Some(n)) => format!("added `{}` ({n})", f.name),
            (Some(o), None) => format!("removed `{}` ({o})", f.name),
            (None, None) => continue,
        };
        let _ = writeln!(out, "  {what}");
        for line in f.unified.lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::function_source;

    #[test]
    fn a_function_is_cut_out_with_its_comments_and_nested_braces() {
        let text = "// other\nfn a() { 1 }\n\n/// Doc of b.\n/// More.\nfn b(x) {\n    if x { \"}\" } else { `${x}}` }\n    // }\n}\nfn c() {}\n";
        assert_eq!(
            function_source(text, "b").unwrap(),
            "/// Doc of b.\n/// More.\nfn b(x) {\n    if x { \"}\" } else { `${x}}` }\n    // }\n}\n"
        );
        assert_eq!(function_source(text, "a").unwrap(), "// other\nfn a() { 1 }\n");
        assert_eq!(function_source(text, "d"), None);
    }
}
