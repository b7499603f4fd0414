//! Integration tests across games: the engine through its public API, the command line,
//! the bad-input corpus and the OpenSpiel cross-check.

mod bad_input;
mod bots;
mod cli;
mod compiled;
mod derived;
mod diff;
mod docs;
mod engine;
mod explain;
mod flaschenteufel;
mod fuzz;
mod golden;
mod hardening;
mod layers;
mod oracle;
mod scenarios;
mod serve;
mod shards;

use std::path::{Path, PathBuf};

/// The allocator the `rulebook` binary uses, so script memory budgets hold in these tests too.
#[global_allocator]
static ALLOC: rulebook::alloc::Counting<rulebook::alloc::Mimalloc> =
    rulebook::alloc::Counting(rulebook::alloc::Mimalloc);

/// The repository root (tests run with the interpreter crate as working directory).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A path relative to the repository root, spelled relative to the test's working directory
/// so that paths in messages and snapshots do not depend on where the checkout lives.
pub fn rel(path: &str) -> PathBuf {
    PathBuf::from("..").join(path)
}

/// A fresh, empty scratch folder under the system's temporary directory, named
/// `rulebook-WHAT-` and a random suffix, removed with all it holds when this guard is dropped:
/// when the test that made it ends, whether it passes or panics. Keep the guard alive for as
/// long as the folder is used (hand it back from helpers, not its path); it dereferences to the
/// folder's [`Path`].
pub struct Scratch(tempfile::TempDir);

impl Scratch {
    /// Makes the folder `rulebook-{what}-XXXXXX`; `what` names the test or helper, so a folder
    /// left by a killed run can be traced to it.
    pub fn new(what: &str) -> Scratch {
        let prefix = format!("rulebook-{what}-");
        let dir = tempfile::Builder::new().prefix(&prefix).tempdir();
        Scratch(dir.unwrap_or_else(|e| panic!("cannot make a {prefix}* folder: {e}")))
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// Loads a game folder (relative to the repository root) or panics with its diagnostics.
pub fn load(path: &str, variants: &[&str], options: &[(&str, &str)]) -> rulebook::Game {
    let loaded = rulebook::load_game(
        &rel(path),
        &rulebook::LoadOptions {
            variants: variants.iter().map(|s| s.to_string()).collect(),
            options: options.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        },
    );
    match loaded.game {
        Some(g) => g,
        None => panic!(
            "{path} does not load:\n{}",
            loaded.diagnostics.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n")
        ),
    }
}
