//! What zones hold and where components are: a zone's components, count, sum and top, a component
//! by id and its zone; a zone's visibility, and names declared out of play.

use super::{card_arg, card_map, reg, slot, Res};
use crate::compiled::{ComponentList, PartValue};
use crate::def::Visibility;
use crate::rules::Rules;
use crate::script::{GameHandle, Work};
use crate::state::NOWHERE;
use rhai::{Array, Dynamic, Map};

/// `game.cards(zone[, owner])`.
fn cards_in(r: &Rules, w: &mut Work, zone: &str, owner: Option<i64>) -> Result<Array, String> {
    let mut ids = ComponentList::new();
    listed_in(r, w, zone, owner, &mut ids)?;
    Ok(ids.into_iter().map(|c| card_map(&w.state, c)).collect())
}

/// The components `game.cards(zone[, owner])` lists, as indices, put into `out`; the
/// components they index are the state's. Compiled scripts run a `for` loop over them so,
/// without a list of handles made first.
fn listed_in(r: &Rules, w: &mut Work, zone: &str, owner: Option<i64>, out: &mut ComponentList) -> Result<(), String> {
    let (z, o) = slot(r, &w.state, zone, owner)?;
    crate::reads::note(crate::reads::Part::Zone(z, Some(o)));
    out.clear();
    out.extend_from_slice(&w.state.zones[z][o].cards);
    crate::alloc::charge(out.len());
    // An unordered zone lists its components in one fixed order (declaration order), the
    // same one views and decision options use.
    if !r.zones[z].ordered {
        out.sort_unstable();
    }
    Ok(())
}

fn cards(h: &mut GameHandle, zone: &str, owner: Option<i64>) -> Res<Array> {
    h.with(|r, w| cards_in(r, w, zone, owner))
}

/// `game.count(zone[, owner])`.
fn count_in(r: &Rules, w: &mut Work, zone: &str, owner: Option<i64>) -> Result<i64, String> {
    let (z, o) = slot(r, &w.state, zone, owner)?;
    crate::reads::note(crate::reads::Part::Zone(z, Some(o)));
    Ok(w.state.zones[z][o].cards.len() as i64)
}

fn count(h: &mut GameHandle, zone: &str, owner: Option<i64>) -> Res<i64> {
    h.with(|r, w| count_in(r, w, zone, owner))
}

/// The sum of an integer property over a slot's components (those without it count 0).
fn sum(h: &mut GameHandle, zone: &str, owner: Option<i64>, prop: &str) -> Res<i64> {
    h.with(|r, w| {
        let (z, o) = slot(r, &w.state, zone, owner)?;
        crate::reads::note(crate::reads::Part::Zone(z, Some(o)));
        let list = &w.state.components.list;
        Ok(w.state.zones[z][o].cards.iter().filter_map(|c| list[*c as usize].prop(prop)?.as_int()).sum())
    })
}

/// `game.holders(zone)`: the seats whose slot of a per-player zone holds a component, in seat
/// order (who still has cards, who holds the token).
fn holders_in(r: &Rules, w: &mut Work, zone: &str, owner: Option<i64>) -> Result<Array, String> {
    let z = r.zone(zone)?;
    if !r.zones[z].per_player {
        return Err(format!("`holders` lists the seats holding a per-player zone; `{zone}` is global: use `count`"));
    }
    if owner.is_some() {
        return Err(format!("`holders(\"{zone}\")` looks at every seat: give no owner"));
    }
    crate::reads::note(crate::reads::Part::Zone(z, None));
    crate::alloc::charge(w.state.zones[z].len());
    let held = w.state.zones[z].iter().enumerate().filter(|(_, slot)| !slot.cards.is_empty());
    Ok(held.map(|(p, _)| Dynamic::from_int(p as i64)).collect())
}

/// `game.top(zone[, owner])`.
fn top_in(r: &Rules, w: &mut Work, zone: &str, owner: Option<i64>) -> Result<Dynamic, String> {
    let (z, o) = slot(r, &w.state, zone, owner)?;
    crate::reads::note(crate::reads::Part::Zone(z, Some(o)));
    Ok(w.state.zones[z][o].cards.last().map(|c| card_map(&w.state, *c)).unwrap_or(Dynamic::UNIT))
}

