//! Running scenarios against the engine: set up, decide, check, and report every failure
//! with its line.

use super::parse::{Expectation, Header, Scenario, ScenarioFile, StepKind};
use crate::grid::Entry;
use crate::{load_game, Game, LoadOptions, PlayError, Session};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One failed check or step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Line in the scenario file.
    pub line: usize,
    /// What was expected and what was found.
    pub message: String,
}

/// The result of one scenario.
#[derive(Clone, Debug)]
pub struct ScenarioReport {
    /// The file.
    pub file: PathBuf,
    /// The scenario's name.
    pub name: String,
    /// The scenario's line.
    pub line: usize,
    /// Every failure (empty = passed).
    pub failures: Vec<Failure>,
}

impl ScenarioReport {
    /// True if nothing failed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// A game folder with its variants and options: what a loaded game is cached by.
type GameKey = (PathBuf, Vec<String>, Vec<(String, String)>);

/// Runs scenarios, loading each game (with its variants and options) once.
pub struct Runner {
    games_dir: PathBuf,
    cache: HashMap<GameKey, Result<Game, String>>,
}

impl Runner {
    /// A runner that looks bundled games up in `games_dir`.
    pub fn new(games_dir: PathBuf) -> Runner {
        Runner { games_dir, cache: HashMap::new() }
    }

    /// Finds the game folder a file's header names (or the folder the file lives in). A
    /// `game NAME` is looked for, in order: as a folder next to the file (or a path), as the
    /// game folder the file is in (by its folder name), beside that game folder, and in the
    /// games folder.
    pub fn game_folder(&self, file: &Path, header: &Header) -> Result<PathBuf, String> {
        let dir = file.parent().unwrap_or(Path::new("."));
        let enclosing = dir.ancestors().find(|d| d.join("game.toml").is_file()).map(Path::to_path_buf);
        match &header.game {
            Some(g) => {
                let mut candidates = vec![dir.join(g), PathBuf::from(g)];
                if let Some(home) = &enclosing {
                    if home.canonicalize().ok().and_then(|c| c.file_name().map(|n| n == g.as_str())) == Some(true) {
                        candidates.push(home.clone());
                    }
                    candidates.push(home.join("..").join(g));
                }
                candidates.push(self.games_dir.join(g));
                candidates.into_iter().find(|p| p.join("game.toml").is_file()).ok_or_else(|| {
                    let home = enclosing
                        .as_ref()
                        .map(|h| format!(" (this scenario is in the game folder {})", h.display()))
                        .unwrap_or_default();
                    format!(
                        "no game `{g}`{home}: `game` names a game folder: a path from the scenario's folder, the name \
                         of the game folder the scenario is in or of a folder beside it, or a game of the games \
                         folder (`rulebook test --games-dir DIR`); leave the line out to test the enclosing game"
                    )
                })
            }
            None => enclosing.ok_or_else(|| {
                "the file names no `game` and is not inside a game folder: add a line `game NAME` or move the \
                 file into the game's folder"
                    .to_string()
            }),
        }
    }

    fn game(&mut self, folder: PathBuf, header: &Header) -> Result<&Game, String> {
        let key = (folder.clone(), header.variants.clone(), header.options.clone());
        let entry = self.cache.entry(key).or_insert_with(|| {
            let loaded =
                load_game(&folder, &LoadOptions { variants: header.variants.clone(), options: header.options.clone() });
            loaded.game.ok_or_else(|| {
                let errs: Vec<String> =
                    loaded.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.to_string()).collect();
                format!("the game does not load:\n{}", errs.join("\n"))
            })
        });
        entry.as_ref().map_err(Clone::clone)
    }

    /// Runs every scenario of a file.
    pub fn run_file(&mut self, file: &ScenarioFile) -> Vec<ScenarioReport> {
        file.scenarios.iter().map(|s| self.run(file, s, &mut |_| {})).collect()
    }

