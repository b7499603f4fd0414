//! [`Rules`]: a loaded game after checking, with every name resolved to an index. This is the
//! static half of a game; [`crate::state::State`] is the changing half.

use crate::def::{Overflow, Visibility};
use crate::grid::GridInfo;
use crate::value::Value;
use indexmap::IndexMap;
use std::collections::HashMap;
use std::path::PathBuf;

/// A script function named in a game file, resolved against the compiled scripts.
#[derive(Clone, Debug)]
pub struct FnRef {
    /// Function name.
    pub name: String,
    /// Whether the function takes the optional trailing `ctx` argument.
    pub with_ctx: bool,
}

/// A component type.
#[derive(Clone, Debug)]
pub struct ComponentType {
    /// Type name.
    pub name: String,
    /// Label template.
    pub label: Option<String>,
    /// The property holding the edges N, E, S, W (for placement grids).
    pub edges: Option<String>,
    /// A die's faces (the type declares `faces`): its `face` property is one of them.
    pub faces: Option<Vec<Value>>,
    /// What it is, in the author's words (`description`; empty if none).
    pub description: String,
}

/// The most seats a game may declare (`[game] max_players`).
pub const MAX_PLAYERS: usize = 32;
/// The most components one game may hold: declared instances for the largest table plus
/// those scripts create.
pub const MAX_COMPONENTS: usize = 100_000;
/// The most passes a phase's `repeat` may ask for.
pub const MAX_REPEAT: i64 = 1_000_000;
/// The most decisions `[flow] max_decisions` may allow.
pub const MAX_DECISIONS: u64 = 1_000_000;
/// The most steps `[flow] max_steps` may allow between two decisions.
pub const MAX_STEPS: u64 = 10_000_000;

/// An integer written in TOML, or the name of an integer parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntSpec {
    /// A literal.
    Int(i64),
    /// A parameter's value.
    Param(String),
    /// The number of seats.
    Players,
}

impl IntSpec {
    /// The value, given the parameters in force and the number of seats.
    pub fn get(&self, params: &IndexMap<String, ParamInfo>, players: usize) -> i64 {
        match self {
            IntSpec::Int(i) => *i,
            IntSpec::Param(p) => params.get(p).and_then(|p| p.value.as_int()).unwrap_or(0),
            IntSpec::Players => players as i64,
        }
    }
}

/// How a declared property takes its values.
#[derive(Clone, Debug)]
pub enum PropSpec {
    /// One value.
    Fixed(Value),
    /// One instance per integer in `from..=to`; with names, the instance's `PROP_name` is the
    /// name of its place in the range (the first name for `from`).
    Range(IntSpec, IntSpec, Option<Vec<Value>>),
    /// One instance per listed value.
    Each(Vec<Value>),
}

/// A set of component instances declared in TOML, expanded when a game starts.
#[derive(Clone, Debug)]
pub struct DeclaredComponent {
    /// Type index.
    pub kind: usize,
    /// Id template (`{prop}` placeholders, `{seat}` = 1-based seat), if given.
    pub id: Option<String>,
    /// Properties.
    pub props: IndexMap<String, PropSpec>,
    /// Copies of each instance.
    pub count: IntSpec,
    /// One set per player, in that player's zone.
    pub per_player: bool,
    /// Starting zone, if any.
    pub zone: Option<usize>,
}

/// A zone declaration.
#[derive(Clone, Debug)]
pub struct ZoneInfo {
    /// Name.
    pub name: String,
    /// One per player.
    pub per_player: bool,
    /// Order matters.
    pub ordered: bool,
    /// Declared visibility.
    pub visible: Visibility,
    /// Every seat knows its contents, though views do not show them.
    pub known: bool,
    /// Maximum size.
    pub capacity: Option<IntSpec>,
    /// Behaviour when full.
    pub overflow: Overflow,
    /// Where pushed-out components go.
    pub overflow_to: Option<usize>,
    /// Numbered places: the label template and whether place 1 is the top.
    pub places: Option<(String, bool)>,
    /// Label template for components in this zone.
    pub card_label: Option<String>,
    /// What it is, in the author's words (`description`; empty if none).
    pub description: String,
}

