//! The values scripts read and write besides components: parameters and data tables (read
//! only), tracks (clamped to their bounds) and vars (plain data; a derived var cannot be set),
//! and random draws from the game's generator.

use super::{event, per_player_index, reg, reg_files, Res};
use crate::compiled::PartValue;
use crate::log::{Event, EventKind};
use crate::rules::Rules;
use crate::script::{GameHandle, Work};
use crate::state::VarSlot;
use crate::value::Value;
use rhai::Dynamic;

/// `game.track(name[, owner])`.
fn track_in(r: &Rules, w: &mut Work, name: &str, owner: Option<i64>) -> Result<i64, String> {
    let t = r.track(name)?;
    let o = per_player_index(r.tracks[t].per_player, name, "track", &w.state, owner)?;
    crate::reads::note(crate::reads::Part::Track(t, Some(o)));
    Ok(w.state.tracks[t][o])
}

fn track(h: &mut GameHandle, name: &str, owner: Option<i64>) -> Res<i64> {
    h.with(|r, w| track_in(r, w, name, owner))
}

/// `game.set_track(name[, owner], value)`, or `add_track` when `add`.
fn set_track_in(r: &Rules, w: &mut Work, name: &str, owner: Option<i64>, value: i64, add: bool) -> Result<i64, String> {
    let t = r.track(name)?;
    let o = per_player_index(r.tracks[t].per_player, name, "track", &w.state, owner)?;
    let v = if add { w.state.tracks[t][o].saturating_add(value) } else { value };
    w.state.set_track(r, t, o, v);
    Ok(w.state.tracks[t][o])
}

fn set_track(h: &mut GameHandle, name: &str, owner: Option<i64>, value: i64, add: bool) -> Res<i64> {
    h.with(|r, w| set_track_in(r, w, name, owner, value, add))
}

/// An integer value a track function was given (compiled scripts hand it over as a script value).
fn int_value(value: &Dynamic) -> Result<i64, String> {
    value.as_int().map_err(|t| format!("expected an integer, got {t}"))
}

/// `game.get_var(name[, owner])`.
fn var_in(r: &Rules, w: &mut Work, name: &str, owner: Option<i64>) -> Result<Dynamic, String> {
    Ok(read_var_slot(r, w, name, owner)?.script_value())
}

/// [`var_in`] for compiled scripts: the kept copy with its sizes (no walk to check the limits).
fn var_sized_in(r: &Rules, w: &mut Work, name: &str, owner: Option<i64>) -> Result<PartValue, String> {
    let (value, sizes) = read_var_slot(r, w, name, owner)?.script_value_sized();
    Ok(PartValue { value, sizes: Some(sizes) })
}

/// Runs `f` on a var's script copy where it lies, with what it counts against the sandbox's
/// size limits (its read noted): compiled scripts read one entry of a var
/// (`game.get_var("index")[id]`) without copying the whole value first.
pub(crate) fn with_var_in_place<T>(
    r: &Rules,
    w: &Work,
    name: &str,
    owner: Option<i64>,
    f: impl FnOnce(&Dynamic, [usize; 3]) -> T,
) -> Result<T, String> {
    let (value, sizes) = read_var_slot(r, w, name, owner)?.script_ref_sized();
    Ok(f(value, sizes))
}

/// The slot of the var a script reads (a derived var is refused), its read noted.
fn read_var_slot<'w>(r: &Rules, w: &'w Work, name: &str, owner: Option<i64>) -> Result<&'w VarSlot, String> {
    let v = r.var(name)?;
    let o = per_player_index(r.vars[v].per_player, name, "var", &w.state, owner)?;
    if let Some(f) = &r.vars[v].derived {
        return Err(format!("var `{name}` is derived: views compute it with `{}`; call that function instead", f.name));
    }
    crate::reads::note(crate::reads::Part::Var(v, Some(o)));
    Ok(&w.state.vars[v][o])
}

fn var(h: &mut GameHandle, name: &str, owner: Option<i64>) -> Res<Dynamic> {
    h.with(|r, w| var_in(r, w, name, owner))
}

