//! Loading a game folder: reading `game.toml`, its includes, the game it `extends` and the
//! chosen variant overlays; merging them; checking every reference; compiling the scripts.
//! Loading reports every problem it finds, each located, not just the first.

use crate::def::{self, GameFile, Ref};
use crate::diag::{Diagnostic, Location, SourceMap};
use crate::files::{self, FileError};
use crate::grid::GridInfo;
use crate::rules::*;
use crate::script::Scripts;
use crate::value::Value;
use crate::Game;
use indexmap::IndexMap;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// What to load besides the base game.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Variant names (files `variants/NAME.toml`), applied in order.
    pub variants: Vec<String>,
    /// Parameter values, `(name, value)`, as typed on the command line.
    pub options: Vec<(String, String)>,
}

/// The result of loading: a game if there were no errors, and every diagnostic found.
pub struct Loaded {
    /// The game, when loading succeeded.
    pub game: Option<Game>,
    /// Errors and warnings, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

type Table = DeTable<'static>;

struct Layer {
    folder: PathBuf,
    scripts: Vec<PathBuf>,
}

struct Loader {
    sources: SourceMap,
    diags: Vec<Diagnostic>,
    /// The folder every `extends` must stay inside: the one holding the game folder.
    games_dir: PathBuf,
}

/// Loads the game in `folder` with the given variants and options.
pub fn load_game(folder: &Path, options: &LoadOptions) -> Loaded {
    // As the user wrote it (messages show it); the check itself follows links.
    let games_dir = match folder.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => folder.join(".."),
    };
    let mut loader = Loader { sources: SourceMap::default(), diags: Vec::new(), games_dir };
    let game = loader.load(folder, options);
    let has_errors = loader.diags.iter().any(Diagnostic::is_error);
    Loaded { game: if has_errors { None } else { game }, diagnostics: loader.diags }
}

impl Loader {
    fn error(
        &mut self,
        code: &'static str,
        msg: impl Into<String>,
        span: Option<std::ops::Range<usize>>,
    ) -> &mut Diagnostic {
        let loc = span.and_then(|s| self.sources.locate(s));
        self.diags.push(Diagnostic::error(code, msg).at(loc));
        self.diags.last_mut().expect("just pushed")
    }

    fn error_at(&mut self, code: &'static str, msg: impl Into<String>, loc: Option<Location>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::error(code, msg).at(loc));
        self.diags.last_mut().expect("just pushed")
    }

    /// Where a `[section.name]` table (or `[section]` when `name` is empty) is written.
    fn key(&self, section: &str, name: &str) -> Option<Location> {
        self.sources.locate_key(section, name)
    }

    fn load(&mut self, folder: &Path, options: &LoadOptions) -> Option<Game> {
        if std::fs::symlink_metadata(folder.join("game.toml")).is_err() {
            self.error_at("E0001", format!("no game.toml in `{}`", folder.display()), None).help =
                Some("pass a game folder (one holding game.toml) or the name of a bundled game".into());
            return None;
        }
        let mut merged: Table = DeTable::new();
        let mut layers = Vec::new();
        self.read_layer(folder, &mut merged, &mut layers, &mut Vec::new(), None);
        if self.diags.iter().any(Diagnostic::is_error) {
            // A file that does not parse (or a missing base) would only cause follow-on noise.
            return None;
        }
        let mut scripts: Vec<PathBuf> = layers.iter().flat_map(|l| l.scripts.clone()).collect();

        // Variants: looked up in this folder, then in the folders it extends.
        let mut applied = Vec::new();
        for name in &options.variants {
            let plain = !name.is_empty() && !name.contains(['/', '\\']) && name != "." && name != "..";
            let found = layers
                .iter()
                .rev()
                .map(|l| (l, l.folder.join("variants").join(format!("{name}.toml"))))
                .find(|(_, p)| plain && std::fs::symlink_metadata(p).is_ok());
            let Some((layer, path)) = found else {
                let known: Vec<String> = available_variants(&layers).into_iter().map(|v| v.name).collect();
                self.error_at("E0002", unknown("variant", name, known.iter()), None);
                continue;
            };
            let layer_folder = layer.folder.clone();
            if let Some(mut table) = self.read_toml(&path, &layer_folder, None) {
                if let Some(v) = table.remove("variant") {
                    let section: Result<def::VariantSection, _> = deserialize_value(v);
                    match section {
                        Ok(section) => {
                            for s in section.scripts {
                                if let Some(p) = self.named_file(&layer_folder, &s, "E0003", "variant script") {
                                    scripts.push(p);
                                }
                            }
                        }
                        Err(e) => self.push_toml_error(e),
                    }
                }
                merge(&mut merged, table);
                applied.push(name.clone());
            }
        }

        let file: GameFile = match deserialize_value(Spanned::new(0..0, DeValue::Table(merged))) {
            Ok(f) => f,
            Err(e) => {
                self.push_toml_error(e);
                return None;
            }
        };
        if file.variant.is_some() {
            let loc = self.key("variant", "");
            self.error_at("E0004", "`[variant]` is only allowed in files under variants/", loc);
        }

        let mut scripts_compiled = self.compile_scripts(&scripts);
        if let (Some(s), Some(limits)) = (scripts_compiled.as_mut(), self.limits(&file.limits)) {
            s.set_limits(limits);
        }
        let mut rules = self.resolve(folder, file, &layers, scripts_compiled.as_ref(), options);
        rules.variants = applied;
        let scripts = scripts_compiled?;
        if self.diags.iter().any(Diagnostic::is_error) {
            return None;
        }
        let game = Game::new(Arc::new(rules), scripts, self.sources.clone());
        // Instance sets are expanded per player count; check the smallest and largest table.
        for players in [game.rules.min_players, game.rules.max_players] {
            if let Err(e) = game.start_quiet_state(players) {
                let loc = self.key("components", "");
                self.error_at("E0306", format!("with {players} players: {e}"), loc);
                return None;
            }
        }
        Some(game)
    }

    fn push_toml_error(&mut self, e: toml::de::Error) {
        let msg = e.message().trim().to_string();
        let span = e.span();
        let help = unknown_field_hint(&msg);
        let (code, msg) = if msg.starts_with("unknown field") {
            ("E0102", msg)
        } else if msg.starts_with("missing field") {
            ("E0103", msg)
        } else if msg.starts_with("invalid type")
            || msg.starts_with("invalid value")
            || msg.starts_with("unknown variant")
        {
            ("E0104", msg)
        } else {
            ("E0101", msg)
        };
        let d = self.error(code, msg, span);
        d.help = help;
    }

