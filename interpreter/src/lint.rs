//! Lints: things in a game that load and play but are probably mistakes (a zone nothing uses,
//! a script function nothing calls, a variant that changes nothing). Reported as warnings by
//! `rulebook validate`; `--deny warnings` makes them errors.

use crate::diag::{locate_in, Diagnostic};
use crate::rules::{FnRef, OptionSource, PlayerSel, PlayersSel, Repeat, Rules, StepKind};
use crate::Game;
use std::collections::HashSet;
use std::path::Path;

/// The texts of the game's scripts.
fn script_texts(game: &Game) -> Vec<(&Path, &str)> {
    game.sources
        .files()
        .iter()
        .filter(|f| f.path.extension().is_some_and(|e| e == "rhai"))
        .map(|f| (f.path.as_path(), f.text.as_str()))
        .collect()
}

/// Zones the declarations use.
fn zones_used_by_declarations(r: &Rules) -> HashSet<usize> {
    let mut used = HashSet::new();
    for c in &r.components {
        used.extend(c.zone);
    }
    for z in &r.zones {
        used.extend(z.overflow_to);
    }
    for d in &r.decisions {
        if let OptionSource::Zone { zone, .. } = d.source {
            used.insert(zone);
        }
        used.extend(d.to);
        if let Some(c) = &d.contest {
            used.extend([c.played_to, c.stake, c.stake_to, c.unclaimed_to].into_iter().flatten());
        }
    }
    for t in &r.tricks {
        used.insert(t.table);
        used.extend(t.won);
    }
    for p in &r.phases {
        for s in &p.steps {
            match s.kind {
                StepKind::Move { from, to, .. } => {
                    used.insert(from);
                    used.insert(to);
                }
                StepKind::Shuffle(z) | StepKind::Roll(z) => {
                    used.insert(z);
                }
                _ => {}
            }
        }
    }
    used
}

/// Script functions the declarations name.
fn functions_named_by_declarations(r: &Rules) -> HashSet<String> {
    let mut f: Vec<&FnRef> = Vec::new();
    f.extend(r.setup.iter().chain(r.winners.iter()).chain(r.evaluate.iter()));
    for d in &r.decisions {
        match &d.source {
            OptionSource::Zone { filter, .. } => f.extend(filter.iter()),
            OptionSource::Script(s) => f.push(s),
        }
        f.extend([&d.label_by, &d.then, &d.reveal, &d.auto, &d.auto_if].into_iter().flatten());
        f.extend(d.subset.iter().filter_map(|s| s.valid.as_ref()));
    }
    f.extend(r.vars.iter().filter_map(|v| v.derived.as_ref()));
    for t in &r.tricks {
        f.extend([&t.winner, &t.then].into_iter().flatten());
    }
    for p in &r.phases {
        if let Repeat::While(w) = &p.repeat {
            f.push(w);
        }
        for s in &p.steps {
            f.extend(s.condition.iter());
            match &s.kind {
                StepKind::Run(x) => f.push(x),
                StepKind::Ask(_, PlayerSel::Script(x)) | StepKind::Commit(_, PlayersSel::Script(x)) => f.push(x),
                _ => {}
            }
        }
    }
    f.into_iter().map(|x| x.name.clone()).collect()
}

