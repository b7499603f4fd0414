//! The grid functions scripts call on `game` (`grid_at`, `grid_place`, `grid_fits`, ...):
//! reading and changing the pieces of a declared grid, with the checks of [`crate::grid`].
//! Every misuse (off the grid, an occupied cell, a tile that does not fit, an unknown piece)
//! is a script error that says why.

use crate::api::{card_arg, component_index, per_player_index, reg};
use crate::grid::{check_place, misfit, turn, GridInfo, GridSlot, Piece, Pieces, Placed, DIRS};
use crate::rules::Rules;
use crate::script::{GameHandle, Work};
use crate::state::State;
use crate::value::Value;
use rhai::{Array, Dynamic, EvalAltResult, Map};

type Res<T> = Result<T, Box<EvalAltResult>>;

/// What a placement costs the game's memory budget.
const PLACED_BYTES: u64 = 32;

/// The grid's index and the copy's slot (owner 0 for a global grid).
fn grid_slot(r: &Rules, st: &State, name: &str, owner: Option<i64>) -> Result<(usize, usize), String> {
    let g = r.grid(name)?;
    Ok((g, per_player_index(r.grids[g].per_player, name, "grid", st, owner)?))
}

/// A piece argument: a component handle, a component id, a map with an `id`, or one of the
/// grid's markers.
fn piece_arg(info: &GridInfo, st: &State, d: &Dynamic) -> Result<Piece, String> {
    if component_index(d).is_none() {
        if let Some(id) = d.read_lock::<rhai::ImmutableString>() {
            if let Some(i) = info.markers.iter().position(|m| m.as_str() == id.as_str()) {
                return Ok(Piece::Marker(i as u32));
            }
            if !st.components.by_id.contains_key(id.as_str()) {
                return Err(format!("`{}` is neither a component nor a marker of grid `{}`", id.as_str(), info.name));
            }
        }
    }
    card_arg(st, d).map(Piece::Component)
}

/// The pieces of a game as the checks see them.
struct GamePieces<'a> {
    rules: &'a Rules,
    state: &'a State,
    grid: &'a GridInfo,
}

impl Pieces for GamePieces<'_> {
    fn name(&self, piece: Piece) -> String {
        match piece {
            Piece::Component(i) => self.state.components.list[i as usize].id.clone(),
            Piece::Marker(i) => self.grid.markers[i as usize].to_string(),
        }
    }

    fn edges(&self, piece: Piece) -> Result<Option<[&str; 4]>, String> {
        let Piece::Component(i) = piece else { return Ok(None) };
        let c = &self.state.components.list[i as usize];
        let Some(key) = &self.rules.component_types[c.kind].edges else { return Ok(None) };
        let bad = || format!("component `{}`: its `{key}` property must hold 4 edges (N, E, S, W) as strings", c.id);
        match c.props.get(key) {
            Some(Value::List(l)) if l.len() == 4 => {
                let mut out = [""; 4];
                for (o, v) in out.iter_mut().zip(l) {
                    let Value::Str(s) = v else { return Err(bad()) };
                    *o = s;
                }
                Ok(Some(out))
            }
            _ => Err(bad()),
        }
    }
}

/// `#{row, col, id, rot}` (and `edges` as it lies, for a piece with edges). The map is a copy
/// of one made once, its values set in key order (no search or sort per entry).
fn placed_map(p: &GamePieces<'_>, at: &Placed) -> Result<Dynamic, String> {
    static KEYS: std::sync::OnceLock<Map> = std::sync::OnceLock::new();
    let id = match at.piece {
        // The component's id as scripts read it (`c.id`): a shared copy.
        Piece::Component(i) => p.state.components.list[i as usize].script_values().id.clone(),
        // The marker's name, as the grid keeps it for scripts: a shared copy.
        Piece::Marker(i) => Dynamic::from(p.grid.markers[i as usize].clone()),
    };
    let mut m = KEYS
        .get_or_init(|| ["col", "id", "rot", "row"].into_iter().map(|k| (k.into(), Dynamic::UNIT)).collect())
        .clone();
    let values = [Dynamic::from_int(at.col), id, Dynamic::from_int(i64::from(at.rot)), Dynamic::from_int(at.row)];
    for (slot, v) in m.values_mut().zip(values) {
        // The template's values are all `()`, which own nothing: nothing to drop.
        std::mem::forget(std::mem::replace(slot, v));
    }
    if let Some(e) = p.edges(at.piece)? {
        m.insert("edges".into(), edges_array(&turn(&e, at.rot)));
    }
    Ok(Dynamic::from_map(m))
}