    /// Reports a file the loader refused or could not read: at the declaration that named it
    /// (`via`) when there is one, else at the file itself. Never shows the file's content.
    fn file_error(&mut self, path: &Path, e: &FileError, via: Option<std::ops::Range<usize>>) {
        let code = match e {
            FileError::Outside { .. } => "E0009",
            FileError::NotRegular | FileError::TooLarge { .. } => "E0010",
            FileError::Missing | FileError::NotText | FileError::Io(_) => "E0005",
        };
        let msg = format!("cannot read `{}`: {e}", path.display());
        let loc = via.and_then(|s| self.sources.locate(s));
        let at_file = Location { file: path.to_path_buf(), line: 1, column: 1 };
        let d = self.error_at(code, msg, loc.clone().or(Some(at_file)));
        d.unquoted = loc.is_none();
        d.help = Some(match e {
            FileError::Outside { .. } => {
                "a game may only name files inside its own folder (and `extends` a game in the same games folder)"
                    .into()
            }
            FileError::NotRegular | FileError::TooLarge { .. } => format!(
                "game files are regular text files of at most {}",
                files::human_bytes(files::MAX_GAME_FILE_BYTES)
            ),
            _ => "check that the file exists, is readable and is UTF-8 text".into(),
        });
    }

    /// A file a declaration names (a string with its span), relative to and inside `folder`;
    /// `None` (with an error under `missing_code`) if it is missing, outside or unreadable.
    fn named_file(&mut self, folder: &Path, name: &Ref, missing_code: &'static str, what: &str) -> Option<PathBuf> {
        match files::resolve_inside(folder, folder, name.get_ref()) {
            Ok(p) if files::is_regular(&p) => Some(p),
            Ok(p) => {
                self.file_error(&p, &FileError::NotRegular, Some(name.span()));
                None
            }
            Err(FileError::Missing) => {
                self.error(missing_code, format!("{what} `{}` not found", name.get_ref()), Some(name.span()));
                None
            }
            Err(e) => {
                self.file_error(&folder.join(name.get_ref()), &e, Some(name.span()));
                None
            }
        }
    }

    /// Reads and parses one TOML file that must lie inside `root`, reporting all syntax
    /// errors; spans are made global.
    fn read_toml(&mut self, path: &Path, root: &Path, via: Option<std::ops::Range<usize>>) -> Option<Table> {
        let text = match files::read_inside(root, path) {
            Ok(t) => t,
            Err(e) => {
                self.file_error(path, &e, via);
                return None;
            }
        };
        let base = self.sources.add(path, text.clone());
        // Parsed TOML borrows its text for the life of the loaded game; game files are small
        // and read once per load, so the text is kept for good.
        let text: &'static str = Box::leak(text.into_boxed_str());
        let (table, errors) = DeTable::parse_recoverable(text);
        let had_errors = !errors.is_empty();
        for e in errors {
            let span = e.span().map(|s| s.start + base..s.end + base);
            self.error("E0100", format!("TOML syntax: {}", e.message().trim()), span);
        }
        if had_errors {
            return None;
        }
        let span = table.span();
        match shift(Spanned::new(span, DeValue::Table(table.into_inner())), base).into_inner() {
            DeValue::Table(t) => Some(t),
            _ => None,
        }
    }

    fn read_layer(
        &mut self,
        folder: &Path,
        merged: &mut Table,
        layers: &mut Vec<Layer>,
        chain: &mut Vec<PathBuf>,
        via: Option<std::ops::Range<usize>>,
    ) {
        let canonical = folder.canonicalize().unwrap_or_else(|_| folder.to_path_buf());
        if chain.contains(&canonical) {
            self.error("E0006", format!("`extends` forms a cycle back to `{}`", folder.display()), via).help =
                Some("a game may extend a base game, which may extend another, but never itself".into());
            return;
        }
        chain.push(canonical);
        let main = folder.join("game.toml");
        let Some(table) = self.read_toml(&main, folder, via.clone()) else {
            return;
        };
        if let Some(base) = get_str(&table, &["game", "extends"]) {
            let base_folder = folder.join(base.get_ref());
            let games_dir = self.games_dir.clone();
            if std::fs::symlink_metadata(base_folder.join("game.toml")).is_ok() {
                match files::check_inside(&games_dir, &base_folder) {
                    Ok(()) => self.read_layer(&base_folder, merged, layers, chain, Some(base.span())),
                    Err(e) => self.file_error(&base_folder, &e, Some(base.span())),
                }
            } else {
                self.error(
                    "E0007",
                    format!("`extends` names `{}`, which has no game.toml", base.get_ref()),
                    Some(base.span()),
                )
                .help =
                    Some("give the base game's folder relative to this game's folder, e.g. \"../base-game\"".into());
            }
        }
        let includes = get_str_list(&table, &["game", "include"]);
        // Each layer's scripts come from its own game.toml, never from a base it extends.
        let own_scripts = get_str_list_opt(&table, folder, self);
        let mut own = table;
        // A base's `extends` must not leak into the overlay's meaning: drop it after use.
        if let Some(DeValue::Table(g)) = own.get_mut("game").map(Spanned::get_mut) {
            g.remove("extends");
        }
        merge(merged, own);
        for inc in includes {
            let Some(path) = self.named_file(folder, &inc, "E0008", "included file") else {
                continue;
            };
            if let Some(t) = self.read_toml(&path, folder, Some(inc.span())) {
                merge(merged, t);
            }
        }
        let scripts = own_scripts.unwrap_or_else(|| rhai_files(folder));
        // The scripts a layer names are read only if they lie inside its folder.
        let scripts = scripts
            .into_iter()
            .filter(|p| match files::check_inside(folder, p) {
                Ok(()) => true,
                Err(e) => {
                    self.file_error(p, &e, None);
                    false
                }
            })
            .collect();
        layers.push(Layer { folder: folder.to_path_buf(), scripts });
    }

    fn compile_scripts(&mut self, paths: &[PathBuf]) -> Option<Scripts> {
        let mut scripts = Scripts::new();
        let mut ok = true;
        for path in paths {
            let text = match files::read_text(path, files::MAX_GAME_FILE_BYTES) {
                Ok(t) => t,
                Err(e) => {
                    self.file_error(path, &e, None);
                    ok = false;
                    continue;
                }
            };
            if let Err(e) = scripts.add(path, &text) {
                self.sources.add(path, text.clone());
                self.error_at("E0200", format!("script syntax: {}", e.message), Some(e.location));
                ok = false;
            } else {
                self.sources.add(path, text);
            }
        }
        ok.then_some(scripts)
    }

