//! [`State`]: the changing half of a game (zones, tracks, variables, the flow stack, the
//! pending decision and the random generator). Cloning a state is cheap: component data is
//! shared until a script changes it.

use crate::def::Visibility;
use crate::grid::GridSlot;
use crate::log::{Event, EventKind};
use crate::rng::GameRng;
use crate::rules::Rules;
use crate::value::Value;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

/// A component's properties by name.
pub type Props = crate::value::ValueMap;

/// One physical component (card, tile, token).
#[derive(Clone, Debug, Serialize)]
pub struct Component {
    /// Stable id, unique in the game.
    pub id: String,
    /// The id again, shared: each decision answered by choosing the component records it in
    /// the session's history without copying it.
    #[serde(skip)]
    shared_id: Arc<str>,
    /// Component type index.
    pub kind: usize,
    /// Properties (shared with the views that show them; [`Component::set_prop`] changes one).
    pub props: Arc<Props>,
    /// The label, filled in once from the type's template (views and logs read it often).
    #[serde(skip)]
    label: String,
    /// The id, type name and properties as script values, made once (a script reading
    /// `c.suit` gets a shared copy instead of a new string each time).
    #[serde(skip)]
    script: Arc<ScriptValues>,
    /// The component as views show it, made once (every view of every seat shows it).
    #[serde(skip)]
    shown: Arc<CardView>,
    /// The component as each zone with its own `card_label` shows it, by zone index (`None`
    /// for the other zones; empty when no zone has one), made once.
    #[serde(skip)]
    shown_in_zone: Vec<Option<Arc<CardView>>>,
    /// The component's place in the run of each `subset` decision with `consecutive`, by
    /// decision index (`None` where it has no place in it, or the decision no run; empty when
    /// no decision has one), worked out once: a subset decision ranks its candidates at every
    /// step. Shared by the copies of the component (a copy of the components copies no list).
    #[serde(skip)]
    run_ranks: Arc<[Option<i64>]>,
}

/// A component as a viewer sees it.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct CardView {
    /// Stable id.
    pub id: String,
    /// Component type.
    pub kind: String,
    /// Label.
    pub label: String,
    /// Properties.
    pub props: Arc<Props>,
}

/// A component's fields as script values, in the order of its properties.
#[derive(Debug, Default)]
pub struct ScriptValues {
    /// `c.id`.
    pub id: rhai::Dynamic,
    /// `c.kind`: the type's name.
    pub kind: rhai::Dynamic,
    /// `c.PROP`, by the property's index in [`Component::props`].
    pub props: Vec<rhai::Dynamic>,
}

impl Component {
    /// Property `key`. A component has a handful of properties: comparing names one by one
    /// is quicker than hashing the key (the engine reads `by`, `suit` and `rank` properties
    /// at every contest and trick).
    pub fn prop(&self, key: &str) -> Option<&Value> {
        if self.props.len() <= 8 {
            self.props.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
        } else {
            self.props.get(key)
        }
    }

    /// A component of type `kind`, its label filled in from the type's template.
    pub fn new(rules: &Rules, id: String, kind: usize, mut props: Props) -> Component {
        if let Some(first) = rules.component_types[kind].faces.as_ref().and_then(|f| f.first()) {
            props.entry("face".to_string()).or_insert_with(|| first.clone());
        }
        let mut c = Component {
            shared_id: Arc::from(id.as_str()),
            id,
            kind,
            props: Arc::new(props),
            label: String::new(),
            script: Arc::default(),
            shown: Arc::default(),
            shown_in_zone: Vec::new(),
            run_ranks: Arc::new([]),
        };
        c.refresh(rules);
        c
    }

    /// The id, shared (see the field).
    pub fn shared_id(&self) -> &Arc<str> {
        &self.shared_id
    }

    /// The component's place in the run of decision `decision`'s `subset`, worked out when
    /// its properties were set (`None` if it has none there: [`crate::subset::rank`] says why).
    pub fn run_rank(&self, decision: usize) -> Option<i64> {
        self.run_ranks.get(decision).copied().flatten()
    }

    /// Fills in the label, the script values, the view and the run ranks from the properties.
    fn refresh(&mut self, rules: &Rules) {
        if rules.decisions.iter().any(|d| d.subset.as_ref().is_some_and(|s| s.consecutive.is_some())) {
            let props = &self.props;
            self.run_ranks = rules
                .decisions
                .iter()
                .map(|d| {
                    let (prop, order) = d.subset.as_ref()?.consecutive.as_ref()?;
                    crate::subset::rank(props, prop, order.as_deref()).ok()
                })
                .collect();
        }
        self.label = self.fill_label(rules);
        let kind = &rules.component_types[self.kind].name;
        self.script = Arc::new(ScriptValues {
            id: self.id.clone().into(),
            kind: kind.clone().into(),
            props: self.props.values().map(Value::to_dynamic).collect(),
        });
        self.shown = Arc::new(CardView {
            id: self.id.clone(),
            kind: kind.clone(),
            label: self.label.clone(),
            props: self.props.clone(),
        });
        self.shown_in_zone.clear();
        if rules.zones.iter().any(|z| z.card_label.is_some()) {
            self.shown_in_zone = rules
                .zones
                .iter()
                .map(|z| {
                    z.card_label.as_ref().map(|t| {
                        Arc::new(CardView {
                            label: crate::value::fill_template(t, &self.props, &self.id),
                            ..CardView::clone(&self.shown)
                        })
                    })
                })
                .collect();
        }
    }

    /// The component as views show it (its type's label; a zone's `card_label` is the view's
    /// to apply).
    pub fn card_view(&self) -> &Arc<CardView> {
        &self.shown
    }

    /// The component as zone `zone` shows it: with the zone's `card_label` if it has one.
    pub fn card_view_in(&self, zone: usize) -> &Arc<CardView> {
        self.shown_in_zone.get(zone).and_then(Option::as_ref).unwrap_or(&self.shown)
    }

    /// The component's fields as script values.
    pub fn script_values(&self) -> &ScriptValues {
        &self.script
    }

    fn fill_label(&self, rules: &Rules) -> String {
        match &rules.component_types[self.kind].label {
            Some(t) => crate::value::fill_template(t, &self.props, &self.id),
            None => self.id.clone(),
        }
    }

    /// The component's label: its type's `label` template filled in, or its id.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Sets one property (the label follows it).
    pub fn set_prop(&mut self, rules: &Rules, key: &str, value: Value) {
        Arc::make_mut(&mut self.props).insert(key.to_string(), value);
        self.refresh(rules);
    }
}

/// All components of a game, with an id index. Each component and the index are shared by
/// the copies (a state's components are copied when one of them changes while scripts hold
/// handles of them: the copy then makes a list of pointers, not of components).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Components {
    /// Components by index (a component is added with [`Components::push`]).
    pub list: Vec<Arc<Component>>,
    /// Index by id.
    #[serde(skip)]
    pub by_id: Arc<HashMap<String, u32, crate::value::NameHasher>>,
    /// The numbers of the components' values of the properties in [`Rules::prop_codes`]
    /// (see [`crate::codes`]): component `i`'s for slot `s` at `i * slots + s`. One table
    /// for all: a contest or a trick reads a card's number one load away from the components,
    /// not through the card's own pointers.
    #[serde(skip)]
    codes: Vec<u32>,
    /// Numbers per component (the slots of [`Rules::prop_codes`]).
    #[serde(skip)]
    slots: usize,
}

impl Components {
    /// Adds a component (index: the number of components before it) and its numbers.
    pub fn push(&mut self, rules: &Rules, component: Component) {
        self.slots = rules.prop_codes.keys().len();
        self.codes.extend(rules.prop_codes.codes_of(&component.props));
        self.list.push(Arc::new(component));
    }

    /// Sets one property of component `idx` (see [`Component::set_prop`]); the other
    /// components stay shared with the copies.
    pub fn set_prop(&mut self, rules: &Rules, idx: u32, key: &str, value: Value) {
        let c = Arc::make_mut(&mut self.list[idx as usize]);
        c.set_prop(rules, key, value);
        let at = idx as usize * self.slots;
        for (kept, code) in self.codes[at..at + self.slots].iter_mut().zip(rules.prop_codes.codes_of(&c.props)) {
            *kept = code;
        }
    }