/// A track (or counter) declaration.
#[derive(Clone, Debug)]
pub struct TrackInfo {
    /// Name.
    pub name: String,
    /// One value per player.
    pub per_player: bool,
    /// Start value.
    pub start: IntSpec,
    /// Bounds.
    pub min: Option<i64>,
    /// Bounds.
    pub max: Option<i64>,
    /// Visibility.
    pub visible: Visibility,
    /// Per-space data.
    pub spaces: Vec<Value>,
    /// Template naming a space in views (see [`TrackInfo::space_name`]).
    pub space_label: Option<String>,
    /// Each space's name in views, made once when the game loads ([`TrackInfo::name_spaces`]).
    pub space_names: Vec<Option<String>>,
    /// What it is, in the author's words (`description`; empty if none).
    pub description: String,
}

impl TrackInfo {
    /// How a view names space `value` (see [`TrackInfo::name_spaces`]).
    pub fn space_name(&self, value: i64) -> Option<&str> {
        let index = usize::try_from(value - self.min.unwrap_or(0)).ok()?;
        self.space_names.get(index)?.as_deref()
    }

    /// How views name each space: its own `label`, else the track's `space_label` filled from
    /// the space's data, else the space's `name`.
    pub fn name_spaces(spaces: &[Value], space_label: Option<&str>) -> Vec<Option<String>> {
        let name = |space: &Value| {
            let Value::Map(data) = space else { return None };
            if let Some(l) = data.get("label") {
                return Some(l.to_string());
            }
            match space_label {
                Some(t) => Some(crate::value::fill_template(t, data, "")),
                None => data.get("name").map(|n| n.to_string()),
            }
        };
        spaces.iter().map(name).collect()
    }
}

/// A data table, or a track's space, as a script value, made once per group of threads.
#[derive(Clone, Debug)]
pub(crate) struct ScriptTable {
    /// The table (or the space).
    pub value: rhai::Dynamic,
    /// Whether the value comes near the sandbox's size limits, worked out once by the compiled
    /// scripts that read it in place (it never changes, and neither do the limits).
    pub near_limits: std::sync::OnceLock<bool>,
}

/// A script variable declaration.
#[derive(Clone, Debug)]
pub struct VarInfo {
    /// Name.
    pub name: String,
    /// One value per player.
    pub per_player: bool,
    /// Initial value.
    pub default: Value,
    /// Visibility.
    pub visible: Visibility,
    /// The script computing the value when a view shows it (a derived var).
    pub derived: Option<FnRef>,
    /// What the value names (a seat, a component), for views.
    pub holds: crate::def::Holds,
    /// What it is, in the author's words (`description`; empty if none).
    pub description: String,
}

/// Where a decision's options come from.
#[derive(Clone, Debug)]
pub enum OptionSource {
    /// Components of a zone, optionally filtered.
    Zone {
        /// Zone index.
        zone: usize,
        /// Filter predicate.
        filter: Option<FnRef>,
    },
    /// A script that returns the options: maps with an `id`, or bare strings and integers.
    Script(FnRef),
}

/// A decision declaration.
#[derive(Clone, Debug)]
pub struct DecisionInfo {
    /// Name.
    pub name: String,
    /// Prompt.
    pub prompt: String,
    /// Option source.
    pub source: OptionSource,
    /// Label template for component options.
    pub label: Option<String>,
    /// Labels scripted options that have no `label` of their own, when a label is read.
    pub label_by: Option<FnRef>,
    /// Where the chosen component goes once answered (`to`; a seat's own slot of a
    /// per-player zone), before the contest and the scripts.
    pub to: Option<usize>,
    /// After a single choice.
    pub then: Option<FnRef>,
    /// After all commits are revealed.
    pub reveal: Option<FnRef>,
    /// Never revealed publicly.
    pub secret: bool,
    /// Automatic answer.
    pub auto: Option<FnRef>,
    /// Which seats answer automatically (all, when `auto` is set and this is not).
    pub auto_if: Option<FnRef>,
    /// Engine-judged follow rule for component options.
    pub follow: Option<Follow>,
    /// Engine-judged comparison of revealed components.
    pub contest: Option<Contest>,
    /// A player with no legal option is not asked (instead of an error).
    pub skip_if_no_options: bool,
    /// Name the log uses for the decider.
    pub actor: Option<String>,
    /// The player chooses a set of the `from` components (see [`Subset`]).
    pub subset: Option<Subset>,
}