    fn resolve(
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
        for (key, value, cap) in
            [("max_steps", r.max_steps, MAX_STEPS), ("max_decisions", r.max_decisions, MAX_DECISIONS)]
        {
            if value == 0 || value > cap {
                let loc = self.key("flow", "");
                self.error_at("E0350", format!("`[flow] {key} = {value}` must be between 1 and {cap}"), loc);
            }
        }
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
        let fns = scripts.map(Scripts::function_arities);
        let check_fn = |l: &mut Loader, r: &Ref, arity: usize, what: &str| -> FnRef {
            let name = r.get_ref().clone();
            let mut with_ctx = false;
            if let Some(fns) = &fns {
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
        };

        // Parameters.
        for (name, p) in &f.params {
            let default = match p.default.as_ref().map(Value::from_toml) {
                Some(Ok(v)) => v,
                // No default: the first of the choices, else the lower bound.
                None if p.choices.as_ref().is_some_and(|c| !c.is_empty()) => p
                    .choices
                    .as_ref()
                    .and_then(|c| c.first())
                    .and_then(|v| Value::from_toml(v).ok())
                    .unwrap_or_default(),
                None if p.min.is_some() => Value::Int(p.min.unwrap_or(0)),
                None => {
                    let loc = self.key("params", name);
                    self.error_at("E0307", format!("param `{name}` needs a `default` (or `choices` or `min`)"), loc);
                    Value::Unit
                }
                Some(Err(e)) => {
                    self.error_at("E0302", format!("param `{name}`: {e}"), self.key("params", name));
                    Value::Unit
                }
            };
            let choices: Option<Vec<Value>> =
                p.choices.as_ref().map(|c| c.iter().filter_map(|v| Value::from_toml(v).ok()).collect());
            if let Err(e) = check_param(&default, p.min, p.max, choices.as_deref()) {
                self.error_at("E0307", format!("param `{name}`: its default {default} {e}"), self.key("params", name));
            }
            r.params.insert(
                name.clone(),
                ParamInfo {
                    value: default,
                    description: p.description.clone().unwrap_or_default(),
                    min: p.min,
                    max: p.max,
                    choices,
                },
            );
        }
        for (k, v) in &options.options {
            match r.params.get_mut(k) {
                None => {
                    let msg = unknown("parameter", k, r.params.keys());
                    self.error_at("E0303", msg, None).help =
                        Some("`rulebook list` shows each game's parameters".into());
                }
                Some(p) => match parse_param(v, p) {
                    Ok(val) => p.value = val,
                    Err(e) => {
                        self.error_at("E0304", format!("--option {k}={v}: {e}"), None);
                    }
                },
            }
        }

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
        let zone_ref = |l: &mut Loader, r: &Rules, z: &Ref| -> usize {
            r.zone(z.get_ref()).unwrap_or_else(|m| {
                l.error("E0310", m, Some(z.span()));
                0
            })
        };

        for (name, z) in &f.zones {
            let overflow_to = z.overflow_to.as_ref().map(|t| zone_ref(self, &r, t));
            if z.overflow == def::Overflow::PushOut && (overflow_to.is_none() || z.capacity.is_none()) {
                self.error_at(
                    "E0311",
                    format!("zone `{name}`: `overflow = \"push-out\"` needs `capacity` and `overflow_to`"),
                    self.key("zones", name),
                );
            }
            r.zones.push(ZoneInfo {
                name: name.clone(),
                per_player: z.per_player,
                ordered: z.ordered.unwrap_or(true),
                visible: z.visible,
                capacity: z.capacity.as_ref().and_then(|c| match c {
                    toml::Value::Integer(i) if *i >= 0 => Some(IntSpec::Int(*i)),
                    toml::Value::String(s) if s == "players" => Some(IntSpec::Players),
                    toml::Value::String(p) if r.params.get(p).is_some_and(|p| p.value.as_int().is_some()) => {
                        Some(IntSpec::Param(p.clone()))
                    }
                    other => {
                        let loc = self.key("zones", name);
                        self.error_at("E0314", format!("zone `{name}`: `capacity` must be a non-negative integer, \"players\" or an integer parameter, not `{other}`"), loc);
                        None
                    }
                }),
                overflow: z.overflow,
                overflow_to,
                places: self.places(name, z),
                card_label: z.card_label.clone(),
            });
        }
        for (ti, (name, c)) in f.components.iter().enumerate() {
            r.component_types.push(ComponentType {
                name: name.clone(),
                label: c.label.clone(),
                edges: c.edges.clone(),
            });
            let zone = c.zone.as_ref().map(|z| zone_ref(self, &r, z));
            for inst in c.instances.iter().chain(&c.extra_instances) {
                if let Some(d) = self.declared_instances(&r, ti, name, inst, zone, c.zone.as_ref()) {
                    r.components.push(d);
                }
            }
        }
        for (name, t) in &f.tracks {
            let spaces =
                t.spaces.iter().map(|s| Value::from_toml(&toml::Value::Table(s.clone())).unwrap_or_default()).collect();
            if matches!(t.visible, def::Visibility::Top | def::Visibility::Count) {
                self.error_at(
                    "E0313",
                    format!("track `{name}`: visibility must be public, owner or hidden"),
                    self.key("tracks", name),
                );
            }
            r.tracks.push(TrackInfo {
                name: name.clone(),
                per_player: t.per_player,
                start: t.start,
                min: t.min,
                max: t.max,
                visible: t.visible,
                spaces,
                space_label: t.space_label.clone(),
            });
        }
        for (name, v) in &f.vars {
            let default = v.default.as_ref().map(Value::from_toml).transpose().unwrap_or_else(|e| {
                self.error_at("E0302", format!("var `{name}`: {e}"), self.key("vars", name));
                None
            });
            if matches!(v.visible, def::Visibility::Top | def::Visibility::Count) {
                self.error_at(
                    "E0313",
                    format!("var `{name}`: visibility must be public, owner or hidden"),
                    self.key("vars", name),
                );
            }
            let derived = v.derived.as_ref().map(|f| check_fn(self, f, if v.per_player { 2 } else { 1 }, "derived"));
            r.vars.push(VarInfo {
                name: name.clone(),
                per_player: v.per_player,
                default: default.unwrap_or_default(),
                visible: v.visible,
                derived,
            });
        }
        for (name, t) in &f.tables {
            match Value::from_toml(t) {
                Ok(v) => {
                    r.tables.insert(name.clone(), v);
                }
                Err(e) => {
                    self.error_at("E0302", format!("table `{name}`: {e}"), self.key("tables", name));
                }
            }
        }
        for (name, g) in &f.graphs {
            if let Some(info) = self.graph(name, g) {
                r.graphs.insert(name.clone(), info);
            }
        }
        for (name, g) in &f.grids {
            let info = self.grid(name, g);
            r.index.grids.insert(name.clone(), r.grids.len());
            r.grids.push(info);
        }
        for (name, d) in &f.decisions {
            let source = match (&d.from, &d.options) {
                (Some(z), None) => OptionSource::Zone {
                    zone: zone_ref(self, &r, z),
                    filter: d.filter.as_ref().map(|f| check_fn(self, f, 3, "filter")),
                },
                (None, Some(o)) => OptionSource::Script(check_fn(self, o, 2, "options")),
                _ => {
                    self.error_at(
                        "E0320",
                        format!("decision `{name}` needs exactly one of `from` (a zone) or `options` (a script)"),
                        self.key("decisions", name),
                    );
                    OptionSource::Script(FnRef { name: String::new(), with_ctx: false })
                }
            };
            if d.filter.is_some() && d.from.is_none() {
                self.error_at(
                    "E0321",
                    format!("decision `{name}`: `filter` only applies with `from`"),
                    self.key("decisions", name),
                );
            }
            let subset = d.subset.as_ref().map(|sd| {
                let loc = self.key("decisions", name);
                let problem = if d.from.is_none() {
                    Some("`subset` chooses among the components of `from`: add `from`".to_string())
                } else if d.follow.is_some() || d.contest.is_some() {
                    Some("`subset` cannot be combined with `follow` or `contest`, which judge single components".into())
                } else if sd.min.zip(sd.max).is_some_and(|(a, b)| a > b) {
                    Some("`subset.min` is larger than `subset.max`".into())
                } else if sd.max == Some(0) {
                    Some("`subset.max` must be at least 1".into())
                } else if sd.order.is_some() && sd.consecutive.is_none() {
                    Some("`subset.order` orders the values of `consecutive`: add `consecutive`".into())
                } else {
                    None
                };
                if let Some(p) = problem {
                    self.error_at("E0360", format!("decision `{name}`: {p}"), loc);
                }
                let order = sd.order.as_ref().map(|o| o.iter().filter_map(|v| Value::from_toml(v).ok()).collect());
                crate::rules::Subset {
                    min: sd.min.unwrap_or(1) as usize,
                    max: sd.max.map_or(usize::MAX, |m| m as usize),
                    same: sd.same.clone(),
                    distinct: sd.distinct.clone(),
                    consecutive: sd.consecutive.clone().map(|c| (c, order)),
                    valid: sd.valid.as_ref().map(|f| check_fn(self, f, 3, "valid")),
                }
            });
            r.decisions.push(DecisionInfo {
                subset,
                name: name.clone(),
                prompt: d.prompt.clone().unwrap_or_else(|| name.clone()),
                source,
                label: d.label.clone(),
                then: d.then.as_ref().map(|f| check_fn(self, f, 3, "then")),
                reveal: d.reveal.as_ref().map(|f| check_fn(self, f, 2, "reveal")),
                secret: d.secret,
                auto: d.auto.as_ref().map(|f| check_fn(self, f, 3, "auto")),
                auto_if: d.auto_if.as_ref().map(|f| check_fn(self, f, 2, "auto_if")),
                follow: d.follow.as_ref().and_then(|f| {
                    let loc = self.key("decisions", name);
                    if d.from.is_none() {
                        self.error_at("E0323", format!("decision `{name}`: `follow` only applies with `from`"), loc);
                        return None;
                    }
                    let from = match (&f.var, &f.zone) {
                        (Some(v), None) => match r.var(v.get_ref()) {
                            Ok(i) if !r.vars[i].per_player => FollowFrom::Var(i),
                            Ok(_) => {
                                self.error(
                                    "E0323",
                                    format!("decision `{name}`: `follow.var` must be a global var"),
                                    Some(v.span()),
                                );
                                return None;
                            }
                            Err(m) => {
                                self.error("E0310", m, Some(v.span()));
                                return None;
                            }
                        },
                        (None, Some(z)) => match r.zone(z.get_ref()) {
                            Ok(i) if !r.zones[i].per_player => FollowFrom::Zone(i),
                            Ok(_) => {
                                self.error(
                                    "E0323",
                                    format!("decision `{name}`: `follow.zone` must be a global zone"),
                                    Some(z.span()),
                                );
                                return None;
                            }
                            Err(m) => {
                                self.error("E0310", m, Some(z.span()));
                                return None;
                            }
                        },
                        _ => {
                            self.error_at(
                                "E0323",
                                format!("decision `{name}`: `follow` needs exactly one of `var` or `zone`"),
                                loc,
                            );
                            return None;
                        }
                    };
                    let free = f.free.as_ref().and_then(|v| Value::from_toml(v).ok()).unwrap_or(Value::Unit);
                    Some(Follow { by: f.by.clone(), from, free })
                }),
                contest: d.contest.as_ref().and_then(|c| self.contest(&r, name, c)),
                actor: d.actor.clone(),
                skip_if_no_options: match d.if_no_options.as_deref() {
                    None | Some("error") => false,
                    Some("skip") => true,
                    Some(other) => {
                        let loc = self.key("decisions", name);
                        self.error_at(
                            "E0322",
                            format!("decision `{name}`: `if_no_options` must be \"error\" or \"skip\", not `{other}`"),
                            loc,
                        );
                        false
                    }
                },
            });
        }
        for (name, p) in &f.phases {
            let mut steps = Vec::new();
            for s in &p.steps {
                let set = [
                    s.run.is_some(),
                    s.ask.is_some(),
                    s.commit.is_some(),
                    s.phase.is_some(),
                    s.move_.is_some(),
                    s.shuffle.is_some(),
                ];
                if set.iter().filter(|b| **b).count() != 1 {
                    self.error_at(
                        "E0330",
                        format!(
                            "phase `{name}`: each step needs exactly one of run, ask, commit, phase, move, shuffle"
                        ),
                        self.key("phases", name),
                    );
                    continue;
                }
                let decision_ref = |l: &mut Loader, d: &Ref| {
                    r.decision(d.get_ref()).unwrap_or_else(|m| {
                        l.error("E0310", m, Some(d.span()));
                        0
                    })
                };
                let kind = if let Some(f) = &s.run {
                    StepKind::Run(check_fn(self, f, 1, "run"))
                } else if let Some(d) = &s.ask {
                    let player = match &s.player {
                        None => PlayerSel::Current,
                        Some(p) if p.get_ref() == "current" => PlayerSel::Current,
                        Some(p) => PlayerSel::Script(check_fn(self, p, 1, "player")),
                    };
                    StepKind::Ask(decision_ref(self, d), player)
                } else if let Some(d) = &s.commit {
                    let players = match &s.players {
                        None => PlayersSel::All,
                        Some(p) if p.get_ref() == "all" => PlayersSel::All,
                        Some(p) => PlayersSel::Script(check_fn(self, p, 1, "players")),
                    };
                    StepKind::Commit(decision_ref(self, d), players)
                } else if let Some(z) = &s.shuffle {
                    StepKind::Shuffle(zone_ref(self, &r, z))
                } else if let Some(ph) = &s.phase {
                    StepKind::Phase(r.phase(ph.get_ref()).unwrap_or_else(|m| {
                        self.error("E0310", m, Some(ph.span()));
                        0
                    }))
                } else {
                    let m = s.move_.as_ref().expect("checked above");
                    match (&m.from, &m.to) {
                        (Some(from), Some(to))
                            if m.deal && r.zone(to.get_ref()).is_ok_and(|z| !r.zones[z].per_player) =>
                        {
                            self.error(
                                "E0336",
                                format!("phase `{name}`: `deal = true` needs a per-player `to` zone"),
                                Some(to.span()),
                            );
                            continue;
                        }
                        (Some(from), Some(to)) => StepKind::Move {
                            from: zone_ref(self, &r, from),
                            to: zone_ref(self, &r, to),
                            count: m.count.unwrap_or(1) as usize,
                            deal: m.deal,
                        },
                        _ => {
                            self.error_at(
                                "E0331",
                                format!("phase `{name}`: a move step needs `from` and `to`"),
                                self.key("phases", name),
                            );
                            continue;
                        }
                    }
                };
                let condition = s.if_.as_ref().map(|f| check_fn(self, f, 1, "if"));
                steps.push(StepInfo { kind, condition });
            }
            let repeat = match (&p.repeat, &p.repeat_while) {
                (None, None) => Repeat::Once,
                (Some(_), Some(_)) => {
                    self.error_at(
                        "E0332",
                        format!("phase `{name}`: use `repeat` or `repeat_while`, not both"),
                        self.key("phases", name),
                    );
                    Repeat::Once
                }
                (None, Some(w)) => Repeat::While(check_fn(self, w, 1, "repeat_while")),
                (Some(n), None) => match n {
                    toml::Value::Integer(i) if (0..=MAX_REPEAT).contains(i) => Repeat::Times(*i as u64),
                    toml::Value::Integer(i) if *i > MAX_REPEAT => {
                        self.error_at(
                            "E0333",
                            format!("phase `{name}`: `repeat = {i}` is more than the {MAX_REPEAT} passes a phase may repeat"),
                            self.key("phases", name),
                        );
                        Repeat::Once
                    }
                    toml::Value::String(p) => match r.params.get(p).and_then(|p| p.value.as_int()) {
                        Some(i) if (0..=MAX_REPEAT).contains(&i) => Repeat::Times(i as u64),
                        Some(i) if i > MAX_REPEAT => {
                            self.error_at(
                                "E0333",
                                format!("phase `{name}`: `repeat` is `{p}` = {i}, more than the {MAX_REPEAT} passes a phase may repeat"),
                                self.key("phases", name),
                            );
                            Repeat::Once
                        }
                        _ => {
                            self.error_at(
                                "E0333",
                                format!("phase `{name}`: `repeat` names `{p}`, which is not an integer parameter"),
                                self.key("phases", name),
                            );
                            Repeat::Once
                        }
                    },
                    _ => {
                        self.error_at(
                            "E0333",
                            format!("phase `{name}`: `repeat` must be a non-negative integer or a parameter name"),
                            self.key("phases", name),
                        );
                        Repeat::Once
                    }
                },
            };
            let counter = p.counter.as_ref().map(|c| {
                r.track(c.get_ref()).unwrap_or_else(|m| {
                    self.error("E0310", m, Some(c.span()));
                    0
                })
            });
            r.phases.push(PhaseInfo { name: name.clone(), steps, for_each_player: p.for_each_player, repeat, counter });
        }
        r.setup = f.flow.setup.as_ref().map(|s| check_fn(self, s, 1, "setup"));
        r.winners = f.flow.winners.as_ref().map(|s| check_fn(self, s, 1, "winners"));
        match &f.flow.start {
            Some(s) => {
                r.start = r.phase(s.get_ref()).unwrap_or_else(|m| {
                    self.error("E0310", m, Some(s.span()));
                    0
                })
            }
            None => {
                self.error_at("E0334", "`[flow]` needs `start`, the phase play begins in", self.key("flow", ""));
            }
        }
        r.score = f.game.score.as_ref().map(|s| {
            r.track(s.get_ref()).unwrap_or_else(|m| {
                self.error("E0310", m, Some(s.span()));
                0
            })
        });
        if let Some(s) = r.score {
            if r.tracks.get(s).is_some_and(|t| !t.per_player) {
                {
                    let loc = self.key("game", "");
                    self.error_at("E0335", "`[game] score` must name a per-player track", loc);
                }
            }
        }
        r
    }
}

impl Loader {
    /// Checks `[limits]` against the hard caps.
    fn limits(&mut self, l: &def::LimitsDef) -> Option<crate::script::Limits> {
        use crate::script::{DEFAULT_LIMITS as D, HARD_CAPS as C};
        let mut ok = true;
        let mut pick = |l: &mut Loader, v: Option<u64>, default: u64, cap: u64, key: &str| -> u64 {
            match v {
                Some(v) if v == 0 || v > cap => {
                    let loc = l.key("limits", "");
                    l.error_at("E0350", format!("`[limits] {key} = {v}` is outside 1..={cap}"), loc);
                    ok = false;
                    default
                }
                Some(v) => v,
                None => default,
            }
        };
        let limits = crate::script::Limits {
            max_operations: pick(self, l.max_operations, D.max_operations, C.max_operations, "max_operations"),
            max_call_depth: pick(self, l.max_call_depth, D.max_call_depth, C.max_call_depth, "max_call_depth"),
            max_string_size: pick(self, l.max_string_size, D.max_string_size, C.max_string_size, "max_string_size"),
            max_array_size: pick(self, l.max_array_size, D.max_array_size, C.max_array_size, "max_array_size"),
            max_map_size: pick(self, l.max_map_size, D.max_map_size, C.max_map_size, "max_map_size"),
        };
        ok.then_some(limits)
    }