/// `game.set_var(name[, owner], value)`.
fn set_var_in(r: &Rules, w: &mut Work, name: &str, owner: Option<i64>, value: Dynamic) -> Result<Dynamic, String> {
    let v = r.var(name)?;
    let o = per_player_index(r.vars[v].per_player, name, "var", &w.state, owner)?;
    if let Some(f) = &r.vars[v].derived {
        return Err(format!(
            "var `{name}` is derived (computed by `{}` whenever a view shows it): it cannot be set",
            f.name
        ));
    }
    let measured = w.measure_handed(&value)?;
    let old_bytes = w.state.vars[v][o].approx_bytes();
    if measured.plain {
        // Kept as the script made it: the engine's value is made only if something asks.
        w.keep(measured.bytes, old_bytes)?;
        w.state.vars[v][o].set_plain(value, measured.bytes, measured.sizes);
    } else {
        let converted = crate::convert::convert_dynamic(&value)?;
        w.keep(converted.approx_bytes(), old_bytes)?;
        w.state.vars[v][o].set(converted);
    }
    Ok(Dynamic::UNIT)
}

fn set_var(h: &mut GameHandle, name: &str, owner: Option<i64>, value: Dynamic) -> Res<()> {
    h.with(|r, w| set_var_in(r, w, name, owner, value).map(|_| ()))
}

/// `game.param(name)`.
fn param_in(r: &Rules, name: &str) -> Result<Dynamic, String> {
    crate::reads::note_rules_only();
    r.params
        .get(name)
        .map(|p| p.value.to_dynamic())
        .ok_or_else(|| crate::rules::unknown("parameter", name, r.params.keys()))
}

/// `game.space(track, position)`.
fn space_in(r: &Rules, track: &str, position: i64) -> Result<Dynamic, String> {
    crate::reads::note_rules_only();
    let t = r.track(track)?;
    Ok(r.with_script_space(t, position, |s| s.value.clone()).unwrap_or(Dynamic::UNIT))
}

