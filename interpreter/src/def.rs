//! The shape of game files: serde types that `game.toml`, its includes and variant overlays
//! deserialize into. Every field is optional in a single file (an overlay patches only what it
//! names); the loader checks what a complete game needs after merging.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;

/// A name that refers to something else (a zone, a phase, a script function), with the place
/// it was written so a wrong reference can be reported there.
pub type Ref = Spanned<String>;

/// One game file (or the merged result of a game, its includes, its base and its variants).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct GameFile {
    /// Identity and global settings.
    pub game: GameSection,
    /// Describes a variant overlay; only allowed in `variants/*.toml`.
    pub variant: Option<VariantSection>,
    /// Parameters a player can set with `--option KEY=VALUE`.
    pub params: IndexMap<String, ParamDef>,
    /// Component types and their instances.
    pub components: IndexMap<String, ComponentDef>,
    /// Named containers of components.
    pub zones: IndexMap<String, ZoneDef>,
    /// Numeric tracks (scores, positions); may carry per-space data.
    pub tracks: IndexMap<String, TrackDef>,
    /// Free values for scripts, with declared visibility.
    pub vars: IndexMap<String, VarDef>,
    /// Read-only data tables for scripts (e.g. keyed by player count).
    #[schemars(with = "IndexMap<String, serde_json::Value>")]
    pub tables: IndexMap<String, toml::Value>,
    /// Static graphs of nodes and edges with properties (maps, road networks).
    pub graphs: IndexMap<String, GraphDef>,
    /// 2-D grids of cells holding pieces (boards, tile layouts).
    pub grids: IndexMap<String, GridDef>,
    /// Decisions players make.
    pub decisions: IndexMap<String, DecisionDef>,
    /// Tricks of trick-taking games, played by `{ trick = "NAME" }` steps.
    pub tricks: IndexMap<String, TrickDef>,
    /// Named sequences of steps.
    pub phases: IndexMap<String, PhaseDef>,
    /// Where play starts and how it ends.
    pub flow: FlowDef,
    /// Script limits, within the engine's hard caps.
    pub limits: LimitsDef,
    /// Hints for the search bots (optional: every bot works without them).
    pub bots: BotsDef,
}

/// `[bots]`: what the game tells its bots (optional).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BotsDef {
    /// Script `fn(game, seat) -> integer`: how well `seat` stands now, higher is better (any
    /// scale). The `greedy` bot compares positions by it, and `mcts` judges a playout cut
    /// short (`depth`) by it. Without one, bots use the `[game] score` track.
    #[schemars(with = "Option<String>")]
    pub evaluate: Option<Ref>,
    /// Decisions a `mcts` playout runs before it stops and `evaluate` judges it (default:
    /// every playout runs to the end of the game). `--bot mcts:depth=N` overrides it.
    pub depth: Option<u32>,
}

/// `[limits]`: how much one script call may do before it is stopped with an error. The
/// defaults stop an endless loop in well under a second; each value may be raised up to a
/// hard cap (see `rulebook::script::HARD_CAPS`).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LimitsDef {
    /// Operations per call (default 5,000,000; cap 100,000,000).
    pub max_operations: Option<u64>,
    /// Nested function calls (default 64; cap 256).
    pub max_call_depth: Option<u64>,
    /// Characters in one string (default 1,048,576; cap 16,777,216).
    pub max_string_size: Option<u64>,
    /// Elements in one array (default 100,000; cap 1,000,000).
    pub max_array_size: Option<u64>,
    /// Entries in one map (default 10,000; cap 1,000,000).
    pub max_map_size: Option<u64>,
}

