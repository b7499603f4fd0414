//! Lints that keep a game's numbers where a house rule can change them: a number written in a
//! script instead of read from a declared parameter (W0008), and a parameter that nothing
//! reads (W0009). A script line may keep a number on purpose with a comment that says why,
//! on that line or alone on the line above: `// number: width of the city column`.

use crate::diag::{locate_in, Diagnostic};
use crate::rules::IntSpec;
use crate::Game;
use std::path::Path;

/// A number written in a script, where it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Literal {
    /// The number as written.
    pub text: String,
    /// Byte offset in the file.
    pub offset: usize,
}

/// The comment that keeps a number on purpose.
pub const ALLOW_MARK: &str = "number:";

/// The numbers of a script's code that a house rule might want to change: every integer
/// literal except 0 and 1 (so -1 too), an index (`list[2]`) and a range bound (`0..5`,
/// `1..=4`), and except the numbers on a line kept with a `// number: why` comment. Numbers in
/// comments and strings do not count; code inside a template's `${...}` does.
pub fn numbers(text: &str) -> Vec<Literal> {
    let mut out = Vec::new();
    scan(text, 0, &mut out);
    out.retain(|l| !kept(text, l.offset));
    out
}

fn scan(code: &str, base: usize, out: &mut Vec<Literal>) {
    let b = code.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if let Some(end) = past_comment(code, i) {
            i = end;
            continue;
        }
        match b[i] {
            b'"' | b'\'' => i = skip_quoted(b, i),
            b'`' => i = template(code, base, i, out),
            c if c.is_ascii_digit() && (i == 0 || !is_name_byte(b[i - 1])) => {
                let end = i + code[i..].bytes().take_while(|c| c.is_ascii_alphanumeric() || *c == b'_').count();
                let text = &code[i..end];
                let before = code[..i].trim_end();
                let after = code[end..].trim_start();
                let index = before.ends_with('[');
                let bound = before.ends_with("..") || before.ends_with("..=") || after.starts_with("..");
                if text.bytes().all(|c| c.is_ascii_digit() || c == b'_')
                    && !matches!(text, "0" | "1")
                    && !index
                    && !bound
                {
                    out.push(Literal { text: text.to_string(), offset: base + i });
                }
                i = end;
            }
            _ => i += 1,
        }
    }
}

fn is_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$'
}

/// Where a comment that starts at `i` ends (the line's end for `//`, just past `*/` for
/// `/*`), or `None` if none starts there. Shared with [`crate::diff`]'s function finder.
pub(crate) fn past_comment(code: &str, i: usize) -> Option<usize> {
    let b = code.as_bytes();
    match (b.get(i), b.get(i + 1)) {
        (Some(b'/'), Some(b'/')) => Some(code[i..].find('\n').map_or(b.len(), |n| i + n)),
        (Some(b'/'), Some(b'*')) => Some(code[i + 2..].find("*/").map_or(b.len(), |n| i + 4 + n)),
        _ => None,
    }
}

/// The index just past a string, template or character literal starting at `i` (its quote).
pub(crate) fn skip_quoted(b: &[u8], i: usize) -> usize {
    let q = b[i];
    let mut j = i + 1;
    while j < b.len() && b[j] != q {
        j += if b[j] == b'\\' { 2 } else { 1 };
    }
    j + 1
}

/// Scans the code inside a template string's `${...}` parts; returns the index past it.
fn template(code: &str, base: usize, i: usize, out: &mut Vec<Literal>) -> usize {
    let b = code.as_bytes();
    let mut j = i + 1;
    while j < b.len() && b[j] != b'`' {
        if b[j] == b'\\' {
            j += 2;
            continue;
        }
        if b[j] == b'$' && b.get(j + 1) == Some(&b'{') {
            let start = j + 2;
            let mut depth = 1;
            let mut k = start;
            while k < b.len() && depth > 0 {
                match b[k] {
                    b'{' => depth += 1,
                    b'}' => depth -= 1,
                    _ => {}
                }
                k += 1;
            }
            // The code ends before the closing `}` (or with the text, if it never closes).
            let end = if depth == 0 { k - 1 } else { b.len() };
            scan(&code[start..end], base + start, out);
            j = k;
            continue;
        }
        j += 1;
    }
    j + 1
}