/// Registers `param`, `table`, `random`, the track and the var functions.
pub(super) fn register(engine: &mut crate::compiled::Registry) {
    // Parameters and tables.
    reg!(
        engine,
        "param",
        "The value in force of a declared parameter.",
        &["game: Game", "name: &str", "Dynamic"],
        |h: &mut GameHandle, name: &str| h.with(|r, _| param_in(r, name))
    );
    engine.natives.record_part_reader("param", |r, _, name, _| param_in(r, name).map(PartValue::from));
    reg_files!(
        engine,
        "table",
        "A data table declared under `[tables]`.",
        &["game: Game", "name: &str", "Dynamic"],
        |h: &mut GameHandle, name: &str| {
            h.with(|r, _| {
                crate::reads::note_rules_only();
                r.script_table(name).ok_or_else(|| crate::rules::unknown("table", name, r.tables.keys()))
            })
        }
    );

    // Chance.
    reg!(
        engine,
        "random",
        "A random integer in 0..n from the game's generator. Only the omniscient log records the draw; a rule that draws in the open logs the result in its own words.",
        &["game: Game", "n: i64", "i64"],
        |h: &mut GameHandle, n: i64| {
            h.with(|_, w| {
                if n <= 0 {
                    return Err(format!("random({n}): the range must be at least 1"));
                }
                let x = w.state.draw(n as u64)? as i64;
                // Bookkeeping for the omniscient log (replays, debugging), not a seat's log: a
                // rule that draws in the open says what came out in its own words.
                event(w, || Event::private(EventKind::Chance, Vec::new(), format!("random draw: {x} of 0..{}", n - 1), None));
                Ok(x)
            })
        }
    );

    reg!(
        engine,
        "roll",
        "Rolls a die (a component whose type declares `faces`): a face drawn from the game's generator becomes its `face` property; returns it. Only seats that see the die's zone read what came up in the log.",
        &["game: Game", "die: Dynamic", "Dynamic"],
        |h: &mut GameHandle, die: Dynamic| {
            h.with(|r, w| {
                let idx = super::component::card_arg(&w.state, &die)?;
                let (zone, owner) = w.state.location[idx as usize];
                let face = w.state.roll(r, idx)?;
                if (zone, owner) == crate::state::NOWHERE {
                    return Ok(face.to_dynamic());
                }
                let c = &w.state.components.list[idx as usize];
                let text = format!("rolled {}: {face}", c.id);
                let redacted = format!("rolled {}", c.id);
                let line = w.state.slot_event(r, zone as usize, owner as usize, text, redacted);
                event(w, || line);
                Ok(face.to_dynamic())
            })
        }
    );
    reg!(
        engine,
        "roll_zone",
        "Rolls every die in a global zone; returns the faces, bottom to top. The log shows them to the seats that see the zone and says `rolled ZONE: N dice` to the others.",
        &["game: Game", "zone: &str", "Array"],
        |h: &mut GameHandle, zone: &str| roll_zone(h, zone, None)
    );
    reg!(
        engine,
        "roll_zone",
        "Rolls every die in a player's zone (a cup); returns the faces. Only the seats that see that zone read them in the log.",
        &["game: Game", "zone: &str", "player: i64", "Array"],
        |h: &mut GameHandle, zone: &str, p: i64| roll_zone(h, zone, Some(p))
    );

    // Tracks and variables.
    engine.natives.record_part_reader("track", |r, w, t, o| track_in(r, w, t, o).map(|n| PartValue::number(n.into())));
    engine.natives.record_part_reader("get_var", var_sized_in);
    engine.natives.record_part_writer("set_track", |r, w, t, o, v| {
        set_track_in(r, w, t, o, int_value(&v)?, false).map(Dynamic::from_int)
    });
    engine.natives.record_part_writer("add_track", |r, w, t, o, v| {
        set_track_in(r, w, t, o, int_value(&v)?, true).map(Dynamic::from_int)
    });
    engine.natives.record_part_writer("set_var", set_var_in);
    reg!(
        engine,
        "track",
        "A global track's value.",
        &["game: Game", "track: &str", "i64"],
        |h: &mut GameHandle, t: &str| track(h, t, None)
    );
    reg!(
        engine,
        "track",
        "A player's track value.",
        &["game: Game", "track: &str", "player: i64", "i64"],
        |h: &mut GameHandle, t: &str, p: i64| track(h, t, Some(p))
    );
    reg!(
        engine,
        "set_track",
        "Sets a global track (clamped to its bounds); returns the new value.",
        &["game: Game", "track: &str", "value: i64", "i64"],
        |h: &mut GameHandle, t: &str, v: i64| set_track(h, t, None, v, false)
    );
    reg!(
        engine,
        "set_track",
        "Sets a player's track (clamped); returns the new value.",
        &["game: Game", "track: &str", "player: i64", "value: i64", "i64"],
        |h: &mut GameHandle, t: &str, p: i64, v: i64| set_track(h, t, Some(p), v, false)
    );
    reg!(
        engine,
        "add_track",
        "Adds to a global track (clamped); returns the new value.",
        &["game: Game", "track: &str", "delta: i64", "i64"],
        |h: &mut GameHandle, t: &str, v: i64| set_track(h, t, None, v, true)
    );
    reg!(
        engine,
        "add_track",
        "Adds to a player's track (clamped); returns the new value.",
        &["game: Game", "track: &str", "player: i64", "delta: i64", "i64"],
        |h: &mut GameHandle, t: &str, p: i64, v: i64| set_track(h, t, Some(p), v, true)
    );
    reg!(
        engine,
        "space",
        "The per-space data of a track at a position, or `()`.",
        &["game: Game", "track: &str", "position: i64", "Dynamic"],
        |h: &mut GameHandle, t: &str, pos: i64| h.with(|r, _| space_in(r, t, pos))
    );
    engine.natives.record_part_reader("space", |r, _, t, pos| {
        space_in(r, t, pos.ok_or("`space` takes a position")?).map(PartValue::from)
    });
    // `var` is a reserved word in Rhai, hence `get_var`.
    reg!(
        engine,
        "get_var",
        "A global variable (`var` is a reserved word in Rhai, hence `get_var`).",
        &["game: Game", "var: &str", "Dynamic"],
        |h: &mut GameHandle, n: &str| var(h, n, None)
    );
    reg!(
        engine,
        "get_var",
        "A player's variable.",
        &["game: Game", "var: &str", "player: i64", "Dynamic"],
        |h: &mut GameHandle, n: &str, p: i64| var(h, n, Some(p))
    );
    reg!(
        engine,
        "set_var",
        "Sets a global variable (plain data: numbers, strings, booleans, arrays, maps; components become their ids).",
        &["game: Game", "var: &str", "value: Dynamic", "()"],
        |h: &mut GameHandle, n: &str, v: Dynamic| set_var(h, n, None, v)
    );
    reg!(
        engine,
        "set_var",
        "Sets a player's variable.",
        &["game: Game", "var: &str", "player: i64", "value: Dynamic", "()"],
        |h: &mut GameHandle, n: &str, p: i64, v: Dynamic| set_var(h, n, Some(p), v)
    );
}

/// `game.roll_zone`: every die of one zone slot rolled, the log line kept if logging.
fn roll_zone(h: &mut GameHandle, zone: &str, owner: Option<i64>) -> Res<rhai::Array> {
    h.with(|r, w| {
        let (z, o) = super::slot(r, &w.state, zone, owner)?;
        let (faces, line) = w.state.roll_slot(r, z, o)?;
        event(w, || line);
        Ok(faces.iter().map(Value::to_dynamic).collect())
    })
}
