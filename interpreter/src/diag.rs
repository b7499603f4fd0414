//! Diagnostics: located messages about game files, and the source map that turns byte
//! offsets into `file:line:col`.

use serde::Serialize;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The game cannot be loaded or played.
    Error,
    /// Suspicious but playable.
    Warning,
}

/// A position in a source file, 1-based.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    /// The file, as given to the loader.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// One problem found in a game's files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A stable code such as `E0101`.
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
    /// Where, when known.
    pub location: Option<Location>,
    /// What to do about it.
    pub help: Option<String>,
    /// The located file must not be quoted: it was refused (outside the game, not a regular
    /// file), so a front end shows the path only, never a line of it.
    #[serde(skip)]
    pub unquoted: bool,
}

impl Diagnostic {
    /// An error with a code and message, not yet located.
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            location: None,
            help: None,
            unquoted: false,
        }
    }

    /// A warning with a code and message, not yet located.
    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            code,
            message: message.into(),
            location: None,
            help: None,
            unquoted: false,
        }
    }

    /// Attaches a location.
    pub fn at(mut self, location: Option<Location>) -> Self {
        self.location = location;
        self
    }

    /// Attaches a hint on how to fix the problem.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        if let Some(loc) = &self.location {
            write!(f, "{loc}: ")?;
        }
        write!(f, "{sev}[{}]: {}", self.code, self.message)?;
        if let Some(h) = &self.help {
            write!(f, "\n  help: {h}")?;
        }
        Ok(())
    }
}

/// A loaded source file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Path as given to the loader.
    pub path: PathBuf,
    /// Whole text.
    pub text: String,
    /// Offset of this file in the source map's global address space.
    pub base: usize,
}

/// All files read while loading a game. TOML spans are shifted into one global address
/// space (each file at its own `base`), so a span alone says which file it belongs to.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
    next_base: usize,
}

impl SourceMap {
    /// Registers a file and returns its base offset.
    pub fn add(&mut self, path: &Path, text: String) -> usize {
        let base = self.next_base;
        self.next_base += text.len() + 1;
        self.files.push(SourceFile { path: path.to_path_buf(), text, base });
        base
    }

    /// The file holding a global offset.
    pub fn file_at(&self, offset: usize) -> Option<&SourceFile> {
        self.files.iter().rev().find(|f| f.base <= offset && offset <= f.base + f.text.len())
    }

    /// Turns a global span into a location.
    pub fn locate(&self, span: Range<usize>) -> Option<Location> {
        let file = self.file_at(span.start)?;
        Some(locate_in(&file.path, &file.text, span.start - file.base))
    }

    /// Looks up a file by path.
    pub fn file(&self, path: &Path) -> Option<&SourceFile> {
        self.files.iter().find(|f| f.path == path)
    }

    /// All files, in load order.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// Where a `[section.name]` TOML table (or `[section]` when `name` is empty) is written:
    /// the latest file that mentions it, else the first file's start.
    pub fn locate_key(&self, section: &str, name: &str) -> Option<Location> {
        let needles: Vec<String> = if name.is_empty() {
            vec![format!("[{section}]"), format!("{section}.")]
        } else {
            vec![
                format!("[{section}.{name}]"),
                format!("[{section}.{name}."),
                format!("[[{section}.{name}"),
                format!("{section}.{name}"),
                format!("[{section}.\"{name}\"]"),
            ]
        };
        // A key written inside `[section]` itself (`name = ...`).
        let in_section = (!name.is_empty()).then(|| (format!("[{section}]"), format!("\n{name} =")));
        // Only TOML files declare sections (a script's `game.` is not a `[game]` table).
        for file in self.files.iter().rev().filter(|f| f.path.extension().is_some_and(|e| e == "toml")) {
            for n in &needles {
                if let Some(i) = file.text.find(n.as_str()) {
                    return Some(locate_in(&file.path, &file.text, i));
                }
            }
            if let Some((header, key)) = &in_section {
                if let Some(h) = file.text.find(header.as_str()) {
                    if let Some(i) = file.text[h..].find(key.as_str()) {
                        return Some(locate_in(&file.path, &file.text, h + i + 1));
                    }
                }
            }
        }
        self.files.first().map(|f| Location { file: f.path.clone(), line: 1, column: 1 })
    }
}

/// Location of a byte offset in a text.
pub fn locate_in(path: &Path, text: &str, offset: usize) -> Location {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let column = before[line_start..].chars().count() + 1;
    Location { file: path.to_path_buf(), line, column }
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Suggests the closest candidate to a misspelt name, if one is close enough.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.to_string())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_lines_and_columns() {
        let loc = locate_in(Path::new("g.toml"), "ab\ncdé\nx", 7);
        assert_eq!((loc.line, loc.column), (2, 4));
    }

    #[test]
    fn source_map_finds_the_right_file() {
        let mut map = SourceMap::default();
        map.add(Path::new("a"), "aaaa".into());
        let b = map.add(Path::new("b"), "bb\nbb".into());
        let loc = map.locate(b + 3..b + 4).unwrap();
        assert_eq!(loc.to_string(), "b:2:1");
    }

    #[test]
    fn suggests_close_names() {
        assert_eq!(did_you_mean("hnad", ["hand", "deck"]).as_deref(), Some("hand"));
        assert_eq!(did_you_mean("zzzzzz", ["hand", "deck"]), None);
    }
}
