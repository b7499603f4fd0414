//! The functions game scripts call on `game`. Every one works through the [`GameHandle`] of
//! the current call, checks its arguments and fails with a message that names what was wrong.
//! This is the whole surface a script sees: no files, clock, environment or process.

use crate::def::Visibility;
use crate::log::{Event, EventKind};
use crate::rules::Rules;
use crate::script::{GameHandle, Work};
use crate::state::{Component, Components};
use crate::state::{Frame, State, NOWHERE};
use crate::value::Value;
use rhai::{Array, Dynamic, Engine, EvalAltResult, Map};
use std::sync::Arc;

type Res<T> = Result<T, Box<EvalAltResult>>;

/// A component as scripts see it: a light handle. `c.id`, `c.kind`, `c.label` and `c.PROP`
/// read its id, type, label and properties (as they were when the handle was taken); `()` for a missing one.
#[derive(Clone)]
pub struct ComponentHandle {
    idx: u32,
    components: Arc<Components>,
    rules: Arc<Rules>,
}

impl ComponentHandle {
    fn component(&self) -> &Component {
        &self.components.list[self.idx as usize]
    }

    /// The component's id.
    pub fn id(&self) -> &str {
        &self.component().id
    }

    fn get(&self, key: &str) -> Dynamic {
        let c = self.component();
        match key {
            "id" => c.id.clone().into(),
            "kind" => self.rules.component_types[c.kind].name.clone().into(),
            "label" => c.label().into(),
            _ => c.props.get(key).map(Value::to_dynamic).unwrap_or(Dynamic::UNIT),
        }
    }
}

/// The script value for a component.
pub fn card_map(rules: &Arc<Rules>, st: &State, idx: u32) -> Dynamic {
    Dynamic::from(ComponentHandle { idx, components: st.components.clone(), rules: rules.clone() })
}

/// The component a script value is, if it is a component handle.
pub(crate) fn component_index(d: &Dynamic) -> Option<u32> {
    d.read_lock::<ComponentHandle>().map(|h| h.idx)
}

/// A component argument: a component handle, an id string, or a map with an `id`.
pub(crate) fn card_arg(st: &State, d: &Dynamic) -> Result<u32, String> {
    if let Some(h) = d.read_lock::<ComponentHandle>() {
        return Ok(h.idx);
    }
    if d.is_string() {
        return st.component_index(&d.to_string());
    }
    if let Some(m) = d.read_lock::<Map>() {
        if let Some(id) = m.get("id") {
            return st.component_index(&id.to_string());
        }
    }
    Err(format!("expected a component or a component id, got {}", d.type_name()))
}

pub(crate) fn player(st: &State, p: i64) -> Result<usize, String> {
    if p >= 0 && (p as usize) < st.players {
        Ok(p as usize)
    } else {
        Err(format!("player {p} does not exist (players are 0..{})", st.players.saturating_sub(1)))
    }
}

fn slot(rules: &Rules, st: &State, zone: &str, owner: Option<i64>) -> Result<(usize, usize), String> {
    let z = rules.zone(zone)?;
    let owner = owner.map(|p| player(st, p)).transpose()?;
    Ok((z, st.slot_index(rules, z, owner)?))
}

pub(crate) fn per_player_index(
    per_player: bool,
    name: &str,
    what: &str,
    st: &State,
    owner: Option<i64>,
) -> Result<usize, String> {
    match (per_player, owner) {
        (true, Some(p)) => player(st, p),
        (true, None) => Err(format!("{what} `{name}` is per player: say whose")),
        (false, None) => Ok(0),
        (false, Some(_)) => Err(format!("{what} `{name}` is global: do not pass a player")),
    }
}

fn event(w: &mut Work, e: impl FnOnce() -> Event) {
    if w.logging {
        w.events.push(e());
    }
}