fn edges_array(e: &[&str; 4]) -> Dynamic {
    Dynamic::from_array(e.iter().map(|s| Dynamic::from(s.to_string())).collect())
}

fn cell_map(row: i64, col: i64) -> Map {
    let mut m = Map::new();
    m.insert("row".into(), Dynamic::from_int(row));
    m.insert("col".into(), Dynamic::from_int(col));
    m
}

fn quarter_turns(rot: i64) -> u8 {
    rot.rem_euclid(4) as u8
}

/// Runs `f` with the grid's declaration, its copy and the pieces' view of the game.
fn read<T>(
    h: &mut GameHandle,
    grid: &str,
    owner: Option<i64>,
    f: impl FnOnce(&GamePieces<'_>, &GridSlot) -> Result<T, String>,
) -> Res<T> {
    h.with(|r, w| {
        let (g, o) = grid_slot(r, &w.state, grid, owner)?;
        crate::reads::note(crate::reads::Part::Grid(g, Some(o)));
        let pieces = GamePieces { rules: r, state: &w.state, grid: &r.grids[g] };
        f(&pieces, &w.state.grids[g][o])
    })
}

/// Checks a placement (or a move, when the piece is already there) and returns where the
/// piece stands now, if anywhere.
fn checked(
    r: &Rules,
    w: &Work,
    (g, o): (usize, usize),
    piece: &Dynamic,
    at: (i64, i64, u8),
    moving: bool,
) -> Result<(Piece, Option<usize>), String> {
    let info = &r.grids[g];
    let slot = &w.state.grids[g][o];
    let piece = piece_arg(info, &w.state, piece)?;
    let pieces = GamePieces { rules: r, state: &w.state, grid: info };
    let old = if moving {
        Some(slot.find(piece).ok_or_else(|| format!("`{}` is not on grid `{}`", pieces.name(piece), info.name))?)
    } else {
        None
    };
    check_place(info, slot, &pieces, piece, at, old)
        .map_err(|e| format!("`{}` cannot go to grid `{}`: {e}", pieces.name(piece), info.name))?;
    Ok((piece, old))
}

fn fits(h: &mut GameHandle, grid: &str, owner: Option<i64>, piece: Dynamic, row: i64, col: i64, rot: i64) -> Res<bool> {
    h.with(|r, w| {
        let (g, o) = grid_slot(r, &w.state, grid, owner)?;
        let info = &r.grids[g];
        // An unknown piece is a mistake, not a misfit.
        let piece = piece_arg(info, &w.state, &piece)?;
        let pieces = GamePieces { rules: r, state: &w.state, grid: info };
        Ok(misfit(info, &w.state.grids[g][o], &pieces, piece, (row, col, quarter_turns(rot)), None).is_ok())
    })
}

fn place(h: &mut GameHandle, grid: &str, owner: Option<i64>, piece: Dynamic, row: i64, col: i64, rot: i64) -> Res<()> {
    h.with(|r, w| {
        let (g, o) = grid_slot(r, &w.state, grid, owner)?;
        let rot = quarter_turns(rot);
        let (piece, _) = checked(r, w, (g, o), &piece, (row, col, rot), false)?;
        w.keep(PLACED_BYTES, 0)?;
        w.state.grids[g][o].insert(Placed { row, col, piece, rot });
        Ok(())
    })
}

fn move_piece(h: &mut GameHandle, grid: &str, owner: Option<i64>, piece: Dynamic, row: i64, col: i64) -> Res<()> {
    h.with(|r, w| {
        let (g, o) = grid_slot(r, &w.state, grid, owner)?;
        let info = &r.grids[g];
        let p = piece_arg(info, &w.state, &piece)?;
        let rot = w.state.grids[g][o].find(p).map_or(0, |i| w.state.grids[g][o].placed[i].rot);
        let (p, old) = checked(r, w, (g, o), &piece, (row, col, rot), true)?;
        let slot = &mut w.state.grids[g][o];
        slot.placed.remove(old.expect("a move starts on the grid"));
        slot.insert(Placed { row, col, piece: p, rot });
        Ok(())
    })
}

fn remove(h: &mut GameHandle, grid: &str, owner: Option<i64>, piece: Dynamic) -> Res<bool> {
    h.with(|r, w| {
        let (g, o) = grid_slot(r, &w.state, grid, owner)?;
        let p = piece_arg(&r.grids[g], &w.state, &piece)?;
        match w.state.grids[g][o].find(p) {
            Some(i) => {
                w.state.grids[g][o].placed.remove(i);
                w.keep(0, PLACED_BYTES)?;
                Ok(true)
            }
            None => Ok(false),
        }
    })
}

fn clear(h: &mut GameHandle, grid: &str, owner: Option<i64>) -> Res<()> {
    h.with(|r, w| {
        let (g, o) = grid_slot(r, &w.state, grid, owner)?;
        let n = std::mem::take(&mut w.state.grids[g][o].placed).len() as u64;
        w.keep(0, n * PLACED_BYTES)
    })
}

fn at(h: &mut GameHandle, grid: &str, owner: Option<i64>, row: i64, col: i64) -> Res<Dynamic> {
    read(h, grid, owner, |p, slot| Ok(slot.at(row, col).first().map_or(Dynamic::UNIT, |x| p.name(x.piece).into())))
}

fn find(h: &mut GameHandle, grid: &str, owner: Option<i64>, piece: Dynamic) -> Res<Dynamic> {
    read(h, grid, owner, |p, slot| {
        let piece = piece_arg(p.grid, p.state, &piece)?;
        slot.find(piece).map_or(Ok(Dynamic::UNIT), |i| placed_map(p, &slot.placed[i]))
    })
}

fn cells(h: &mut GameHandle, grid: &str, owner: Option<i64>) -> Res<Array> {
    read(h, grid, owner, |p, slot| {
        crate::alloc::charge(slot.placed.len());
        slot.placed.iter().map(|x| placed_map(p, x)).collect()
    })
}

fn neighbours(h: &mut GameHandle, grid: &str, owner: Option<i64>, row: i64, col: i64) -> Res<Array> {
    read(h, grid, owner, |p, slot| {
        let mut out = Array::new();
        for (d, dir) in DIRS.iter().enumerate() {
            let (r, c) = p.grid.step(row, col, d);
            if !p.grid.on_grid(r, c) {
                continue;
            }
            let mut m = cell_map(r, c);
            m.insert("dir".into(), (*dir).into());
            m.insert("id".into(), slot.at(r, c).first().map_or(Dynamic::UNIT, |x| p.name(x.piece).into()));
            out.push(Dynamic::from_map(m));
        }
        Ok(out)
    })
}

fn open(h: &mut GameHandle, grid: &str, owner: Option<i64>) -> Res<Array> {
    read(h, grid, owner, |p, slot| {
        crate::alloc::charge(slot.placed.len() * 4);
        let mut free = std::collections::BTreeSet::new();
        for x in &slot.placed {
            for d in 0..4 {
                let (r, c) = p.grid.step(x.row, x.col, d);
                if p.grid.on_grid(r, c) && slot.at(r, c).is_empty() {
                    free.insert((r, c));
                }
            }
        }
        Ok(free.into_iter().map(|(r, c)| Dynamic::from_map(cell_map(r, c))).collect())
    })
}

fn links(h: &mut GameHandle, grid: &str, owner: Option<i64>) -> Res<Array> {
    read(h, grid, owner, |p, slot| {
        crate::alloc::charge(slot.placed.len() * 2);
        let mut out = Array::new();
        for x in &slot.placed {
            let Some(mine) = p.edges(x.piece)? else { continue };
            let mine = turn(&mine, x.rot);
            // Each touching pair once: with the piece to the east and the one to the south.
            for d in [1, 2] {
                let (r, c) = p.grid.step(x.row, x.col, d);
                let Some(other) = slot.at(r, c).first() else { continue };
                let Some(theirs) = p.edges(other.piece)? else { continue };
                let theirs = turn(&theirs, other.rot);
                let mut m = cell_map(x.row, x.col);
                m.insert("id".into(), p.name(x.piece).into());
                m.insert("other".into(), p.name(other.piece).into());
                add_edges(&mut m, p.grid, d, mine[d], theirs[(d + 2) % 4]);
                out.push(Dynamic::from_map(m));
            }
        }
        Ok(out)
    })
}

/// Adds `dir`, the edges `a` (this side) and `b` (the other), `matches` and `symbol`.
fn add_edges(m: &mut Map, grid: &GridInfo, d: usize, a: &str, b: &str) {
    m.insert("dir".into(), DIRS[d].into());
    m.insert("a".into(), a.to_string().into());
    m.insert("b".into(), b.to_string().into());
    let (ok, symbol) = match &grid.rule {
        Some(rule) => (rule.matches(a, b), rule.symbol(a, b)),
        None => (a == b, Some(a)),
    };
    m.insert("matches".into(), ok.into());
    m.insert("symbol".into(), symbol.map_or(Dynamic::UNIT, |s| s.to_string().into()));
}

fn touches(
    h: &mut GameHandle,
    grid: &str,
    owner: Option<i64>,
    piece: Dynamic,
    row: i64,
    col: i64,
    rot: i64,
) -> Res<Array> {
    read(h, grid, owner, |p, slot| {
        let piece = piece_arg(p.grid, p.state, &piece)?;
        let mine = p.edges(piece)?.ok_or_else(|| format!("`{}` has no edges", p.name(piece)))?;
        let mine = turn(&mine, quarter_turns(rot));
        let mut out = Array::new();
        for d in 0..4 {
            let (r, c) = p.grid.step(row, col, d);
            let Some(other) = slot.at(r, c).first() else { continue };
            let Some(theirs) = p.edges(other.piece)? else { continue };
            let theirs = turn(&theirs, other.rot);
            let mut m = cell_map(r, c);
            m.insert("id".into(), p.name(other.piece).into());
            add_edges(&mut m, p.grid, d, mine[d], theirs[(d + 2) % 4]);
            out.push(Dynamic::from_map(m));
        }
        Ok(out)
    })
}

/// Registers the grid functions.
pub fn register(engine: &mut crate::compiled::Registry) {
    reg!(
        engine,
        "grid_on",
        "Whether row, column is a cell of the grid (inside its bounds; anywhere for an unbounded grid).",
        &["game: Game", "grid: &str", "row: i64", "col: i64", "bool"],
        |h: &mut GameHandle, g: &str, row: i64, col: i64| h.with(|r, _| {
            crate::reads::note_rules_only();
            Ok(r.grids[r.grid(g)?].on_grid(row, col))
        })
    );
    reg!(
        engine,
        "grid_data",
        "A cell's declared data (the `cells` entry: `row`, `col` and its properties), or `()`.",
        &["game: Game", "grid: &str", "row: i64", "col: i64", "Dynamic"],
        |h: &mut GameHandle, g: &str, row: i64, col: i64| {
            h.with(|r, _| {
                crate::reads::note_rules_only();
                Ok(r.grids[r.grid(g)?].data(row, col).to_dynamic())
            })
        }
    );
    reg!(
        engine,
        "grid_edges",
        "A component's edges N, E, S, W after `rot` quarter turns clockwise (its type declares `edges`).",
        &["game: Game", "component: Dynamic", "rot: i64", "Array"],
        |h: &mut GameHandle, c: Dynamic, rot: i64| {
            h.with(|r, w| {
                let idx = card_arg(&w.state, &c)?;
                let info = GridInfo::default();
                let p = GamePieces { rules: r, state: &w.state, grid: &info };
                let e = p.edges(Piece::Component(idx))?.ok_or_else(|| {
                    format!("component `{}`: its type declares no `edges`", w.state.components.list[idx as usize].id)
                })?;
                Ok(edges_array(&turn(&e, quarter_turns(rot))).into_array().unwrap_or_default())
            })
        }
    );
    reg!(
        engine,
        "grid_at",
        "The id of the (first) piece in a cell of a global grid, or `()` if it is empty.",
        &["game: Game", "grid: &str", "row: i64", "col: i64", "Dynamic"],
        |h: &mut GameHandle, g: &str, row: i64, col: i64| at(h, g, None, row, col)
    );
    reg!(
        engine,
        "grid_at",
        "The id of the (first) piece in a cell of a player's grid, or `()`.",
        &["game: Game", "grid: &str", "player: i64", "row: i64", "col: i64", "Dynamic"],
        |h: &mut GameHandle, g: &str, p: i64, row: i64, col: i64| at(h, g, Some(p), row, col)
    );
    reg!(
        engine,
        "grid_find",
        "Where a piece (component, id or marker) stands on a global grid: `#{row, col, id, rot}` (and `edges` as it lies), or `()`.",
        &["game: Game", "grid: &str", "piece: Dynamic", "Dynamic"],
        |h: &mut GameHandle, g: &str, piece: Dynamic| find(h, g, None, piece)
    );
    reg!(
        engine,
        "grid_find",
        "Where a piece stands on a player's grid, or `()`.",
        &["game: Game", "grid: &str", "player: i64", "piece: Dynamic", "Dynamic"],
        |h: &mut GameHandle, g: &str, p: i64, piece: Dynamic| find(h, g, Some(p), piece)
    );
    reg!(
        engine,
        "grid_cells",
        "Every piece of a global grid as `#{row, col, id, rot}` (and `edges` as it lies), by row then column.",
        &["game: Game", "grid: &str", "Array"],
        |h: &mut GameHandle, g: &str| cells(h, g, None)
    );
    reg!(
        engine,
        "grid_cells",
        "Every piece of a player's grid, by row then column.",
        &["game: Game", "grid: &str", "player: i64", "Array"],
        |h: &mut GameHandle, g: &str, p: i64| cells(h, g, Some(p))
    );
    reg!(
        engine,
        "grid_neighbours",
        "The cells next to row, column on a global grid (N, E, S, W, those on the grid): `#{dir, row, col, id}` (`id` is `()` for an empty cell).",
        &["game: Game", "grid: &str", "row: i64", "col: i64", "Array"],
        |h: &mut GameHandle, g: &str, row: i64, col: i64| neighbours(h, g, None, row, col)
    );
    reg!(
        engine,
        "grid_neighbours",
        "The cells next to row, column on a player's grid.",
        &["game: Game", "grid: &str", "player: i64", "row: i64", "col: i64", "Array"],
        |h: &mut GameHandle, g: &str, p: i64, row: i64, col: i64| neighbours(h, g, Some(p), row, col)
    );
    reg!(
        engine,
        "grid_open",
        "The empty cells of a global grid next to a piece, as `#{row, col}`, by row then column.",
        &["game: Game", "grid: &str", "Array"],
        |h: &mut GameHandle, g: &str| open(h, g, None)
    );
    reg!(
        engine,
        "grid_open",
        "The empty cells of a player's grid next to a piece.",
        &["game: Game", "grid: &str", "player: i64", "Array"],
        |h: &mut GameHandle, g: &str, p: i64| open(h, g, Some(p))
    );
    reg!(
        engine,
        "grid_links",
        "Every two touching pieces with edges on a global grid, once each (the second east or south of the first): `#{row, col, dir, id, other, a, b, matches, symbol}`; `symbol` is what the match shows (`()` for blanks or no match).",
        &["game: Game", "grid: &str", "Array"],
        |h: &mut GameHandle, g: &str| links(h, g, None)
    );
    reg!(
        engine,
        "grid_links",
        "Every two touching pieces with edges on a player's grid, once each.",
        &["game: Game", "grid: &str", "player: i64", "Array"],
        |h: &mut GameHandle, g: &str, p: i64| links(h, g, Some(p))
    );
    reg!(
        engine,
        "grid_touches",
        "The pieces with edges a piece would touch at row, column of a global grid turned `rot` times, N, E, S, W: `#{dir, row, col, id, a, b, matches, symbol}` (`a` its edge, `b` theirs; `symbol` as in `grid_links`).",
        &["game: Game", "grid: &str", "piece: Dynamic", "row: i64", "col: i64", "rot: i64", "Array"],
        |h: &mut GameHandle, g: &str, piece: Dynamic, row: i64, col: i64, rot: i64| {
            touches(h, g, None, piece, row, col, rot)
        }
    );
    reg!(
        engine,
        "grid_touches",
        "The pieces with edges a piece would touch at row, column of a player's grid turned `rot` times.",
        &["game: Game", "grid: &str", "player: i64", "piece: Dynamic", "row: i64", "col: i64", "rot: i64", "Array"],
        |h: &mut GameHandle, g: &str, p: i64, piece: Dynamic, row: i64, col: i64, rot: i64| {
            touches(h, g, Some(p), piece, row, col, rot)
        }
    );
    reg!(
        engine,
        "grid_fits",
        "Whether a piece may be placed on a global grid at row, column turned `rot` quarter turns clockwise: on the grid, room in the cell, next to a piece if the grid is `connected`, every touching edge matching.",
        &["game: Game", "grid: &str", "piece: Dynamic", "row: i64", "col: i64", "rot: i64", "bool"],
        |h: &mut GameHandle, g: &str, piece: Dynamic, row: i64, col: i64, rot: i64| {
            fits(h, g, None, piece, row, col, rot)
        }
    );
    reg!(
        engine,
        "grid_fits",
        "Whether a piece may be placed on a player's grid at row, column turned `rot` times.",
        &["game: Game", "grid: &str", "player: i64", "piece: Dynamic", "row: i64", "col: i64", "rot: i64", "bool"],
        |h: &mut GameHandle, g: &str, p: i64, piece: Dynamic, row: i64, col: i64, rot: i64| {
            fits(h, g, Some(p), piece, row, col, rot)
        }
    );
    reg!(
        engine,
        "grid_place",
        "Places a piece on a global grid at row, column turned `rot` quarter turns clockwise; an error says why it may not go there.",
        &["game: Game", "grid: &str", "piece: Dynamic", "row: i64", "col: i64", "rot: i64", "()"],
        |h: &mut GameHandle, g: &str, piece: Dynamic, row: i64, col: i64, rot: i64| {
            place(h, g, None, piece, row, col, rot)
        }
    );
    reg!(
        engine,
        "grid_place",
        "Places a piece on a player's grid.",
        &["game: Game", "grid: &str", "player: i64", "piece: Dynamic", "row: i64", "col: i64", "rot: i64", "()"],
        |h: &mut GameHandle, g: &str, p: i64, piece: Dynamic, row: i64, col: i64, rot: i64| {
            place(h, g, Some(p), piece, row, col, rot)
        }
    );
    reg!(
        engine,
        "grid_move",
        "Moves a piece already on a global grid to another cell (keeping its turn), with the checks of `grid_place`.",
        &["game: Game", "grid: &str", "piece: Dynamic", "row: i64", "col: i64", "()"],
        |h: &mut GameHandle, g: &str, piece: Dynamic, row: i64, col: i64| move_piece(h, g, None, piece, row, col)
    );
    reg!(
        engine,
        "grid_move",
        "Moves a piece on a player's grid to another cell.",
        &["game: Game", "grid: &str", "player: i64", "piece: Dynamic", "row: i64", "col: i64", "()"],
        |h: &mut GameHandle, g: &str, p: i64, piece: Dynamic, row: i64, col: i64| {
            move_piece(h, g, Some(p), piece, row, col)
        }
    );
    reg!(
        engine,
        "grid_remove",
        "Takes a piece off a global grid; false if it was not there.",
        &["game: Game", "grid: &str", "piece: Dynamic", "bool"],
        |h: &mut GameHandle, g: &str, piece: Dynamic| remove(h, g, None, piece)
    );
    reg!(
        engine,
        "grid_remove",
        "Takes a piece off a player's grid; false if it was not there.",
        &["game: Game", "grid: &str", "player: i64", "piece: Dynamic", "bool"],
        |h: &mut GameHandle, g: &str, p: i64, piece: Dynamic| remove(h, g, Some(p), piece)
    );
    reg!(
        engine,
        "grid_clear",
        "Takes every piece off a global grid.",
        &["game: Game", "grid: &str", "()"],
        |h: &mut GameHandle, g: &str| clear(h, g, None)
    );
    reg!(
        engine,
        "grid_clear",
        "Takes every piece off a player's grid.",
        &["game: Game", "grid: &str", "player: i64", "()"],
        |h: &mut GameHandle, g: &str, p: i64| clear(h, g, Some(p))
    );
}
