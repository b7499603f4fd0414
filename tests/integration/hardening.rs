//! Input from strangers that cannot live in the committed corpus (FIFOs, devices, files made at
//! run time) and the corpus of broken scenario and transcript files
//! (`tests/bad-input/scenarios/`), each through the command line as a user runs it: a clear,
//! located error, exit code 1, no raw control bytes, and never a hang (every run has a deadline).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `rulebook ARGS` with `input` on standard input; a run that outlives `deadline` is
/// killed and fails the test (a hang is a bug).
pub fn run_with_deadline(args: &[&str], input: &[u8], deadline: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(args)
        .current_dir(crate::root())
        .env("RULEBOOK_GAMES", crate::root().join("games"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written from a thread: a program that stops reading must not block the test.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > deadline {
            child.kill().unwrap();
            panic!("`rulebook {}` did not finish within {deadline:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = writer.join();
    child.wait_with_output().unwrap()
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).to_string()
}

/// A fresh folder under the system's temporary directory, removed when the guard is dropped.
fn scratch(name: &str) -> crate::Scratch {
    crate::Scratch::new(&format!("hardening-{name}"))
}

const MINIMAL_GAME: &str =
    "[game]\nmin_players = 2\nmax_players = 2\n\n[phases.main]\nsteps = []\n\n[flow]\nstart = \"main\"\n";

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

#[cfg(unix)]
#[test]
fn pipes_devices_and_oversized_files_are_refused_without_being_read() {
    let games = scratch("fifo");
    let make = |name: &str, game_toml: &str| {
        let game = games.join(name);
        std::fs::create_dir_all(game.join("variants")).unwrap();
        std::fs::write(game.join("game.toml"), game_toml).unwrap();
        game
    };
    // Opening a FIFO for reading blocks until a writer comes: the loader must not open it.
    let piped = make("piped-script", MINIMAL_GAME);
    mkfifo(&piped.join("rules.rhai"));
    let big =
        make("big-include", &MINIMAL_GAME.replace("max_players = 2\n", "max_players = 2\ninclude = [\"big.toml\"]\n"));
    std::fs::write(big.join("big.toml"), "# padding\n".repeat(200_000)).unwrap();
    let variants = make("odd-variants", MINIMAL_GAME);
    mkfifo(&variants.join("variants/pipe.toml"));
    std::os::unix::fs::symlink("/dev/zero", variants.join("variants/zero.toml")).unwrap();
    let folder = games.to_string_lossy().to_string();

    let out = run_with_deadline(&["validate", &folder], b"", Duration::from_secs(60));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("error[E0010]") && stdout.contains("piped-script/rules.rhai"), "{stdout}");
    assert!(stdout.contains("big.toml") && stdout.contains("more than the 1 MiB"), "{stdout}");
    assert!(stdout.contains("variants/pipe.toml") && stdout.contains("not a regular file"), "{stdout}");
    assert!(stdout.contains("variants/zero.toml") && stdout.contains("error[E0009]"), "{stdout}");
    assert!(!stdout.contains("# padding"), "an oversized file was quoted:\n{stdout}");

    // Listing games reads each variant's description: it must pass over the pipe too.
    let out = run_with_deadline(&["list", "--games-dir", &folder], b"", Duration::from_secs(30));
    assert!(text(&out.stdout).contains("odd-variants"), "{}", text(&out.stderr));
}

#[test]
fn the_counting_allocator_is_installed_so_script_memory_budgets_hold() {
    let warm = std::hint::black_box(Box::new([0u8; 64]));
    drop(warm);
    assert!(rulebook::alloc::installed(), "tests/integration/main.rs must install rulebook::alloc::Counting");
}

#[test]
fn a_secret_outside_the_game_is_never_printed_in_any_format() {
    let root = scratch("secret");
    let secret = root.join("credentials");
    std::fs::write(&secret, "aws_secret_access_key = TOPSECRET-123\n").unwrap();
    let game = root.join("games/house-rules");
    std::fs::create_dir_all(&game).unwrap();
    let game_toml = MINIMAL_GAME.replace(
        "max_players = 2\n",
        &format!("max_players = 2\ninclude = [\"../../credentials\", \"{}\"]\n", secret.display()),
    );
    std::fs::write(game.join("game.toml"), game_toml).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&secret, game.join("rules.rhai")).unwrap();
    let folder = game.to_string_lossy().to_string();
    for format in ["human", "json", "github"] {
        let out = run_with_deadline(&["validate", "--format", format, &folder], b"", Duration::from_secs(30));
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(1), "{all}");
        assert!(all.contains("E0009"), "{format}: {all}");
        assert!(!all.contains("TOPSECRET"), "{format} printed the secret:\n{all}");
    }
}

#[test]
fn broken_scenario_and_transcript_files_get_located_escaped_errors() {
    insta::glob!("../bad-input/scenarios", "*.*", |path| {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let rel = format!("tests/bad-input/scenarios/{name}");
        let command = if name.ends_with(".transcript") { "replay" } else { "test" };
        let out = run_with_deadline(&[command, &rel], b"", Duration::from_secs(30));
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(1), "{name}: {all}");
        assert!(all.contains(&format!("{name}:")), "{name}: the error names no place:\n{all}");
        assert!(
            !all.chars().any(|c| c.is_control() && c != '\n'),
            "{name}: raw control bytes reach the terminal:\n{all:?}"
        );
        insta::assert_snapshot!(name.clone(), all);
    });
}

#[test]
fn play_refuses_overlong_binary_and_escape_input_with_a_reason() {
    let args = ["play", "goofspiel", "--players", "2", "--bots", "1", "--seed", "1"];
    let mut long = vec![b'x'; 10_000_000];
    long.push(b'\n');
    let cases: [(&[u8], &str); 3] =
        [(&long, "longer than 4096 bytes"), (b"\xff\xfe\n", "not UTF-8 text"), (b"\x1b[2Jp1-99\n", "\\u{1b}[2Jp1-99")];
    for (input, says) in cases {
        let out = run_with_deadline(&args, input, Duration::from_secs(30));
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(says), "expected `{says}` in:\n{stderr}");
        assert!(!stderr.contains('\u{1b}'), "a raw escape reached the terminal:\n{stderr:?}");
        let stdout = text(&out.stdout);
        assert!(stdout.len() < 100_000, "the input was echoed back ({} bytes)", stdout.len());
    }
}