/// Warnings about a loaded game.
pub fn lint(game: &Game) -> Vec<Diagnostic> {
    let r = &game.rules;
    let scripts = script_texts(game);
    // Names that data tables mention count as used (a script reads them from the table).
    let mut table_strings = HashSet::new();
    fn strings(v: &crate::Value, out: &mut HashSet<String>) {
        match v {
            crate::Value::Str(s) => {
                out.insert(s.clone());
            }
            crate::Value::List(l) => l.iter().for_each(|x| strings(x, out)),
            crate::Value::Map(m) => m.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    for t in r.tables.values() {
        strings(t, &mut table_strings);
    }
    let quoted =
        |name: &str| table_strings.contains(name) || scripts.iter().any(|(_, t)| t.contains(&format!("\"{name}\"")));
    let mut out = Vec::new();
    let used = zones_used_by_declarations(r);
    for (i, z) in r.zones.iter().enumerate() {
        if !used.contains(&i) && !quoted(&z.name) {
            out.push(
                Diagnostic::warning("W0001", format!("zone `{}` is never used", z.name))
                    .at(game.sources.locate_key("zones", &z.name))
                    .help("remove it, or use it in a decision, step or script"),
            );
        }
    }
    for (i, t) in r.component_types.iter().enumerate() {
        let declared = r.components.iter().any(|c| c.kind == i);
        if !declared && !quoted(&t.name) {
            out.push(
                Diagnostic::warning(
                    "W0002",
                    format!("component type `{}` has no instances and no script creates it", t.name),
                )
                .at(game.sources.locate_key("components", &t.name)),
            );
        }
    }
    for (i, t) in r.tracks.iter().enumerate() {
        let declared = r.score == Some(i)
            || r.phases.iter().any(|p| p.counter == Some(i))
            || r.tricks.iter().any(|t| t.trump_below == Some(i))
            || r.decisions.iter().any(|d| d.contest.as_ref().is_some_and(|c| c.score == Some(i)));
        if !declared && !quoted(&t.name) {
            out.push(
                Diagnostic::warning("W0003", format!("track `{}` is never used", t.name))
                    .at(game.sources.locate_key("tracks", &t.name)),
            );
        }
    }
    for v in &r.vars {
        // A derived var is computed for views: it exists to be shown.
        let in_trick = |t: &crate::rules::TrickInfo| {
            [Some(t.leader), t.led, t.trump].into_iter().flatten().any(|x| r.vars[x].name == v.name)
        };
        let declared = v.derived.is_some()
            || r.tricks.iter().any(in_trick)
            || r.decisions
                .iter()
                .any(|d| d.contest.as_ref().and_then(|c| c.winner_var).is_some_and(|x| r.vars[x].name == v.name));
        if !declared && !quoted(&v.name) {
            out.push(
                Diagnostic::warning("W0004", format!("var `{}` is never used", v.name))
                    .at(game.sources.locate_key("vars", &v.name)),
            );
        }
    }
    let named = functions_named_by_declarations(r);
    let mut defined: Vec<String> = game.scripts.function_arities().into_iter().map(|(n, _)| n).collect();
    defined.sort();
    defined.dedup();
    let variant_texts = variant_files(&r.folder);
    for name in defined {
        // Closures are compiled into functions named `anon$...`.
        if name.starts_with("anon$") || named.contains(&name) || quoted(&name) {
            continue;
        }
        let calls: usize = scripts.iter().map(|(_, t)| t.matches(&format!("{name}(")).count()).sum();
        let defs: usize = scripts.iter().map(|(_, t)| t.matches(&format!("fn {name}(")).count()).sum();
        let passed_as_value =
            scripts.iter().any(|(_, t)| t.contains(&format!("({name})")) || t.contains(&format!("Fn(\"{name}\")")));
        if calls > defs || passed_as_value {
            continue;
        }
        let location = scripts.iter().find_map(|(p, t)| t.find(&format!("fn {name}(")).map(|i| locate_in(p, t, i)));
        // Functions only a variant names are not unused: the variant's own load checks them.
        let variant_uses = variant_texts.iter().any(|t| t.contains(&format!("\"{name}\"")));
        if !variant_uses {
            out.push(Diagnostic::warning("W0005", format!("script function `{name}` is never called")).at(location));
        }
    }
    out.extend(crate::lint_numbers::numbers_in_scripts(game));
    out.extend(crate::lint_numbers::unread_params(game));
    out.extend(crate::lint_numbers::overwritten_starts(game));
    out
}

/// The texts of every variant file of a game and of the games it extends.
fn variant_files(folder: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut dir = Some(folder.to_path_buf());
    let mut seen = 0;
    while let Some(d) = dir.take() {
        seen += 1;
        for e in std::fs::read_dir(d.join("variants")).into_iter().flatten().filter_map(Result::ok) {
            if let Ok(t) = crate::files::read_inside(&d, &e.path()) {
                out.push(t);
            }
        }
        let base = crate::files::read_inside(&d, &d.join("game.toml"))
            .ok()
            .and_then(|t| toml::from_str::<toml::Table>(&t).ok())
            .and_then(|t| t.get("game")?.get("extends")?.as_str().map(|e| d.join(e)));
        if seen < 16 {
            dir = base;
        }
    }
    out
}

/// A warning if applying `variant` to the game in `folder` changes nothing (`base` is the game
/// as it comes, `with` the game with the variant applied).
pub fn lint_variant(folder: &Path, variant: &str, base: &Game, with: &Game) -> Option<Diagnostic> {
    let fingerprint = |g: &Game| {
        let mut r = (*g.rules).clone();
        r.variants.clear();
        let mut fns: Vec<(String, usize)> = g.scripts.function_arities().into_iter().collect();
        fns.sort();
        let texts: Vec<String> = script_texts(g).iter().map(|(_, t)| t.to_string()).collect();
        format!("{r:?}{fns:?}{texts:?}")
    };
    (fingerprint(base) == fingerprint(with)).then(|| {
        let path = folder.join("variants").join(format!("{variant}.toml"));
        Diagnostic::warning("W0006", format!("variant `{variant}` changes nothing"))
            .at(Some(crate::diag::Location { file: path, line: 1, column: 1 }))
            .help("a variant overlays values of the base game; this one sets only what the base already has")
    })
}