    /// Checks a `[graphs.NAME]` table: unique ids, edges between declared nodes.
    fn graph(&mut self, name: &str, g: &def::GraphDef) -> Option<GraphInfo> {
        let loc = self.key("graphs", name);
        let mut info = GraphInfo { name: name.to_string(), directed: g.directed, ..GraphInfo::default() };
        let mut ok = true;
        for n in &g.nodes {
            let Some(id) = n.get("id").and_then(toml::Value::as_str) else {
                self.error_at("E0316", format!("graph `{name}`: every node needs a string `id`"), loc.clone());
                ok = false;
                continue;
            };
            if info.node_index.insert(id.to_string(), info.nodes.len()).is_some() {
                self.error_at("E0316", format!("graph `{name}`: node `{id}` is declared twice"), loc.clone());
                ok = false;
            }
            let props = Value::from_toml(&toml::Value::Table(n.clone())).unwrap_or_default();
            info.nodes.push(GraphItem { id: id.to_string(), props });
        }
        info.incident = vec![Vec::new(); info.nodes.len()];
        for e in &g.edges {
            let field = |k: &str| e.get(k).and_then(toml::Value::as_str).map(str::to_string);
            let (Some(id), Some(from), Some(to)) = (field("id"), field("from"), field("to")) else {
                self.error_at(
                    "E0316",
                    format!("graph `{name}`: every edge needs string `id`, `from` and `to`"),
                    loc.clone(),
                );
                ok = false;
                continue;
            };
            let (a, b) = match (info.node(&from), info.node(&to)) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(m), _) | (_, Err(m)) => {
                    self.error_at("E0316", format!("edge `{id}`: {m}"), loc.clone());
                    ok = false;
                    continue;
                }
            };
            let index = info.edges.len();
            if info.edge_index.insert(id.clone(), index).is_some() {
                self.error_at("E0316", format!("graph `{name}`: edge `{id}` is declared twice"), loc.clone());
                ok = false;
            }
            info.incident[a].push(index);
            if !g.directed && a != b {
                info.incident[b].push(index);
            }
            info.ends.push((a, b));
            let props = Value::from_toml(&toml::Value::Table(e.clone())).unwrap_or_default();
            info.edges.push(GraphItem { id, props });
        }
        ok.then_some(info)
    }

    /// Checks a `[grids.NAME]` table: bounds, cells on the grid, markers, the edge rule.
    fn grid(&mut self, name: &str, g: &def::GridDef) -> GridInfo {
        use crate::grid::{EdgeRule, MAX_PER_CELL, MAX_SPAN};
        let loc = self.key("grids", name);
        let err = |l: &mut Loader, m: String| {
            l.error_at("E0317", format!("grid `{name}`: {m}"), loc.clone());
        };
        let bounds = |v: &Option<toml::Value>| -> Result<Option<(i64, i64)>, String> {
            match v {
                None => Ok(None),
                Some(toml::Value::Integer(n)) if (1..=MAX_SPAN).contains(n) => Ok(Some((1, *n))),
                Some(toml::Value::Array(a)) => match a.as_slice() {
                    [toml::Value::Integer(lo), toml::Value::Integer(hi)]
                        if lo <= hi
                            && hi - lo < MAX_SPAN
                            && lo.abs() <= crate::grid::MAX_COORD
                            && hi.abs() <= crate::grid::MAX_COORD =>
                    {
                        Ok(Some((*lo, *hi)))
                    }
                    _ => Err(format!("`[first, last]` must be two integers, first <= last, at most {MAX_SPAN} apart")),
                },
                Some(other) => Err(format!("must be a count from 1 to {MAX_SPAN} or `[first, last]`, not `{other}`")),
            }
        };
        let rows = bounds(&g.rows).unwrap_or_else(|m| {
            err(self, format!("`rows` {m}"));
            None
        });
        let cols = bounds(&g.cols).unwrap_or_else(|m| {
            err(self, format!("`cols` {m}"));
            None
        });
        let (rows, cols) = match (rows, cols) {
            (Some(r), Some(c)) => (Some(r), Some(c)),
            (None, None) => (None, None),
            _ => {
                if g.rows.is_some() != g.cols.is_some() {
                    err(self, "declare both `rows` and `cols` (a bounded grid), or neither (an unbounded one)".into());
                }
                (None, None)
            }
        };
        if matches!(g.visible, def::Visibility::Top | def::Visibility::Count) {
            err(self, "visibility must be public, owner or hidden".into());
        }
        let descending = match g.row_order.as_deref() {
            None | Some("ascending") => false,
            Some("descending") => true,
            Some(other) => {
                err(self, format!("`row_order` must be \"ascending\" or \"descending\", not `{other}`"));
                false
            }
        };
        let per_cell = match g.per_cell {
            None => 1,
            Some(n) if (1..=MAX_PER_CELL).contains(&n) => n as usize,
            Some(n) => {
                err(self, format!("`per_cell` must be from 1 to {MAX_PER_CELL}, not {n}"));
                1
            }
        };
        let mut info = GridInfo {
            name: name.to_string(),
            description: g.description.clone().unwrap_or_default(),
            per_player: g.per_player,
            visible: g.visible,
            rows,
            cols,
            descending,
            cell_label: g.cell_label.clone(),
            piece_label: g.piece_label.clone(),
            per_cell,
            connected: g.connected,
            ..GridInfo::default()
        };
        for cell in &g.cells {
            let at =
                (cell.get("row").and_then(toml::Value::as_integer), cell.get("col").and_then(toml::Value::as_integer));
            let (Some(row), Some(col)) = at else {
                err(self, "every entry of `cells` needs integer `row` and `col`".into());
                continue;
            };
            if !info.on_grid(row, col) {
                err(self, format!("cell row {row}, column {col} is off the grid ({})", info.bounds_text()));
                continue;
            }
            match Value::from_toml(&toml::Value::Table(cell.clone())) {
                Ok(v) => {
                    if info.cells.insert((row, col), v).is_some() {
                        err(self, format!("cell row {row}, column {col} is declared twice"));
                    }
                }
                Err(e) => err(self, format!("cell row {row}, column {col}: {e}")),
            }
        }
        for (i, m) in g.markers.iter().enumerate() {
            if m.is_empty() || g.markers[..i].contains(m) {
                err(self, format!("marker `{m}` is empty or declared twice"));
            }
        }
        info.markers = g.markers.clone();
        if let Some(m) = &g.match_ {
            if per_cell != 1 {
                err(self, "a grid with `match` holds one piece per cell (`per_cell = 1`)".into());
            }
            let blank = m.blank.clone().unwrap_or_default();
            if m.wildcard.as_ref() == Some(&blank) {
                err(self, "the wildcard and the blank must differ".into());
            }
            info.rule = Some(EdgeRule { wildcard: m.wildcard.clone(), blank });
        }
        info
    }

    /// A zone's numbered places: the template and whether place 1 is the top.
    fn places(&mut self, name: &str, z: &def::ZoneDef) -> Option<(String, bool)> {
        let from_top = match z.places_from.as_deref() {
            None | Some("bottom") => false,
            Some("top") => true,
            Some(other) => {
                let loc = self.key("zones", name);
                self.error_at(
                    "E0318",
                    format!("zone `{name}`: `places_from` must be \"bottom\" or \"top\", not `{other}`"),
                    loc,
                );
                false
            }
        };
        if z.places.is_none() && z.places_from.is_some() {
            let loc = self.key("zones", name);
            self.error_at(
                "E0318",
                format!("zone `{name}`: `places_from` needs `places` (a label such as \"cell {{n}}\")"),
                loc,
            );
        }
        z.places.clone().map(|p| (p, from_top))
    }

    /// Checks a `[decisions.NAME.contest]` table.
    fn contest(&mut self, r: &Rules, decision: &str, c: &def::ContestDef) -> Option<Contest> {
        let zone = |l: &mut Loader, z: &Option<Ref>, per_player: bool, key: &str| -> Option<usize> {
            let z = z.as_ref()?;
            match r.zone(z.get_ref()) {
                Ok(i) if r.zones[i].per_player == per_player => Some(i),
                Ok(_) => {
                    let want = if per_player { "a per-player" } else { "a global" };
                    l.error(
                        "E0340",
                        format!("decision `{decision}` contest: `{key}` must be {want} zone"),
                        Some(z.span()),
                    );
                    None
                }
                Err(m) => {
                    l.error("E0310", m, Some(z.span()));
                    None
                }
            }
        };
        let played_to = zone(self, &c.played_to, false, "played_to");
        let stake = zone(self, &c.stake, false, "stake");
        let stake_to = zone(self, &c.stake_to, true, "stake_to");
        let unclaimed_to = zone(self, &c.unclaimed_to, false, "unclaimed_to");
        if stake.is_some() != stake_to.is_some() {
            self.error_at(
                "E0341",
                format!("decision `{decision}` contest: `stake` and `stake_to` go together"),
                self.key("decisions", decision),
            );
        }
        let score = c.score.as_ref().and_then(|t| match r.track(t.get_ref()) {
            Ok(i) if r.tracks[i].per_player => Some(i),
            Ok(_) => {
                self.error(
                    "E0340",
                    format!("decision `{decision}` contest: `score` must be a per-player track"),
                    Some(t.span()),
                );
                None
            }
            Err(m) => {
                self.error("E0310", m, Some(t.span()));
                None
            }
        });
        let winner_var = c.winner_var.as_ref().and_then(|v| match r.var(v.get_ref()) {
            Ok(i) if !r.vars[i].per_player => Some(i),
            Ok(_) => {
                self.error(
                    "E0340",
                    format!("decision `{decision}` contest: `winner_var` must be a global var"),
                    Some(v.span()),
                );
                None
            }
            Err(m) => {
                self.error("E0310", m, Some(v.span()));
                None
            }
        });
        if score.is_some() && stake.is_none() {
            self.error_at(
                "E0343",
                format!("decision `{decision}` contest: `score` adds up the stake, so it needs `stake`"),
                self.key("decisions", decision),
            );
        }
        let Some(by) = c.by.clone() else {
            self.error_at(
                "E0342",
                format!("decision `{decision}` contest: `by` (the property compared) is required"),
                self.key("decisions", decision),
            );
            return None;
        };
        Some(Contest { by, best: c.best, ties: c.ties, played_to, stake, stake_to, unclaimed_to, score, winner_var })
    }

    /// Checks one `[[components.TYPE.instances]]` entry.
    fn declared_instances(
        &mut self,
        r: &Rules,
        kind: usize,
        type_name: &str,
        inst: &toml::Table,
        type_zone: Option<usize>,
        type_zone_ref: Option<&Ref>,
    ) -> Option<DeclaredComponent> {
        let what = format!("components `{type_name}`");
        let int_spec = |l: &mut Loader, key: &str, v: &toml::Value| -> Option<IntSpec> {
            match v {
                toml::Value::Integer(i) => Some(IntSpec::Int(*i)),
                toml::Value::String(p) if r.params.get(p).is_some_and(|p| p.value.as_int().is_some()) => {
                    Some(IntSpec::Param(p.clone()))
                }
                other => {
                    l.error_at(
                        "E0305",
                        format!(
                            "{what}: `{key}` must be an integer or the name of an integer parameter, not `{other}`"
                        ),
                        l.key("components", type_name),
                    );
                    None
                }
            }
        };
        let mut d = DeclaredComponent {
            kind,
            id: None,
            props: IndexMap::new(),
            count: IntSpec::Int(1),
            per_player: false,
            zone: type_zone,
        };
        for (k, v) in inst {
            match k.as_str() {
                "id" => d.id = v.as_str().map(str::to_string),
                "count" => d.count = int_spec(self, "count", v)?,
                "per_player" => d.per_player = v.as_bool().unwrap_or(false),
                "zone" => match v.as_str().map(|z| r.zone(z)) {
                    Some(Ok(z)) => d.zone = Some(z),
                    Some(Err(m)) => {
                        self.error_at("E0310", format!("{what}: {m}"), self.key("components", type_name));
                        return None;
                    }
                    None => {
                        self.error_at(
                            "E0305",
                            format!("{what}: `zone` must be a zone name"),
                            self.key("components", type_name),
                        );
                        return None;
                    }
                },
                "kind" | "label" => {
                    self.error_at(
                        "E0308",
                        format!("{what}: `{k}` is reserved (scripts read the component type as `c.kind` and its label as `c.label`); name the property differently"),
                        self.key("components", type_name),
                    );
                    return None;
                }
                _ => {
                    let spec = match v {
                        toml::Value::Table(t) if t.contains_key("from") || t.contains_key("to") => {
                            let (Some(from), Some(to)) = (t.get("from"), t.get("to")) else {
                                self.error_at(
                                    "E0305",
                                    format!("{what}: property `{k}` needs both `from` and `to`"),
                                    self.key("components", type_name),
                                );
                                return None;
                            };
                            PropSpec::Range(int_spec(self, "from", from)?, int_spec(self, "to", to)?)
                        }
                        toml::Value::Table(t) if t.contains_key("each") => match t.get("each").map(Value::from_toml) {
                            Some(Ok(Value::List(items))) => PropSpec::Each(items),
                            _ => {
                                self.error_at(
                                    "E0305",
                                    format!("{what}: property `{k}`: `each` must be a list of values"),
                                    self.key("components", type_name),
                                );
                                return None;
                            }
                        },
                        other => match Value::from_toml(other) {
                            Ok(v) => PropSpec::Fixed(v),
                            Err(e) => {
                                self.error_at(
                                    "E0302",
                                    format!("{what} property `{k}`: {e}"),
                                    self.key("components", type_name),
                                );
                                return None;
                            }
                        },
                    };
                    d.props.insert(k.clone(), spec);
                }
            }
        }
        if let Some(zone) = d.zone.and_then(|z| r.zones.get(z)) {
            if zone.per_player != d.per_player {
                let msg = if d.per_player {
                    format!("{what}: `per_player` instances need a per-player zone, and `{}` is global", zone.name)
                } else {
                    format!("{what}: `{}` is a per-player zone; add `per_player = true` to the instances or deal them in a script", zone.name)
                };
                self.error("E0312", msg, type_zone_ref.map(Spanned::span));
                return None;
            }
        }
        Some(d)
    }
}

