//! Changing components: moving them between zones (to the top or bottom, the top of one zone
//! to another, dealing), shuffling a zone, creating components and setting their properties.
//! A move into a full zone refuses or pushes out, as the zone declares.

use super::{card_arg, card_map, event, reg, slot, Res};
use crate::log::{Event, EventKind};
use crate::rules::Rules;
use crate::script::{GameHandle, Work};
use crate::value::Value;
use rhai::{Dynamic, Map};

/// Logs the components a move pushed out of a full zone.
pub(crate) fn log_pushed_out(r: &Rules, w: &mut Work) {
    for idx in std::mem::take(&mut w.state.pushed_out) {
        if !w.logging {
            continue;
        }
        let c = &w.state.components.list[idx as usize];
        let label = c.label().to_string();
        let (z, o) = w.state.location[idx as usize];
        let zone = &r.zones[z as usize];
        let whose = if zone.per_player { format!("{}'s ", r.seat_name(o as usize)) } else { String::new() };
        w.events
            .push(Event::public(EventKind::Message, format!("{label} is pushed out and goes to {whose}{}", zone.name)));
    }
}

/// `game.move(component, zone[, owner])`, or `move_to_bottom` when `bottom`.
fn move_card_in(
    r: &Rules,
    w: &mut Work,
    card: &Dynamic,
    zone: &str,
    owner: Option<i64>,
    bottom: bool,
) -> Result<(), String> {
    let idx = card_arg(&w.state, card)?;
    let (z, o) = slot(r, &w.state, zone, owner)?;
    w.state.put(r, idx, z, o)?;
    log_pushed_out(r, w);
    if bottom {
        let cards = &mut w.state.zones[z][o].cards;
        let last = cards.pop().expect("just put");
        cards.insert(0, last);
    }
    Ok(())
}

fn move_card(h: &mut GameHandle, card: Dynamic, zone: &str, owner: Option<i64>, bottom: bool) -> Res<()> {
    h.with(|r, w| move_card_in(r, w, &card, zone, owner, bottom))
}

/// Moves the top component of a slot onto another (`move_top`), or every component top first
/// until the slot is empty (`move_all`, when `all`: the destination receives them in reverse
/// order, and a slot moved onto itself stays as it is). Returns how many moved and the last one.
fn move_from_top(
    r: &Rules,
    w: &mut Work,
    (from, fo): (&str, Option<i64>),
    (to, to_o): (&str, Option<i64>),
    all: bool,
) -> Result<(i64, Option<u32>), String> {
    let ((fz, fo), (tz, to_o)) = (slot(r, &w.state, from, fo)?, slot(r, &w.state, to, to_o)?);
    if all && (fz, fo) == (tz, to_o) {
        return Ok((0, None));
    }
    let (mut moved, mut last) = (0, None);
    while let Some(idx) = w.state.put_top(r, (fz, fo), tz, to_o)? {
        log_pushed_out(r, w);
        moved += 1;
        last = Some(idx);
        if !all {
            break;
        }
    }
    Ok((moved, last))
}

/// `game.move_top(from[, from_owner], to[, to_owner])`: the component moved, or `()`.
fn move_top_in(
    r: &Rules,
    w: &mut Work,
    from: &str,
    fo: Option<i64>,
    to: &str,
    to_o: Option<i64>,
) -> Result<Dynamic, String> {
    let (_, last) = move_from_top(r, w, (from, fo), (to, to_o), false)?;
    Ok(last.map(|idx| card_map(&w.state, idx)).unwrap_or(Dynamic::UNIT))
}

fn move_top(h: &mut GameHandle, from: &str, fo: Option<i64>, to: &str, to_o: Option<i64>) -> Res<Dynamic> {
    h.with(|r, w| move_top_in(r, w, from, fo, to, to_o))
}

/// `game.move_all(from[, from_owner], to[, to_owner])`: how many moved.
fn move_all(h: &mut GameHandle, from: &str, fo: Option<i64>, to: &str, to_o: Option<i64>) -> Res<i64> {
    h.with(|r, w| move_from_top(r, w, (from, fo), (to, to_o), true).map(|(moved, _)| moved))
}