    /// The number of component `idx`'s value of the property in slot `slot` of
    /// [`Rules::prop_codes`] ([`crate::codes::MISSING`] without one).
    #[inline]
    pub fn code(&self, idx: u32, slot: usize) -> u32 {
        if slot >= self.slots {
            return crate::codes::MISSING;
        }
        self.codes.get(idx as usize * self.slots + slot).copied().unwrap_or(crate::codes::MISSING)
    }

    /// Component `idx`'s value of the property `key` names, found by its number (see
    /// [`crate::codes`]): looked up by name only when the value has none, or is an integer
    /// that is its own number ([`Components::coded_int`] reads that without a lookup).
    pub fn coded_prop<'a>(
        &'a self,
        codes: &'a crate::codes::PropCodes,
        idx: u32,
        key: &crate::codes::PropKey,
    ) -> Option<&'a Value> {
        match self.code(idx, key.slot) {
            crate::codes::MISSING => None,
            code if code & crate::codes::INT != 0 => self.list[idx as usize].prop(&key.name),
            code => codes.value(key.slot, code),
        }
    }

    /// The integer value of component `idx`'s property `key` (`None` if it has none, or not
    /// an integer): read from its number (see [`crate::codes::int_of`]), looked up by name
    /// only for a value without one.
    #[inline]
    pub fn coded_int(&self, codes: &crate::codes::PropCodes, idx: u32, key: &crate::codes::PropKey) -> Option<i64> {
        match self.code(idx, key.slot) {
            crate::codes::UNCODED => self.list[idx as usize].prop(&key.name).and_then(Value::as_int),
            code => crate::codes::int_of(codes, key.slot, code),
        }
    }
}

/// The contents of one zone (of one owner).
#[derive(Debug, Default, Serialize)]
pub struct ZoneSlot {
    /// Component indices, bottom/first to top/last.
    pub cards: Vec<u32>,
    /// Visibility set by a script, replacing the declared one.
    pub visible: Option<Visibility>,
}

impl Clone for ZoneSlot {
    fn clone(&self) -> Self {
        ZoneSlot { cards: self.cards.clone(), visible: self.visible }
    }

    /// Copies into the buffer already there ([`crate::session::Session::restore`] copies a
    /// whole state back this way, without allocating).
    fn clone_from(&mut self, source: &Self) {
        self.cards.clone_from(&source.cards);
        self.visible = source.visible;
    }
}

/// A choosable option of a pending decision. Sixteen bytes: the rare large options are boxed,
/// so option lists of components (most decisions) are cheap to build, move and copy.
#[derive(Debug, Serialize)]
pub enum Choice {
    /// A component (options `from` a zone).
    Component(u32),
    /// Adds a component to the set a `subset` decision is building (a step, not an answer).
    Add(u32),
    /// Finishes a `subset` decision with the set built so far: the answer.
    Subset(Box<SubsetChoice>),
    /// An option produced by a script.
    Scripted(Box<ScriptedChoice>),
}

impl Clone for Choice {
    fn clone(&self) -> Self {
        match self {
            Choice::Component(i) => Choice::Component(*i),
            Choice::Add(i) => Choice::Add(*i),
            Choice::Subset(s) => Choice::Subset(s.clone()),
            Choice::Scripted(s) => Choice::Scripted(s.clone()),
        }
    }

    /// Copies a scripted option into the box already there (restoring a snapshot).
    fn clone_from(&mut self, source: &Self) {
        match (self, source) {
            (Choice::Scripted(to), Choice::Scripted(from)) => {
                to.id.clone_from(&from.id);
                to.label.clone_from(&from.label);
                to.value.clone_from(&from.value);
            }
            (to, from) => *to = from.clone(),
        }
    }
}

impl Choice {
    /// The component this option is, when it is one (not a step of a `subset` decision).
    pub fn component(&self) -> Option<u32> {
        match self {
            Choice::Component(i) => Some(*i),
            Choice::Add(_) | Choice::Subset(_) | Choice::Scripted(_) => None,
        }
    }
}

/// The options listed for one seat of a pending decision, read as a list of [`Choice`]s
/// (and serialized as one). The components of a zone, which most decisions offer, are kept as
/// plain indices: listed with one copy of the zone's list and emptied at once, where a list of
/// `Choice`s is written and dropped one option at a time.
#[derive(Default)]
pub struct SeatOptions {
    /// The options, when each is a component (else empty).
    components: Vec<u32>,
    /// The options, when they are not all components (else empty).
    others: Vec<Choice>,
}

impl SeatOptions {
    /// A list of options as given.
    pub fn from_choices(choices: Vec<Choice>) -> SeatOptions {
        SeatOptions { components: Vec::new(), others: choices }
    }

    /// How many options there are.
    #[inline]
    pub fn len(&self) -> usize {
        self.components.len() + self.others.len()
    }

    /// Whether there is no option.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Option `index`, if there is one.
    #[inline]
    pub fn get(&self, index: usize) -> Option<Cow<'_, Choice>> {
        match self.components.get(index) {
            Some(&c) => Some(Cow::Owned(Choice::Component(c))),
            None => self.others.get(index).map(Cow::Borrowed),
        }
    }

    /// The component option `index` is, if there is that option and it is a component.
    #[inline]
    pub fn component(&self, index: usize) -> Option<u32> {
        match self.components.get(index) {
            Some(&c) => Some(c),
            None => self.others.get(index).and_then(Choice::component),
        }
    }

    /// The component option `index` adds to the set a `subset` decision is building, if it
    /// is such a step.
    #[inline]
    pub fn added(&self, index: usize) -> Option<u32> {
        match self.others.get(index) {
            Some(Choice::Add(c)) => Some(*c),
            _ => None,
        }
    }

    /// Option `index` as listed, when the options are not all components (else `None`: see
    /// [`SeatOptions::component`]).
    #[inline]
    pub fn listed(&self, index: usize) -> Option<&Choice> {
        self.others.get(index)
    }

    /// Option `index`, which the caller knows is there (a checked answer).
    #[inline]
    pub fn at(&self, index: usize) -> Cow<'_, Choice> {
        self.get(index).expect("an option index checked against the list")
    }

    /// The options, in order.
    pub fn iter(&self) -> impl Iterator<Item = Cow<'_, Choice>> + '_ {
        let components = self.components.iter().map(|&c| Cow::Owned(Choice::Component(c)));
        components.chain(self.others.iter().map(Cow::Borrowed))
    }

    /// How many options the list has room for without growing.
    #[cfg(test)]
    pub(crate) fn room(&self) -> usize {
        self.components.capacity().max(self.others.capacity())
    }

    /// Empties the list, keeping its room.
    #[inline]
    pub fn clear(&mut self) {
        self.components.clear();
        if !self.others.is_empty() {
            self.others.clear();
        }
    }

    /// Replaces the options by `choices`.
    pub fn set_choices(&mut self, choices: Vec<Choice>) {
        self.components.clear();
        self.others = choices;
    }

    /// Empties the list and gives the room of its components, to be filled with components
    /// only.
    #[inline]
    pub(crate) fn components_to_fill(&mut self) -> &mut Vec<u32> {
        self.clear();
        &mut self.components
    }

    /// Empties the list and gives its list of `Choice`s (with its room), to be filled and put
    /// back with [`SeatOptions::set_choices`].
    pub(crate) fn take_room(&mut self) -> Vec<Choice> {
        self.clear();
        std::mem::take(&mut self.others)
    }
}

impl Clone for SeatOptions {
    fn clone(&self) -> Self {
        SeatOptions { components: self.components.clone(), others: self.others.clone() }
    }

    /// Copies into the buffers already there (restoring a snapshot in a search).
    fn clone_from(&mut self, source: &Self) {
        self.components.clone_from(&source.components);
        self.others.clone_from(&source.others);
    }
}

impl std::fmt::Debug for SeatOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for SeatOptions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// The answer of a `subset` decision: the set built.
#[derive(Clone, Debug, Serialize)]
pub struct SubsetChoice {
    /// Stable id: the component ids in candidate order, joined by `+`.
    pub id: String,
    /// The components, in candidate order.
    pub cards: Vec<u32>,
}

/// An option produced by a script.
#[derive(Clone, Debug, Serialize)]
pub struct ScriptedChoice {
    /// Stable id.
    pub id: String,
    /// Label: the option map's `label`; `None` when it has none, so that the label is made
    /// only when someone reads it (from the decision's `label` template and the option's
    /// fields, else the id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The whole option map, handed back to the script.
    pub value: crate::value::PlainScriptValue,
}

