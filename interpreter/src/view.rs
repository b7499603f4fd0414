//! [`View`]: what one seat may see, derived from declared visibility only. Bots and front
//! ends receive views, never the state, so they cannot see what the seat cannot.

use crate::def::{Holds, Visibility};
use crate::grid::{GridSlot, Piece, Placed};
use crate::reads::Reads;
use crate::rules::Rules;
use crate::session::OptionInfo;
use crate::state::{Outcome, State};
use crate::value::Value;
use crate::{Game, PlayError};
use serde::Serialize;
use std::sync::{Arc, OnceLock};

/// A component as a viewer sees it (made once per component: see
/// [`crate::state::Component::card_view`]).
pub use crate::state::CardView;

/// A zone as a viewer sees it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ZoneView {
    /// Zone name.
    pub name: String,
    /// Owner, for per-player zones.
    pub owner: Option<usize>,
    /// Number of components, if the viewer may know it.
    pub count: Option<usize>,
    /// The components the viewer may see (all, the top one, or none).
    pub cards: Vec<Arc<CardView>>,
    /// For a zone declared with `places`, when the viewer sees it all: each place in order,
    /// with the component on it (empty places too, up to the capacity).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub places: Vec<PlaceView>,
}

/// A numbered place of a zone (a numbered cell, a seat at a table).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PlaceView {
    /// The place's label (`cell 1`).
    pub label: String,
    /// The component on it, if any.
    pub card: Option<Arc<CardView>>,
}

/// A track or variable value as a viewer sees it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ValueView {
    /// Name.
    pub name: String,
    /// Owner, for per-player values.
    pub owner: Option<usize>,
    /// The value.
    pub value: Value,
    /// For a track whose spaces carry data with a `name`: the name of the space it is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub space: Option<String>,
    /// For a var that holds a seat or a component: the value as a player reads it (the
    /// seat's name, `nobody`, the component's label when the viewer sees the component).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shown: Option<String>,
}

/// Components a rule has shown to the whole table, still on display for the viewer.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ShownView {
    /// What was shown (`P1 shows three cards`).
    pub caption: String,
    /// The components, in the order shown.
    pub cards: Vec<Arc<CardView>>,
}

/// A piece on a grid as a viewer sees it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PieceView {
    /// The component's id, or the marker.
    pub id: String,
    /// Its short label on the grid (the grid's `piece_label`, or the id).
    pub label: String,
    /// Quarter turns clockwise.
    pub rot: u8,
    /// Its edges N, E, S, W as it lies, for a component whose type declares edges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edges: Option<Vec<String>>,
}

/// A cell of a grid that has a label or pieces.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CellView {
    /// Row.
    pub row: i64,
    /// Column.
    pub col: i64,
    /// The cell's label (the grid's `cell_label` filled from the cell's data), if not empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The pieces in it, first arrived first.
    pub pieces: Vec<PieceView>,
}

/// A grid the viewer may see (by its declared visibility, like a var): the rows and columns
/// to draw and the cells worth drawing.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct GridView {
    /// Grid name.
    pub name: String,
    /// Owner, for per-player grids.
    pub owner: Option<usize>,
    /// What it is.
    pub description: String,
    /// The rows, in drawing order (top first): the declared ones, or for an unbounded grid
    /// those its pieces span.
    pub rows: Vec<i64>,
    /// The columns, left to right.
    pub cols: Vec<i64>,
    /// The cells with a label or a piece, row by row in drawing order.
    pub cells: Vec<CellView>,
}

/// The pending decision as a viewer sees it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PendingView {
    /// Decision name.
    pub decision: String,
    /// Prompt.
    pub prompt: String,
    /// A simultaneous hidden commit.
    pub commit: bool,
    /// Seats still to answer.
    pub waiting_for: Vec<usize>,
    /// Seats that have committed (not what they committed).
    pub committed: Vec<usize>,
    /// The viewer's options, if the viewer must answer.
    pub options: Vec<OptionInfo>,
    /// What the viewer committed, if they have.
    pub my_commit: Option<String>,
    /// For a `subset` decision: the set the viewer has built so far.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub my_set: Vec<Arc<CardView>>,
}

/// Everything one seat may see.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct View {
    /// Game title.
    pub game: String,
    /// The seat (None = spectator, who sees public information only).
    pub viewer: Option<usize>,
    /// Seat names.
    pub seats: Vec<String>,
    /// The current player.
    pub current: usize,
    /// The turn order.
    pub turn_order: Vec<usize>,
    /// Zones.
    pub zones: Vec<ZoneView>,
    /// Tracks.
    pub tracks: Vec<ValueView>,
    /// Variables.
    pub vars: Vec<ValueView>,
    /// What rules have shown to the table and the viewer has not yet answered a decision since.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shown: Vec<ShownView>,
    /// Grids (those the game declares, each copy with what the viewer may see of it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub grids: Vec<GridView>,
    /// The pending decision.
    pub pending: Option<PendingView>,
    /// The outcome, once over.
    pub outcome: Option<Outcome>,
    /// Derived values that could not be computed (a script error: the game's fault).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