/// A resolved `subset = { ... }`: which sets of candidate components are options.
#[derive(Clone, Debug, Default)]
pub struct Subset {
    /// Fewest components in a set.
    pub min: usize,
    /// Most components in a set.
    pub max: usize,
    /// Properties all components of a set share.
    pub same: Vec<String>,
    /// Properties no two components of a set share.
    pub distinct: Vec<String>,
    /// A property whose values form a run, and the order of its values (integers if none).
    pub consecutive: Option<(String, Option<Vec<Value>>)>,
    /// Script judging a whole set.
    pub valid: Option<FnRef>,
}

/// Where the value to follow comes from.
#[derive(Clone, Debug)]
pub enum FollowFrom {
    /// A global var.
    Var(usize),
    /// The first component of a global zone.
    Zone(usize),
}

/// A resolved `follow` rule.
#[derive(Clone, Debug)]
pub struct Follow {
    /// Property compared.
    pub by: crate::codes::PropKey,
    /// Source of the led value.
    pub from: FollowFrom,
    /// Value meaning "nothing to follow".
    pub free: Value,
}

/// A resolved `[decisions.NAME.contest]`.
#[derive(Clone, Debug)]
pub struct Contest {
    /// Property compared (numbered: see [`crate::codes`]).
    pub by: crate::codes::PropKey,
    /// Which end wins.
    pub best: crate::def::Best,
    /// Tie rule.
    pub ties: crate::def::Ties,
    /// Destination of revealed components.
    pub played_to: Option<usize>,
    /// Stake zone.
    pub stake: Option<usize>,
    /// Winner's zone for the stake.
    pub stake_to: Option<usize>,
    /// Destination of an unclaimed stake.
    pub unclaimed_to: Option<usize>,
    /// Winner's score track.
    pub score: Option<usize>,
    /// Var for the winner.
    pub winner_var: Option<usize>,
}

/// A resolved `[tricks.NAME]`.
#[derive(Clone, Debug)]
pub struct TrickInfo {
    /// Name.
    pub name: String,
    /// The decisions answered, one round of every seat each.
    pub plays: Vec<usize>,
    /// The per-player zone where played cards lie.
    pub table: usize,
    /// The global var holding the leading seat.
    pub leader: usize,
    /// The property naming a card's suit.
    pub suit: Option<crate::codes::PropKey>,
    /// The global var set to the suit led.
    pub led: Option<usize>,
    /// The integer property ranking cards.
    pub rank: Option<crate::codes::PropKey>,
    /// Which rank wins.
    pub best: crate::def::Best,
    /// The global var holding the trump suit.
    pub trump: Option<usize>,
    /// The global track below whose value a card's rank makes it a trump.
    pub trump_below: Option<usize>,
    /// Whether every card played competes, whatever its suit.
    pub any_suit: bool,
    /// The game's own winner rule.
    pub winner: Option<FnRef>,
    /// Run once the winner is known.
    pub then: Option<FnRef>,
    /// Which tricks `then` runs after.
    pub then_when: crate::def::ThenWhen,
    /// The winner's per-player zone for the cards left on the table.
    pub won: Option<usize>,
    /// Who leads next.
    pub next_leader: crate::def::NextLeader,
    /// What it is, in the author's words.
    pub description: String,
}

/// Who is asked in an `ask` step.
#[derive(Clone, Debug)]
pub enum PlayerSel {
    /// The current player.
    Current,
    /// A script's answer.
    Script(FnRef),
}

/// Who commits in a `commit` step.
#[derive(Clone, Debug)]
pub enum PlayersSel {
    /// Every player.
    All,
    /// A script's answer.
    Script(FnRef),
}

