//! `rulebook new`: a new game folder holding a small complete game (declarations, scripts, a
//! scenario file and a README) that validates, tests and plays as it is, to edit into a game.

use crate::cli::NewArgs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The files of a new game: (path inside the folder, text with `{{title}}`, `{{schema}}` and
/// `{{path}}` still to fill in). Real files under `new_template/`, so they can be read and
/// checked as what they are.
const FILES: [(&str, &str); 4] = [
    ("game.toml", include_str!("new_template/game.toml")),
    ("rules.rhai", include_str!("new_template/rules.rhai")),
    ("scenarios/rules.scenario", include_str!("new_template/scenarios/rules.scenario")),
    ("README.md", include_str!("new_template/README.md")),
];

/// The longest game name `new` accepts.
const MAX_NAME: usize = 64;

/// Where the game file's `#:schema` line points when no `schemas/game.schema.json` is found
/// above the new folder: a `schemas/` folder next to the folder that holds the game (the
/// layout of Rulebook's own `games/` and `schemas/`).
const DEFAULT_SCHEMA: &str = "../../schemas/game.schema.json";

/// Creates the game folder `args.dir/args.name`, or says why it cannot.
pub fn run(args: &NewArgs) -> Result<ExitCode, String> {
    check_name(&args.name)?;
    let folder = args.dir.join(&args.name);
    if std::fs::symlink_metadata(&folder).is_ok() {
        return Err(format!("{} already exists; choose another name or --dir", shown(&folder)));
    }
    std::fs::create_dir_all(&args.dir).map_err(|e| format!("cannot create {}: {e}", args.dir.display()))?;
    let (schema, found) = schema_path(&args.dir);
    std::fs::create_dir(&folder).map_err(|e| format!("cannot create {}: {e}", shown(&folder)))?;
    let title = title(&args.name);
    let path = shown(&folder);
    let written = FILES.iter().try_for_each(|(file, template)| {
        let text = template.replace("{{title}}", &title).replace("{{schema}}", &schema).replace("{{path}}", &path);
        write_new(&folder.join(file), &text)
    });
    if let Err(e) = written {
        // Leave nothing half made: the folder is new, so all of it is ours to remove.
        let _ = std::fs::remove_dir_all(&folder);
        return Err(e);
    }
    println!("created {path}/: {}", FILES.map(|(f, _)| f).join(", "));
    if !found {
        println!(
            "note: no schemas/game.schema.json above {path}; game.toml's `#:schema {schema}` line finds one after \
             `rulebook schema --write {}`",
            shown(&args.dir.join("..").join("schemas"))
        );
    }
    println!("next:");
    println!("  rulebook validate --deny warnings {path}");
    println!("  rulebook test {path}");
    println!("  rulebook play {path} --players 2 --bots 1");
    Ok(ExitCode::SUCCESS)
}

/// Refuses a name that is not one plain folder name: empty, too long, a path (`/`, `..`), or
/// anything but ASCII letters, digits, `-` and `_` starting with a letter or digit (so that it
/// is a folder name on every system and a word in scenario files and on the command line).
fn check_name(name: &str) -> Result<(), String> {
    let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && name.starts_with(|c: char| c.is_ascii_alphanumeric());
    if plain && name.len() <= MAX_NAME {
        return Ok(());
    }
    Err(format!(
        "`{}` is not a plain folder name: use letters, digits, `-` and `_`, starting with a letter or digit \
         (at most {MAX_NAME} characters); to create the game elsewhere, use --dir DIR",
        name.escape_debug()
    ))
}

/// The game's title, from its folder name: `my-game` is "My game".
fn title(name: &str) -> String {
    let words = name.replace(['-', '_'], " ");
    let mut chars = words.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// The `#:schema` path for a game folder inside `dir`: the nearest `schemas/game.schema.json`
/// in `dir` or a folder above it, relative to the game folder; else [`DEFAULT_SCHEMA`]. The
/// flag says whether a schema was found.
fn schema_path(dir: &Path) -> (String, bool) {
    let Ok(dir) = dir.canonicalize() else {
        return (DEFAULT_SCHEMA.to_string(), false);
    };
    for (up, ancestor) in dir.ancestors().enumerate() {
        if ancestor.join("schemas").join("game.schema.json").is_file() {
            return (format!("{}schemas/game.schema.json", "../".repeat(up + 1)), true);
        }
    }
    (DEFAULT_SCHEMA.to_string(), false)
}

/// Writes a file that must not exist yet, making its folder.
fn write_new(path: &Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A path as the user would type it: without a leading `./`.
fn shown(path: &Path) -> String {
    let p: PathBuf = path.components().filter(|c| !matches!(c, std::path::Component::CurDir)).collect();
    if p.as_os_str().is_empty() {
        ".".into()
    } else {
        p.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_folder_names_are_accepted() {
        for good in ["NAME", "my-game", "game_2", "2nd"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        let long = "x".repeat(MAX_NAME + 1);
        for bad in ["", ".", "..", "a/b", "../x", "-x", "_x", "a b", "spiel\u{e9}", "a\\b", "x.y", &long] {
            let e = check_name(bad).unwrap_err();
            assert!(e.contains("is not a plain folder name"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_title_comes_from_the_name() {
        assert_eq!(title("my-new_game"), "My new game");
        assert_eq!(title("x"), "X");
    }

    #[test]
    fn every_placeholder_of_the_templates_is_known() {
        for (file, text) in FILES {
            let filled = text.replace("{{title}}", "T").replace("{{schema}}", "S").replace("{{path}}", "P");
            assert!(!filled.contains("{{"), "{file} has an unknown placeholder");
        }
        assert!(FILES[0].1.starts_with("#:schema {{schema}}\n"));
    }

    #[test]
    fn paths_are_shown_without_a_leading_dot() {
        assert_eq!(shown(&Path::new(".").join("NAME")), "NAME");
        assert_eq!(shown(Path::new("DIR/NAME")), "DIR/NAME");
        assert_eq!(shown(Path::new(".")), ".");
    }
}