fn shuffle(h: &mut GameHandle, zone: &str, owner: Option<i64>) -> Res<()> {
    h.with(|r, w| {
        let (z, o) = slot(r, &w.state, zone, owner)?;
        let mut cards = std::mem::take(&mut w.state.zones[z][o].cards);
        crate::alloc::charge(cards.len());
        w.state.rng.shuffle(&mut cards);
        w.state.zones[z][o].cards = cards;
        // The log line is made only when a log is kept.
        event(w, || {
            let name = if r.zones[z].per_player {
                format!("{}'s {}", r.seat_name(o), r.zones[z].name)
            } else {
                r.zones[z].name.clone()
            };
            Event::public(EventKind::Chance, format!("shuffled {name}"))
        });
        Ok(())
    })
}

fn create(h: &mut GameHandle, kind: &str, props: Map, zone: &str, owner: Option<i64>) -> Res<Dynamic> {
    h.with(|r, w| {
        let k = r.component_type(kind)?;
        let (z, o) = slot(r, &w.state, zone, owner)?;
        let mut id = None;
        let mut p = crate::value::ValueMap::default();
        for (key, v) in props {
            if key == "id" {
                id = Some(v.to_string());
            } else if key != "kind" {
                let v = w.take_value(&v)?;
                w.keep(v.approx_bytes() + key.len() as u64, 0)?;
                p.insert(key.to_string(), v);
            }
        }
        if r.zones[z].per_player && !p.contains_key("owner") {
            p.insert("owner".to_string(), Value::Int(o as i64));
        }
        let idx = w.state.create(r, k, id, p)?;
        w.state.put(r, idx, z, o)?;
        Ok(card_map(&w.state, idx))
    })
}

