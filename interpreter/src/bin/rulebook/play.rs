//! `rulebook play`: people and bots in the terminal. Hidden commits are played hot seat: each
//! person sees only their own view, and the screen is handed over between people.

use crate::cli::{Cli, PlayArgs};
use crate::input::{InputError, Lines};
use crate::locate::load;
use crate::render;
use rulebook::bot::{make_bot, Bot, BotTable, SeatObservation};
use rulebook::scenario::{transcript, Setup};
use rulebook::{OptionInfo, PlayError, Session};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// What `help` prints, and the game's first lines.
const HELP: &str = "type an option's id or label, or #N for the Nth option in the list (a bare N works too, \
    unless the list is numbered #1), #2), ...: then options are named by numbers and N is the one named N); \
    to choose a set: its ids in any order, or one at a time, then `done`; `log` shows what you have seen \
    happen; `view` redraws; `quit` ends the game";

pub fn run(cli: &Cli, args: &PlayArgs) -> Result<ExitCode, String> {
    let table = args.bot_args.table()?;
    let game = load(cli, &args.game)?;
    if args.bots > args.players {
        return Err(format!("--bots {} is more than --players {}", args.bots, args.players));
    }
    table.check(&game, args.players)?;
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
    });
    // Seats named in `--bot P2=...` are bots, and so are the last `--bots` seats.
    let is_bot: Vec<bool> =
        (0..args.players).map(|p| p >= args.players - args.bots || table.seats.iter().any(|(s, _)| *s == p)).collect();
    let searches = (0..args.players).any(|p| is_bot[p] && table.spec(p).searches());
    let mut session = if searches {
        rulebook::Session::new_tracked(&game, args.players, seed, true)
    } else {
        game.start(args.players, seed)
    }
    .map_err(|e| e.to_string())?;
    let result = play_loop(&mut session, args, &table, &is_bot, seed);
    if let Some(path) = &args.record {
        let setup = Setup { game: &args.game.game, variants: &args.game.variants, options: &args.game.options };
        let text = transcript(&setup, &session, &format!("{} played with seed {seed}", game.rules.title));
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("transcript written to {}", path.display());
    }
    result
}

fn play_loop(
    session: &mut Session<'_>,
    args: &PlayArgs,
    table: &BotTable,
    is_bot: &[bool],
    seed: u64,
) -> Result<ExitCode, String> {
    let game = session.game();
    let humans = is_bot.iter().filter(|b| !**b).count();
    let bot_count = args.players - humans;
    let mut bots: Vec<Option<Box<dyn Bot>>> = (0..args.players)
        .map(|p| if is_bot[p] { make_bot(table.spec(p), game, seed, p).map(Some) } else { Ok(None) })
        .collect::<Result<_, _>>()?;
    let interactive = std::io::stdin().is_terminal();
    let screen = std::io::stdout().is_terminal();
    println!(
        "{} — {} players ({} bot{}), seed {seed}",
        game.rules.title,
        args.players,
        bot_count,
        if bot_count == 1 { "" } else { "s" }
    );
    println!("{HELP}");
    // With one person at the table the log is theirs; with several, print only public lines.
    let log_viewer = if humans == 1 { is_bot.iter().position(|b| !*b) } else { None };
    let mut printed = 0;
    let mut shown_to: Option<usize> = None;
    let stdin = std::io::stdin();
    let mut lines = Lines::new(stdin.lock());
    loop {
        let log = session.log();
        for e in &log[printed..] {
            let text = match log_viewer {
                Some(p) => e.for_viewer(Some(p)),
                None => e.public_text(),
            };
            if let Some(text) = text {
                println!("  · {text}");
            }
        }
        printed = log.len();
        if session.is_over() {
            print!("{}", render::view(&session.public_view()));
            return Ok(ExitCode::SUCCESS);
        }
        let Some(p) = session.first_to_act() else {
            return Err("the game is not over but nobody has to decide (a rule error)".into());
        };
        if let Some(bot) = bots[p].as_mut() {
            let choice = bot.choose(&SeatObservation::new(session, p))?;
            session.apply_index(p, choice).map_err(|e| e.to_string())?;
            continue;
        }
        if humans > 1 && shown_to != Some(p) {
            hand_over(session, p, interactive, screen, &mut lines)?;
        }
        shown_to = Some(p);
        print!("{}", render::view(&session.view(p)));
        let options = session.options(p);
        print!("{}", render::options(&options));
        loop {
            print!("{}> ", game.rules.seat_name(p));
            std::io::stdout().flush().ok();
            let line = match lines.next_line() {
                Ok(Some(line)) => line,
                Ok(None) => return Err("input ended before the game did".into()),
                Err(e @ InputError::Io(_)) => return Err(e.to_string()),
                Err(e) if interactive => {
                    eprintln!("{e}: it was ignored, type the option again");
                    continue;
                }
                Err(e) => return Err(format!("bad input: {e}")),
            };
            let text = line.trim();
            match text {
                "" => continue,
                "quit" | "q" => {
                    println!("game abandoned (seed {seed})");
                    return Ok(ExitCode::from(1));
                }
                "help" | "?" => {
                    println!("{HELP}");
                    continue;
                }
                "log" => {
                    for l in session.log_for(Some(p)) {
                        println!("  · {l}");
                    }
                    continue;
                }
                "view" => {
                    print!("{}", render::view(&session.view(p)));
                    continue;
                }
                _ => {}
            }
            // Anything `pick` does not place goes to `apply`, which also takes a whole set at
            // once ("A-1 B-2 C-3") for a decision that builds one, and explains an illegal move.
            let result = match pick(session, p, text, &options) {
                Ok(Some(i)) => session.apply_index(p, i),
                Ok(None) => session.apply(p, text),
                Err(e) => Err(e),
            };
            match result {
                Ok(()) => break,
                Err(PlayError::Illegal(m)) if interactive => eprintln!("illegal: {}", illegal(m, text, &options)),
                Err(PlayError::Illegal(m)) => return Err(format!("illegal move: {}", illegal(m, text, &options))),
                Err(e) => return Err(e.to_string()),
            }
        }
    }
}