/// "did you mean" for serde's "unknown field `x`, expected one of `a`, `b`" messages.
fn unknown_field_hint(msg: &str) -> Option<String> {
    let rest = msg.strip_prefix("unknown field `")?;
    let (field, rest) = rest.split_once('`')?;
    let candidates: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    crate::diag::did_you_mean(field, candidates).map(|s| format!("did you mean `{s}`?"))
}

fn deserialize_value<T: serde::de::DeserializeOwned>(v: Spanned<DeValue<'static>>) -> Result<T, toml::de::Error> {
    let span = v.span();
    match v.into_inner() {
        DeValue::Table(t) => T::deserialize(toml::de::Deserializer::from(Spanned::new(span, t))),
        other => T::deserialize(toml::de::ValueDeserializer::from(Spanned::new(span, other))),
    }
}

fn parse_param(text: &str, p: &ParamInfo) -> Result<Value, String> {
    let v = if let Ok(i) = text.parse::<i64>() {
        Value::Int(i)
    } else if text == "true" || text == "false" {
        Value::Bool(text == "true")
    } else {
        Value::Str(text.to_string())
    };
    match (&p.value, &v) {
        (Value::Int(_), Value::Int(_))
        | (Value::Bool(_), Value::Bool(_))
        | (Value::Str(_), Value::Str(_))
        | (Value::Unit, _) => {}
        (Value::List(_), _) => {
            let items = text.split(',').map(|s| Value::Str(s.trim().to_string())).collect();
            return Ok(Value::List(items));
        }
        (expected, _) => return Err(format!("expected a value like `{expected}`")),
    }
    check_param(&v, p.min, p.max, p.choices.as_deref())?;
    Ok(v)
}