/// Most places a zone's view lists (a zone of a larger capacity shows its first ones).
pub const MAX_PLACES: usize = 1_000;

fn sees_all(vis: Visibility, per_player: bool, owner: usize, viewer: Option<usize>) -> bool {
    match vis {
        Visibility::Public => true,
        Visibility::Owner => per_player && viewer == Some(owner),
        _ => false,
    }
}

/// A var's value as a player reads it, for a var that holds a seat or a component: the seat's
/// name (`nobody` for -1 or `()`), or the label of a component the viewer sees (in `zones`,
/// the viewer's zones); `None` when the value is shown as it is.
fn shown_as(holds: Holds, value: &Value, r: &Rules, players: usize, zones: &[ZoneView]) -> Option<String> {
    match (holds, value) {
        (Holds::Seat, Value::Int(p)) if *p >= 0 && (*p as usize) < players => Some(r.seat_name(*p as usize)),
        (Holds::Seat, Value::Int(-1) | Value::Unit) => Some("nobody".to_string()),
        (Holds::Component, Value::Str(id)) => {
            zones.iter().flat_map(|z| z.cards.iter()).find(|c| c.id == *id).map(|c| c.label.clone())
        }
        _ => None,
    }
}

/// The derived vars of one state, each computed when first read and kept for every later
/// read of the same state (views of every seat read the same values). Whoever changes the
/// state moves on to the next with [`DerivedValues::next_state`]: a value is kept for later
/// states as long as they agree on everything its script read ([`crate::reads`]).
#[derive(Clone, Debug, Default)]
pub struct DerivedValues {
    /// Per var, per owner; empty until the first read.
    slots: OnceLock<Vec<Vec<DerivedSlot>>>,
    /// A copy of this state, made for the first value computed in it.
    state: OnceLock<Arc<State>>,
    /// Values computed in earlier states, per var and owner.
    earlier: Vec<Vec<Option<Remembered>>>,
}

/// One derived value, once computed, and how it was computed if it may be kept.
type DerivedSlot = OnceLock<(Result<Value, PlayError>, Option<Remembered>)>;

/// A value computed in some state, with what its script read there.
#[derive(Clone, Debug)]
struct Remembered {
    state: Arc<State>,
    reads: Arc<Reads>,
    value: Value,
}

impl DerivedValues {
    /// The value of var `var` for `owner` in `st` (stored, or derived once for this state).
    pub fn get(&self, game: &Game, st: &State, var: usize, owner: usize) -> Result<Value, PlayError> {
        if game.rules.vars[var].derived.is_none() {
            return Ok(st.vars[var][owner].get().clone());
        }
        let slots =
            self.slots.get_or_init(|| st.vars.iter().map(|v| v.iter().map(|_| OnceLock::new()).collect()).collect());
        let (value, _) = slots[var][owner].get_or_init(|| {
            let before = self.earlier.get(var).and_then(|o| o.get(owner)).and_then(Option::as_ref);
            if let Some(kept) = before.filter(|k| k.reads.agree(&k.state, st)) {
                return (Ok(kept.value.clone()), Some(kept.clone()));
            }
            let (value, reads) = crate::reads::recording(|| game.derive(st, var, owner));
            let remembered = match &value {
                Ok(v) if !reads.everything() => Some(Remembered {
                    state: self.state.get_or_init(|| Arc::new(st.clone())).clone(),
                    reads: Arc::new(reads),
                    value: v.clone(),
                }),
                _ => None,
            };
            (value, remembered)
        });
        value.clone()
    }

    /// Moves on to the next state: no value computed in it yet, those of this state and
    /// earlier ones kept for when they still hold. Nothing to do when nothing was computed.
    #[inline]
    pub fn next_state(&mut self) {
        if self.slots.get().is_some() {
            self.keep_computed();
        }
    }

    /// [`DerivedValues::next_state`] when values were computed: keeps them as earlier ones.
    fn keep_computed(&mut self) {
        let Some(slots) = self.slots.take() else { return };
        self.state = OnceLock::new();
        self.earlier.resize_with(slots.len(), Vec::new);
        for (var, owners) in slots.into_iter().enumerate() {
            self.earlier[var].resize_with(owners.len(), || None);
            for (owner, slot) in owners.into_iter().enumerate() {
                if let Some((_, Some(kept))) = slot.into_inner() {
                    self.earlier[var][owner] = Some(kept);
                }
            }
        }
    }
}

