//! Steps scripts push onto the flow (ask, commit, run, phase), which run after the calling
//! script and before the rest of its phase, and ending the game.

use super::{player, players_arg, reg, Res};
use crate::rules::Rules;
use crate::script::{GameHandle, Work};
use crate::state::Frame;
use crate::value::Value;
use rhai::{Array, Dynamic};

fn push(h: &mut GameHandle, f: impl FnOnce(&Rules, &mut Work) -> Result<Frame, String>) -> Res<()> {
    h.with(|r, w| {
        let frame = f(r, w)?;
        w.pushed.push(frame);
        Ok(())
    })
}

/// A context a script passes with a pushed step, charged to the call's budget.
fn ctx_value(w: &mut Work, ctx: &Dynamic) -> Result<Value, String> {
    w.take_value(ctx)
}

/// Registers `end`, `ask`, `commit`, `run` and `phase`.
pub(super) fn register(engine: &mut crate::compiled::Registry) {
    // Flow.
    reg!(
        engine,
        "end",
        "Ends the game once the current script returns (winners by `[flow] winners` or the score).",
        &["game: Game", "()"],
        |h: &mut GameHandle| {
            h.with(|_, w| {
                w.state.ending = true;
                Ok(())
            })
        }
    );
    let ask = |h: &mut GameHandle, p: i64, d: &str, ctx: Dynamic| {
        push(h, |r, w| {
            let ctx = ctx_value(w, &ctx)?;
            Ok(Frame::Ask { decision: r.decision(d)?, player: player(&w.state, p)?, ctx })
        })
    };
    reg!(
        engine,
        "ask",
        "Pushes a step: `player` answers `decision` (after this script, before the rest of the phase).",
        &["game: Game", "player: i64", "decision: &str", "()"],
        move |h: &mut GameHandle, p: i64, d: &str| ask(h, p, d, Dynamic::UNIT)
    );
    reg!(
        engine,
        "ask",
        "Pushes a decision with a context passed to its option, filter and `then` scripts.",
        &["game: Game", "player: i64", "decision: &str", "ctx: Dynamic", "()"],
        ask
    );
    let commit = |h: &mut GameHandle, ps: Array, d: &str, ctx: Dynamic| {
        push(h, |r, w| {
            let ctx = ctx_value(w, &ctx)?;
            Ok(Frame::Commit { decision: r.decision(d)?, players: players_arg(&w.state, &ps)?, ctx })
        })
    };
    reg!(
        engine,
        "commit",
        "Pushes a simultaneous hidden commit by these players.",
        &["game: Game", "players: Array", "decision: &str", "()"],
        move |h: &mut GameHandle, ps: Array, d: &str| commit(h, ps, d, Dynamic::UNIT)
    );
    reg!(
        engine,
        "commit",
        "Pushes a hidden commit with a context.",
        &["game: Game", "players: Array", "decision: &str", "ctx: Dynamic", "()"],
        commit
    );
    reg!(
        engine,
        "run",
        "Pushes a step that runs the script `function(game)`.",
        &["game: Game", "function: &str", "()"],
        |h: &mut GameHandle, f: &str| {
            push(h, |_, _| Ok(Frame::Run { func: f.to_string(), with_ctx: false, ctx: Value::Unit }))
        }
    );
    reg!(
        engine,
        "run",
        "Pushes a step that runs `function(game, ctx)`.",
        &["game: Game", "function: &str", "ctx: Dynamic", "()"],
        |h: &mut GameHandle, f: &str, ctx: Dynamic| {
            push(h, |_, w| Ok(Frame::Run { func: f.to_string(), with_ctx: true, ctx: ctx_value(w, &ctx)? }))
        }
    );
    reg!(
        engine,
        "phase",
        "Pushes a phase to run next.",
        &["game: Game", "phase: &str", "()"],
        |h: &mut GameHandle, name: &str| {
            push(h, |r, _| Ok(Frame::Phase { phase: r.phase(name)?, step: 0, pos: 0, pass: 0, begun: false }))
        }
    );
}