/// A decision waiting for answers.
#[derive(Debug, Serialize)]
pub struct Pending {
    /// Decision index.
    pub decision: usize,
    /// A simultaneous hidden commit (else a single player's decision).
    pub commit: bool,
    /// Who must answer.
    pub players: Vec<usize>,
    /// Options per listed player.
    pub options: Vec<SeatOptions>,
    /// Answers so far (index into that player's options), hidden from others.
    pub chosen: Vec<Option<usize>>,
    /// Context the decision was asked with.
    pub ctx: Value,
    /// For a `subset` decision: the set each listed player has built so far (else empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub building: Vec<Vec<u32>>,
}

impl Clone for Pending {
    fn clone(&self) -> Self {
        Pending {
            decision: self.decision,
            commit: self.commit,
            players: self.players.clone(),
            options: self.options.clone(),
            chosen: self.chosen.clone(),
            ctx: self.ctx.clone(),
            building: self.building.clone(),
        }
    }

    /// Copies into the buffers already there (restoring a snapshot in a search).
    fn clone_from(&mut self, source: &Self) {
        self.decision = source.decision;
        self.commit = source.commit;
        self.players.clone_from(&source.players);
        self.options.clone_from(&source.options);
        self.chosen.clone_from(&source.chosen);
        self.ctx.clone_from(&source.ctx);
        self.building.clone_from(&source.building);
    }
}

impl Pending {
    /// The prompt the players read: the context's `prompt` (a script asking the same
    /// decision for another reason says so), else the declared one.
    pub fn prompt<'a>(&'a self, d: &'a crate::rules::DecisionInfo) -> &'a str {
        match self.ctx.get("prompt") {
            Some(Value::Str(s)) => s,
            _ => &d.prompt,
        }
    }

    /// The option the seat at `slot` chose (once every listed seat has answered).
    pub fn chosen_option(&self, slot: usize) -> Cow<'_, Choice> {
        self.options[slot].at(self.chosen[slot].expect("every listed seat has answered"))
    }

    /// Whom the options of `slot` were listed for (what labelling them needs).
    pub fn asked(&self, slot: usize) -> Asked<'_> {
        Asked { decision: self.decision, player: self.players[slot], ctx: &self.ctx }
    }
}

/// Whom a decision's options were listed for: the decision, the seat asked and the context it
/// was asked with (what a `label_by` script receives besides the option).
#[derive(Clone, Copy, Debug)]
pub struct Asked<'a> {
    /// Decision index.
    pub decision: usize,
    /// The seat asked.
    pub player: usize,
    /// The context the decision was asked with.
    pub ctx: &'a Value,
}

/// A frame of the flow stack.
#[derive(Debug, Serialize)]
pub enum Frame {
    /// Inside a phase.
    Phase {
        /// Phase index.
        phase: usize,
        /// Next step.
        step: usize,
        /// Position in the turn order (for_each_player).
        pos: usize,
        /// Passes started so far.
        pass: u32,
        /// A pass is under way.
        begun: bool,
    },
    /// Run a script function.
    Run {
        /// Function.
        func: String,
        /// Whether to pass `ctx`.
        with_ctx: bool,
        /// Context.
        ctx: Value,
    },
    /// Ask one player.
    Ask {
        /// Decision.
        decision: usize,
        /// Player.
        player: usize,
        /// Context.
        ctx: Value,
    },
    /// Ask several players at once.
    Commit {
        /// Decision.
        decision: usize,
        /// Players.
        players: Vec<usize>,
        /// Context.
        ctx: Value,
    },
    /// A trick under way.
    Trick {
        /// Trick index (`Rules::tricks`).
        trick: usize,
        /// The seat that led it.
        leader: usize,
        /// Plays asked so far.
        asked: usize,
        /// The cards played so far, `(seat, component)`, in the order played.
        plays: Vec<(usize, u32)>,
    },
}

impl Clone for Frame {
    fn clone(&self) -> Self {
        match self {
            Frame::Phase { phase, step, pos, pass, begun } => {
                Frame::Phase { phase: *phase, step: *step, pos: *pos, pass: *pass, begun: *begun }
            }
            Frame::Run { func, with_ctx, ctx } => {
                Frame::Run { func: func.clone(), with_ctx: *with_ctx, ctx: ctx.clone() }
            }
            Frame::Ask { decision, player, ctx } => {
                Frame::Ask { decision: *decision, player: *player, ctx: ctx.clone() }
            }
            Frame::Commit { decision, players, ctx } => {
                Frame::Commit { decision: *decision, players: players.clone(), ctx: ctx.clone() }
            }
            Frame::Trick { trick, leader, asked, plays } => {
                Frame::Trick { trick: *trick, leader: *leader, asked: *asked, plays: plays.clone() }
            }
        }
    }

    /// Copies into the lists `self` already has where the kinds match (a transaction copies
    /// the flow stack before each decision: a trick's plays then allocate nothing).
    fn clone_from(&mut self, source: &Self) {
        match (self, source) {
            (
                Frame::Trick { trick, leader, asked, plays },
                Frame::Trick { trick: t, leader: l, asked: a, plays: p },
            ) => {
                (*trick, *leader, *asked) = (*t, *l, *a);
                plays.clone_from(p);
            }
            (Frame::Commit { decision, players, ctx }, Frame::Commit { decision: d, players: p, ctx: c }) => {
                *decision = *d;
                players.clone_from(p);
                ctx.clone_from(c);
            }
            (Frame::Run { func, with_ctx, ctx }, Frame::Run { func: f, with_ctx: w, ctx: c }) => {
                func.clone_from(f);
                *with_ctx = *w;
                ctx.clone_from(c);
            }
            (this, source) => *this = source.clone(),
        }
    }
}

/// Components a rule has shown to the whole table (a set of cards turned over, a hand laid
/// down). Each seat's view lists them, even after they leave the public zones in the same
/// step, until that seat answers its next decision (or a script clears them), so a person
/// sees them at their next prompt.
#[derive(Clone, Debug, Serialize)]
pub struct Shown {
    /// What was shown, as the log line said it (`P1 shows three cards`).
    pub caption: String,
    /// The components shown, in the order shown.
    pub cards: Vec<u32>,
    /// The seats whose views still show them.
    pub seats: Vec<usize>,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// Winning seats (several when shared).
    pub winners: Vec<usize>,
    /// Final scores by seat (empty when the game declares no score).
    pub scores: Vec<i64>,
}

/// A var's value, with the copy scripts receive made at the first read and kept until the
/// value changes: a script reading a var of strings or lists many times between two changes
/// gets a shared copy instead of new strings each time. A value a script sets that is plain
/// data is kept as the script made it, and the engine's [`Value`] is made from it only when
/// something other than a script reads it (a view, a log, a saved state): a var a script sets
/// and reads back between decisions is never converted. The value is only changed through
/// [`VarSlot::set`] (and its kin), which lets the copy go. Both are shared by the copies of the
/// slot (the state's snapshots and search copies) until one of them changes: copying a state
/// copies no var's list, and its first read after a restore makes no new script copy. The
/// value and its copy lie in one shared allocation: a var changed in a state that shares it
/// with a snapshot (the rollback's, at every decision) makes one new allocation, not two.
#[derive(Default)]
pub struct VarSlot(Arc<VarValue>);

/// What a [`VarSlot`] shares: the value and the copy scripts receive. At least one of the two
/// is there: the value (set by the engine, or made from the script copy at its first use), or
/// the script copy (made from the value at the first read, or set by a script as plain data).
#[derive(Default)]
struct VarValue {
    value: std::sync::OnceLock<Value>,
    script: std::sync::OnceLock<ScriptCopy>,
    /// What the value counts against the scripts' budget ([`Value::approx_bytes`]) when a
    /// script set it (the value is then not made yet).
    script_bytes: u64,
}

/// The copy of a var's value scripts receive, and what it counts against the sandbox's size
/// limits (worked out at the first read that asks, see [`Value::add_script_sizes`], or known
/// when a script set it).
struct ScriptCopy {
    value: rhai::Dynamic,
    sizes: std::sync::OnceLock<[usize; 3]>,
}

impl ScriptCopy {
    fn new(value: rhai::Dynamic) -> ScriptCopy {
        ScriptCopy { value, sizes: std::sync::OnceLock::new() }
    }
}

