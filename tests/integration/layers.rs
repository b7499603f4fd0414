//! ARCHITECTURE.md's layers, kept true: each module of the library may use modules of its own
//! layer and of the layers above it in the diagram, never one below. The diagram is read from
//! ARCHITECTURE.md itself, so the page and the test cannot drift apart.

use std::collections::HashMap;
use std::path::Path;

/// Module name -> layer number (0 = top row), from the code block under `## Layers`.
fn layers_from_architecture() -> HashMap<String, usize> {
    let page = std::fs::read_to_string(crate::root().join("ARCHITECTURE.md")).unwrap();
    let section = page.split("## Layers").nth(1).expect("ARCHITECTURE.md has a `## Layers` section");
    let block = section.split("```").nth(1).expect("the Layers section holds a code block");
    let mut layers = HashMap::new();
    let mut row = 0;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        // A continuation line (indented description) belongs to the row above.
        if line.starts_with(' ') {
            continue;
        }
        let names = line.split("  ").next().unwrap_or_default();
        for name in names.split(", ").map(|n| n.trim().trim_end_matches('/')) {
            layers.insert(name.to_string(), row);
        }
        row += 1;
    }
    layers
}

/// The library modules a source file names in code (`crate::NAME`, `use crate::{A, B}`);
/// comments (links in doc comments) do not count.
fn uses(source: &str) -> Vec<String> {
    let code: String = source.lines().filter(|l| !l.trim_start().starts_with("//")).map(|l| format!("{l}\n")).collect();
    let source = code.as_str();
    let mut out = Vec::new();
    for (i, _) in source.match_indices("crate::") {
        let rest = &source[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(group.split(',').map(|n| n.trim().split("::").next().unwrap_or_default().to_string()));
        } else {
            out.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
        }
    }
    out.retain(|n| !n.is_empty());
    out
}

/// The layer a file belongs to: its module, or for a file inside a folder, the folder's.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
    first.trim_end_matches(".rs").to_string()
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_module_uses_only_its_own_layer_and_those_above() {
    let layers = layers_from_architecture();
    let src = crate::root().join("interpreter/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        // The crate root declares every module; the binary sits on top of them all.
        if module == "lib" || module == "bin" {
            continue;
        }
        let Some(&own) = layers.get(&module) else {
            wrong.push(format!("{}: module `{module}` is missing from ARCHITECTURE.md's layers", file.display()));
            continue;
        };
        let source = std::fs::read_to_string(file).unwrap();
        for used in uses(&source) {
            if let Some(&layer) = layers.get(&used) {
                if layer > own {
                    wrong.push(format!(
                        "{}: `{module}` (layer {own}) uses `{used}` (layer {layer}, below it)",
                        file.strip_prefix(crate::root()).unwrap_or(file).display()
                    ));
                }
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(wrong.is_empty(), "layering broken (see ARCHITECTURE.md):\n{}", wrong.join("\n"));
}

#[test]
fn uses_finds_plain_and_grouped_paths() {
    let found = uses(
        "use crate::state::State;\n/// [`crate::sim`]\nuse crate::{bot::make_bot, view::View};\nlet x = crate::files::read_text;",
    );
    assert_eq!(found, ["state", "bot", "view", "files"]);
}