/// The option a typed line names, by the rule the help states: `#N` is always the Nth option
/// of the list; anything else is an option's id or exact label. A bare number is a place in
/// the list only where no option's id or label is a number (the list then shows `N)`, else
/// `#N)`), so its meaning never depends on which options are left. `None`: no option by
/// these rules; `Session::apply` reads the text (a whole set) or says why it is illegal.
fn pick(session: &Session<'_>, p: usize, text: &str, options: &[OptionInfo]) -> Result<Option<usize>, PlayError> {
    let count = options.len();
    if let Some(n) = text.strip_prefix('#').and_then(|n| n.trim().parse::<usize>().ok()) {
        if !(1..=count).contains(&n) {
            return Err(PlayError::Illegal(format!("there is no option #{n}: the list has #1 to #{count}")));
        }
        return Ok(Some(n - 1));
    }
    if let Ok(i) = session.find_option(p, text) {
        return Ok(Some(i));
    }
    if render::numbers_name_options(options) {
        return Ok(None);
    }
    Ok(text.parse::<usize>().ok().filter(|n| (1..=count).contains(n)).map(|n| n - 1))
}

/// An illegal move explained, with a reminder of `#N` when a typed number was taken for an id
/// or label but could have meant a place in the list.
fn illegal(message: String, text: &str, options: &[OptionInfo]) -> String {
    match text.parse::<usize>() {
        Ok(n) if (1..=options.len()).contains(&n) && render::numbers_name_options(options) => {
            format!("{message} (here a number is an option's id or label; type #{n} for place {n} in the list)")
        }
        _ => message,
    }
}

/// Hands the screen to the next person without showing the previous one's view.
fn hand_over(
    session: &Session<'_>,
    p: usize,
    interactive: bool,
    screen: bool,
    lines: &mut Lines<impl std::io::BufRead>,
) -> Result<(), String> {
    let name = session.game().rules.seat_name(p);
    if screen {
        print!("\x1b[2J\x1b[H");
    } else {
        println!("{}", "-".repeat(60));
    }
    if interactive {
        print!("Pass the screen to {name} and press Enter ");
        std::io::stdout().flush().ok();
        if !matches!(lines.next_line(), Ok(Some(_)) | Err(InputError::TooLong | InputError::NotText)) {
            return Err("input ended before the game did".into());
        }
        if screen {
            print!("\x1b[2J\x1b[H");
        }
    } else {
        println!("{name} to play");
    }
    Ok(())
}