impl VarSlot {
    /// A slot holding `value`.
    pub fn new(value: Value) -> VarSlot {
        VarSlot(Arc::new(VarValue { value: value.into(), ..VarValue::default() }))
    }

    /// The value (made from the script's copy at the first call after a script set it).
    pub fn get(&self) -> &Value {
        self.0.value.get_or_init(|| {
            // A script's copy is plain data (see `set_plain`): the value it equals.
            self.0.script.get().map_or(Value::Unit, |c| crate::value::plain_value(&c.value))
        })
    }

    /// What the value counts against the scripts' budget: [`Value::approx_bytes`], without
    /// making the value when a script set it.
    pub fn approx_bytes(&self) -> u64 {
        match self.0.value.get() {
            Some(v) => v.approx_bytes(),
            None => self.0.script_bytes,
        }
    }

    /// Replaces the value (the script copy made of the old one is let go; copies of the slot
    /// keep the old value).
    pub fn set(&mut self, value: Value) {
        match Arc::get_mut(&mut self.0) {
            // Not shared: changed where it lies.
            Some(v) => {
                v.value = value.into();
                v.script.take();
            }
            None => *self = VarSlot::new(value),
        }
    }

    /// Replaces the value with a copy of `value`, made into the buffers of the old one when
    /// the slot is not shared (a var set at every trick to one string or another allocates
    /// nothing).
    pub fn set_copy(&mut self, value: &Value) {
        match Arc::get_mut(&mut self.0) {
            Some(v) => {
                match v.value.get_mut() {
                    Some(old) => old.clone_from(value),
                    None => v.value = value.clone().into(),
                }
                v.script.take();
            }
            None => *self = VarSlot::new(value.clone()),
        }
    }

    /// Replaces the value with the one a script made, `script`: plain data (as
    /// [`crate::convert::measure`] found it) that counts `bytes` against the scripts' budget
    /// and `sizes` against the sandbox's size limits (as [`Value::add_script_sizes`] counts).
    /// The next script read copies it; the engine's [`Value`] is made only when asked for.
    pub(crate) fn set_plain(&mut self, script: rhai::Dynamic, bytes: u64, sizes: [usize; 3]) {
        let script = std::sync::OnceLock::from(ScriptCopy { value: script, sizes: sizes.into() });
        let fresh = VarValue { value: std::sync::OnceLock::new(), script, script_bytes: bytes };
        match Arc::get_mut(&mut self.0) {
            Some(v) => *v = fresh,
            None => self.0 = Arc::new(fresh),
        }
    }

    /// The value as a script receives it: a copy of the one made at the first read since the
    /// last change.
    pub fn script_value(&self) -> rhai::Dynamic {
        self.script_copy().value.clone()
    }

    /// [`VarSlot::script_value`], with what it counts against the sandbox's size limits
    /// (`[array elements, map entries, bytes of strings]`, worked out once per value): a
    /// compiled script's read checks the limits without walking the copy.
    pub fn script_value_sized(&self) -> (rhai::Dynamic, [usize; 3]) {
        let (value, sizes) = self.script_ref_sized();
        (value.clone(), sizes)
    }

    /// [`VarSlot::script_value_sized`] without the copy: the script copy where it lies (a
    /// compiled script reading one entry of a var copies only that entry).
    pub fn script_ref_sized(&self) -> (&rhai::Dynamic, [usize; 3]) {
        let copy = self.script_copy();
        let sizes = *copy.sizes.get_or_init(|| {
            let mut sizes = [0; 3];
            self.get().add_script_sizes(&mut sizes);
            sizes
        });
        (&copy.value, sizes)
    }

    fn script_copy(&self) -> &ScriptCopy {
        self.0.script.get_or_init(|| ScriptCopy::new(self.get().to_dynamic()))
    }
}

impl std::ops::Deref for VarSlot {
    type Target = Value;
    fn deref(&self) -> &Value {
        self.get()
    }
}

/// A copy shares the value and its script copy with the original (see [`VarSlot`]).
impl Clone for VarSlot {
    fn clone(&self) -> Self {
        VarSlot(Arc::clone(&self.0))
    }

    fn clone_from(&mut self, source: &Self) {
        if !Arc::ptr_eq(&self.0, &source.0) {
            *self = source.clone();
        }
    }
}

impl PartialEq for VarSlot {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.get() == other.get()
    }
}

impl std::fmt::Debug for VarSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl Serialize for VarSlot {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Value::serialize(self.get(), serializer)
    }
}

/// Everything about a game in progress that can change.
#[derive(Debug, Serialize)]
pub struct State {
    /// Number of seats.
    pub players: usize,
    /// Components (shared until changed).
    pub components: Arc<Components>,
    /// Zone contents: `zones[zone][owner]` (owner 0 for global zones).
    pub zones: Vec<Vec<ZoneSlot>>,
    /// Where each component is: (zone, owner).
    pub location: Vec<(u32, u32)>,
    /// Track values: `tracks[track][owner]`.
    pub tracks: Vec<Vec<i64>>,
    /// Variable values: `vars[var][owner]`.
    pub vars: Vec<Vec<VarSlot>>,
    /// Grid contents: `grids[grid][owner]` (owner 0 for global grids). Left out of the JSON
    /// form when the game has no grid, so older games keep their state hashes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub grids: Vec<Vec<GridSlot>>,
    /// The current player.
    pub current: usize,
    /// The turn order.
    pub turn_order: Vec<usize>,
    /// Flow stack, top last.
    pub stack: Vec<Frame>,
    /// The decision being waited for (boxed: it moves out of the state while it is resolved,
    /// and the flow keeps an answered one's box, with its emptied lists, for the next).
    pub pending: Option<Box<Pending>>,
    /// The random generator.
    pub rng: GameRng,
    /// Set when the game is over.
    pub outcome: Option<Outcome>,
    /// Zones, tracks, vars and grids a script declared out of play (by name): views leave them
    /// out (e.g. the money of a module this game does not use).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub out_of_play: Vec<String>,
    /// Components shown to the table and still on display (see [`Shown`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shown: Vec<Shown>,
    /// A script asked to end the game.
    pub ending: bool,
    /// Steps executed so far (for the step limit).
    pub steps: u64,
    /// Decisions taken so far.
    pub decisions: u64,
    /// Bytes the scripts have made the engine keep (variables, created components, log
    /// lines), counted against [`crate::script::MAX_GAME_KEPT`]. Not part of the state's
    /// hash: it depends on whether a log is kept.
    #[serde(skip)]
    pub script_bytes: u64,
    /// Components pushed out of full zones since the caller last looked (for the log).
    #[serde(skip)]
    pub pushed_out: Vec<u32>,
    /// When on (`Some`), every move of a component is recorded here as it happens, with what
    /// the table could see of it ([`crate::knowledge`] follows each seat's knowledge from it).
    #[serde(skip)]
    pub trace: Option<Vec<Moved>>,
    /// Results the next draws take instead of the generator's (a scenario's `draws` line),
    /// the next one last.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forced_draws: Vec<i64>,
}

/// One move of a component, as recorded in [`State::trace`]: where from and where to, with
/// the visibility of both places at that moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moved {
    /// The component.
    pub card: u32,
    /// (zone, owner) it left, or [`NOWHERE`].
    pub from: (u32, u32),
    /// Visibility of the place it left.
    pub from_visible: Visibility,
    /// It was the top (last) component of the place it left.
    pub from_top: bool,
    /// Components left in the place it left.
    pub from_left: u32,
    /// (zone, owner) it went to (it lies on top there).
    pub to: (u32, u32),
    /// Visibility of the place it went to.
    pub to_visible: Visibility,
}

/// Sentinel location of a component not in any zone.
pub const NOWHERE: (u32, u32) = (u32::MAX, u32::MAX);

/// Applies `$m!(field)` to every field of [`State`], so that `clone` and `clone_from` cannot
/// forget one.
macro_rules! state_fields {
    ($m:ident, $a:ident, $b:ident) => {
        $m!($a, $b;
            players,
            components,
            zones,
            location,
            tracks,
            vars,
            grids,
            current,
            turn_order,
            stack,
            pending,
            rng,
            outcome,
            out_of_play,
            shown,
            ending,
            steps,
            decisions,
            script_bytes,
            pushed_out,
            trace,
            forced_draws
        )
    };
}