/// `[game]`: identity and global settings.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct GameSection {
    /// Short name (defaults to the folder name).
    pub name: Option<String>,
    /// Display title.
    pub title: Option<String>,
    /// One-paragraph description.
    pub description: Option<String>,
    /// Smallest supported player count.
    pub min_players: Option<u32>,
    /// Largest supported player count.
    pub max_players: Option<u32>,
    /// Other TOML files of this folder merged into this one, in order.
    #[schemars(with = "Vec<String>")]
    pub include: Vec<Ref>,
    /// A game folder (relative to this one) that this game overlays.
    #[schemars(with = "Option<String>")]
    pub extends: Option<Ref>,
    /// Rhai files to compile, in order (defaults to every `*.rhai` in the folder, sorted).
    #[schemars(with = "Option<Vec<String>>")]
    pub scripts: Option<Vec<Ref>>,
    /// The track that holds each player's score (used for results and summaries).
    #[schemars(with = "Option<String>")]
    pub score: Option<Ref>,
    /// Names shown for seats, in seat order (defaults to P1, P2, ...).
    pub seat_names: Option<Vec<String>>,
    /// Rules the parameters must keep between them, e.g. `{ check = "tricks * players <=
    /// suits * ranks", message = "not enough cards for the tricks" }`: integer arithmetic over
    /// integer parameters and `players`, one comparison. A game whose parameters break one
    /// does not load (or, when it depends on `players`, does not start with that many).
    pub checks: Vec<CheckDef>,
}

/// One `[game] checks` entry.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CheckDef {
    /// The rule: `A OP B` with `+ - * /`, parentheses, integers, integer parameter names and
    /// `players`; OP one of `<= < >= > == !=`.
    pub check: String,
    /// What it means for a player, shown when it does not hold.
    pub message: Option<String>,
}

/// `[variant]` in a variant overlay.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct VariantSection {
    /// What the variant changes, in a sentence.
    pub description: Option<String>,
    /// Extra Rhai files whose functions replace same-named base functions.
    #[schemars(with = "Vec<String>")]
    pub scripts: Vec<Ref>,
}

/// `[params.NAME]`: a game parameter.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ParamDef {
    /// Value used when not set.
    #[schemars(with = "Option<serde_json::Value>")]
    pub default: Option<toml::Value>,
    /// Smallest allowed integer.
    pub min: Option<i64>,
    /// Largest allowed integer.
    pub max: Option<i64>,
    /// The allowed values, when they form a closed list.
    #[schemars(with = "Option<Vec<serde_json::Value>>")]
    pub choices: Option<Vec<toml::Value>>,
    /// What it means.
    pub description: Option<String>,
}

/// `[components.TYPE]`: a component type.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ComponentDef {
    /// What it is.
    pub description: Option<String>,
    /// Label template, e.g. `"{value} of {suit}"`; defaults to the id.
    pub label: Option<String>,
    /// Instance sets created when a game starts. Each entry's keys are properties, except:
    /// `id` (a template such as `"card-{value}"`), `count` (copies: an integer or a
    /// parameter name), `per_player` (one set per player, with `owner` set to the seat, placed
    /// in that player's `zone`) and `zone`. A property written `{ from = 1, to = "cards" }`
    /// (integers or parameter names) or `{ each = [..] }` makes one instance per value; several
    /// such properties multiply.
    #[schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")]
    pub instances: Vec<toml::Table>,
    /// More instance sets, added after `instances`. Arrays in an overlay replace the base's,
    /// so an edition or variant that adds components (rather than replacing the list) puts
    /// them here.
    #[schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")]
    pub extra_instances: Vec<toml::Table>,
    /// Zone where instances start unless an instance entry names its own.
    #[schemars(with = "Option<String>")]
    pub zone: Option<Ref>,
    /// The property holding the four edge symbols (N, E, S, W, as printed) that a placement
    /// grid matches against the pieces next to it.
    pub edges: Option<String>,
    /// Makes the type a die: its faces, a list of values (`[1, 2, 3, 4, 5, 6]`,
    /// `["star", "moon"]`) or `{ from = 1, to = "sides" }` (integers or integer parameter
    /// names). The face up is the component's `face` property (the first face until rolled);
    /// `roll` steps and `game.roll` draw it from the game's generator, and only seats that see
    /// the die's zone learn what came up.
    #[schemars(with = "Option<serde_json::Value>")]
    pub faces: Option<toml::Value>,
}

/// What a var's value names, so that views can show it by name.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, serde::Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Holds {
    /// A plain value, shown as it is.
    #[default]
    Value,
    /// A seat number (0-based), shown by the seat's name; -1 or `()` is shown as `nobody`.
    Seat,
    /// A component id, shown by the component's label to seats that see the component.
    Component,
}

/// How much of a zone other players see.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, serde::Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Everyone sees every component.
    #[default]
    Public,
    /// The owning player sees the components; others see the count.
    Owner,
    /// Everyone sees only the count.
    Count,
    /// Everyone sees the count and the top (last) component.
    Top,
    /// Nobody sees anything, not even the count.
    Hidden,
}

