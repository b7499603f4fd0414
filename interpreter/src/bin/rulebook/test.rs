//! `rulebook test`: run scenario files and report every failure with its file and line.

use crate::cli::{Cli, TestArgs};
use crate::locate::games_dir;
use rulebook::scenario::{parse, Runner};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Every *.scenario file under a path (or the path itself), sorted.
pub fn scenario_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut out = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "scenario") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

pub fn run(cli: &Cli, args: &TestArgs) -> Result<ExitCode, String> {
    let dir = games_dir(cli);
    let paths = if args.paths.is_empty() { vec![dir.clone()] } else { args.paths.clone() };
    let mut runner = Runner::new(dir);
    let (mut passed, mut failed) = (0usize, 0usize);
    for path in &paths {
        if !path.exists() {
            println!("FAIL {}: no such file or folder", path.display());
            failed += 1;
            continue;
        }
        for file in scenario_files(path) {
            let text = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let parsed = match parse(&file, &text) {
                Ok(p) => p,
                Err(e) => {
                    println!("FAIL {}: parse error: {}", e.location, e.message);
                    failed += 1;
                    continue;
                }
            };
            for report in runner.run_file(&parsed) {
                if report.passed() {
                    passed += 1;
                    if args.verbose {
                        println!("ok   {}:{} {}", report.file.display(), report.line, report.name);
                    }
                } else {
                    failed += 1;
                    println!("FAIL {}:{} {}", report.file.display(), report.line, report.name);
                    for f in &report.failures {
                        println!("     {}:{}: {}", report.file.display(), f.line, f.message);
                    }
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