/// What a step does.
#[derive(Clone, Debug)]
pub enum StepKind {
    /// Run a script.
    Run(FnRef),
    /// Ask one player.
    Ask(usize, PlayerSel),
    /// Ask several players at once, hidden.
    Commit(usize, PlayersSel),
    /// Enter a phase.
    Phase(usize),
    /// Shuffle a zone.
    Shuffle(usize),
    /// Roll every die in a zone (every player's slot of a per-player zone).
    Roll(usize),
    /// Play one trick.
    Trick(usize),
    /// Move components.
    Move {
        /// Source zone.
        from: usize,
        /// Destination zone.
        to: usize,
        /// How many.
        count: usize,
        /// To every player.
        deal: bool,
    },
}

/// A step with its optional condition.
#[derive(Clone, Debug)]
pub struct StepInfo {
    /// What to do.
    pub kind: StepKind,
    /// Skip unless this holds.
    pub condition: Option<FnRef>,
}

/// How often a phase repeats.
#[derive(Clone, Debug)]
pub enum Repeat {
    /// Once.
    Once,
    /// A fixed number of passes.
    Times(u64),
    /// While a predicate holds.
    While(FnRef),
    /// While any slot of a zone (by index) holds a component.
    WhileCards(usize),
}

/// A phase declaration.
#[derive(Clone, Debug)]
pub struct PhaseInfo {
    /// Name.
    pub name: String,
    /// Steps.
    pub steps: Vec<StepInfo>,
    /// Once per player in turn order.
    pub for_each_player: bool,
    /// Repetition.
    pub repeat: Repeat,
    /// Track holding the pass number.
    pub counter: Option<usize>,
    /// What it is, in the author's words (`description`; empty if none).
    pub description: String,
}

/// A graph node or edge: its id and its properties (edges also hold `from` and `to`).
#[derive(Clone, Debug)]
pub struct GraphItem {
    /// Unique id.
    pub id: String,
    /// All properties, including `id` (and `from`, `to` for edges).
    pub props: Value,
}

/// A checked graph with its adjacency.
#[derive(Clone, Debug, Default)]
pub struct GraphInfo {
    /// Name.
    pub name: String,
    /// Nodes in declaration order.
    pub nodes: Vec<GraphItem>,
    /// Edges in declaration order.
    pub edges: Vec<GraphItem>,
    /// Edge endpoints as node indices.
    pub ends: Vec<(usize, usize)>,
    /// Edges leaving each node (both ends when undirected), in declaration order.
    pub incident: Vec<Vec<usize>>,
    /// Node index by id.
    pub node_index: HashMap<String, usize>,
    /// Edge index by id.
    pub edge_index: HashMap<String, usize>,
    /// One-way edges.
    pub directed: bool,
    /// The nodes' and edges' properties as script values, made on first use per group of
    /// threads (scripts get copies; their strings are shared, so threads keep apart).
    pub(crate) script: crate::per_thread::PerThread<GraphScript>,
}

/// [`GraphInfo`]'s nodes and edges as script values, in declaration order.
#[derive(Clone, Debug)]
pub(crate) struct GraphScript {
    nodes: Vec<rhai::Dynamic>,
    edges: Vec<rhai::Dynamic>,
    node_ids: rhai::Array,
    edge_ids: rhai::Array,
    /// The ids of the edges at each node (as `incident`).
    edge_ids_at: Vec<rhai::Array>,
}

impl GraphInfo {
    fn script(&self) -> &GraphScript {
        crate::per_thread::this_thread(&self.script).get_or_init(|| GraphScript {
            nodes: self.nodes.iter().map(|n| n.props.to_dynamic()).collect(),
            edges: self.edges.iter().map(|e| e.props.to_dynamic()).collect(),
            node_ids: self.nodes.iter().map(|n| n.id.as_str().into()).collect(),
            edge_ids: self.edges.iter().map(|e| e.id.as_str().into()).collect(),
            edge_ids_at: self
                .incident
                .iter()
                .map(|at| at.iter().map(|e| self.edges[*e].id.as_str().into()).collect())
                .collect(),
        })
    }