/// What happens when a component is added to a full zone.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Overflow {
    /// The move fails with an error.
    #[default]
    Reject,
    /// The component at the far end (the first one) is pushed out to `overflow_to`.
    PushOut,
}

/// `[graphs.NAME]`: a static graph, e.g. cities joined by roads.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct GraphDef {
    /// What it is.
    pub description: Option<String>,
    /// Nodes: tables with a unique `id` and any other properties.
    #[schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")]
    pub nodes: Vec<toml::Table>,
    /// Edges: tables with a unique `id`, the node ids `from` and `to`, and any other properties.
    #[schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")]
    pub edges: Vec<toml::Table>,
    /// Whether an edge only leads from `from` to `to` (default: both ways).
    pub directed: bool,
}

/// `[grids.NAME]`: a 2-D grid of cells, e.g. a score board or a layout of tiles.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct GridDef {
    /// What it is.
    pub description: Option<String>,
    /// One grid per player instead of one global grid.
    pub per_player: bool,
    /// Who sees the pieces (`public`, `owner` or `hidden`).
    pub visible: Visibility,
    /// The rows: a count `n` (rows 1 to n) or `[first, last]`. With `cols`; leave both out
    /// for an unbounded grid that grows as pieces are placed.
    #[schemars(with = "Option<serde_json::Value>")]
    pub rows: Option<toml::Value>,
    /// The columns: a count `n` (columns 1 to n) or `[first, last]`.
    #[schemars(with = "Option<serde_json::Value>")]
    pub cols: Option<toml::Value>,
    /// `"ascending"` (default: row numbers grow downwards, north is the row above with the
    /// next lower number) or `"descending"` (the highest row is drawn on top).
    pub row_order: Option<String>,
    /// Data of single cells: tables with `row`, `col` and any other properties.
    #[schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")]
    pub cells: Vec<toml::Table>,
    /// Label template of a cell, filled from its data (e.g. `"{symbol?}"`), shown in views.
    pub cell_label: Option<String>,
    /// Label template of a component placed on the grid, filled from its properties
    /// (default: its id).
    pub piece_label: Option<String>,
    /// Markers: pieces that are not components, named by these ids.
    pub markers: Vec<String>,
    /// How many pieces one cell may hold (default 1).
    pub per_cell: Option<i64>,
    /// A piece is placed next to one already there (unless the grid is empty).
    pub connected: bool,
    /// Makes this a placement grid whose touching edges must match (see [`MatchDef`]).
    #[serde(rename = "match")]
    pub match_: Option<MatchDef>,
}

/// `match = { ... }`: the edge rule of a placement grid. Equal symbols match; the wildcard
/// matches any symbol but itself and the blank; a blank edge matches only a blank one.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct MatchDef {
    /// The symbol that matches any other symbol (none if unset).
    pub wildcard: Option<String>,
    /// The symbol of an edge without a symbol (default `""`).
    pub blank: Option<String>,
}

/// `[zones.NAME]`: a container of components.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ZoneDef {
    /// One zone per player instead of one global zone.
    pub per_player: bool,
    /// Whether order matters (a stack or row). Unordered zones are shown sorted.
    pub ordered: Option<bool>,
    /// Who sees what.
    pub visible: Visibility,
    /// Every seat knows which components lie here, though views do not show them (a box of
    /// parts the rules leave out, whose contents follow from public facts): search bots never
    /// deal its contents anew, and a component taken from it is known for what it is.
    pub known: bool,
    /// Maximum number of components: an integer, `"players"` (the number of seats) or the name
    /// of an integer parameter.
    #[schemars(with = "Option<serde_json::Value>")]
    pub capacity: Option<toml::Value>,
    /// Behaviour when full.
    pub overflow: Overflow,
    /// Where pushed-out components go; a per-player zone means the component's `owner`'s.
    #[schemars(with = "Option<String>")]
    pub overflow_to: Option<Ref>,
    /// Show the zone as numbered places (cells, seats, slots): a label template with `{n}`,
    /// e.g. `"cell {n}"`. With a `capacity`, empty places are shown too.
    pub places: Option<String>,
    /// Which end is place 1: `"bottom"` (the first component, default) or `"top"` (the last).
    pub places_from: Option<String>,
    /// Label template for the components while they are in this zone (e.g.
    /// `"{rank} ({owner})"`), instead of their type's `label`.
    pub card_label: Option<String>,
    /// What it is for.
    pub description: Option<String>,
}

