//! What scripts write in the log: public lines, lines for one player, reveals, and `show`,
//! which puts components on display for the whole table; each line is charged to the budgets.

use super::{card_arg, event, player, reg, Res};
use crate::log::{Event, EventKind};
use crate::script::{GameHandle, Work};
use rhai::Array;

/// The longest line a script may add to the log.
pub const MAX_LOG_LINE: usize = 64 << 10;

/// Checks and charges a log line a script adds: it counts against the call's budget, and
/// against the game's when a log is kept.
fn log_line(w: &mut Work, len: usize) -> Result<(), String> {
    if len > MAX_LOG_LINE {
        return Err(format!("a log line of {len} bytes is longer than the {} a line may have", MAX_LOG_LINE));
    }
    w.hand(len as u64)?;
    if w.logging {
        w.keep(len as u64, 0)?;
    }
    Ok(())
}

/// A public log line a script writes, of the given kind.
fn public_line(h: &mut GameHandle, kind: EventKind, text: &str) -> Res<()> {
    h.with(|_, w| {
        log_line(w, text.len())?;
        event(w, || Event::public(kind, text));
        Ok(())
    })
}

/// Shows components to the whole table: a public reveal line `caption: label, label` in every
/// seat's log, and an entry every seat's view lists until that seat answers a decision.
fn show(h: &mut GameHandle, list: Array, caption: &str) -> Res<()> {
    h.with(|_, w| {
        let cards = list.iter().map(|c| card_arg(&w.state, c)).collect::<Result<Vec<u32>, String>>()?;
        let labels: Vec<String> =
            cards.iter().map(|i| w.state.components.list[*i as usize].label().to_string()).collect();
        let text = if labels.is_empty() { caption.to_string() } else { format!("{caption}: {}", labels.join(", ")) };
        log_line(w, text.len())?;
        let kept = caption.len() + 4 * cards.len() + 8 * w.state.players;
        w.hand(kept as u64)?;
        w.keep(kept as u64, 0)?;
        event(w, || Event::public(EventKind::Reveal, text));
        let seats = (0..w.state.players).collect();
        w.state.shown.push(crate::state::Shown { caption: caption.to_string(), cards, seats });
        Ok(())
    })
}

/// Registers `logging`, `log`, `log_to`, `log_reveal`, `show` and `clear_shown`.
pub(super) fn register(engine: &mut crate::compiled::Registry) {
    reg!(
        engine,
        "get$logging",
        "Whether the game records its log (false in simulations): skip building log text when it is not.",
        &["game: Game", "bool"],
        |h: &mut GameHandle| h.with(|_, w| Ok(w.logging))
    );
    engine.natives.record_game_property("logging", |_, w| Ok(rhai::Dynamic::from_bool(w.logging)));

    // Log.
    reg!(
        engine,
        "log_reveal",
        "Adds a public line that shows hidden components on purpose, as a rule's reveal does (cards turned over, a face-down pile counted at the end). `validate`'s leak check takes what it names as shown to everyone; use `log` for every other line.",
        &["game: Game", "text: &str", "()"],
        |h: &mut GameHandle, text: &str| public_line(h, EventKind::Reveal, text)
    );
    reg!(
        engine,
        "show",
        "Shows components to the whole table, as a rule that turns cards over for all does: writes the public line `caption: label, label, …` and lists them under `caption` in every seat's view until that seat answers its next decision, even if they leave the public zones at once. `validate`'s leak check takes them as seen by everyone.",
        &["game: Game", "components: Array", "caption: &str", "()"],
        |h: &mut GameHandle, list: Array, caption: &str| show(h, list, caption)
    );
    reg!(
        engine,
        "clear_shown",
        "Takes everything `show` put on display off every seat's view (the rule's display is over).",
        &["game: Game", "()"],
        |h: &mut GameHandle| h.with(|_, w| {
            w.state.shown.clear();
            Ok(())
        })
    );
    reg!(
        engine,
        "log",
        "Adds a public line to the game's log.",
        &["game: Game", "text: &str", "()"],
        |h: &mut GameHandle, text: &str| public_line(h, EventKind::Message, text)
    );
    reg!(
        engine,
        "log_to",
        "Adds a line to the log that only `player` may read.",
        &["game: Game", "player: i64", "text: &str", "()"],
        |h: &mut GameHandle, p: i64, text: &str| {
            h.with(|_, w| {
                let p = player(&w.state, p)?;
                log_line(w, text.len())?;
                event(w, || Event::private(EventKind::Message, vec![p], text, None));
                Ok(())
            })
        }
    );
}