    /// The ids of the edges at node `i` (leaving it, for a directed graph), in declaration
    /// order, as a script list.
    pub(crate) fn edge_ids_at(&self, i: usize) -> rhai::Array {
        self.script().edge_ids_at[i].clone()
    }

    /// Every node's id, in declaration order, as a script list.
    pub(crate) fn node_ids(&self) -> rhai::Array {
        self.script().node_ids.clone()
    }

    /// Every edge's id, in declaration order, as a script list.
    pub(crate) fn edge_ids(&self) -> rhai::Array {
        self.script().edge_ids.clone()
    }

    /// Node `i`'s properties as a script value.
    pub(crate) fn node_value(&self, i: usize) -> rhai::Dynamic {
        self.script().nodes[i].clone()
    }

    /// Edge `i`'s properties as a script value.
    pub(crate) fn edge_value(&self, i: usize) -> rhai::Dynamic {
        self.script().edges[i].clone()
    }

    /// Every node's properties as script values.
    pub(crate) fn node_values(&self) -> rhai::Array {
        self.script().nodes.clone()
    }

    /// Every edge's properties as script values.
    pub(crate) fn edge_values(&self) -> rhai::Array {
        self.script().edges.clone()
    }

    /// Node index by id.
    pub fn node(&self, id: &str) -> Result<usize, String> {
        self.node_index
            .get(id)
            .copied()
            .ok_or_else(|| format!("graph `{}`: {}", self.name, unknown("node", id, self.node_index.keys())))
    }

    /// Edge index by id.
    pub fn edge(&self, id: &str) -> Result<usize, String> {
        self.edge_index
            .get(id)
            .copied()
            .ok_or_else(|| format!("graph `{}`: {}", self.name, unknown("edge", id, self.edge_index.keys())))
    }

    /// The fewest edges from one node to another (None if unreachable).
    pub fn distance(&self, from: usize, to: usize) -> Option<usize> {
        let mut dist = vec![usize::MAX; self.nodes.len()];
        let mut queue = std::collections::VecDeque::from([from]);
        dist[from] = 0;
        while let Some(n) = queue.pop_front() {
            if n == to {
                return Some(dist[n]);
            }
            for &e in &self.incident[n] {
                let (a, b) = self.ends[e];
                let next = if a == n { b } else { a };
                if dist[next] == usize::MAX {
                    dist[next] = dist[n] + 1;
                    queue.push_back(next);
                }
            }
        }
        None
    }
}

/// A variant a game offers.
#[derive(Clone, Debug, serde::Serialize)]
pub struct VariantInfo {
    /// Name (file stem).
    pub name: String,
    /// Description.
    pub description: String,
}

/// A parameter with its resolved value.
#[derive(Clone, Debug)]
pub struct ParamInfo {
    /// Value in force.
    pub value: Value,
    /// Description.
    pub description: String,
    /// Bounds.
    pub min: Option<i64>,
    /// Bounds.
    pub max: Option<i64>,
    /// Closed list of allowed values.
    pub choices: Option<Vec<Value>>,
}

/// A `[game] checks` rule that depends on the number of seats.
#[derive(Clone, Debug)]
pub struct ParamCheck {
    /// The rule as written.
    pub check: String,
    /// What it means for a player.
    pub message: String,
}

impl ParamCheck {
    /// Whether the rule holds with these parameters and `players` seats (an expression the
    /// loader accepted always evaluates).
    pub fn holds(&self, params: &indexmap::IndexMap<String, ParamInfo>, players: usize) -> bool {
        crate::expr::int_expr(&self.check, &|n| {
            if n == "players" {
                Some(players as i64)
            } else {
                params.get(n).and_then(|p| p.value.as_int())
            }
        }) != Ok(0)
    }
}