fn cards(h: &mut GameHandle, zone: &str, owner: Option<i64>) -> Res<Array> {
    h.with(|r, w| {
        let (z, o) = slot(r, &w.state, zone, owner)?;
        let mut ids = w.state.zones[z][o].cards.clone();
        crate::alloc::charge(ids.len());
        // An unordered zone lists its components in one fixed order (declaration order), the
        // same one views and decision options use.
        if !r.zones[z].ordered {
            ids.sort_unstable();
        }
        Ok(ids.into_iter().map(|c| card_map(r, &w.state, c)).collect())
    })
}

fn count(h: &mut GameHandle, zone: &str, owner: Option<i64>) -> Res<i64> {
    h.with(|r, w| {
        let (z, o) = slot(r, &w.state, zone, owner)?;
        Ok(w.state.zones[z][o].cards.len() as i64)
    })
}

fn top(h: &mut GameHandle, zone: &str, owner: Option<i64>) -> Res<Dynamic> {
    h.with(|r, w| {
        let (z, o) = slot(r, &w.state, zone, owner)?;
        Ok(w.state.zones[z][o].cards.last().map(|c| card_map(r, &w.state, *c)).unwrap_or(Dynamic::UNIT))
    })
}

/// Logs the components a move pushed out of a full zone.
fn log_pushed_out(r: &Rules, w: &mut Work) {
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

fn move_card(h: &mut GameHandle, card: Dynamic, zone: &str, owner: Option<i64>, bottom: bool) -> Res<()> {
    h.with(|r, w| {
        let idx = card_arg(&w.state, &card)?;
        let (z, o) = slot(r, &w.state, zone, owner)?;
        w.state.put(r, idx, z, o)?;
        log_pushed_out(r, w);
        if bottom {
            let cards = &mut w.state.zones[z][o].cards;
            let last = cards.pop().expect("just put");
            cards.insert(0, last);
        }
        Ok(())
    })
}

fn move_top(h: &mut GameHandle, from: &str, fo: Option<i64>, to: &str, to_o: Option<i64>) -> Res<Dynamic> {
    h.with(|r, w| {
        let (fz, fo) = slot(r, &w.state, from, fo)?;
        let (tz, to_o) = slot(r, &w.state, to, to_o)?;
        match w.state.zones[fz][fo].cards.last().copied() {
            None => Ok(Dynamic::UNIT),
            Some(idx) => {
                w.state.put(r, idx, tz, to_o)?;
                log_pushed_out(r, w);
                Ok(card_map(r, &w.state, idx))
            }
        }
    })
}

fn shuffle(h: &mut GameHandle, zone: &str, owner: Option<i64>) -> Res<()> {
    h.with(|r, w| {
        let (z, o) = slot(r, &w.state, zone, owner)?;
        let mut cards = std::mem::take(&mut w.state.zones[z][o].cards);
        crate::alloc::charge(cards.len());
        w.state.rng.shuffle(&mut cards);
        w.state.zones[z][o].cards = cards;
        let name = if r.zones[z].per_player {
            format!("{}'s {}", r.seat_name(o), r.zones[z].name)
        } else {
            r.zones[z].name.clone()
        };
        event(w, || Event::public(EventKind::Chance, format!("shuffled {name}")));
        Ok(())
    })
}

fn create(h: &mut GameHandle, kind: &str, props: Map, zone: &str, owner: Option<i64>) -> Res<Dynamic> {
    h.with(|r, w| {
        let k = r.component_type(kind)?;
        let (z, o) = slot(r, &w.state, zone, owner)?;
        let mut id = None;
        let mut p = indexmap::IndexMap::new();
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
        Ok(card_map(r, &w.state, idx))
    })
}

fn track(h: &mut GameHandle, name: &str, owner: Option<i64>) -> Res<i64> {
    h.with(|r, w| {
        let t = r.track(name)?;
        let o = per_player_index(r.tracks[t].per_player, name, "track", &w.state, owner)?;
        Ok(w.state.tracks[t][o])
    })
}

fn set_track(h: &mut GameHandle, name: &str, owner: Option<i64>, value: i64, add: bool) -> Res<i64> {
    h.with(|r, w| {
        let t = r.track(name)?;
        let o = per_player_index(r.tracks[t].per_player, name, "track", &w.state, owner)?;
        let v = if add { w.state.tracks[t][o].saturating_add(value) } else { value };
        w.state.set_track(r, t, o, v);
        Ok(w.state.tracks[t][o])
    })
}

fn var(h: &mut GameHandle, name: &str, owner: Option<i64>) -> Res<Dynamic> {
    h.with(|r, w| {
        let v = r.var(name)?;
        let o = per_player_index(r.vars[v].per_player, name, "var", &w.state, owner)?;
        if let Some(f) = &r.vars[v].derived {
            return Err(format!(
                "var `{name}` is derived: views compute it with `{}`; call that function instead",
                f.name
            ));
        }
        Ok(w.state.vars[v][o].to_dynamic())
    })
}

fn set_var(h: &mut GameHandle, name: &str, owner: Option<i64>, value: Dynamic) -> Res<()> {
    h.with(|r, w| {
        let v = r.var(name)?;
        let o = per_player_index(r.vars[v].per_player, name, "var", &w.state, owner)?;
        if let Some(f) = &r.vars[v].derived {
            return Err(format!(
                "var `{name}` is derived (computed by `{}` whenever a view shows it): it cannot be set",
                f.name
            ));
        }
        let value = w.take_value(&value)?;
        w.keep(value.approx_bytes(), w.state.vars[v][o].approx_bytes())?;
        w.state.vars[v][o] = value;
        Ok(())
    })
}

fn set_visibility(h: &mut GameHandle, zone: &str, owner: Option<i64>, vis: &str) -> Res<()> {
    h.with(|r, w| {
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
            other => {
                return Err(format!("unknown visibility `{other}`; use public, owner, count, top, hidden or default"))
            }
        };
        w.state.zones[z][o].visible = Some(v);
        Ok(())
    })
}