/// `[tracks.NAME]`: a numeric value on a track, global or per player.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TrackDef {
    /// One value per player.
    pub per_player: bool,
    /// Starting value: an integer, or the name of an integer parameter (so that a house rule
    /// changes it with `--option`).
    #[schemars(with = "Option<serde_json::Value>")]
    pub start: Option<toml::Value>,
    /// Lowest value (moves below are clamped): an integer, or an integer parameter's name.
    #[schemars(with = "Option<serde_json::Value>")]
    pub min: Option<toml::Value>,
    /// Highest value (moves above are clamped): an integer, or an integer parameter's name.
    #[schemars(with = "Option<serde_json::Value>")]
    pub max: Option<toml::Value>,
    /// Visibility to other players (`public`, `owner` or `hidden`).
    pub visible: Visibility,
    /// Per-space data, space `i` at index `i - min` (or `i` when no `min`).
    #[schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")]
    pub spaces: Vec<toml::Table>,
    /// How a view names the space a value is on: a template over the space's data (e.g.
    /// `"{name}: {bonus} points"`). A space whose data has a `label` uses that;
    /// without a template, the space's `name`.
    pub space_label: Option<String>,
    /// What it is for.
    pub description: Option<String>,
}

/// `[vars.NAME]`: a free value scripts read and write.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct VarDef {
    /// One value per player.
    pub per_player: bool,
    /// Initial value.
    #[schemars(with = "Option<serde_json::Value>")]
    pub default: Option<toml::Value>,
    /// Visibility to other players (`public`, `owner` or `hidden`).
    pub visible: Visibility,
    /// Script `fn(game)` (global) or `fn(game, player)` (per player) that computes the value
    /// whenever a view shows it: a line derived from the state is never stale. Scripts cannot
    /// set it (they call the function instead).
    #[schemars(with = "Option<String>")]
    pub derived: Option<Ref>,
    /// What the value names: `value` (default), `seat` or `component`; views show a seat by
    /// its name and a component by its label.
    pub holds: Holds,
    /// What it is for.
    pub description: Option<String>,
}

/// `[decisions.NAME]`: a choice a player makes.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DecisionDef {
    /// What the player is asked.
    pub prompt: Option<String>,
    /// Options are the components in this zone (the decider's own, for a per-player zone).
    #[schemars(with = "Option<String>")]
    pub from: Option<Ref>,
    /// Script `fn(game, player, component[, ctx]) -> bool` keeping only some `from` options.
    #[schemars(with = "Option<String>")]
    pub filter: Option<Ref>,
    /// Script `fn(game, player[, ctx]) -> array` returning options as maps with `id`, `label`
    /// and any other fields.
    #[schemars(with = "Option<String>")]
    pub options: Option<Ref>,
    /// Label template for component options (defaults to the component type's label), and
    /// for scripted options without a `label` of their own: filled from the option map's
    /// fields (`{id}`, `{name}`, ...) only when a label is read, so scripts need not build
    /// label strings that simulations never show.
    pub label: Option<String>,
    /// With `options`: script `fn(game, player, option[, ctx]) -> string` labelling every
    /// option map that has no `label` of its own, for labels a template cannot say (they
    /// depend on the game). Called only when a label is read, on a copy of the game: whatever
    /// it changes is dropped.
    #[schemars(with = "Option<String>")]
    pub label_by: Option<Ref>,
    /// With `from`: where the chosen component goes once the decision is answered (for a
    /// commit: when every choice is revealed, in seat order), the answering seat's own slot of
    /// a per-player zone; before the decision's contest and its `then` or `reveal` script.
    #[schemars(with = "Option<String>")]
    pub to: Option<Ref>,
    /// Script `fn(game, player, choice[, ctx])` run after a single player's choice.
    #[schemars(with = "Option<String>")]
    pub then: Option<Ref>,
    /// Script `fn(game, choices[, ctx])` run when all commits are revealed; `choices[p]` is
    /// player p's choice (or `()` if p did not take part).
    #[schemars(with = "Option<String>")]
    pub reveal: Option<Ref>,
    /// Keep the choice secret from other players for good (it is never revealed publicly).
    pub secret: bool,
    /// Script `fn(game, player, options[, ctx]) -> id` that answers this decision
    /// automatically: for seats played by the rules themselves.
    #[schemars(with = "Option<String>")]
    pub auto: Option<Ref>,
    /// Which seats answer automatically (script `fn(game, player) -> bool`).
    #[schemars(with = "Option<String>")]
    pub auto_if: Option<Ref>,
    /// Who the log names as making this decision, for positions played by the rules rather
    /// than a seat (e.g. a dummy player): `"Dummy chose 17"`.
    pub actor: Option<String>,
    /// What happens when a player has no legal option: `"error"` (default: the rules are
    /// broken) or `"skip"` (that player is not asked; e.g. nothing left to take).
    pub if_no_options: Option<String>,
    /// For component options (`from`): the follow rule of trick-taking games, judged by the
    /// engine. If any option matches the value to follow, only those are legal.
    pub follow: Option<FollowDef>,
    /// For a commit: let the engine judge the revealed components (no script needed).
    pub contest: Option<ContestDef>,
    /// With `from`: the player chooses a set of those components rather than one. The engine
    /// enumerates every allowed set as one option (id: the component ids joined by `+`).
    pub subset: Option<SubsetDef>,
}