/// The static, checked description of a game.
#[derive(Clone, Debug, Default)]
pub struct Rules {
    /// Rules between the parameters that depend on the number of seats (`[game] checks`
    /// naming `players`): a game does not start with a count that breaks one.
    pub player_checks: Vec<ParamCheck>,
    /// Short name.
    pub name: String,
    /// Title.
    pub title: String,
    /// Description.
    pub description: String,
    /// Game folder.
    pub folder: PathBuf,
    /// Player counts.
    pub min_players: usize,
    /// Player counts.
    pub max_players: usize,
    /// Seat names.
    pub seat_names: Vec<String>,
    /// Each seat's display name as scripts receive it, made at the first `game.seat_name`
    /// (scripts ask it in loops: a search for the seat of a name, a log line per seat).
    pub(crate) seat_name_values: std::sync::OnceLock<Vec<rhai::ImmutableString>>,
    /// Variants applied.
    pub variants: Vec<String>,
    /// Variants available.
    pub available_variants: Vec<VariantInfo>,
    /// Parameters.
    pub params: IndexMap<String, ParamInfo>,
    /// The properties the engine compares for every card at every decision, their values
    /// numbered (see [`crate::codes`]).
    pub prop_codes: crate::codes::PropCodes,
    /// Component types.
    pub component_types: Vec<ComponentType>,
    /// Declared instances.
    pub components: Vec<DeclaredComponent>,
    /// Zones.
    pub zones: Vec<ZoneInfo>,
    /// Tracks.
    pub tracks: Vec<TrackInfo>,
    /// Variables.
    pub vars: Vec<VarInfo>,
    /// Data tables.
    pub tables: crate::value::ValueMap,
    /// The data tables as script values, made on first use per group of threads
    /// (`game.table` hands out copies; their strings are shared, so threads keep apart).
    pub(crate) script_tables: crate::per_thread::PerThread<IndexMap<String, ScriptTable>>,
    /// Each track's spaces as script values, by track and space, made on first use per group
    /// of threads as the data tables are (`game.space` hands out copies).
    pub(crate) script_spaces: crate::per_thread::PerThread<Vec<Vec<ScriptTable>>>,
    /// Graphs.
    pub graphs: IndexMap<String, GraphInfo>,
    /// Grids.
    pub grids: Vec<GridInfo>,
    /// Decisions.
    pub decisions: Vec<DecisionInfo>,
    /// Phases.
    pub phases: Vec<PhaseInfo>,
    /// Tricks, by index.
    pub tricks: Vec<TrickInfo>,
    /// Setup script.
    pub setup: Option<FnRef>,
    /// Starting phase.
    pub start: usize,
    /// Winner script.
    pub winners: Option<FnRef>,
    /// Score track.
    pub score: Option<usize>,
    /// Script judging a seat's position for bots (`[bots] evaluate`, `fn(game, seat)`).
    pub evaluate: Option<FnRef>,
    /// Decisions a search playout runs before `evaluate` judges it (`[bots] depth`).
    pub playout_depth: Option<u32>,
    /// Step limit.
    pub max_steps: u64,
    /// Decision limit per game.
    pub max_decisions: u64,
    /// Name lookups.
    pub index: Index,
}

/// A name → index map with a fast fixed hasher (scripts look names up on every call).
pub type NameMap = HashMap<String, usize, crate::value::NameHasher>;

/// Name → index lookups.
#[derive(Clone, Debug, Default)]
pub struct Index {
    /// Zones.
    pub zones: NameMap,
    /// Tracks.
    pub tracks: NameMap,
    /// Variables.
    pub vars: NameMap,
    /// Decisions.
    pub decisions: NameMap,
    /// Phases.
    pub phases: NameMap,
    /// Component types.
    pub component_types: NameMap,
    /// Grids.
    pub grids: NameMap,
}

impl Rules {
    /// Seat name for display.
    pub fn seat_name(&self, player: usize) -> String {
        self.seat_names.get(player).cloned().unwrap_or_else(|| format!("P{}", player + 1))
    }

    /// [`Rules::seat_name`] as a script value: a shared copy of one made once per seat.
    pub(crate) fn seat_name_value(&self, player: usize) -> rhai::ImmutableString {
        let names =
            self.seat_name_values.get_or_init(|| (0..self.max_players).map(|p| self.seat_name(p).into()).collect());
        names.get(player).cloned().unwrap_or_else(|| self.seat_name(player).into())
    }