impl Clone for State {
    fn clone(&self) -> Self {
        macro_rules! each {
            ($a:ident, $_b:ident; $($f:ident),*) => {
                State { $($f: $a.$f.clone()),* }
            };
        }
        state_fields!(each, self, self)
    }

    /// Copies field by field into the buffers already there: restoring a snapshot of a state
    /// of the same game allocates (almost) nothing.
    fn clone_from(&mut self, source: &Self) {
        macro_rules! each {
            ($a:ident, $b:ident; $($f:ident),*) => {
                $($a.$f.clone_from(&$b.$f);)*
            };
        }
        state_fields!(each, self, source);
    }
}

impl State {
    /// Copies `source` into this state's buffers for a script run on the side (a label, a
    /// derived value, an evaluation): everything but the pending decision, which no script
    /// can read, and whose options (one per answer) would make the copy as long as the list.
    pub(crate) fn copy_for_script(&mut self, source: &State) {
        // Every field `state_fields!` names (so a new field is copied too), but `pending`.
        macro_rules! each {
            ($a:ident, $b:ident; $($f:ident),*) => {
                $(if stringify!($f) != "pending" {
                    $a.$f.clone_from(&$b.$f);
                })*
            };
        }
        state_fields!(each, self, source);
        self.pending = None;
    }

    /// A seat has answered a decision: what was shown to the table before leaves its view.
    pub fn seat_answered(&mut self, seat: usize) {
        if self.shown.is_empty() {
            return;
        }
        for s in &mut self.shown {
            s.seats.retain(|x| *x != seat);
        }
        self.shown.retain(|s| !s.seats.is_empty());
    }

    /// A fresh state for `players` seats: declared components in their zones, tracks at
    /// their start, variables at their defaults. Setup scripts run later.
    pub fn new(rules: &Rules, players: usize, seed: u64) -> Result<State, String> {
        let slots = |per_player: bool| if per_player { players } else { 1 };
        let zones = rules.zones.iter().map(|z| vec![ZoneSlot::default(); slots(z.per_player)]).collect();
        let tracks =
            rules.tracks.iter().map(|t| vec![t.start.get(&rules.params, players); slots(t.per_player)]).collect();
        let vars = rules.vars.iter().map(|v| vec![VarSlot::new(v.default.clone()); slots(v.per_player)]).collect();
        let grids = rules.grids.iter().map(|g| vec![GridSlot::default(); slots(g.per_player)]).collect();
        let mut state = State {
            players,
            components: Arc::new(Components::default()),
            zones,
            location: Vec::new(),
            tracks,
            vars,
            grids,
            current: 0,
            turn_order: (0..players).collect(),
            stack: Vec::new(),
            pending: None,
            rng: GameRng::new(seed),
            outcome: None,
            shown: Vec::new(),
            out_of_play: Vec::new(),
            ending: false,
            steps: 0,
            decisions: 0,
            script_bytes: 0,
            pushed_out: Vec::new(),
            trace: None,
            forced_draws: Vec::new(),
        };
        for c in &rules.components {
            state.create_declared(rules, c)?;
        }
        Ok(state)
    }

