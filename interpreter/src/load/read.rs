//! Reading the files of a game: `game.toml` and the games it `extends` (base first), the
//! files it `include`s, the chosen variant overlays and the script files each layer names.
//! Every file is resolved inside its folder and read through `files`; a file that cannot be
//! read is reported at the declaration that named it.

use super::merge::{deserialize_value, get, get_str, get_str_list, merge, shift};
use super::{Layer, Loader, Table};
use crate::def::{self, Ref};
use crate::diag::Location;
use crate::files::{self, FileError};
use crate::rules::{unknown, VariantInfo};
use crate::script::Scripts;
use std::path::{Path, PathBuf};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

impl Loader {
    /// Applies the variants named in `names`, in order, over `merged`: each is looked up in this
    /// folder, then in the folders it extends; its `[variant] scripts` are added to `scripts`.
    /// Returns the names of the variants applied.
    pub(super) fn read_variants(
        &mut self,
        names: &[String],
        layers: &[Layer],
        merged: &mut Table,
        scripts: &mut Vec<PathBuf>,
    ) -> Vec<String> {
        let mut applied = Vec::new();
        for name in names {
            let plain = !name.is_empty() && !name.contains(['/', '\\']) && name != "." && name != "..";
            let found = layers
                .iter()
                .rev()
                .map(|l| (l, l.folder.join("variants").join(format!("{name}.toml"))))
                .find(|(_, p)| plain && std::fs::symlink_metadata(p).is_ok());
            let Some((layer, path)) = found else {
                let known: Vec<String> = available_variants(layers).into_iter().map(|v| v.name).collect();
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
                merge(merged, table);
                applied.push(name.clone());
            }
        }
        applied
    }

    /// Reports a file the loader refused or could not read: at the declaration that named it
    /// (`via`) when there is one, else at the file itself. Never shows the file's content.
    pub(super) fn file_error(&mut self, path: &Path, e: &FileError, via: Option<std::ops::Range<usize>>) {
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
    pub(super) fn named_file(
        &mut self,
        folder: &Path,
        name: &Ref,
        missing_code: &'static str,
        what: &str,
    ) -> Option<PathBuf> {
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
    pub(super) fn read_toml(&mut self, path: &Path, root: &Path, via: Option<std::ops::Range<usize>>) -> Option<Table> {
        let text = match files::read_inside(root, path) {
            Ok(t) => t,
            Err(e) => {
                self.file_error(path, &e, via);
                return None;
            }
        };
        let base = self.sources.add(path, text.clone());
        let table = match parse_toml(text) {
            Ok(table) => table,
            Err(errors) => {
                for e in errors {
                    let span = e.span().map(|s| s.start + base..s.end + base);
                    self.error("E0100", format!("TOML syntax: {}", e.message().trim()), span);
                }
                return None;
            }
        };
        let span = table.span();
        match shift(Spanned::new(span, DeValue::Table(table.into_inner())), base).into_inner() {
            DeValue::Table(t) => Some(t),
            _ => None,
        }
    }

    pub(super) fn read_layer(
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

    pub(super) fn compile_scripts(&mut self, paths: &[PathBuf]) -> Option<Scripts> {
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
}

/// The `.rhai` files of a folder, sorted: a layer's scripts when its game.toml names none.
fn rhai_files(folder: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "rhai")).collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The variants the layers offer (a later layer's file replaces a same-named earlier one), by name.
pub(super) fn available_variants(layers: &[Layer]) -> Vec<VariantInfo> {
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

/// Files parsed in this process, by their text: `validate` loads each game many times (each
/// variant, each parameter bound), and a server reloads games, from the same files.
static PARSED: std::sync::Mutex<Vec<(&'static str, Spanned<DeTable<'static>>)>> = std::sync::Mutex::new(Vec::new());

/// Texts [`PARSED`] keeps at most; past that, files are parsed every time.
const MAX_PARSED: usize = 256;

/// Parses a TOML file's text, or gives its syntax errors. Parsed TOML borrows its text for the
/// life of the loaded game, so the text is kept for good, once per different text: a text
/// parsed before is not parsed (nor kept) again.
fn parse_toml(text: String) -> Result<Spanned<DeTable<'static>>, Vec<toml::de::Error>> {
    let cache = || PARSED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, table)) = cache().iter().find(|(t, _)| *t == text) {
        return Ok(table.clone());
    }
    let text: &'static str = Box::leak(text.into_boxed_str());
    let (table, errors) = DeTable::parse_recoverable(text);
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut parsed = cache();
    if parsed.len() < MAX_PARSED && !parsed.iter().any(|(t, _)| *t == text) {
        parsed.push((text, table.clone()));
    }
    Ok(table)
}