    /// A data table as a script value (a copy of one made once).
    pub(crate) fn script_table(&self, name: &str) -> Option<rhai::Dynamic> {
        self.with_script_table(name, |t| t.value.clone())
    }

    /// Runs `f` on data table `name` as a script value (made once), without copying it.
    pub(crate) fn with_script_table<T>(&self, name: &str, f: impl FnOnce(&ScriptTable) -> T) -> Option<T> {
        let tables = crate::per_thread::this_thread(&self.script_tables).get_or_init(|| {
            let made = self.tables.iter().map(|(k, v)| (k.clone(), v.to_dynamic()));
            made.map(|(k, value)| (k, ScriptTable { value, near_limits: std::sync::OnceLock::new() })).collect()
        });
        tables.get(name).map(f)
    }

    /// Runs `f` on the space of track `track` at `position` as a script value (made once),
    /// without copying it; `None` if the track has no space there.
    pub(crate) fn with_script_space<T>(
        &self,
        track: usize,
        position: i64,
        f: impl FnOnce(&ScriptTable) -> T,
    ) -> Option<T> {
        let spaces = crate::per_thread::this_thread(&self.script_spaces).get_or_init(|| {
            let script_form =
                |v: &Value| ScriptTable { value: v.to_dynamic(), near_limits: std::sync::OnceLock::new() };
            self.tracks.iter().map(|t| t.spaces.iter().map(script_form).collect()).collect()
        });
        let space = usize::try_from(position - self.tracks.get(track)?.min.unwrap_or(0)).ok()?;
        spaces.get(track)?.get(space).map(f)
    }

    /// Zone index by name.
    pub fn zone(&self, name: &str) -> Result<usize, String> {
        self.index.zones.get(name).copied().ok_or_else(|| unknown("zone", name, self.index.zones.keys()))
    }

    /// Track index by name.
    pub fn track(&self, name: &str) -> Result<usize, String> {
        self.index.tracks.get(name).copied().ok_or_else(|| unknown("track", name, self.index.tracks.keys()))
    }

    /// Variable index by name.
    pub fn var(&self, name: &str) -> Result<usize, String> {
        self.index.vars.get(name).copied().ok_or_else(|| unknown("var", name, self.index.vars.keys()))
    }

    /// Decision index by name.
    pub fn decision(&self, name: &str) -> Result<usize, String> {
        self.index.decisions.get(name).copied().ok_or_else(|| unknown("decision", name, self.index.decisions.keys()))
    }

    /// Phase index by name.
    pub fn phase(&self, name: &str) -> Result<usize, String> {
        self.index.phases.get(name).copied().ok_or_else(|| unknown("phase", name, self.index.phases.keys()))
    }

    /// A graph by name.
    pub fn graph(&self, name: &str) -> Result<&GraphInfo, String> {
        self.graphs.get(name).ok_or_else(|| unknown("graph", name, self.graphs.keys()))
    }

    /// Grid index by name.
    pub fn grid(&self, name: &str) -> Result<usize, String> {
        self.index.grids.get(name).copied().ok_or_else(|| unknown("grid", name, self.index.grids.keys()))
    }

    /// Component type index by name.
    pub fn component_type(&self, name: &str) -> Result<usize, String> {
        self.index
            .component_types
            .get(name)
            .copied()
            .ok_or_else(|| unknown("component type", name, self.index.component_types.keys()))
    }
}

/// "unknown zone `x` (did you mean `y`?)"
pub fn unknown<'a>(what: &str, name: &str, known: impl Iterator<Item = &'a String>) -> String {
    let known: Vec<&str> = known.map(String::as_str).collect();
    match crate::diag::did_you_mean(name, known.iter().copied()) {
        Some(s) => format!("unknown {what} `{name}` (did you mean `{s}`?)"),
        None => {
            let mut k = known.clone();
            k.sort();
            format!("unknown {what} `{name}`; known: {}", if k.is_empty() { "none".into() } else { k.join(", ") })
        }
    }
}