/// Registers `move`, `move_to_bottom`, `move_top`, `move_all`, `deal`, `shuffle`, `create` and
/// `set_prop`.
pub(super) fn register(engine: &mut crate::compiled::Registry) {
    engine
        .natives
        .record_part_placer("move", |r, w, c, z, o| move_card_in(r, w, c, z, o, false).map(|()| Dynamic::UNIT));
    engine.natives.record_part_transfer("move_top", move_top_in);
    engine.natives.record_part_transfer("move_all", |r, w, f, fo, t, to| {
        move_from_top(r, w, (f, fo), (t, to), true).map(|(moved, _)| Dynamic::from_int(moved))
    });
    reg!(
        engine,
        "move",
        "Puts a component (or id) on top of a global zone. A full zone refuses or pushes out, as declared.",
        &["game: Game", "component: Dynamic", "zone: &str", "()"],
        |h: &mut GameHandle, c: Dynamic, z: &str| move_card(h, c, z, None, false)
    );
    reg!(
        engine,
        "move",
        "Puts a component (or id) on top of a player's zone.",
        &["game: Game", "component: Dynamic", "zone: &str", "player: i64", "()"],
        |h: &mut GameHandle, c: Dynamic, z: &str, p: i64| move_card(h, c, z, Some(p), false)
    );
    reg!(
        engine,
        "move_to_bottom",
        "Puts a component at the bottom of a global zone.",
        &["game: Game", "component: Dynamic", "zone: &str", "()"],
        |h: &mut GameHandle, c: Dynamic, z: &str| move_card(h, c, z, None, true)
    );
    reg!(
        engine,
        "move_to_bottom",
        "Puts a component at the bottom of a player's zone.",
        &["game: Game", "component: Dynamic", "zone: &str", "player: i64", "()"],
        |h: &mut GameHandle, c: Dynamic, z: &str, p: i64| { move_card(h, c, z, Some(p), true) }
    );
    reg!(
        engine,
        "move_top",
        "Moves the top component of global zone `from` to global zone `to`; returns it, or `()` if `from` is empty.",
        &["game: Game", "from: &str", "to: &str", "Dynamic"],
        |h: &mut GameHandle, f: &str, t: &str| move_top(h, f, None, t, None)
    );
    reg!(
        engine,
        "move_top",
        "Moves the top of global zone `from` to a player's zone `to`.",
        &["game: Game", "from: &str", "to: &str", "to_player: i64", "Dynamic"],
        |h: &mut GameHandle, f: &str, t: &str, tp: i64| move_top(h, f, None, t, Some(tp))
    );
    reg!(
        engine,
        "move_top",
        "Moves the top of a player's zone `from` to global zone `to`.",
        &["game: Game", "from: &str", "from_player: i64", "to: &str", "Dynamic"],
        |h: &mut GameHandle, f: &str, fp: i64, t: &str| move_top(h, f, Some(fp), t, None)
    );
    reg!(
        engine,
        "move_top",
        "Moves the top of a player's zone to another player's zone.",
        &["game: Game", "from: &str", "from_player: i64", "to: &str", "to_player: i64", "Dynamic"],
        |h: &mut GameHandle, f: &str, fp: i64, t: &str, tp: i64| { move_top(h, f, Some(fp), t, Some(tp)) }
    );
    reg!(
        engine,
        "move_all",
        "Moves every component of global zone `from` to global zone `to`, top first (as `move_top` until `from` is empty, so they arrive in reverse order); returns how many moved.",
        &["game: Game", "from: &str", "to: &str", "i64"],
        |h: &mut GameHandle, f: &str, t: &str| move_all(h, f, None, t, None)
    );
    reg!(
        engine,
        "move_all",
        "Moves every component of global zone `from` to a player's zone `to`, top first.",
        &["game: Game", "from: &str", "to: &str", "to_player: i64", "i64"],
        |h: &mut GameHandle, f: &str, t: &str, tp: i64| move_all(h, f, None, t, Some(tp))
    );
    reg!(
        engine,
        "move_all",
        "Moves every component of a player's zone `from` to global zone `to`, top first.",
        &["game: Game", "from: &str", "from_player: i64", "to: &str", "i64"],
        |h: &mut GameHandle, f: &str, fp: i64, t: &str| move_all(h, f, Some(fp), t, None)
    );
    reg!(
        engine,
        "move_all",
        "Moves every component of a player's zone to another player's zone, top first.",
        &["game: Game", "from: &str", "from_player: i64", "to: &str", "to_player: i64", "i64"],
        |h: &mut GameHandle, f: &str, fp: i64, t: &str, tp: i64| { move_all(h, f, Some(fp), t, Some(tp)) }
    );
    reg!(engine, "deal", "Deals `count` components from the top of global zone `from` to every player's zone `to`, one at a time in turn order.", &["game: Game", "from: &str", "to: &str", "count: i64", "()"], |h: &mut GameHandle, from: &str, to: &str, n: i64| {
        h.with(|r, w| {
            let (fz, fo) = slot(r, &w.state, from, None)?;
            let tz = r.zone(to)?;
            if !r.zones[tz].per_player {
                return Err(format!("deal: zone `{to}` must be per player"));
            }
            // Stops when the source runs out: the work is bounded by the cards really dealt.
            let order = w.state.turn_order.clone();
            'dealing: for _ in 0..n.max(0) {
                for &p in &order {
                    if w.state.put_top(r, (fz, fo), tz, p)?.is_none() {
                        break 'dealing;
                    }
                }
            }
            Ok(())
        })
    });
    reg!(
        engine,
        "shuffle",
        "Shuffles a global zone with the game's random generator (logged).",
        &["game: Game", "zone: &str", "()"],
        |h: &mut GameHandle, z: &str| shuffle(h, z, None)
    );
    reg!(
        engine,
        "shuffle",
        "Shuffles a player's zone (logged).",
        &["game: Game", "zone: &str", "player: i64", "()"],
        |h: &mut GameHandle, z: &str, p: i64| shuffle(h, z, Some(p))
    );
    reg!(
        engine,
        "create",
        "Creates a component of a declared type with these properties (`id` optional) on top of a global zone.",
        &["game: Game", "kind: &str", "props: Map", "zone: &str", "Component"],
        |h: &mut GameHandle, k: &str, props: Map, z: &str| create(h, k, props, z, None)
    );
    reg!(
        engine,
        "create",
        "Creates a component in a player's zone (its `owner` is set to the player unless given).",
        &["game: Game", "kind: &str", "props: Map", "zone: &str", "player: i64", "Component"],
        |h: &mut GameHandle, k: &str, props: Map, z: &str, p: i64| { create(h, k, props, z, Some(p)) }
    );
    reg!(
        engine,
        "set_prop",
        "Changes a component's property (not `id` or `kind`).",
        &["game: Game", "component: Dynamic", "key: &str", "value: Dynamic", "()"],
        |h: &mut GameHandle, card: Dynamic, key: &str, value: Dynamic| {
            h.with(|r, w| {
                let idx = card_arg(&w.state, &card)?;
                if key == "id" || key == "kind" {
                    return Err(format!("`{key}` cannot be changed"));
                }
                let v = w.take_value(&value)?;
                let old = w.state.components.list[idx as usize].props.get(key).map_or(0, Value::approx_bytes);
                w.keep(v.approx_bytes(), old)?;
                std::sync::Arc::make_mut(&mut w.state.components).set_prop(r, idx, key, v);
                Ok(())
            })
        }
    );
}
