//! The merged game file becomes `Rules`: the game's name and player counts, the name index of
//! every declared thing, then each part checked in file order (parameters, zones and
//! components, tracks and vars, tables, graphs and grids, decisions, tricks, phases and the flow).
//! Every reference is resolved here or reported; a script function is checked to exist with an
//! arity the engine can call.

use super::read::available_variants;
use super::{Layer, LoadOptions, Loader};
use crate::def::{GameFile, Ref};
use crate::rules::{unknown, FnRef, Rules, MAX_PLAYERS};
use crate::script::Scripts;
use std::collections::HashSet;
use std::path::Path;

/// The functions the game's scripts define, as `(name, arity)`; `None` when the scripts did
/// not compile (references to them are then not checked).
pub(super) struct ScriptFns(Option<HashSet<(String, usize)>>);

impl ScriptFns {
    /// A reference to a script function the engine calls with `arity` arguments, or with one
    /// more (a context); reports a function that is missing or takes another number.
    pub(super) fn check(&self, l: &mut Loader, r: &Ref, arity: usize, what: &str) -> FnRef {
        let name = r.get_ref().clone();
        let mut with_ctx = false;
        if let Some(fns) = &self.0 {
            let has = |n: usize| fns.contains(&(name.clone(), n));
            if has(arity) {
            } else if has(arity + 1) {
                with_ctx = true;
            } else {
                let known: Vec<String> =
                    fns.iter().map(|(n, _)| n.clone()).collect::<HashSet<_>>().into_iter().collect();
                let arities: Vec<usize> = fns.iter().filter(|(n, _)| *n == name).map(|(_, a)| *a).collect();
                let msg = if arities.is_empty() {
                    format!("{what}: {}", unknown("script function", &name, known.iter()))
                } else {
                    format!("{what}: script function `{name}` takes {} argument(s), but the engine calls it with {arity} (or {})", arities.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(" or "), arity + 1)
                };
                l.error("E0301", msg, Some(r.span()));
            }
        }
        FnRef { name, with_ctx }
    }
}

/// The index of the zone a declaration names; reported (and 0) if there is none.
pub(super) fn zone_ref(l: &mut Loader, r: &Rules, z: &Ref) -> usize {
    r.zone(z.get_ref()).unwrap_or_else(|m| {
        l.error("E0310", m, Some(z.span()));
        0
    })
}

impl Loader {
    /// Checks the merged game file into `Rules`, reporting every problem it finds.
    pub(super) fn resolve(
        &mut self,
        folder: &Path,
        f: GameFile,
        layers: &[Layer],
        scripts: Option<&Scripts>,
        options: &LoadOptions,
    ) -> Rules {
        let mut r = Rules {
            name: f.game.name.clone().unwrap_or_else(|| folder_name(folder)),
            folder: folder.to_path_buf(),
            max_steps: f.flow.max_steps.unwrap_or(1_000_000),
            max_decisions: f.flow.max_decisions.unwrap_or(50_000),
            seat_names: f.game.seat_names.clone().unwrap_or_default(),
            available_variants: available_variants(layers),
            ..Rules::default()
        };
        self.flow_caps(&r);
        r.title = f.game.title.clone().unwrap_or_else(|| r.name.clone());
        r.description = f.game.description.clone().unwrap_or_default();
        match (f.game.min_players, f.game.max_players) {
            (Some(_), Some(b)) if b as usize > MAX_PLAYERS => {
                self.error_at(
                    "E0300",
                    format!("`[game] max_players = {b}` is more than the {MAX_PLAYERS} seats the engine supports"),
                    self.key("game", ""),
                );
            }
            (Some(a), Some(b)) if a >= 1 && a <= b => {
                r.min_players = a as usize;
                r.max_players = b as usize;
            }
            _ => {
                self.error_at(
                    "E0300",
                    "`[game]` needs `min_players` and `max_players` (1 <= min <= max)",
                    self.key("game", ""),
                );
            }
        }
        let fns = ScriptFns(scripts.map(Scripts::function_arities));
        self.params(&mut r, &f, options);
        self.checks(&mut r, &f);
        index(&mut r, &f);
        self.zones(&mut r, &f);
        self.components(&mut r, &f);
        self.tracks(&mut r, &f);
        self.vars(&mut r, &f, &fns);
        self.tables(&mut r, &f);
        self.graphs(&mut r, &f);
        self.grids(&mut r, &f);
        self.decisions(&mut r, &f, &fns);
        self.tricks(&mut r, &f, &fns);
        self.phases(&mut r, &f, &fns);
        self.flow(&mut r, &f, &fns);
        super::components::number_declared_values(&mut r);
        r
    }
}

/// Numbers every declared component type, zone, track, var, decision and phase by its place
/// in the file.
fn index(r: &mut Rules, f: &GameFile) {
    // Component types first (zones refer to them only via instances).
    for (i, (name, _)) in f.components.iter().enumerate() {
        r.index.component_types.insert(name.clone(), i);
    }
    for (i, name) in f.zones.keys().enumerate() {
        r.index.zones.insert(name.clone(), i);
    }
    for (i, name) in f.tracks.keys().enumerate() {
        r.index.tracks.insert(name.clone(), i);
    }
    for (i, name) in f.vars.keys().enumerate() {
        r.index.vars.insert(name.clone(), i);
    }
    for (i, name) in f.decisions.keys().enumerate() {
        r.index.decisions.insert(name.clone(), i);
    }
    for (i, name) in f.phases.keys().enumerate() {
        r.index.phases.insert(name.clone(), i);
    }
}

fn folder_name(folder: &Path) -> String {
    folder
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| folder.display().to_string())
}
