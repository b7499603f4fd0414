//! The seats at the table: how many, their names, the current player and the turn order.

use super::{player, players_arg, reg};
use crate::rules::Rules;
use crate::script::{GameHandle, Work};
use rhai::{Array, Dynamic};

/// `game.players`.
fn players(_: &Rules, w: &mut Work) -> Result<i64, String> {
    crate::reads::note_rules_only();
    Ok(w.state.players as i64)
}

/// `game.current`.
fn current(_: &Rules, w: &mut Work) -> Result<i64, String> {
    crate::reads::note(crate::reads::Part::Current);
    Ok(w.state.current as i64)
}

/// `game.turn_order`.
fn turn_order(_: &Rules, w: &mut Work) -> Result<Array, String> {
    crate::reads::note(crate::reads::Part::TurnOrder);
    Ok(w.state.turn_order.iter().map(|p| Dynamic::from_int(*p as i64)).collect::<Array>())
}

/// Registers `players`, `current`, `turn_order` and `seat_name`.
pub(super) fn register(engine: &mut crate::compiled::Registry) {
    // Players and turns.
    reg!(engine, "get$players", "The number of seats.", &["game: Game", "i64"], |h: &mut GameHandle| h
        .with(|r, w| players(r, w)));
    engine.natives.record_game_property("players", |r, w| players(r, w).map(Dynamic::from_int));
    reg!(engine, "get$current", "The current player (0-based seat).", &["game: Game", "i64"], |h: &mut GameHandle| h
        .with(|r, w| current(r, w)));
    engine.natives.record_game_property("current", |r, w| current(r, w).map(Dynamic::from_int));
    reg!(
        engine,
        "set$current",
        "Makes `player` the current player.",
        &["game: Game", "player: i64", "()"],
        |h: &mut GameHandle, p: i64| {
            h.with(|_, w| {
                w.state.current = player(&w.state, p)?;
                Ok(())
            })
        }
    );
    reg!(
        engine,
        "get$turn_order",
        "The turn order: an array of seats.",
        &["game: Game", "Array"],
        |h: &mut GameHandle| h.with(|r, w| turn_order(r, w))
    );
    engine.natives.record_game_property("turn_order", |r, w| turn_order(r, w).map(Dynamic::from_array));
    reg!(
        engine,
        "set$turn_order",
        "Sets the turn order (an array of seats).",
        &["game: Game", "order: Array", "()"],
        |h: &mut GameHandle, order: Array| {
            h.with(|_, w| {
                w.state.turn_order = players_arg(&w.state, &order)?;
                Ok(())
            })
        }
    );
    reg!(
        engine,
        "seat_name",
        "The seat's display name (P1, P2, ... or the game's `seat_names`).",
        &["game: Game", "player: i64", "String"],
        |h: &mut GameHandle, p: i64| {
            h.with(|r, w| {
                crate::reads::note_rules_only();
                Ok(r.seat_name_value(player(&w.state, p)?))
            })
        }
    );
}