impl View {
    /// Builds the view of `viewer` from the state and the declared visibility; derived vars
    /// are read through `derived`, the values of this same state.
    pub fn build(game: &Game, st: &State, derived: &DerivedValues, viewer: Option<usize>) -> View {
        let r = &game.rules;
        let card = |idx: u32| st.components.list[idx as usize].card_view().clone();
        let in_play = |name: &str| !st.out_of_play.iter().any(|n| n == name);
        let mut zones = Vec::with_capacity(st.zones.iter().map(Vec::len).sum());
        for (zi, z) in r.zones.iter().enumerate().filter(|(_, z)| in_play(&z.name)) {
            for (o, slot) in st.zones[zi].iter().enumerate() {
                let vis = st.visibility(r, zi, o);
                let owner = z.per_player.then_some(o);
                let card = |idx: u32| st.components.list[idx as usize].card_view_in(zi).clone();
                let mut places = Vec::new();
                let (count, cards) = if sees_all(vis, z.per_player, o, viewer) {
                    // An unordered zone shows its cards in component order.
                    let mut sorted = Vec::new();
                    let ids: &[u32] = if z.ordered {
                        &slot.cards
                    } else {
                        sorted.extend_from_slice(&slot.cards);
                        sorted.sort_unstable();
                        &sorted
                    };
                    if let Some((template, from_top)) = &z.places {
                        let capacity = z.capacity.as_ref().map_or(0, |c| c.get(&r.params, st.players).max(0) as usize);
                        let n = capacity.max(ids.len()).min(MAX_PLACES);
                        places = (0..n)
                            .map(|k| {
                                let at = if *from_top { ids.len().checked_sub(k + 1) } else { Some(k) };
                                PlaceView {
                                    label: template.replace("{n}", &(k + 1).to_string()),
                                    card: at.and_then(|i| ids.get(i)).map(|c| card(*c)),
                                }
                            })
                            .collect();
                    }
                    (Some(slot.cards.len()), ids.iter().map(|c| card(*c)).collect())
                } else {
                    match vis {
                        Visibility::Top => {
                            (Some(slot.cards.len()), slot.cards.last().map(|c| card(*c)).into_iter().collect())
                        }
                        Visibility::Hidden => (None, Vec::new()),
                        _ => (Some(slot.cards.len()), Vec::new()),
                    }
                };
                zones.push(ZoneView { name: z.name.clone(), owner, count, cards, places });
            }
        }
        let mut tracks = Vec::with_capacity(st.tracks.iter().map(Vec::len).sum());
        for (ti, t) in r.tracks.iter().enumerate().filter(|(_, t)| in_play(&t.name)) {
            for (o, v) in st.tracks[ti].iter().enumerate() {
                if sees_all(t.visible, t.per_player, o, viewer) {
                    let space = t.space_name(*v).map(str::to_string);
                    tracks.push(ValueView {
                        shown: None,
                        name: t.name.clone(),
                        owner: t.per_player.then_some(o),
                        value: Value::Int(*v),
                        space,
                    });
                }
            }
        }
        let mut vars = Vec::with_capacity(st.vars.iter().map(Vec::len).sum());
        let mut errors = Vec::new();
        for (vi, v) in r.vars.iter().enumerate().filter(|(_, v)| in_play(&v.name)) {
            for (o, val) in st.vars[vi].iter().enumerate() {
                if sees_all(v.visible, v.per_player, o, viewer) {
                    let value = match &v.derived {
                        None => val.get().clone(),
                        Some(_) => derived.get(game, st, vi, o).unwrap_or_else(|e| {
                            errors.push(e.to_string());
                            Value::Str(format!("(cannot be computed: {e})"))
                        }),
                    };
                    let shown = shown_as(v.holds, &value, r, st.players, &zones);
                    vars.push(ValueView {
                        name: v.name.clone(),
                        owner: v.per_player.then_some(o),
                        value,
                        space: None,
                        shown,
                    });
                }
            }
        }
        let mut grids = Vec::new();
        for (gi, g) in r.grids.iter().enumerate().filter(|(_, g)| in_play(&g.name)) {
            for (o, slot) in st.grids[gi].iter().enumerate() {
                if sees_all(g.visible, g.per_player, o, viewer) {
                    grids.push(grid_view(game, st, gi, o, slot));
                }
            }
        }
        let pending = st.pending.as_ref().map(|p| {
            let d = &r.decisions[p.decision];
            let mine = viewer.and_then(|v| p.players.iter().position(|x| *x == v));
            let options = match mine {
                Some(s) if p.chosen[s].is_none() => p.options[s]
                    .iter()
                    .map(|c| OptionInfo {
                        id: game.choice_id(st, &c).to_string(),
                        label: game.label_or_failure(st, &c, game.option_label(st, p.asked(s), &c)),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let my_commit = mine.and_then(|s| {
                p.chosen[s].map(|i| {
                    let c = &p.options[s].at(i);
                    game.label_or_failure(st, c, game.choice_label(st, p.asked(s), c))
                })
            });
            PendingView {
                decision: d.name.clone(),
                prompt: p.prompt(d).to_string(),
                commit: p.commit,
                waiting_for: p.players.iter().zip(&p.chosen).filter(|(_, c)| c.is_none()).map(|(x, _)| *x).collect(),
                committed: p.players.iter().zip(&p.chosen).filter(|(_, c)| c.is_some()).map(|(x, _)| *x).collect(),
                options,
                my_commit,
                my_set: mine
                    .and_then(|s| p.building.get(s))
                    .map(|b| b.iter().map(|i| card(*i)).collect())
                    .unwrap_or_default(),
            }
        });
        let shown = st
            .shown
            .iter()
            .filter(|s| viewer.is_none_or(|v| s.seats.contains(&v)))
            .map(|s| ShownView { caption: s.caption.clone(), cards: s.cards.iter().map(|i| card(*i)).collect() })
            .collect();
        View {
            game: r.title.clone(),
            viewer,
            seats: (0..st.players).map(|p| r.seat_name(p)).collect(),
            current: st.current,
            turn_order: st.turn_order.clone(),
            zones,
            tracks,
            vars,
            shown,
            grids,
            pending,
            outcome: st.outcome.clone(),
            errors,
        }
    }
}

/// One copy of a grid: every labelled cell and every piece.
fn grid_view(game: &Game, st: &State, gi: usize, owner: usize, slot: &GridSlot) -> GridView {
    let r = &game.rules;
    let g = &r.grids[gi];
    let span = slot.span();
    let ((r0, r1), (c0, c1)) = match (g.rows, g.cols) {
        (Some(rows), Some(cols)) => (rows, cols),
        _ => span.unwrap_or(((0, -1), (0, -1))),
    };
    let mut rows: Vec<i64> = (r0..=r1).collect();
    if g.descending {
        rows.reverse();
    }
    let cols: Vec<i64> = (c0..=c1).collect();
    let piece = |p: &Placed| match p.piece {
        Piece::Marker(m) => PieceView {
            id: g.markers[m as usize].to_string(),
            label: g.markers[m as usize].to_string(),
            rot: p.rot,
            edges: None,
        },
        Piece::Component(i) => {
            let c = &st.components.list[i as usize];
            let label = match &g.piece_label {
                Some(t) => crate::value::fill_template(t, &c.props, &c.id),
                None => c.id.clone(),
            };
            let edges = r.component_types[c.kind].edges.as_ref().and_then(|k| match c.props.get(k) {
                Some(Value::List(l)) if l.len() == 4 => {
                    let printed: [String; 4] = std::array::from_fn(|i| l[i].to_string());
                    Some(crate::grid::turn(&printed, p.rot).to_vec())
                }
                _ => None,
            });
            PieceView { id: c.id.clone(), label, rot: p.rot, edges }
        }
    };
    // The cells worth drawing: those with pieces, and with data when the grid labels cells.
    let mut keys: Vec<(i64, i64)> = slot.placed.iter().map(|p| (p.row, p.col)).collect();
    if g.cell_label.is_some() {
        keys.extend(g.cells.keys().copied().filter(|(row, col)| (r0..=r1).contains(row) && (c0..=c1).contains(col)));
    }
    keys.sort_unstable();
    keys.dedup();
    if g.descending {
        keys.sort_by_key(|&(row, col)| (std::cmp::Reverse(row), col));
    }
    let mut cells = Vec::new();
    for (row, col) in keys {
        let label = g.cell_label.as_ref().and_then(|t| match g.cells.get(&(row, col)) {
            Some(Value::Map(m)) => Some(crate::value::fill_template(t, m, "")).filter(|s| !s.is_empty()),
            _ => None,
        });
        let pieces: Vec<PieceView> = slot.at(row, col).iter().map(piece).collect();
        if label.is_some() || !pieces.is_empty() {
            cells.push(CellView { row, col, label, pieces });
        }
    }
    GridView {
        name: g.name.clone(),
        owner: g.per_player.then_some(owner),
        description: g.description.clone(),
        rows,
        cols,
        cells,
    }
}