    /// Runs one scenario; `inspect` sees the session at the end (for logs and replays).
    pub fn run(&mut self, file: &ScenarioFile, sc: &Scenario, inspect: &mut dyn FnMut(&Session<'_>)) -> ScenarioReport {
        let header = file.header.with(&sc.header);
        let mut report =
            ScenarioReport { file: file.path.clone(), name: sc.name.clone(), line: sc.line, failures: Vec::new() };
        let fail_at =
            |report: &mut ScenarioReport, line: usize, message: String| report.failures.push(Failure { line, message });
        let folder = match self.game_folder(&file.path, &header) {
            Ok(f) => f,
            Err(e) => {
                fail_at(&mut report, sc.line, e);
                return report;
            }
        };
        let game = match self.game(folder, &header) {
            Ok(g) => g,
            Err(e) => {
                fail_at(&mut report, sc.line, e);
                return report;
            }
        };
        let players = header.players.unwrap_or(game.rules.min_players);
        // `draws` lines before anything else fix the draws the game makes as it starts too.
        let leading = sc.steps.iter().take_while(|s| matches!(s.kind, StepKind::SetDraws(_))).count();
        let draws: Vec<i64> = sc.steps[..leading]
            .iter()
            .flat_map(|s| match &s.kind {
                StepKind::SetDraws(d) => d.clone(),
                _ => Vec::new(),
            })
            .collect();
        let seed = header.seed.unwrap_or(0);
        let started = if draws.is_empty() {
            game.start(players, seed)
        } else {
            Session::new_with_draws(game, players, seed, &draws)
        };
        let mut session = match started {
            Ok(s) => s,
            Err(e) => {
                fail_at(&mut report, sc.line, format!("the game does not start: {e}"));
                return report;
            }
        };
        let mut dirty = false;
        for step in &sc.steps[leading..] {
            let is_setup = matches!(
                step.kind,
                StepKind::SetZone { .. }
                    | StepKind::SetGrid { .. }
                    | StepKind::SetTrack { .. }
                    | StepKind::SetVar { .. }
                    | StepKind::SetProp { .. }
                    | StepKind::SetDraws(_)
                    | StepKind::SetCurrent(_)
                    | StepKind::SetTurnOrder(_)
                    | StepKind::SetPhase(_)
            );
            if dirty && !is_setup {
                if let Err(e) = session.reopen() {
                    fail_at(&mut report, step.line, format!("after the setup lines the game cannot go on: {e}"));
                    break;
                }
                dirty = false;
            }
            let result = exec(&mut session, &header.seats, &step.kind, &mut dirty);
            match result {
                Ok(()) => {}
                Err(Stop::Check(m)) => fail_at(&mut report, step.line, m),
                Err(Stop::Fatal(m)) => {
                    fail_at(&mut report, step.line, m);
                    break;
                }
            }
        }
        inspect(&session);
        report
    }
}

enum Stop {
    /// An expectation failed; later lines still run.
    Check(String),
    /// The scenario cannot go on.
    Fatal(String),
}

/// A seat by name: a scenario alias (`seats Jeroen Molly ...`) or the game's seat name.
fn seat(s: &Session<'_>, al: &[String], name: &str) -> Result<usize, Stop> {
    if let Some(p) = al.iter().position(|x| x == name).filter(|p| *p < s.players()) {
        return Ok(p);
    }
    s.seat(name).ok_or_else(|| {
        let mut seats: Vec<String> = (0..s.players()).map(|p| s.game().rules.seat_name(p)).collect();
        seats.extend(al.iter().cloned());
        Stop::Fatal(format!("unknown seat `{name}` (seats: {})", seats.join(", ")))
    })
}

fn opt_seat(s: &Session<'_>, al: &[String], name: &Option<String>) -> Result<Option<usize>, Stop> {
    name.as_deref().map(|n| seat(s, al, n)).transpose()
}

fn zone_ids(s: &Session<'_>, zone: &str, owner: Option<usize>) -> Result<Vec<String>, Stop> {
    let r = &s.game().rules;
    let z = r.zone(zone).map_err(Stop::Fatal)?;
    let o = s.state().slot_index(r, z, owner).map_err(Stop::Fatal)?;
    Ok(s.state().zones[z][o].cards.iter().map(|c| s.state().components.list[*c as usize].id.clone()).collect())
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), Stop> {
    if ok {
        Ok(())
    } else {
        Err(Stop::Check(what()))
    }
}

fn setup_err(e: PlayError) -> Stop {
    Stop::Fatal(format!("setup: {e}"))
}

fn exec(s: &mut Session<'_>, al: &[String], kind: &StepKind, dirty: &mut bool) -> Result<(), Stop> {
    match kind {
        StepKind::SetZone { zone, seat: who, ids } => {
            let owner = opt_seat(s, al, who)?;
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            s.arrange(zone, owner, &ids).map_err(setup_err)?;
            *dirty = true;
        }
        StepKind::SetGrid { grid, seat: who, pieces } => {
            let owner = opt_seat(s, al, who)?;
            let entries = pieces.iter().map(|p| Entry::parse(p)).collect::<Result<Vec<_>, _>>().map_err(Stop::Fatal)?;
            s.arrange_grid(grid, owner, &entries).map_err(setup_err)?;
            *dirty = true;
        }
        StepKind::SetTrack { track, seat: who, value } => {
            let owner = opt_seat(s, al, who)?;
            s.set_track(track, owner, *value).map_err(setup_err)?;
            *dirty = true;
        }
        StepKind::SetVar { var, seat: who, value } => {
            let owner = opt_seat(s, al, who)?;
            s.set_var(var, owner, value.clone()).map_err(setup_err)?;
            *dirty = true;
        }
        StepKind::SetProp { id, key, value } => {
            s.set_prop(id, key, value.clone()).map_err(setup_err)?;
            *dirty = true;
        }
        StepKind::SetDraws(draws) => {
            s.fix_draws(draws);
        }
        StepKind::SetCurrent(who) => {
            let p = seat(s, al, who)?;
            s.set_current(p).map_err(setup_err)?;
            *dirty = true;
        }
        StepKind::SetTurnOrder(seats) => {
            let order = seats.iter().map(|n| seat(s, al, n)).collect::<Result<Vec<_>, _>>()?;
            s.set_turn_order(order).map_err(setup_err)?;
            *dirty = true;
        }
        StepKind::SetPhase(phase) => {
            s.goto_phase(phase).map_err(setup_err)?;
            *dirty = false;
        }
        StepKind::Choose { seat: who, option } => {
            let p = seat(s, al, who)?;
            s.apply(p, option).map_err(|e| Stop::Fatal(format!("{who} chooses {option}: {e}")))?;
        }
        StepKind::Expect(e) => expect(s, al, e)?,
    }
    Ok(())
}

fn expect(s: &mut Session<'_>, al: &[String], e: &Expectation) -> Result<(), Stop> {
    let r = &s.game().rules;
    match e {
        Expectation::Track { track, seat: who, value } => {
            let owner = opt_seat(s, al, who)?;
            let t = r.track(track).map_err(Stop::Fatal)?;
            let o = match (r.tracks[t].per_player, owner) {
                (true, Some(p)) => p,
                (false, None) => 0,
                (true, None) => return Err(Stop::Fatal(format!("track `{track}` is per player: name a seat"))),
                (false, Some(_)) => return Err(Stop::Fatal(format!("track `{track}` is global: do not name a seat"))),
            };
            let got = s.state().tracks[t][o];
            check(got == *value, || {
                format!(
                    "expected track {track}{} = {value}, got {got}",
                    who.as_ref().map(|w| format!(" {w}")).unwrap_or_default()
                )
            })
        }
        Expectation::Var { var, seat: who, value } => {
            let owner = opt_seat(s, al, who)?;
            let v = r.var(var).map_err(Stop::Fatal)?;
            let o = match (r.vars[v].per_player, owner) {
                (true, Some(p)) => p,
                (false, None) => 0,
                (true, None) => return Err(Stop::Fatal(format!("var `{var}` is per player: name a seat"))),
                (false, Some(_)) => return Err(Stop::Fatal(format!("var `{var}` is global: do not name a seat"))),
            };
            let got = &s.var_value(var, r.vars[v].per_player.then_some(o)).map_err(|e| Stop::Fatal(e.to_string()))?;
            let same = got == value || got.to_string() == value.to_string();
            check(same, || format!("expected var {var} = {value}, got {got}"))
        }
        Expectation::ZoneEquals { zone, seat: who, ids } => {
            let got = zone_ids(s, zone, opt_seat(s, al, who)?)?;
            check(&got == ids, || format!("expected zone {zone} = [{}], got [{}]", ids.join(", "), got.join(", ")))
        }
        Expectation::ZoneContains { zone, seat: who, ids } => {
            let got = zone_ids(s, zone, opt_seat(s, al, who)?)?;
            let missing: Vec<&String> = ids.iter().filter(|i| !got.contains(i)).collect();
            check(missing.is_empty(), || {
                format!(
                    "expected zone {zone} to contain {}, but it holds [{}]",
                    missing.iter().map(|m| m.as_str()).collect::<Vec<_>>().join(", "),
                    got.join(", ")
                )
            })
        }
        Expectation::ZoneExcludes { zone, seat: who, ids } => {
            let got = zone_ids(s, zone, opt_seat(s, al, who)?)?;
            let present: Vec<&str> = ids.iter().filter(|i| got.contains(i)).map(String::as_str).collect();
            check(present.is_empty(), || {
                format!("expected zone {zone} not to hold {}, but it does", present.join(", "))
            })
        }
        Expectation::Grid { grid, seat: who, pieces } => {
            let owner = opt_seat(s, al, who)?;
            let mut want =
                pieces.iter().map(|p| Entry::parse(p)).collect::<Result<Vec<_>, _>>().map_err(Stop::Fatal)?;
            let mut got = s.grid_entries(grid, owner).map_err(|e| Stop::Fatal(e.to_string()))?;
            let show = |v: &[Entry]| v.iter().map(Entry::to_string).collect::<Vec<_>>().join(", ");
            let shown = show(&got);
            want.sort();
            got.sort();
            check(got == want, || {
                format!(
                    "expected grid {grid}{} = [{}], got [{shown}]",
                    who.as_ref().map(|w| format!(" {w}")).unwrap_or_default(),
                    show(&want)
                )
            })
        }
        Expectation::GridView { seat: who, grid, owner, shows, text } => {
            let p = seat(s, al, who)?;
            let o = opt_seat(s, al, owner)?;
            let view = s.view(p);
            let Some(g) = view.grids.iter().find(|g| g.name == *grid && g.owner == o) else {
                return Err(Stop::Check(format!(
                    "{who}'s view has no grid {grid}{}",
                    owner.as_ref().map(|w| format!(" {w}")).unwrap_or_default()
                )));
            };
            let drawn = crate::grid_text::lines(g, &view.seats);
            let found = drawn.iter().any(|l| l.contains(text.as_str()));
            check(found == *shows, || {
                format!(
                    "expected {who}'s view of grid {grid} to {} \"{text}\", but it {}; it draws:\n{}",
                    if *shows { "show" } else { "not show" },
                    if found { "does" } else { "does not" },
                    drawn.join("\n")
                )
            })
        }
        Expectation::Count { zone, seat: who, value } => {
            let got = zone_ids(s, zone, opt_seat(s, al, who)?)?.len() as i64;
            check(got == *value, || {
                format!(
                    "expected count {zone}{} = {value}, got {got}",
                    who.as_ref().map(|w| format!(" {w}")).unwrap_or_default()
                )
            })
        }
        Expectation::Pending { decision, seats } => {
            let got = s.prompt().map(|(n, _)| n.to_string());
            if got.as_deref() != Some(decision.as_str()) {
                return Err(Stop::Check(format!(
                    "expected pending {decision}, got {}",
                    got.unwrap_or_else(|| "nothing".into())
                )));
            }
            if seats.is_empty() {
                return Ok(());
            }
            let want = seats.iter().map(|n| seat(s, al, n)).collect::<Result<Vec<_>, _>>()?;
            let got = s.to_act();
            let names = |v: &[usize]| v.iter().map(|p| r.seat_name(*p)).collect::<Vec<_>>().join(" ");
            check(got == want, || format!("expected pending {decision} for {}, got for {}", names(&want), names(&got)))
        }
        Expectation::OptionsEqual { seat: who, ids } => {
            let p = seat(s, al, who)?;
            let got: Vec<String> = s.options(p).into_iter().map(|o| o.id).collect();
            check(&got == ids, || format!("expected options {who} = [{}], got [{}]", ids.join(", "), got.join(", ")))
        }
        Expectation::OptionsInclude { seat: who, ids } | Expectation::OptionsExclude { seat: who, ids } => {
            let include = matches!(e, Expectation::OptionsInclude { .. });
            let p = seat(s, al, who)?;
            let opts = s.options(p);
            let has = |x: &String| opts.iter().any(|o| &o.id == x || &o.label == x);
            let wrong: Vec<&String> = ids.iter().filter(|x| has(x) != include).collect();
            let all: Vec<String> = opts.iter().map(|o| o.id.clone()).collect();
            check(wrong.is_empty(), || {
                let w: Vec<&str> = wrong.iter().map(|x| x.as_str()).collect();
                format!(
                    "expected options {who} to {} {}, options are [{}]",
                    if include { "include" } else { "exclude" },
                    w.join(", "),
                    all.join(", ")
                )
            })
        }
        Expectation::Illegal { seat: who, option } => {
            let p = seat(s, al, who)?;
            match s.check(p, option) {
                Err(PlayError::Illegal(_)) => Ok(()),
                Err(other) => Err(Stop::Check(format!(
                    "expected {who} choosing {option} to be illegal, got another error: {other}"
                ))),
                Ok(_) => Err(Stop::Check(format!(
                    "expected {who} choosing {option} to be illegal, but it is a legal option"
                ))),
            }
        }
        Expectation::Error { seat: who, option, message } => {
            let p = seat(s, al, who)?;
            match s.apply(p, option) {
                Err(e) if e.to_string().contains(message.as_str()) => Ok(()),
                Err(e) => {
                    Err(Stop::Check(format!("expected {who} choosing {option} to fail with \"{message}\", got: {e}")))
                }
                Ok(()) => Err(Stop::Fatal(format!(
                    "expected {who} choosing {option} to fail with \"{message}\", but it succeeded"
                ))),
            }
        }
        Expectation::Over => check(s.is_over(), || "expected the game to be over, but it goes on".into()),
        Expectation::NotOver => check(!s.is_over(), || "expected the game to go on, but it is over".into()),
        Expectation::Winners(names) => {
            let Some(o) = s.outcome() else {
                return Err(Stop::Check("expected winners, but the game is not over".into()));
            };
            let mut want = names.iter().map(|n| seat(s, al, n)).collect::<Result<Vec<_>, _>>()?;
            want.sort_unstable();
            let show = |v: &[usize]| {
                if v.is_empty() {
                    "nobody".to_string()
                } else {
                    v.iter().map(|p| r.seat_name(*p)).collect::<Vec<_>>().join(" ")
                }
            };
            check(o.winners == want, || format!("expected winners {}, got {}", show(&want), show(&o.winners)))
        }
        Expectation::View { seat: who, shows, text } => {
            let p = seat(s, al, who)?;
            let json = serde_json::to_string(&s.view(p)).unwrap_or_default();
            let found = json.contains(&format!("\"{text}\""));
            check(found == *shows, || {
                format!(
                    "expected {who}'s view to {} {text}, but it {}",
                    if *shows { "show" } else { "hide" },
                    if found { "shows it" } else { "does not" }
                )
            })
        }
        Expectation::Log { seat: who, text, present } => {
            let viewer = opt_seat(s, al, who)?;
            let lines = s.log_for(viewer);
            let whose = who.as_ref().map(|w| format!(" of {w}")).unwrap_or_default();
            match lines.iter().find(|l| l.contains(text.as_str())) {
                Some(line) if !*present => {
                    Err(Stop::Check(format!("expected the log{whose} to lack \"{text}\", but it has: {line}")))
                }
                None if *present => {
                    let tail: Vec<&str> = lines.iter().rev().take(5).rev().map(String::as_str).collect();
                    Err(Stop::Check(format!(
                        "expected the log{whose} to contain \"{text}\"; its last lines: {}",
                        tail.join(" | ")
                    )))
                }
                _ => Ok(()),
            }
        }
        Expectation::Hash(h) => {
            let got = s.state_hash();
            check(&got == h, || {
                format!("expected hash \"{h}\", got \"{got}\": the final state differs from the recorded one")
            })
        }
        Expectation::Current(who) => {
            let p = seat(s, al, who)?;
            let got = s.state().current;
            check(got == p, || format!("expected current {who}, got {}", r.seat_name(got)))
        }
    }
}