/// Whether the line holding `offset`, or a comment-only line just above it, says why its
/// numbers are kept.
fn kept(text: &str, offset: usize) -> bool {
    let start = text[..offset].rfind('\n').map_or(0, |n| n + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |n| offset + n);
    let marked = |line: &str| line.find("//").is_some_and(|c| line[c..].contains(ALLOW_MARK));
    if marked(&text[start..end]) {
        return true;
    }
    let above = text[..start.saturating_sub(1)].rsplit('\n').next().unwrap_or_default();
    above.trim_start().starts_with("//") && marked(above)
}

/// W0008 for every number a game's scripts write instead of reading a parameter.
pub fn numbers_in_scripts(game: &Game) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for f in game.sources.files().iter().filter(|f| f.path.extension().is_some_and(|e| e == "rhai")) {
        for l in numbers(&f.text) {
            out.push(
                Diagnostic::warning("W0008", format!("the number {} is written in a script", l.text))
                    .at(Some(locate_in(&f.path, &f.text, l.offset)))
                    .help(format!(
                        "a rulebook number belongs in a `[params]` entry (with the passage it comes from) that the script reads with `game.param(\"NAME\")`, so a house rule can change it; if it is not a rule (a column width, a sentinel), say so on the line: `// {ALLOW_MARK} why`"
                    )),
            );
        }
    }
    out
}

/// W0008 for the numbers in the scripts a variant adds to its base game (`with` is the game
/// with the variant applied).
pub fn numbers_in_variant_scripts(base: &Game, with: &Game) -> Vec<Diagnostic> {
    let theirs: Vec<&Path> = base.sources.files().iter().map(|f| f.path.as_path()).collect();
    numbers_in_scripts(with)
        .into_iter()
        .filter(|d| d.location.as_ref().is_some_and(|l| !theirs.contains(&l.file.as_path())))
        .collect()
}

/// W0010 for every track or var whose declared start (a track's non-zero `start`, a var's
/// non-empty `default`) the `[flow] setup` script overwrites unconditionally (a `game.set_track("NAME", ...)` or `game.set_var("NAME", ...)` statement
/// at the top level of its body): editing the declaration would change nothing.
pub fn overwritten_starts(game: &Game) -> Vec<Diagnostic> {
    let r = &game.rules;
    let Some(setup) = &r.setup else { return Vec::new() };
    let Some(path) = game.scripts.function_file(&setup.name) else { return Vec::new() };
    let Some(file) = game.sources.files().iter().rev().find(|f| f.path == path) else { return Vec::new() };
    let Some(body) = crate::diff::function_source(&file.text, &setup.name) else { return Vec::new() };
    let mut out = Vec::new();
    for (call, name) in top_level_sets(&body) {
        let (declared, section) = if call == "set_track" {
            let declared = r.tracks.iter().find(|t| t.name == name).is_some_and(|t| t.start != IntSpec::Int(0));
            (declared, "tracks")
        } else {
            // An empty default (`""`, `[]`) only says what kind of value the var holds.
            let placeholder = |v: &crate::Value| match v {
                crate::Value::Unit => true,
                crate::Value::Str(s) => s.is_empty(),
                crate::Value::List(l) => l.is_empty(),
                crate::Value::Map(m) => m.is_empty(),
                _ => false,
            };
            let declared = r.vars.iter().find(|v| v.name == name).is_some_and(|v| !placeholder(&v.default));
            (declared, "vars")
        };
        if declared {
            out.push(
                Diagnostic::warning(
                    "W0010",
                    format!("`{}` sets {} `{name}` unconditionally: its declared start is never used", setup.name, &section[..section.len() - 1]),
                )
                .at(game.sources.locate_key(section, &name))
                .help("declare the start the game really has (a parameter, if a house rule may change it) and drop the setup line, or drop the declared start"),
            );
        }
    }
    out
}