fn top(h: &mut GameHandle, zone: &str, owner: Option<i64>) -> Res<Dynamic> {
    h.with(|r, w| top_in(r, w, zone, owner))
}

/// `game.set_visibility(zone[, owner], visibility)`.
fn set_visibility_in(r: &Rules, w: &mut Work, zone: &str, owner: Option<i64>, vis: &str) -> Result<(), String> {
    let (z, o) = slot(r, &w.state, zone, owner)?;
    let v = match vis {
        "public" => Visibility::Public,
        "owner" => Visibility::Owner,
        "count" => Visibility::Count,
        "top" => Visibility::Top,
        "hidden" => Visibility::Hidden,
        "default" => {
            w.state.zones[z][o].visible = None;
            return Ok(());
        }
        other => return Err(format!("unknown visibility `{other}`; use public, owner, count, top, hidden or default")),
    };
    w.state.zones[z][o].visible = Some(v);
    Ok(())
}

fn set_visibility(h: &mut GameHandle, zone: &str, owner: Option<i64>, vis: &str) -> Res<()> {
    h.with(|r, w| set_visibility_in(r, w, zone, owner, vis))
}

/// Registers `cards`, `count`, `holders`, `top`, `card`, `zone_of`, `out_of_play` and `set_visibility`.
pub(super) fn register(engine: &mut crate::compiled::Registry) {
    // Zones and components.
    // A list of handles: only its length counts against the size limits.
    engine.natives.record_part_reader("cards", |r, w, z, o| {
        cards_in(r, w, z, o).map(|l| PartValue { sizes: Some([l.len(), 0, 0]), value: Dynamic::from_array(l) })
    });
    engine.natives.record_part_lister("cards", listed_in);
    engine.natives.record_part_reader("count", |r, w, z, o| count_in(r, w, z, o).map(|n| PartValue::number(n.into())));
    engine.natives.record_part_reader("holders", |r, w, z, o| {
        holders_in(r, w, z, o).map(|l| PartValue { sizes: Some([l.len(), 0, 0]), value: Dynamic::from_array(l) })
    });
    engine.natives.record_part_reader("top", |r, w, z, o| top_in(r, w, z, o).map(PartValue::from));
    engine.natives.record_part_writer("set_visibility", |r, w, z, o, v| {
        let vis = v.into_immutable_string().map_err(|t| format!("expected a visibility, got {t}"))?;
        set_visibility_in(r, w, z, o, &vis).map(|()| Dynamic::UNIT)
    });
    reg!(
        engine,
        "cards",
        "The components of a global zone, bottom to top (an unordered zone: in declaration order).",
        &["game: Game", "zone: &str", "Array"],
        |h: &mut GameHandle, z: &str| cards(h, z, None)
    );
    reg!(
        engine,
        "cards",
        "The components of a player's zone, bottom to top (an unordered zone: in declaration order).",
        &["game: Game", "zone: &str", "player: i64", "Array"],
        |h: &mut GameHandle, z: &str, p: i64| cards(h, z, Some(p))
    );
    reg!(
        engine,
        "count",
        "How many components a global zone holds.",
        &["game: Game", "zone: &str", "i64"],
        |h: &mut GameHandle, z: &str| count(h, z, None)
    );
    reg!(
        engine,
        "count",
        "How many components a player's zone holds.",
        &["game: Game", "zone: &str", "player: i64", "i64"],
        |h: &mut GameHandle, z: &str, p: i64| count(h, z, Some(p))
    );
    reg!(
        engine,
        "sum",
        "The sum of an integer property over a global zone's components (a component without it counts 0).",
        &["game: Game", "zone: &str", "prop: &str", "i64"],
        |h: &mut GameHandle, z: &str, prop: &str| sum(h, z, None, prop)
    );
    reg!(
        engine,
        "sum",
        "The sum of an integer property over a player's zone (a component without it counts 0).",
        &["game: Game", "zone: &str", "player: i64", "prop: &str", "i64"],
        |h: &mut GameHandle, z: &str, p: i64, prop: &str| sum(h, z, Some(p), prop)
    );
    reg!(
        engine,
        "holders",
        "The seats whose slot of a per-player zone holds at least one component, in seat order (who still has cards, who holds the token).",
        &["game: Game", "zone: &str", "Array"],
        |h: &mut GameHandle, z: &str| h.with(|r, w| holders_in(r, w, z, None))
    );
    reg!(
        engine,
        "top",
        "The top (last) component of a global zone, or `()` if empty.",
        &["game: Game", "zone: &str", "Dynamic"],
        |h: &mut GameHandle, z: &str| top(h, z, None)
    );
    reg!(
        engine,
        "top",
        "The top (last) component of a player's zone, or `()` if empty.",
        &["game: Game", "zone: &str", "player: i64", "Dynamic"],
        |h: &mut GameHandle, z: &str, p: i64| top(h, z, Some(p))
    );
    reg!(
        engine,
        "card",
        "The component with this id.",
        &["game: Game", "id: &str", "Component"],
        |h: &mut GameHandle, id: &str| {
            h.with(|_, w| {
                crate::reads::note_rules_only();
                let idx = w.state.component_index(id)?;
                Ok(card_map(&w.state, idx))
            })
        }
    );
    reg!(
        engine,
        "remove",
        "Takes a component out of play: it leaves its zone and lies nowhere (`zone_of` gives `()`, views no longer show it) until `move` brings it back. Seats that did not see it leave learn only that a component left that place.",
        &["game: Game", "component: Dynamic", "()"],
        |h: &mut GameHandle, card: Dynamic| {
            h.with(|r, w| {
                let idx = card_arg(&w.state, &card)?;
                w.state.remove(r, idx);
                Ok(())
            })
        }
    );
    reg!(
        engine,
        "zone_of",
        "Where a component is: `#{zone, owner}` (owner `()` for a global zone), or `()` if out of play.",
        &["game: Game", "component: Dynamic", "Dynamic"],
        |h: &mut GameHandle, card: Dynamic| {
            h.with(|r, w| {
                let idx = card_arg(&w.state, &card)?;
                crate::reads::note(crate::reads::Part::Location(idx as usize));
                let (z, o) = w.state.location[idx as usize];
                let mut m = Map::new();
                if (z, o) == NOWHERE {
                    return Ok(Dynamic::UNIT);
                }
                m.insert("zone".into(), r.zones[z as usize].name.clone().into());
                m.insert(
                    "owner".into(),
                    if r.zones[z as usize].per_player { Dynamic::from_int(o as i64) } else { Dynamic::UNIT },
                );
                Ok(Dynamic::from_map(m))
            })
        }
    );
    reg!(
        engine,
        "out_of_play",
        "Declares the zone, track, var or grid of this name out of play for the rest of the game (a module this game does not use): views leave it out. Scripts may still use it.",
        &["game: Game", "name: &str", "()"],
        |h: &mut GameHandle, name: &str| h.with(|r, w| {
            // Asked of the name indexes: a failed lookup would make an error message.
            let i = &r.index;
            let named = [&i.zones, &i.tracks, &i.vars, &i.grids].iter().any(|names| names.contains_key(name));
            if !named {
                return Err(format!("out_of_play: no zone, track, var or grid is called `{name}`"));
            }
            if !w.state.out_of_play.iter().any(|n| n == name) {
                w.keep(name.len() as u64, 0)?;
                w.state.out_of_play.push(name.to_string());
            }
            Ok(())
        })
    );
    reg!(engine, "set_visibility", "Overrides a global zone's declared visibility: public, owner, count, top, hidden, or default (back to the declaration).", &["game: Game", "zone: &str", "visibility: &str", "()"], |h: &mut GameHandle, z: &str, v: &str| set_visibility(h, z, None, v));
    reg!(
        engine,
        "set_visibility",
        "Overrides a player's zone visibility (e.g. an open hand).",
        &["game: Game", "zone: &str", "player: i64", "visibility: &str", "()"],
        |h: &mut GameHandle, z: &str, p: i64, v: &str| set_visibility(h, z, Some(p), v)
    );
}
