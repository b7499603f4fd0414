//! [`View`]: what one seat may see, derived from declared visibility only. Bots and front
//! ends receive views, never the state, so they cannot see what the seat cannot.

use crate::def::Visibility;
use crate::session::OptionInfo;
use crate::state::{Outcome, State};
use crate::value::Value;
use crate::Game;
use serde::Serialize;

/// A component as a viewer sees it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CardView {
    /// Stable id.
    pub id: String,
    /// Component type.
    pub kind: String,
    /// Label.
    pub label: String,
    /// Properties.
    pub props: indexmap::IndexMap<String, Value>,
}

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
    pub cards: Vec<CardView>,
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
}

/// Components a rule has shown to the whole table, still on display for the viewer.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ShownView {
    /// What was shown (`P1 exhibits A-C`).
    pub caption: String,
    /// The components, in the order shown.
    pub cards: Vec<CardView>,
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
    pub my_set: Vec<CardView>,
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
    /// The pending decision.
    pub pending: Option<PendingView>,
    /// The outcome, once over.
    pub outcome: Option<Outcome>,
    /// Derived values that could not be computed (a script error: the game's fault).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

fn sees_all(vis: Visibility, per_player: bool, owner: usize, viewer: Option<usize>) -> bool {
    match vis {
        Visibility::Public => true,
        Visibility::Owner => per_player && viewer == Some(owner),
        _ => false,
    }
}

impl View {
    /// Builds the view of `viewer` from the state and the declared visibility.
    pub fn build(game: &Game, st: &State, viewer: Option<usize>) -> View {
        let r = &game.rules;
        let card = |idx: u32| {
            let c = &st.components.list[idx as usize];
            let label = c.label(r);
            CardView { id: c.id.clone(), kind: r.component_types[c.kind].name.clone(), label, props: c.props.clone() }
        };
        let mut zones = Vec::new();
        for (zi, z) in r.zones.iter().enumerate() {
            for (o, slot) in st.zones[zi].iter().enumerate() {
                let vis = st.visibility(r, zi, o);
                let owner = z.per_player.then_some(o);
                let (count, cards) = if sees_all(vis, z.per_player, o, viewer) {
                    let mut ids = slot.cards.clone();
                    if !z.ordered {
                        ids.sort_unstable();
                    }
                    (Some(slot.cards.len()), ids.into_iter().map(card).collect())
                } else {
                    match vis {
                        Visibility::Top => {
                            (Some(slot.cards.len()), slot.cards.last().map(|c| card(*c)).into_iter().collect())
                        }
                        Visibility::Hidden => (None, Vec::new()),
                        _ => (Some(slot.cards.len()), Vec::new()),
                    }
                };
                zones.push(ZoneView { name: z.name.clone(), owner, count, cards });
            }
        }
        let mut tracks = Vec::new();
        for (ti, t) in r.tracks.iter().enumerate() {
            for (o, v) in st.tracks[ti].iter().enumerate() {
                if sees_all(t.visible, t.per_player, o, viewer) {
                    let index = usize::try_from(*v - t.min.unwrap_or(0)).ok();
                    let space = index.and_then(|i| t.spaces.get(i)).and_then(|s| s.get("name")).map(|n| n.to_string());
                    tracks.push(ValueView {
                        name: t.name.clone(),
                        owner: t.per_player.then_some(o),
                        value: Value::Int(*v),
                        space,
                    });
                }
            }
        }
        let mut vars = Vec::new();
        let mut errors = Vec::new();
        for (vi, v) in r.vars.iter().enumerate() {
            for (o, val) in st.vars[vi].iter().enumerate() {
                if sees_all(v.visible, v.per_player, o, viewer) {
                    let value = match &v.derived {
                        None => val.clone(),
                        Some(_) => game.derive(st, vi, o).unwrap_or_else(|e| {
                            errors.push(e.to_string());
                            Value::Str(format!("(cannot be computed: {e})"))
                        }),
                    };
                    vars.push(ValueView { name: v.name.clone(), owner: v.per_player.then_some(o), value, space: None });
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
                        id: game.choice_id(st, c).to_string(),
                        label: game.option_label(st, p.decision, c),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let my_commit = mine.and_then(|s| p.chosen[s].map(|i| game.choice_label(st, p.decision, &p.options[s][i])));
            PendingView {
                decision: d.name.clone(),
                prompt: d.prompt.clone(),
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
            pending,
            outcome: st.outcome.clone(),
            errors,
        }
    }
}