/// `subset = { ... }`: which sets of the `from` components may be chosen. Every constraint
/// given must hold; `valid` judges what data cannot say.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SubsetDef {
    /// Fewest components in a set (default 1): a number, or the name of an integer parameter.
    #[schemars(with = "Option<serde_json::Value>")]
    pub min: Option<toml::Value>,
    /// Most components in a set (default: all candidates): a number, or the name of an integer
    /// parameter.
    #[schemars(with = "Option<serde_json::Value>")]
    pub max: Option<toml::Value>,
    /// Properties every component of a set shares (e.g. `["suit"]`).
    pub same: Vec<String>,
    /// Properties no two components of a set share (e.g. `["rank"]`).
    pub distinct: Vec<String>,
    /// A property whose values in a set form a run without gaps (integers, or positions in
    /// `order`); a value may repeat unless it is also `distinct`.
    pub consecutive: Option<String>,
    /// The order of `consecutive` values, for values that are not integers (e.g.
    /// `["A", "B", "C"]`).
    #[schemars(with = "Option<Vec<serde_json::Value>>")]
    pub order: Option<Vec<toml::Value>>,
    /// Script `fn(game, player, cards[, ctx]) -> bool` judging a whole set that passed the
    /// constraints above.
    #[schemars(with = "Option<String>")]
    pub valid: Option<Ref>,
}

/// `follow = { ... }`: options must match a led value (e.g. the suit) when they can.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct FollowDef {
    /// The component property compared (e.g. `"suit"`).
    pub by: String,
    /// A global var holding the value to follow.
    #[schemars(with = "Option<String>")]
    pub var: Option<Ref>,
    /// Or: a global zone whose first component's `by` is the value to follow.
    #[schemars(with = "Option<String>")]
    pub zone: Option<Ref>,
    /// The var's value that means "nothing to follow yet" (besides `()` and an empty zone).
    #[schemars(with = "Option<serde_json::Value>")]
    pub free: Option<toml::Value>,
}

/// Which end of a comparison wins.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Best {
    /// The highest value wins.
    #[default]
    Highest,
    /// The lowest value wins.
    Lowest,
}

/// What a tie for the best value means.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Ties {
    /// Nobody wins.
    #[default]
    Nobody,
    /// Every tied player wins (the stake goes to the first of them in turn order).
    All,
    /// The first tied player in turn order wins.
    First,
}