fn players_arg(st: &State, list: &Array) -> Result<Vec<usize>, String> {
    list.iter()
        .map(|d| d.as_int().map_err(|t| format!("expected player numbers, got {t}")).and_then(|p| player(st, p)))
        .collect()
}

fn push(h: &mut GameHandle, f: impl FnOnce(&Rules, &mut Work) -> Result<Frame, String>) -> Res<()> {
    h.with(|r, w| {
        let frame = f(r, w)?;
        w.pushed.push(frame);
        Ok(())
    })
}

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

/// A context a script passes with a pushed step, charged to the call's budget.
fn ctx_value(w: &mut Work, ctx: &Dynamic) -> Result<Value, String> {
    w.take_value(ctx)
}

/// Registers a documented function: its comment and parameter names become part of the
/// engine's metadata, from which `games/SCRIPT_API.md` is generated.
macro_rules! reg {
    ($engine:expr, $name:expr, $doc:expr, $params:expr, $f:expr) => {{
        let _ = rhai::FuncRegistration::new($name)
            .with_params_info($params)
            .with_comments([concat!("/// ", $doc)])
            .register_into_engine($engine, $f);
    }};
}
pub(crate) use reg;

/// Registers the `Game` type and every function scripts may call on it.
pub fn register(engine: &mut Engine) {
    engine.register_type_with_name::<GameHandle>("Game");
    engine.register_type_with_name::<ComponentHandle>("Component");
    reg!(
        engine,
        "index$get$",
        "`c.id`, `c.kind` (component type), `c.label` and `c.PROP` (a property, `()` if missing).",
        &["component: Component", "property: &str", "Dynamic"],
        |c: &mut ComponentHandle, key: &str| c.get(key)
    );
    reg!(
        engine,
        "==",
        "Two handles on the same component.",
        &["a: Component", "b: Component", "bool"],
        |a: &mut ComponentHandle, b: ComponentHandle| a.idx == b.idx
    );
    reg!(
        engine,
        "!=",
        "Handles on different components.",
        &["a: Component", "b: Component", "bool"],
        |a: &mut ComponentHandle, b: ComponentHandle| a.idx != b.idx
    );
    reg!(engine, "to_string", "The component's id.", &["component: Component", "String"], |c: &mut ComponentHandle| c
        .id()
        .to_string());
    reg!(
        engine,
        "to_debug",
        "`Component(id)`.",
        &["component: Component", "String"],
        |c: &mut ComponentHandle| format!("Component({})", c.id())
    );
    reg!(
        engine,
        "props",
        "All the component's properties as a map.",
        &["component: Component", "Map"],
        |c: &mut ComponentHandle| {
            let mut m = Map::new();
            for (k, v) in c.component().props.iter() {
                m.insert(k.as_str().into(), v.to_dynamic());
            }
            m
        }
    );

    // Players and turns.
    reg!(engine, "get$players", "The number of seats.", &["game: Game", "i64"], |h: &mut GameHandle| h
        .with(|_, w| Ok(w.state.players as i64)));
    reg!(
        engine,
        "get$logging",
        "Whether the game records its log (false in simulations): skip building log text when it is not.",
        &["game: Game", "bool"],
        |h: &mut GameHandle| h.with(|_, w| Ok(w.logging))
    );
    reg!(engine, "get$current", "The current player (0-based seat).", &["game: Game", "i64"], |h: &mut GameHandle| h
        .with(|_, w| Ok(w.state.current as i64)));
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
        |h: &mut GameHandle| {
            h.with(|_, w| Ok(w.state.turn_order.iter().map(|p| Dynamic::from_int(*p as i64)).collect::<Array>()))
        }
    );
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
        |h: &mut GameHandle, p: i64| h.with(|r, w| Ok(r.seat_name(player(&w.state, p)?)))
    );

    // Direct getters for the handle's own fields (faster than the indexer fallback).
    reg!(engine, "get$id", "The component's id.", &["component: Component", "String"], |c: &mut ComponentHandle| c
        .id()
        .to_string());
    reg!(
        engine,
        "get$kind",
        "The component's type.",
        &["component: Component", "String"],
        |c: &mut ComponentHandle| c.get("kind")
    );
    reg!(
        engine,
        "get$label",
        "The component's label (its type's label template filled in).",
        &["component: Component", "String"],
        |c: &mut ComponentHandle| c.get("label")
    );

    // Plain helpers.
    reg!(
        engine,
        "join",
        "The items' texts joined with a separator (`[1, 2].join(\", \")` is `\"1, 2\"`).",
        &["list: Array", "separator: &str", "String"],
        |a: &mut Array, sep: &str| {
            crate::alloc::charge(a.len());
            a.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(sep)
        }
    );

    // Parameters and tables.
    reg!(
        engine,
        "param",
        "The value in force of a declared parameter.",
        &["game: Game", "name: &str", "Dynamic"],
        |h: &mut GameHandle, name: &str| {
            h.with(|r, _| {
                r.params
                    .get(name)
                    .map(|p| p.value.to_dynamic())
                    .ok_or_else(|| crate::rules::unknown("parameter", name, r.params.keys()))
            })
        }
    );
    reg!(
        engine,
        "table",
        "A data table declared under `[tables]`.",
        &["game: Game", "name: &str", "Dynamic"],
        |h: &mut GameHandle, name: &str| {
            h.with(|r, _| {
                r.tables
                    .get(name)
                    .map(Value::to_dynamic)
                    .ok_or_else(|| crate::rules::unknown("table", name, r.tables.keys()))
            })
        }
    );

    // Zones and components.
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
            h.with(|r, w| {
                let idx = w.state.component_index(id)?;
                Ok(card_map(r, &w.state, idx))
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
                    let Some(idx) = w.state.zones[fz][fo].cards.last().copied() else {
                        break 'dealing;
                    };
                    w.state.put(r, idx, tz, p)?;
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
                std::sync::Arc::make_mut(&mut w.state.components).list[idx as usize].set_prop(r, key, v);
                Ok(())
            })
        }
    );
    reg!(
        engine,
        "out_of_play",
        "Declares the zone, track, var or grid of this name out of play for the rest of the game (a module this game does not use): views leave it out. Scripts may still use it.",
        &["game: Game", "name: &str", "()"],
        |h: &mut GameHandle, name: &str| h.with(|r, w| {
            if r.zone(name).is_err() && r.track(name).is_err() && r.var(name).is_err() && r.grid(name).is_err() {
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

    // Graphs (static: nodes and edges as maps with their properties).
    reg!(
        engine,
        "nodes",
        "A graph's nodes as maps (id and properties), in declaration order.",
        &["game: Game", "graph: &str", "Array"],
        |h: &mut GameHandle, g: &str| {
            h.with(|r, _| Ok(r.graph(g)?.nodes.iter().map(|n| n.props.to_dynamic()).collect::<Array>()))
        }
    );
    reg!(
        engine,
        "node",
        "One node of a graph.",
        &["game: Game", "graph: &str", "id: &str", "Map"],
        |h: &mut GameHandle, g: &str, id: &str| {
            h.with(|r, _| {
                let graph = r.graph(g)?;
                Ok(graph.nodes[graph.node(id)?].props.to_dynamic())
            })
        }
    );
    reg!(
        engine,
        "edges",
        "A graph's edges as maps (id, from, to and properties).",
        &["game: Game", "graph: &str", "Array"],
        |h: &mut GameHandle, g: &str| {
            h.with(|r, _| Ok(r.graph(g)?.edges.iter().map(|e| e.props.to_dynamic()).collect::<Array>()))
        }
    );
    reg!(
        engine,
        "edge",
        "One edge of a graph.",
        &["game: Game", "graph: &str", "id: &str", "Map"],
        |h: &mut GameHandle, g: &str, id: &str| {
            h.with(|r, _| {
                let graph = r.graph(g)?;
                Ok(graph.edges[graph.edge(id)?].props.to_dynamic())
            })
        }
    );
    reg!(
        engine,
        "edges_at",
        "The edges touching a node (leaving it, for a directed graph).",
        &["game: Game", "graph: &str", "node: &str", "Array"],
        |h: &mut GameHandle, g: &str, node: &str| {
            h.with(|r, _| {
                let graph = r.graph(g)?;
                Ok(graph.incident[graph.node(node)?]
                    .iter()
                    .map(|e| graph.edges[*e].props.to_dynamic())
                    .collect::<Array>())
            })
        }
    );
    reg!(
        engine,
        "other_end",
        "The node at the other end of an edge from `node`.",
        &["game: Game", "graph: &str", "edge: &str", "node: &str", "String"],
        |h: &mut GameHandle, g: &str, edge: &str, node: &str| {
            h.with(|r, _| {
                let graph = r.graph(g)?;
                let (a, b) = graph.ends[graph.edge(edge)?];
                let n = graph.node(node)?;
                let other = if a == n {
                    b
                } else if b == n {
                    a
                } else {
                    return Err(format!("edge `{edge}` does not touch node `{node}`"));
                };
                Ok(graph.nodes[other].id.clone())
            })
        }
    );
    reg!(
        engine,
        "distance",
        "The fewest edges between two nodes, or -1 if unreachable.",
        &["game: Game", "graph: &str", "from: &str", "to: &str", "i64"],
        |h: &mut GameHandle, g: &str, from: &str, to: &str| {
            h.with(|r, _| {
                let graph = r.graph(g)?;
                Ok(graph.distance(graph.node(from)?, graph.node(to)?).map_or(-1, |d| d as i64))
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
                let x = w.state.rng.below(n as u64) as i64;
                // Bookkeeping for the omniscient log (replays, debugging), not a seat's log: a
                // rule that draws in the open says what came out in its own words.
                event(w, || Event::private(EventKind::Chance, Vec::new(), format!("random draw: {x} of 0..{}", n - 1), None));
                Ok(x)
            })
        }
    );

    // Tracks and variables.
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
        |h: &mut GameHandle, t: &str, pos: i64| {
            h.with(|r, _| {
                let ti = r.track(t)?;
                let info = &r.tracks[ti];
                let i = pos - info.min.unwrap_or(0);
                Ok(usize::try_from(i)
                    .ok()
                    .and_then(|i| info.spaces.get(i))
                    .map(Value::to_dynamic)
                    .unwrap_or(Dynamic::UNIT))
            })
        }
    );
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

    crate::api_grid::register(engine);
}