    /// Creates the instances of one declared set (ranges multiplied out, one set per player
    /// if asked) and puts them in their zone.
    fn create_declared(&mut self, rules: &Rules, c: &crate::rules::DeclaredComponent) -> Result<(), String> {
        use crate::rules::{PropSpec, MAX_COMPONENTS};
        // Count before allocating anything: a declaration may ask for a billion instances.
        let kind_name = &rules.component_types[c.kind].name;
        let per_combo = |spec: &PropSpec| -> i128 {
            match spec {
                PropSpec::Fixed(_) => 1,
                PropSpec::Range(a, b, _) => {
                    (b.get(&rules.params, self.players) as i128 - a.get(&rules.params, self.players) as i128 + 1).max(0)
                }
                PropSpec::Each(items) => items.len() as i128,
            }
        };
        let owners_n = if c.per_player { self.players as i128 } else { 1 };
        let copies_n = c.count.get(&rules.params, self.players).max(0) as i128;
        let wanted = c
            .props
            .values()
            .map(per_combo)
            .try_fold(owners_n * copies_n, |acc, n| acc.checked_mul(n))
            .unwrap_or(i128::MAX);
        let room = (MAX_COMPONENTS - self.components.list.len().min(MAX_COMPONENTS)) as i128;
        if wanted > room {
            return Err(format!(
                "components `{kind_name}`: the declaration makes {} instances, more than the {MAX_COMPONENTS} components a game may hold",
                if wanted == i128::MAX { "too many".to_string() } else { wanted.to_string() }
            ));
        }
        let mut combos: Vec<Props> = vec![Props::default()];
        for (k, spec) in &c.props {
            // Each value of the property, with the properties it brings along (a range's name).
            let values: Vec<Vec<(String, Value)>> = match spec {
                PropSpec::Fixed(v) => vec![vec![(k.clone(), v.clone())]],
                PropSpec::Range(a, b, names) => {
                    let (from, to) = (a.get(&rules.params, self.players), b.get(&rules.params, self.players));
                    let name_of = |i: i64| -> Result<Option<Value>, String> {
                        let Some(names) = names else { return Ok(None) };
                        names.get((i - from) as usize).cloned().map(Some).ok_or_else(|| {
                            format!(
                                "components `{kind_name}`: property `{k}` runs from {from} to {to}, but `names` names only {}",
                                names.len()
                            )
                        })
                    };
                    let mut out = Vec::new();
                    for i in from..=to {
                        let mut props = vec![(k.clone(), Value::Int(i))];
                        if let Some(name) = name_of(i)? {
                            props.push((format!("{k}_name"), name));
                        }
                        out.push(props);
                    }
                    out
                }
                PropSpec::Each(items) => items.iter().map(|v| vec![(k.clone(), v.clone())]).collect(),
            };
            combos = combos
                .into_iter()
                .flat_map(|m| {
                    values.iter().map(move |props| {
                        let mut m = m.clone();
                        m.extend(props.iter().cloned());
                        m
                    })
                })
                .collect();
        }
        let copies = c.count.get(&rules.params, self.players).max(0);
        let owners: Vec<Option<usize>> = if c.per_player { (0..self.players).map(Some).collect() } else { vec![None] };
        for owner in owners {
            for props in &combos {
                let mut props = props.clone();
                if let Some(p) = owner {
                    props.insert("owner".into(), Value::Int(p as i64));
                }
                for n in 0..copies {
                    let id = c.id.as_ref().map(|t| {
                        let mut with_seat = props.clone();
                        if let Some(p) = owner {
                            with_seat.insert("seat".into(), Value::Int(p as i64 + 1));
                        }
                        let id = crate::value::fill_template(t, &with_seat, "");
                        if copies > 1 {
                            format!("{id}-{}", n + 1)
                        } else {
                            id
                        }
                    });
                    let kind = &rules.component_types[c.kind].name;
                    let idx = self
                        .create(rules, c.kind, id, props.clone())
                        .map_err(|e| format!("components `{kind}`: {e}"))?;
                    if let Some(z) = c.zone {
                        self.put(rules, idx, z, owner.unwrap_or(0)).map_err(|e| format!("components `{kind}`: {e}"))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Creates a component, not yet in a zone. Fails if the id is taken.
    pub fn create(&mut self, rules: &Rules, kind: usize, id: Option<String>, props: Props) -> Result<u32, String> {
        if self.components.list.len() >= crate::rules::MAX_COMPONENTS {
            return Err(format!("the game already holds {} components, the most it may", crate::rules::MAX_COMPONENTS));
        }
        let comps = Arc::make_mut(&mut self.components);
        let idx = comps.list.len() as u32;
        let id = id.unwrap_or_else(|| format!("{}-{}", rules.component_types[kind].name, idx + 1));
        if comps.by_id.contains_key(&id) {
            return Err(format!("a component with id `{id}` already exists"));
        }
        Arc::make_mut(&mut comps.by_id).insert(id.clone(), idx);
        comps.push(rules, Component::new(rules, id, kind, props));
        self.location.push(NOWHERE);
        Ok(idx)
    }

    /// A chance draw in `0..n` (`n > 0`): the next forced result if a scenario fixed one,
    /// else the generator's. A forced result outside `0..n` is an error naming it.
    pub fn draw(&mut self, n: u64) -> Result<u64, String> {
        match self.forced_draws.pop() {
            Some(x) if x >= 0 && (x as u64) < n => Ok(x as u64),
            Some(x) => Err(format!("the fixed draw {x} is not in 0..{} (the range this draw has)", n.max(1) - 1)),
            None => Ok(self.rng.below(n)),
        }
    }

    /// Rolls a die: a face drawn ([`State::draw`]) becomes its `face` property. A forced draw
    /// names the face itself (its value), not its position. Returns the face.
    pub fn roll(&mut self, rules: &Rules, idx: u32) -> Result<Value, String> {
        let kind = self.components.list[idx as usize].kind;
        let Some(faces) = rules.component_types[kind].faces.as_ref() else {
            let c = &self.components.list[idx as usize];
            return Err(format!(
                "`{}` is not a die: its type `{}` declares no `faces`",
                c.id, rules.component_types[kind].name
            ));
        };
        let face = match self.forced_draws.pop() {
            Some(x) => faces
                .iter()
                .find(|f| f.as_int() == Some(x) || matches!(f, Value::Str(s) if s.parse::<i64>().ok() == Some(x)))
                .or_else(|| faces.get(x as usize).filter(|_| faces.iter().all(|f| f.as_int().is_none())))
                .cloned()
                .ok_or_else(|| {
                    format!("the fixed roll {x} is not a face of `{}`", self.components.list[idx as usize].id)
                })?,
            None => faces[self.rng.below(faces.len() as u64) as usize].clone(),
        };
        Arc::make_mut(&mut self.components).set_prop(rules, idx, "face", face.clone());
        Ok(face)
    }

    /// Rolls every die in one slot of a zone (components of other types stay as they are).
    /// Returns the faces, bottom to top, and the log line: the faces for the seats that see
    /// the slot, `rolled N dice` for the others.
    pub fn roll_slot(&mut self, rules: &Rules, zone: usize, owner: usize) -> Result<(Vec<Value>, Event), String> {
        let dice: Vec<u32> = self.zones[zone][owner]
            .cards
            .iter()
            .copied()
            .filter(|c| rules.component_types[self.components.list[*c as usize].kind].faces.is_some())
            .collect();
        let faces = dice.iter().map(|c| self.roll(rules, *c)).collect::<Result<Vec<_>, _>>()?;
        let z = &rules.zones[zone];
        let place = if z.per_player { format!("{} ({})", z.name, rules.seat_name(owner)) } else { z.name.clone() };
        let shown: Vec<String> = faces.iter().map(Value::to_string).collect();
        let text = format!("rolled {place}: {}", shown.join(" "));
        let redacted = format!("rolled {place}: {} {}", faces.len(), if faces.len() == 1 { "die" } else { "dice" });
        Ok((faces, self.slot_event(rules, zone, owner, text, redacted)))
    }

    /// A chance line about one zone slot: `text` for the seats that see the slot whole,
    /// `redacted` for the others (the omniscient log keeps `text`).
    pub fn slot_event(&self, rules: &Rules, zone: usize, owner: usize, text: String, redacted: String) -> Event {
        match self.visibility(rules, zone, owner) {
            Visibility::Public => Event::public(EventKind::Chance, text),
            Visibility::Owner if rules.zones[zone].per_player => {
                Event::private(EventKind::Chance, vec![owner], text, Some(redacted))
            }
            _ => Event::private(EventKind::Chance, Vec::new(), text, Some(redacted)),
        }
    }

    /// Component index by id.
    pub fn component_index(&self, id: &str) -> Result<u32, String> {
        self.components.by_id.get(id).copied().ok_or_else(|| format!("no component with id `{id}`"))
    }

    /// The slot of a zone for an owner, checking the owner fits the zone.
    pub fn slot_index(&self, rules: &Rules, zone: usize, owner: Option<usize>) -> Result<usize, String> {
        let z = &rules.zones[zone];
        match (z.per_player, owner) {
            (true, Some(p)) if p < self.players => Ok(p),
            (true, Some(p)) => Err(format!("player {p} does not exist (players are 0..{})", self.players - 1)),
            (true, None) => Err(format!("zone `{}` is per player: say whose", z.name)),
            (false, None) => Ok(0),
            (false, Some(_)) => Err(format!("zone `{}` is global: do not say whose", z.name)),
        }
    }

    /// Removes a component from wherever it is.
    pub fn take(&mut self, idx: u32) {
        self.take_from_place(idx);
    }

    /// [`State::take`], saying whether the component lay on top of its place (`false` when
    /// it lay nowhere).
    fn take_from_place(&mut self, idx: u32) -> bool {
        self.take_with(idx, |cards| remove_below_top(cards, idx))
    }

    /// [`State::take_from_place`] of a component that mostly lies at place `near` of its zone
    /// slot, when not on top: taken from there without a search when it does. A wrong guess
    /// costs one compare.
    #[inline(always)]
    fn take_near(&mut self, idx: u32, near: usize) -> bool {
        self.take_with(idx, |cards| {
            if cards.get(near) == Some(&idx) {
                remove_at(cards, near);
            } else {
                remove_below_top(cards, idx);
            }
        })
    }

    /// Takes component `idx` from where it lies, saying whether it lay on top (`false` when it
    /// lay nowhere): mostly the top one (a deck drawn from, a card just laid), popped without
    /// a shift; else `below_top` takes it out of its slot's list.
    #[inline(always)]
    fn take_with(&mut self, idx: u32, below_top: impl FnOnce(&mut Vec<u32>)) -> bool {
        let (z, o) = self.location[idx as usize];
        if (z, o) == NOWHERE {
            return false;
        }
        self.location[idx as usize] = NOWHERE;
        let cards = &mut self.zones[z as usize][o as usize].cards;
        crate::alloc::charge(cards.len());
        if cards.last() == Some(&idx) {
            cards.pop();
            return true;
        }
        below_top(cards);
        false
    }

    /// Takes a component out of play: it leaves its zone and lies nowhere (a move brings it
    /// back). The trace records the move, so seats that did not see it leave know only that
    /// some component of that place went out of play.
    pub fn remove(&mut self, rules: &Rules, idx: u32) {
        let from = self.location[idx as usize];
        if from == NOWHERE {
            return;
        }
        let (z, o) = (from.0 as usize, from.1 as usize);
        let from_top = self.zones[z][o].cards.last() == Some(&idx);
        let from_visible = self.visibility(rules, z, o);
        self.take(idx);
        let from_left = self.zones[z][o].cards.len() as u32;
        if let Some(t) = self.trace.as_mut() {
            t.push(Moved {
                card: idx,
                from,
                from_visible,
                from_top,
                from_left,
                to: NOWHERE,
                to_visible: Visibility::Hidden,
            });
        }
    }

    /// Puts a component on top of a zone slot (taking it from where it was). A full zone
    /// either refuses or pushes its first component out, per the zone's declaration.
    pub fn put(&mut self, rules: &Rules, idx: u32, zone: usize, owner: usize) -> Result<(), String> {
        let from = self.location[idx as usize];
        let from_top = self.take_from_place(idx);
        self.lay(rules, idx, (from, from_top), zone, owner)
    }

    /// [`State::put`] of a component that mostly lies at place `near` of its zone slot
    /// (counted from the bottom; any other place, or none, works too, a little slower): a
    /// chosen option of a zone listed as it lies, whose index is that place.
    #[inline(always)]
    pub fn put_near(&mut self, rules: &Rules, idx: u32, near: usize, zone: usize, owner: usize) -> Result<(), String> {
        let from = self.location[idx as usize];
        let from_top = self.take_near(idx, near);
        self.lay(rules, idx, (from, from_top), zone, owner)
    }

    /// [`State::put`] of the component on top of zone slot `(from, from_owner)`, if any: it
    /// is taken from where it is known to lie, without looking it up. Returns the component
    /// moved (`None`: the slot was empty, nothing moved).
    pub fn put_top(
        &mut self,
        rules: &Rules,
        (from, from_owner): (usize, usize),
        zone: usize,
        owner: usize,
    ) -> Result<Option<u32>, String> {
        let cards = &mut self.zones[from][from_owner].cards;
        let Some(&idx) = cards.last() else { return Ok(None) };
        crate::alloc::charge(cards.len());
        cards.pop();
        self.location[idx as usize] = NOWHERE;
        self.lay(rules, idx, ((from as u32, from_owner as u32), true), zone, owner)?;
        Ok(Some(idx))
    }

    /// Lays component `idx`, just taken from `from` (on top of it or not), on top of a zone
    /// slot, and records the move (see [`State::put`]).
    #[inline(always)]
    fn lay(
        &mut self,
        rules: &Rules,
        idx: u32,
        from: ((u32, u32), bool),
        zone: usize,
        owner: usize,
    ) -> Result<(), String> {
        if rules.zones[zone].capacity.is_some() {
            self.make_room(rules, zone, owner)?;
        }
        self.zones[zone][owner].cards.push(idx);
        self.location[idx as usize] = (zone as u32, owner as u32);
        if self.trace.is_some() {
            self.record_move(rules, idx, from, (zone, owner));
        }
        Ok(())
    }

    /// Before a component is put into a zone slot with a capacity: a full slot pushes its first
    /// component out, or refuses, per the zone's declaration. Kept out of [`State::put`], which
    /// most moves (zones without a capacity) run without it.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self, rules: &Rules, zone: usize, owner: usize) -> Result<(), String> {
        let info = &rules.zones[zone];
        let Some(cap) = info.capacity.as_ref().map(|c| c.get(&rules.params, self.players).max(0) as usize) else {
            return Ok(());
        };
        if self.zones[zone][owner].cards.len() < cap {
            return Ok(());
        }
        match (info.overflow, info.overflow_to) {
            (crate::def::Overflow::PushOut, Some(to)) if cap > 0 => {
                let out = self.zones[zone][owner].cards[0];
                let to_owner = if rules.zones[to].per_player { self.owner_of(out)? } else { 0 };
                self.put(rules, out, to, to_owner)?;
                self.pushed_out.push(out);
                Ok(())
            }
            _ => Err(format!("zone `{}` is full (capacity {cap})", info.name)),
        }
    }

    /// Records a move in the trace (called after it: the component lies on top of `to`).
    fn record_move(&mut self, rules: &Rules, card: u32, (from, from_top): ((u32, u32), bool), to: (usize, usize)) {
        let (from_visible, from_left) = if from == NOWHERE {
            (Visibility::Hidden, 0)
        } else {
            let (z, o) = (from.0 as usize, from.1 as usize);
            (self.visibility(rules, z, o), self.zones[z][o].cards.len() as u32)
        };
        let moved = Moved {
            card,
            from,
            from_visible,
            from_top,
            from_left,
            to: (to.0 as u32, to.1 as u32),
            to_visible: self.visibility(rules, to.0, to.1),
        };
        if let Some(t) = self.trace.as_mut() {
            t.push(moved);
        }
    }

    /// The player a component belongs to, from its `owner` property.
    pub fn owner_of(&self, idx: u32) -> Result<usize, String> {
        let c = &self.components.list[idx as usize];
        match c.props.get("owner").and_then(Value::as_int) {
            Some(p) if p >= 0 && (p as usize) < self.players => Ok(p as usize),
            _ => Err(format!("component `{}` has no valid `owner` property to send it back to", c.id)),
        }
    }

    /// The visibility in force for a zone slot.
    pub fn visibility(&self, rules: &Rules, zone: usize, owner: usize) -> Visibility {
        self.zones[zone][owner].visible.unwrap_or(rules.zones[zone].visible)
    }

    /// Sets a track value, clamped to its bounds.
    pub fn set_track(&mut self, rules: &Rules, track: usize, owner: usize, value: i64) {
        let t = &rules.tracks[track];
        let mut v = value;
        if let Some(m) = t.min {
            v = v.max(m);
        }
        if let Some(m) = t.max {
            v = v.min(m);
        }
        self.tracks[track][owner] = v;
    }
}

/// Lists of components up to this long lose one from below the top without a guess (see
/// [`remove_below_top`]); longer ones (a deck, a pile) search from the top and copy only the
/// components above it, mostly few.
const SHORT_LIST: usize = 32;
// A short list's places fit the bits of a `u32` (see [`remove_below_top`]).
const _: () = assert!(SHORT_LIST <= u32::BITS as usize);

/// Removes component `idx` from `cards`, where it lies below the top (if at all), the cards
/// above it moving down one place. Where a card lies in a hand is as good as random, so in a
/// short list the scan does not stop at it and the move is one pass of selects over the whole
/// list: neither has a branch that depends on where the card lay, which the processor would
/// mostly guess wrong (a loop stopping at the card, a copy whose length is the cards above
/// it).
#[inline]
fn remove_below_top(cards: &mut Vec<u32>, idx: u32) {
    if cards.len() > SHORT_LIST {
        if let Some(at) = cards.iter().rposition(|c| *c == idx) {
            cards.remove(at);
        }
        return;
    }
    // One bit per place that holds it (a component lies in one place at most): compared
    // all at once, not one after another.
    let found = cards.iter().enumerate().fold(0u32, |found, (i, c)| found | (u32::from(*c == idx) << i));
    if found == 0 {
        return;
    }
    let at = (u32::BITS - 1 - found.leading_zeros()) as usize;
    let last = cards.len() - 1;
    // Not `remove_at`'s loop: LLVM compiles that one slower where this one is inlined (the
    // benches README's thirty-ninth session).
    for i in 0..last {
        cards[i] = if i >= at { cards[i + 1] } else { cards[i] };
    }
    cards.truncate(last);
}

/// Removes the component at place `at` (below the top) of `cards`, the cards above it moving
/// down one place: in a short list, one pass over the whole list, as [`remove_below_top`]
/// does, without a branch that depends on `at`.
#[inline]
fn remove_at(cards: &mut Vec<u32>, at: usize) {
    let last = cards.len() - 1;
    if cards.len() > SHORT_LIST {
        cards.remove(at);
        return;
    }
    // Each place takes the one above it from `at` on: the place read is computed, not
    // chosen by a branch.
    let list = cards.as_mut_slice();
    for i in 0..last {
        list[i] = list[i + usize::from(i >= at)];
    }
    cards.truncate(last);
}

impl State {
    /// An empty state, used as a stand-in while the real one is lent to a script.
    pub(crate) fn empty() -> State {
        thread_local! {
            // Shared by this thread's stand-ins: making one allocates nothing.
            static NO_COMPONENTS: Arc<Components> = Arc::new(Components::default());
        }
        State {
            players: 0,
            components: NO_COMPONENTS.with(Arc::clone),
            zones: Vec::new(),
            location: Vec::new(),
            tracks: Vec::new(),
            vars: Vec::new(),
            grids: Vec::new(),
            current: 0,
            turn_order: Vec::new(),
            stack: Vec::new(),
            pending: None,
            rng: GameRng::new(0),
            outcome: None,
            shown: Vec::new(),
            out_of_play: Vec::new(),
            ending: false,
            steps: 0,
            decisions: 0,
            script_bytes: 0,
            pushed_out: Vec::new(),
            trace: None,
            forced_draws: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_below_the_top_leaves_its_list_and_the_cards_above_move_down_in_order() {
        let cards: Vec<u32> = vec![7, 3, 9, 1, 12];
        for (at, &card) in cards.iter().enumerate() {
            let mut left = cards.clone();
            remove_below_top(&mut left, card);
            let mut expected = cards.clone();
            expected.remove(at);
            assert_eq!(left, expected, "removing {card}");
        }
        let mut unchanged = cards.clone();
        remove_below_top(&mut unchanged, 4);
        assert_eq!(unchanged, cards, "a card not in the list changes nothing");
        let mut one = vec![5];
        remove_below_top(&mut one, 5);
        assert!(one.is_empty());
        // A long list (a deck) the other way, alike.
        let deck: Vec<u32> = (0..SHORT_LIST as u32 + 8).rev().collect();
        for at in [0, 9, deck.len() - 2] {
            let mut left = deck.clone();
            remove_below_top(&mut left, deck[at]);
            let mut expected = deck.clone();
            expected.remove(at);
            assert_eq!(left, expected, "removing the card at {at} of a deck");
        }
    }

    #[test]
    fn a_card_taken_from_a_known_place_leaves_the_others_in_order() {
        for cards in [vec![7u32, 3, 9, 1, 12], (0..SHORT_LIST as u32 + 8).collect()] {
            for at in 0..cards.len() - 1 {
                let mut left = cards.clone();
                remove_at(&mut left, at);
                let mut expected = cards.clone();
                expected.remove(at);
                assert_eq!(left, expected, "removing place {at} of {} cards", cards.len());
            }
        }
    }

    #[test]
    fn a_component_taken_near_a_place_is_taken_wherever_it_lies() {
        // One zone slot holding components 4, 2, 0, 3 (bottom first); component 1 lies nowhere.
        let mut st = State::empty();
        st.zones = vec![vec![ZoneSlot { cards: vec![4, 2, 0, 3], visible: None }]];
        st.location = vec![(0, 0), NOWHERE, (0, 0), (0, 0), (0, 0)];
        let taken = |near: usize, idx: u32| {
            let mut st = st.clone();
            let top = st.take_near(idx, near);
            (st.zones[0][0].cards.clone(), st.location[idx as usize], top)
        };
        // Where the guess says, elsewhere, past the end, and on top.
        assert_eq!(taken(1, 2), (vec![4, 0, 3], NOWHERE, false));
        assert_eq!(taken(2, 4), (vec![2, 0, 3], NOWHERE, false));
        assert_eq!(taken(usize::MAX, 0), (vec![4, 2, 3], NOWHERE, false));
        assert_eq!(taken(0, 3), (vec![4, 2, 0], NOWHERE, true));
        // A component lying nowhere: nothing moves.
        assert_eq!(taken(0, 1), (vec![4, 2, 0, 3], NOWHERE, false));
    }

    #[test]
    fn a_var_slot_gives_scripts_the_current_value_and_copies_that_do_not_reach_it() {
        let list = Value::List(vec![Value::Str("A".into()), Value::Int(2)]);
        let mut slot = VarSlot::new(list.clone());
        let mut first = slot.script_value();
        first.write_lock::<rhai::Array>().expect("a list").push(rhai::Dynamic::from_int(3));
        // The copy handed out was changed, the slot's value and its next copy were not.
        assert_eq!(slot.script_value().to_string(), list.to_dynamic().to_string());
        slot.set(Value::Int(7));
        assert_eq!(slot.script_value().as_int(), Ok(7));
        // A script's plain value is what the next read copies; the value is made from it
        // when asked for, and counts what the script's value was measured at.
        slot.set_plain(rhai::Dynamic::from("x"), 99, [0, 0, 1]);
        assert_eq!(slot.approx_bytes(), 99, "measured, not made");
        assert_eq!(slot.script_value_sized().1, [0, 0, 1]);
        assert_eq!(slot.script_value().into_string().as_deref(), Ok("x"));
        assert_eq!(*slot.get(), Value::Str("x".into()));
        assert_eq!(slot.approx_bytes(), Value::Str("x".into()).approx_bytes(), "made, then counted");
        // A copy of the slot shares the value and its script form until one of them changes.
        let mut copy = slot.clone();
        assert_eq!(copy, slot);
        assert_eq!(copy.script_value().into_string().as_deref(), Ok("x"));
        copy.set(Value::Int(1));
        assert_eq!(*slot.get(), Value::Str("x".into()), "the original keeps its value");
        assert_eq!(slot.script_value().into_string().as_deref(), Ok("x"));
        assert_eq!(copy.script_value().as_int(), Ok(1));
        let mut restored = VarSlot::new(Value::Unit);
        restored.clone_from(&VarSlot::new(list.clone()));
        assert_eq!(restored.script_value().to_string(), list.to_dynamic().to_string());
        restored.clone_from(&slot);
        assert_eq!(restored.script_value().into_string().as_deref(), Ok("x"));
    }

    #[test]
    fn copying_into_any_frame_gives_the_source() {
        let frames = [
            Frame::Phase { phase: 1, step: 2, pos: 3, pass: 4, begun: true },
            Frame::Run { func: "f".into(), with_ctx: true, ctx: Value::Int(1) },
            Frame::Ask { decision: 0, player: 1, ctx: Value::Str("c".into()) },
            Frame::Commit { decision: 2, players: vec![0, 2], ctx: Value::Unit },
            Frame::Commit { decision: 3, players: vec![1], ctx: Value::Str("x".into()) },
            Frame::Trick { trick: 0, leader: 1, asked: 2, plays: vec![(1, 7), (2, 9)] },
            Frame::Trick { trick: 1, leader: 0, asked: 0, plays: Vec::new() },
        ];
        let text = |f: &Frame| serde_json::to_string(f).expect("a frame serializes");
        for target in &frames {
            for source in &frames {
                let mut copy = target.clone();
                copy.clone_from(source);
                assert_eq!(text(&copy), text(source));
            }
        }
    }

    #[test]
    fn copying_into_any_pending_decision_gives_the_source() {
        let scripted = |id: &str, label: Option<&str>, v: i64| {
            Choice::Scripted(Box::new(ScriptedChoice {
                id: id.into(),
                label: label.map(Into::into),
                value: crate::value::PlainScriptValue::new(rhai::Dynamic::from_int(v)).expect("plain"),
            }))
        };
        let subset = Choice::Subset(Box::new(SubsetChoice { id: "a+b".into(), cards: vec![0, 1] }));
        let pending = |options: Vec<Choice>, chosen: Option<usize>| Pending {
            decision: options.len(),
            commit: chosen.is_some(),
            players: vec![0, 1],
            options: vec![SeatOptions::from_choices(options.clone()), SeatOptions::from_choices(options)],
            chosen: vec![chosen, None],
            ctx: Value::Str("c".into()),
            building: Vec::new(),
        };
        let all = [
            pending(vec![Choice::Component(3), Choice::Add(4), subset.clone()], None),
            pending(vec![scripted("x", None, 1), scripted("long id", Some("X"), 2)], Some(1)),
            pending(vec![scripted("y", Some("Y"), 3), Choice::Component(1)], Some(0)),
            pending(Vec::new(), None),
        ];
        let text = |p: &Pending| serde_json::to_string(p).expect("a pending decision serializes");
        for target in &all {
            for source in &all {
                let mut copy = target.clone();
                copy.clone_from(source);
                assert_eq!(text(&copy), text(source));
            }
        }
    }

    #[test]
    fn a_seats_components_read_as_the_choices_they_stand_for() {
        let mut components = SeatOptions::default();
        components.components_to_fill().extend([4, 7, 9]);
        let listed = SeatOptions::from_choices(vec![Choice::Component(4), Choice::Component(7), Choice::Component(9)]);
        let text = |o: &SeatOptions| serde_json::to_string(o).expect("options serialize");
        assert_eq!(text(&components), text(&listed));
        assert_eq!(format!("{components:?}"), format!("{listed:?}"));
        for options in [&components, &listed] {
            assert_eq!(options.len(), 3);
            assert_eq!(options.component(1), Some(7));
            assert_eq!(options.get(2).and_then(|c| c.component()), Some(9));
            assert!(options.get(3).is_none() && options.component(3).is_none());
            assert_eq!(options.added(0), None);
            assert_eq!(options.iter().filter_map(|c| c.component()).collect::<Vec<_>>(), vec![4, 7, 9]);
        }
        let mut steps = SeatOptions::from_choices(vec![Choice::Add(5), Choice::Component(6)]);
        assert_eq!((steps.added(0), steps.component(0), steps.listed(0).is_some()), (Some(5), None, true));
        // Filling with components lets go of the other options, and the reverse.
        steps.components_to_fill().push(2);
        assert_eq!(text(&steps), text(&SeatOptions::from_choices(vec![Choice::Component(2)])));
        steps.set_choices(vec![Choice::Add(1)]);
        assert_eq!((steps.len(), steps.component(0), steps.added(0)), (1, None, Some(1)));
        steps.clear();
        assert!(steps.is_empty() && steps.get(0).is_none());
    }

    #[test]
    fn a_copy_for_a_script_is_the_state_without_its_pending_decision() {
        let mut source = State::empty();
        source.players = 3;
        source.current = 2;
        source.tracks = vec![vec![1, 2, 3]];
        source.pending = Some(Box::new(Pending {
            decision: 0,
            commit: false,
            players: vec![2],
            options: vec![SeatOptions::from_choices(vec![Choice::Component(0)])],
            chosen: vec![None],
            ctx: Value::Unit,
            building: Vec::new(),
        }));
        let mut copy = State::empty();
        copy.copy_for_script(&source);
        assert!(copy.pending.is_none());
        source.pending = None;
        let text = |s: &State| serde_json::to_string(s).expect("a state serializes");
        assert_eq!(text(&copy), text(&source));
    }
}