/// `[decisions.NAME.contest]`: the engine compares the components revealed by a commit and
/// hands a stake to the winner. Runs before the decision's `reveal` script, if any.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ContestDef {
    /// The integer property compared.
    pub by: Option<String>,
    /// Which end wins.
    pub best: Best,
    /// What a tie for best means.
    pub ties: Ties,
    /// Where the revealed components go afterwards (they stay where they are if unset).
    #[schemars(with = "Option<String>")]
    pub played_to: Option<Ref>,
    /// A global zone whose components the winner takes.
    #[schemars(with = "Option<String>")]
    pub stake: Option<Ref>,
    /// The winner's per-player zone that receives the stake.
    #[schemars(with = "Option<String>")]
    pub stake_to: Option<Ref>,
    /// Where the stake goes when nobody wins (it stays if unset).
    #[schemars(with = "Option<String>")]
    pub unclaimed_to: Option<Ref>,
    /// A per-player track the winner adds the stake's `by` values to.
    #[schemars(with = "Option<String>")]
    pub score: Option<Ref>,
    /// A global var set to the winning seat (or -1 when nobody wins).
    #[schemars(with = "Option<String>")]
    pub winner_var: Option<Ref>,
}

/// `[tricks.NAME]`: one trick of a trick-taking game, played by a `{ trick = "NAME" }` step.
/// The engine asks every seat in turn order from the leader, lays each card on the table,
/// sets the suit led, finds the winner, hands the trick over and names the next leader.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TrickDef {
    /// What it is.
    pub description: Option<String>,
    /// The decisions (each with `from`) the seats answer, in rounds: every seat from the
    /// leader answers the first, then every seat the second, and so on (default: one round).
    #[schemars(with = "Vec<String>")]
    pub plays: Vec<Ref>,
    /// A per-player zone: each card played lies in its player's slot until the trick is won.
    #[schemars(with = "Option<String>")]
    pub table: Option<Ref>,
    /// A global var holding the seat that leads (a seat number). The engine sets it to the
    /// next leader when the trick is over.
    #[schemars(with = "Option<String>")]
    pub leader: Option<Ref>,
    /// The property naming a card's suit: what is led, followed and trumped.
    pub suit: Option<String>,
    /// A global var the engine sets to the suit of the first card played, and back to its
    /// default when the trick is over (a play decision's `follow = { var = ... }` reads it).
    #[schemars(with = "Option<String>")]
    pub led: Option<Ref>,
    /// The integer property that ranks cards of one suit.
    pub rank: Option<String>,
    /// Which rank wins: `"highest"` (default) or `"lowest"`.
    pub best: Best,
    /// A global var holding the trump suit: a card of that suit beats every card of another.
    /// A value no card has (e.g. `"none"`) means no trumps.
    #[schemars(with = "Option<String>")]
    pub trump: Option<Ref>,
    /// A global track: a card whose `rank` is below the track's value is a trump, whatever
    /// its suit; when any is played, the best `rank` among them wins.
    #[schemars(with = "Option<String>")]
    pub trump_below: Option<Ref>,
    /// Every card played competes, whatever its suit: the best `rank` of all wins (the suit
    /// led then only decides what must be followed). Default `false`: only the suit led (or a
    /// trump) can win.
    pub any_suit: bool,
    /// Script `fn(game, plays) -> index`: the game's own rule for which play wins, instead of
    /// `suit`/`rank`/`trump`. `plays[i]` is `#{ player, card }`, in the order played.
    #[schemars(with = "Option<String>")]
    pub winner: Option<Ref>,
    /// Script `fn(game, trick)` run once the winner is known, before the table is cleared:
    /// `trick` is `#{ winner, index, card, plays, led }`.
    #[schemars(with = "Option<String>")]
    pub then: Option<Ref>,
    /// When `then` runs: `"always"` (default), `"below"` (only when the winning card's `rank`
    /// is below the `trump_below` track) or `"trump"` (only when the winning card is of the
    /// `trump` suit).
    pub then_when: ThenWhen,
    /// A per-player zone: the winner takes every card still on the table into its slot.
    #[schemars(with = "Option<String>")]
    pub won: Option<Ref>,
    /// Who leads the next trick: `"winner"` (default), `"leader"` (the same seat again) or
    /// `"next"` (the seat after the leader in turn order).
    pub next_leader: NextLeader,
}

/// Which tricks a trick's `then` hook runs after.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ThenWhen {
    /// Every trick.
    #[default]
    Always,
    /// Only a trick won by a card ranked below the `trump_below` track.
    Below,
    /// Only a trick won by a card of the `trump` suit.
    Trump,
}