/// The `game.set_track("NAME"` / `game.set_var("NAME"` calls at the top level of a function
/// body (inside its braces but no deeper), as `(call, name)`.
fn top_level_sets(body: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let mut depth = 0;
    for line in body.lines() {
        let code = line.split("//").next().unwrap_or_default();
        if depth == 1 {
            for call in ["set_track", "set_var"] {
                let needle = format!("game.{call}(\"");
                if let Some(at) = code.trim_start().strip_prefix(&needle) {
                    if let Some(end) = at.find('"') {
                        out.push((call, at[..end].to_string()));
                    }
                }
            }
        }
        depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
    }
    out
}

/// Whether a quoted string of `text` is an expression (`"suits * ranks"`, a `[game] checks`
/// rule) that names `name` as a word.
fn in_expression(text: &str, name: &str) -> bool {
    text.split('"')
        .skip(1)
        .step_by(2)
        .filter(|s| s.contains(['+', '-', '*', '/', '<', '>', '=', '(']))
        .any(|s| s.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|w| w == name))
}

/// W0009 for every parameter that no declaration and no script reads.
pub fn unread_params(game: &Game) -> Vec<Diagnostic> {
    let texts: Vec<(&Path, &str)> = game.sources.files().iter().map(|f| (f.path.as_path(), f.text.as_str())).collect();
    let mut out = Vec::new();
    for name in game.rules.params.keys() {
        let quoted = format!("\"{name}\"");
        let read = texts.iter().any(|(_, t)| t.contains(&quoted) || in_expression(t, name));
        if !read {
            out.push(
                Diagnostic::warning("W0009", format!("param `{name}` is never read"))
                    .at(game.sources.locate_key("params", name))
                    .help("no declaration names it and no script reads it: changing it changes nothing; use it or remove it"),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::numbers;

    fn found(text: &str) -> Vec<String> {
        numbers(text).into_iter().map(|l| l.text).collect()
    }

    #[test]
    fn rule_numbers_are_found_and_trivial_ones_are_not() {
        assert_eq!(found("let x = 8; let y = -1; let z = 0; if a >= 1 { b(4) }"), ["8", "4"]);
        assert_eq!(found("for i in 0..5 { a[2] + x[i] } for k in 1..=4 {}"), Vec::<String>::new());
        assert_eq!(found("let s = \"8 points\"; // 12 here\n/* 30 */ let c = 'x';"), Vec::<String>::new());
        assert_eq!(found("game.log(`${n + 3} chips, 5 more`);"), ["3"]);
        assert_eq!(found("let a2 = v.x2 + 0x10;"), Vec::<String>::new());
    }

    proptest::proptest! {
        #[test]
        fn no_text_makes_the_scan_panic(text in "[ -~éü×\\n`$\\{\\}\"'/*0-9]{0,80}") {
            for l in numbers(&text) {
                proptest::prop_assert!(text[l.offset..].starts_with(&l.text));
            }
        }
    }

    #[test]
    fn any_text_is_scanned_without_a_panic() {
        assert_eq!(
            found(
                "let t = `3 × 4 ${a × 5}`; // é 7
let u = \"ü\" + 6;"
            ),
            ["5", "6"]
        );
        for cut in ["`${", "`$", "\"", "'", "/*", "`${ 3", "`é"] {
            let _ = numbers(cut);
        }
    }

    #[test]
    fn only_top_level_sets_of_a_body_count() {
        let body = "fn setup(game) {\n    game.set_track(\"money\", 5);\n    if x { game.set_var(\"a\", 1); }\n    for p in 0..2 {\n        game.set_var(\"b\", p, 1);\n    }\n    game.set_var(\"c\", 2); // done\n}\n";
        assert_eq!(super::top_level_sets(body), [("set_track", "money".to_string()), ("set_var", "c".to_string())]);
    }

    #[test]
    fn a_comment_keeps_the_numbers_of_its_line() {
        assert_eq!(found("name.pad(11, ' '); // number: city column width\nlet b = 7;"), ["7"]);
        assert_eq!(found("// number: a year later than any object\nlet oldest = 99999;\nlet c = 6;"), ["6"]);
        assert_eq!(found("// a plain comment\nlet oldest = 99999;"), ["99999"]);
    }
}