/// Checks a parameter value against its bounds and choices.
fn check_param(v: &Value, min: Option<i64>, max: Option<i64>, choices: Option<&[Value]>) -> Result<(), String> {
    if let Value::Int(i) = v {
        if min.is_some_and(|m| *i < m) || max.is_some_and(|m| *i > m) {
            let show = |b: Option<i64>, inf: &str| b.map_or(inf.to_string(), |m| m.to_string());
            return Err(format!("must be between {} and {}", show(min, "-inf"), show(max, "inf")));
        }
    }
    if let Some(c) = choices {
        if !c.contains(v) {
            return Err(format!("must be one of {}", c.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ")));
        }
    }
    Ok(())
}

fn folder_name(folder: &Path) -> String {
    folder
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| folder.display().to_string())
}

fn rhai_files(folder: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "rhai")).collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn available_variants(layers: &[Layer]) -> Vec<VariantInfo> {
    let mut out: Vec<VariantInfo> = Vec::new();
    for l in layers {
        for p in
            std::fs::read_dir(l.folder.join("variants")).into_iter().flatten().filter_map(|e| e.ok().map(|e| e.path()))
        {
            if p.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            let name = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let description = files::read_inside(&l.folder, &p)
                .ok()
                .and_then(|t| toml::from_str::<toml::Table>(&t).ok())
                .and_then(|t| t.get("variant")?.get("description")?.as_str().map(str::to_string))
                .unwrap_or_default();
            out.retain(|v| v.name != name);
            out.push(VariantInfo { name, description });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn get<'a>(t: &'a Table, path: &[&str]) -> Option<&'a Spanned<DeValue<'static>>> {
    let (first, rest) = path.split_first()?;
    let v = t.get(*first)?;
    if rest.is_empty() {
        return Some(v);
    }
    match v.get_ref() {
        DeValue::Table(t) => get(t, rest),
        _ => None,
    }
}

fn get_str(t: &Table, path: &[&str]) -> Option<Ref> {
    let v = get(t, path)?;
    v.get_ref().as_str().map(|s| Spanned::new(v.span(), s.to_string()))
}

fn get_str_list(t: &Table, path: &[&str]) -> Vec<Ref> {
    match get(t, path).map(Spanned::get_ref) {
        Some(DeValue::Array(a)) => {
            a.iter().filter_map(|v| v.get_ref().as_str().map(|s| Spanned::new(v.span(), s.to_string()))).collect()
        }
        _ => Vec::new(),
    }
}

/// The `[game] scripts` list of the layer being read, resolved against its folder.
fn get_str_list_opt(t: &Table, folder: &Path, l: &mut Loader) -> Option<Vec<PathBuf>> {
    get(t, &["game", "scripts"])?;
    let list = get_str_list(t, &["game", "scripts"]);
    let mut out = Vec::new();
    for s in list {
        if let Some(p) = l.named_file(folder, &s, "E0003", "script") {
            out.push(p);
        }
    }
    Some(out)
}

/// Shifts every span in a parsed TOML value by `base`, making it global.
fn shift(v: Spanned<DeValue<'static>>, base: usize) -> Spanned<DeValue<'static>> {
    let span = v.span();
    let span = span.start + base..span.end + base;
    let inner = match v.into_inner() {
        DeValue::Table(t) => {
            let mut out = DeTable::new();
            for (k, v) in t {
                let ks = k.span();
                out.insert(Spanned::new(ks.start + base..ks.end + base, k.into_inner()), shift(v, base));
            }
            DeValue::Table(out)
        }
        DeValue::Array(a) => DeValue::Array(a.into_iter().map(|v| shift(v, base)).collect()),
        other => other,
    };
    Spanned::new(span, inner)
}

/// Deep-merges an overlay into a base: tables merge key by key, anything else is replaced.
fn merge(base: &mut Table, overlay: Table) {
    for (k, v) in overlay {
        let key: &str = k.get_ref();
        match (base.get_mut(key).map(Spanned::get_mut), v) {
            (Some(DeValue::Table(b)), v) if matches!(v.get_ref(), DeValue::Table(_)) => {
                if let DeValue::Table(o) = v.into_inner() {
                    merge(b, o);
                }
            }
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &'static str) -> Table {
        let t = DeTable::parse(text).unwrap();
        match shift(Spanned::new(t.span(), DeValue::Table(t.into_inner())), 0).into_inner() {
            DeValue::Table(t) => t,
            _ => unreachable!(),
        }
    }

    #[test]
    fn overlay_merges_tables_and_replaces_values() {
        let mut base = parse("[a]\nx = 1\ny = [1, 2]\n[b]\nz = 'q'\n");
        merge(&mut base, parse("[a]\ny = [3]\nw = 0x10\n"));
        let v: toml::Table = deserialize_value(Spanned::new(0..0, DeValue::Table(base))).unwrap();
        assert_eq!(v["a"]["x"].as_integer(), Some(1));
        assert_eq!(v["a"]["y"].as_array().unwrap().len(), 1);
        assert_eq!(v["a"]["w"].as_integer(), Some(16));
        assert_eq!(v["b"]["z"].as_str(), Some("q"));
    }
}