/// Who leads the next trick.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NextLeader {
    /// The trick's winner.
    #[default]
    Winner,
    /// The same seat that led this trick.
    Leader,
    /// The seat after this trick's leader in turn order.
    Next,
}

/// `[phases.NAME]`: an ordered list of steps, possibly repeated.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PhaseDef {
    /// The steps, run in order.
    pub steps: Vec<StepDef>,
    /// Run the steps once per player, in turn order, each as the current player.
    pub for_each_player: bool,
    /// Repeat while this script predicate `fn(game) -> bool` holds (checked before each pass).
    #[schemars(with = "Option<String>")]
    pub repeat_while: Option<Ref>,
    /// Repeat while any slot of this zone holds a component (checked before each pass): a
    /// phase of tricks played while cards are left, without a script.
    #[schemars(with = "Option<String>")]
    pub repeat_while_cards: Option<Ref>,
    /// Repeat this many times (an integer or a parameter name).
    #[schemars(with = "Option<serde_json::Value>")]
    pub repeat: Option<toml::Value>,
    /// A track set to the pass number (1, 2, ...) at the start of each pass.
    #[schemars(with = "Option<String>")]
    pub counter: Option<Ref>,
    /// What it is.
    pub description: Option<String>,
}

/// One step of a phase. Exactly one of `run`, `ask`, `commit`, `phase`, `move`, `shuffle`,
/// `roll`, `trick` must be set.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct StepDef {
    /// Run a script `fn(game)`.
    #[schemars(with = "Option<String>")]
    pub run: Option<Ref>,
    /// Ask one player a decision.
    #[schemars(with = "Option<String>")]
    pub ask: Option<Ref>,
    /// Ask several players a decision at once, hidden until all have committed.
    #[schemars(with = "Option<String>")]
    pub commit: Option<Ref>,
    /// Enter another phase.
    #[schemars(with = "Option<String>")]
    pub phase: Option<Ref>,
    /// Move components between zones without a script.
    #[serde(rename = "move")]
    pub move_: Option<MoveDef>,
    /// Shuffle a zone (global, or the current player's) without a script.
    #[schemars(with = "Option<String>")]
    pub shuffle: Option<Ref>,
    /// Roll every die in a zone (a global zone, or every player's slot of a per-player zone:
    /// everyone's cup at once) without a script.
    #[schemars(with = "Option<String>")]
    pub roll: Option<Ref>,
    /// Play one trick (`[tricks.NAME]`).
    #[schemars(with = "Option<String>")]
    pub trick: Option<Ref>,
    /// Who is asked (`ask`): `"current"` (default) or a script `fn(game) -> player`.
    #[schemars(with = "Option<String>")]
    pub player: Option<Ref>,
    /// Who commits (`commit`): `"all"` (default) or a script `fn(game) -> array`.
    #[schemars(with = "Option<String>")]
    pub players: Option<Ref>,
    /// Skip the step unless this script predicate `fn(game) -> bool` holds.
    #[serde(rename = "if")]
    #[schemars(with = "Option<String>")]
    pub if_: Option<Ref>,
}

/// A declarative move: `count` components from the top of `from` to `to`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct MoveDef {
    /// Source zone (global, or the current player's).
    #[schemars(with = "Option<String>")]
    pub from: Option<Ref>,
    /// Destination zone (global, or the current player's).
    #[schemars(with = "Option<String>")]
    pub to: Option<Ref>,
    /// How many (default 1); fewer are moved if the source runs out.
    pub count: Option<u32>,
    /// Deal `count` to every player's `to` zone instead, in turn order.
    pub deal: bool,
}

/// `[flow]`: where play starts and how it ends.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct FlowDef {
    /// Script `fn(game)` run once before the first phase.
    #[schemars(with = "Option<String>")]
    pub setup: Option<Ref>,
    /// The phase play starts in.
    #[schemars(with = "Option<String>")]
    pub start: Option<Ref>,
    /// Script `fn(game) -> array` naming the winners; defaults to the highest score(s).
    #[schemars(with = "Option<String>")]
    pub winners: Option<Ref>,
    /// Stop with an error after this many steps without a decision (default 1,000,000).
    pub max_steps: Option<u64>,
    /// Stop with an error when a game has taken this many decisions without ending (default
    /// 50,000): a game whose end condition can never be met must not run forever.
    pub max_decisions: Option<u64>,
}
