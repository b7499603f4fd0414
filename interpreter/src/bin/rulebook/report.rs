//! Printing diagnostics: cargo-style snippets for people (annotate-snippets), one JSON object
//! per line for tools, GitHub workflow commands for pull-request annotations.

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use rulebook::{Diagnostic, Severity};
use serde::Serialize;
use std::io::IsTerminal;

/// A diagnostic as JSON.
#[derive(Serialize)]
struct Json<'a> {
    game: &'a str,
    severity: Severity,
    code: &'a str,
    message: &'a str,
    file: Option<String>,
    line: Option<usize>,
    column: Option<usize>,
    help: Option<&'a str>,
}

/// One JSON object (one line) for a diagnostic.
pub fn json(game: &str, d: &Diagnostic) -> String {
    let j = Json {
        game,
        severity: d.severity,
        code: d.code,
        message: &d.message,
        file: d.location.as_ref().map(|l| l.file.display().to_string()),
        line: d.location.as_ref().map(|l| l.line),
        column: d.location.as_ref().map(|l| l.column),
        help: d.help.as_deref(),
    };
    serde_json::to_string(&j).unwrap_or_default()
}

/// A GitHub Actions workflow command that annotates the file and line in a pull request.
pub fn github(d: &Diagnostic) -> String {
    let kind = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut props = vec![format!("title={}", escape_property(d.code))];
    if let Some(l) = &d.location {
        props.insert(0, format!("col={}", l.column));
        props.insert(0, format!("line={}", l.line));
        props.insert(0, format!("file={}", escape_property(&l.file.display().to_string())));
    }
    let mut message = d.message.clone();
    if let Some(h) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(h);
    }
    format!("::{kind} {}::{}", props.join(","), escape_data(&message))
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// A diagnostic for people: the message, and the source line with a caret under the place.
pub fn human(d: &Diagnostic) -> String {
    let level = match d.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let source = d.location.as_ref().and_then(|l| {
        // A refused file (outside the game, a device) is named, never quoted.
        if d.unquoted {
            return None;
        }
        let text = rulebook::files::read_text(&l.file, rulebook::files::MAX_GAME_FILE_BYTES).ok()?;
        let line = text.lines().nth(l.line.checked_sub(1)?)?.to_string();
        Some((l, line))
    });
    let title = level.clone().primary_title(d.message.as_str()).id(d.code);
    let mut groups = Vec::new();
    let path_text;
    let main = match &source {
        Some((l, line)) => {
            path_text = l.file.display().to_string();
            let start = line.char_indices().nth(l.column.saturating_sub(1)).map(|(i, _)| i).unwrap_or(line.len());
            let len = line[start..].find(char::is_whitespace).unwrap_or(line.len() - start).max(1);
            let end = (start + len).min(line.len());
            let snippet = Snippet::source(line.as_str())
                .line_start(l.line)
                .path(path_text.as_str())
                .annotation(AnnotationKind::Primary.span(start..end.max(start)));
            title.element(snippet)
        }
        // Not quoted (refused, or unreadable): the place alone, under the title.
        None => match &d.location {
            Some(l) => {
                path_text = l.file.display().to_string();
                title.element(Origin::path(path_text.as_str()).line(l.line).char_column(l.column))
            }
            None => Group::with_title(title),
        },
    };
    groups.push(main);
    if let Some(h) = &d.help {
        groups.push(Group::with_title(Level::HELP.secondary_title(h.as_str())));
    }
    let renderer = if std::io::stdout().is_terminal() { Renderer::styled() } else { Renderer::plain() };
    renderer.render(&groups).to_string()
}
