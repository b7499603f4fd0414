//! `rulebook test`: run scenario files and report every failure with its file and line.

use crate::cli::{Cli, TestArgs};
use crate::locate::games_dir;
use rulebook::files::{read_text, MAX_SCRIPT_TEXT_BYTES};
use rulebook::scenario::{parse, scenario_files, Runner};
use std::process::ExitCode;

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
            let text = match read_text(&file, MAX_SCRIPT_TEXT_BYTES) {
                Ok(t) => t,
                Err(e) => {
                    println!("FAIL {}: cannot read: {e}", file.display());
                    failed += 1;
                    continue;
                }
            };
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
