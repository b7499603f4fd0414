//! The engine's own script functions (everything `api::register` gives scripts), kept beside
//! the Rhai engine so that compiled scripts call them directly: by name, number of arguments
//! and argument types, as Rhai resolves them, without Rhai's per-call lookup.

use rhai::{Dynamic, Engine, RhaiFunc, RhaiNativeFunc, Variant};
use std::any::TypeId;
use std::collections::HashMap;

/// One registered function: its parameter types (`Dynamic` accepts any value) and the Rust
/// function Rhai would call.
#[derive(Clone)]
pub(crate) struct Native {
    types: Vec<TypeId>,
    func: RhaiFunc,
    /// It returns nothing but data read from the game's files (graphs, tables): within the
    /// sandbox's size limits whenever all of that data is (see [`NativeTable::record_from_files`]).
    from_files: bool,
}

impl Native {
    /// Whether its result is made of the game files' data only.
    pub(crate) fn returns_files_data(&self) -> bool {
        self.from_files
    }

    /// Whether an argument of type `t` may be passed to it (a parameter of that type, or one
    /// that takes any value).
    pub(crate) fn may_take(&self, t: TypeId) -> bool {
        self.types.iter().any(|p| *p == t || *p == TypeId::of::<Dynamic>())
    }

    /// The Rust function Rhai would call.
    pub(crate) fn func(&self) -> &RhaiFunc {
        &self.func
    }
}

/// Functions of one name, grouped by number of parameters.
type ByArity = Vec<(usize, Vec<Native>)>;

/// An engine function that reads one named part of the state, of one owner or global (a zone's
/// components, a track, a variable: `game.count("hand", p)`, `game.track("round")`), as the
/// registered function of that name does with `game` first and the owner last. Compiled scripts
/// call it with the name and the owner where they lie, without making them script values.
pub type PartReader =
    fn(&crate::rules::Rules, &mut crate::script::Work, &str, Option<i64>) -> Result<PartValue, String>;

/// What a part reader (`PartReader`) read: the value, and what it counts against the
/// sandbox's size limits (`[array elements, map entries, bytes of strings]`, as Rhai counts
/// them) when the reader knows it without walking the value (a var's kept copy, a number).
pub struct PartValue {
    /// The value, as the registered function returns it.
    pub value: Dynamic,
    /// Its sizes, if known.
    pub sizes: Option<[usize; 3]>,
}

impl PartValue {
    /// A number (or a flag): nothing counts against the size limits.
    pub fn number(value: Dynamic) -> PartValue {
        PartValue { value, sizes: Some([0; 3]) }
    }
}

/// A value whose sizes the reader does not know: they are worked out when needed.
impl From<Dynamic> for PartValue {
    fn from(value: Dynamic) -> PartValue {
        PartValue { value, sizes: None }
    }
}

/// An engine function that changes one named part of the state, of one owner or global, to a
/// value given last (`game.set_var("place", p, "market")`, `game.add_track("score", p, 3)`),
/// as the registered functions of that name do. The value comes as a script value: a function
/// that takes an integer says it is not one with an error.
pub type PartWriter =
    fn(&crate::rules::Rules, &mut crate::script::Work, &str, Option<i64>, Dynamic) -> Result<Dynamic, String>;

/// An engine function that puts a component (a handle, an id or a map with an `id`, given
/// first) into a named zone, of one owner or global: `game.move(c, "hand", p)`, as the
/// registered functions of that name do.
pub type PartPlacer =
    fn(&crate::rules::Rules, &mut crate::script::Work, &Dynamic, &str, Option<i64>) -> Result<Dynamic, String>;

/// An engine function that moves components from one named zone to another, each of one owner
/// or global: `game.move_all("trick", "won", p)`, `game.move_top("deck", "hand", p)`, as the
/// registered functions of that name do (`from[, from_owner], to[, to_owner]`).
pub type PartTransfer =
    fn(&crate::rules::Rules, &mut crate::script::Work, &str, Option<i64>, &str, Option<i64>) -> Result<Dynamic, String>;

/// Components as indices into the state's components, in the order a zone lists them (most
/// zones hold a handful: kept inline up to 16).
pub type ComponentList = smallvec::SmallVec<[u32; 16]>;

/// An engine function that lists the components of one named zone, of one owner or global,
/// as the registered function of that name lists them as handles (`game.cards("hand", p)`),
/// but as indices, put into the list given last. Compiled scripts run a `for` loop over such
/// a call with it, pointing the loop's variable at each component in turn.
pub type PartLister =
    fn(&crate::rules::Rules, &mut crate::script::Work, &str, Option<i64>, &mut ComponentList) -> Result<(), String>;

/// A property of the game handle (`game.players`, `game.logging`), as its registered getter
/// reads it.
pub type GameProperty = fn(&crate::rules::Rules, &mut crate::script::Work) -> Result<Dynamic, String>;

/// How the engine's function of some name works on a named part (see [`PartReader`],
/// [`PartWriter`], [`PartPlacer`], [`PartTransfer`]).
#[derive(Clone, Copy)]
pub enum PartFunction {
    /// `game.f(name[, owner])`.
    Read(PartReader),
    /// `game.f(name[, owner], value)`.
    Write(PartWriter),
    /// `game.f(component, zone[, owner])`.
    Place(PartPlacer),
    /// `game.f(from[, from_owner], to[, to_owner])`.
    Transfer(PartTransfer),
}

/// The registered functions by name and number of parameters.
#[derive(Default)]
pub struct NativeTable {
    /// By name (looked up without allocating), then by number of parameters.
    by_name: HashMap<String, ByArity, crate::value::NameHasher>,
    /// The functions that also work on a named part directly, by name.
    part_functions: HashMap<String, PartFunction, crate::value::NameHasher>,
    /// The game handle's properties compiled scripts read directly, by name.
    game_properties: HashMap<String, GameProperty, crate::value::NameHasher>,
    /// The readers that also list components as indices, by name.
    part_listers: HashMap<String, PartLister, crate::value::NameHasher>,
}

/// Where `api::register` puts every function: the Rhai engine, and the table compiled scripts
/// call through.
pub struct Registry<'a> {
    /// The Rhai engine scripts are interpreted by.
    pub engine: &'a mut Engine,
    /// The same functions for compiled scripts.
    pub natives: &'a mut NativeTable,
}

impl NativeTable {
    /// Records a function under `name` (the same function Rhai registers).
    pub fn record<A: 'static, const N: usize, const X: bool, R, const F: bool, FUNC>(&mut self, name: &str, f: FUNC)
    where
        R: Variant + Clone,
        FUNC: RhaiNativeFunc<A, N, X, R, F> + Send + Sync + 'static,
    {
        self.record_as(name, f, false);
    }

    /// Records a function whose result is data read from the game's files and nothing else
    /// (nodes and edges of a graph, a data table, parts of them, lists of them with each part
    /// at most twice). Compiled scripts check its results against the size limits only when
    /// the files' data, counted whole, does not already keep them within (see `Program`).
    pub fn record_from_files<A: 'static, const N: usize, const X: bool, R, const F: bool, FUNC>(
        &mut self,
        name: &str,
        f: FUNC,
    ) where
        R: Variant + Clone,
        FUNC: RhaiNativeFunc<A, N, X, R, F> + Send + Sync + 'static,
    {
        self.record_as(name, f, true);
    }

    fn record_as<A: 'static, const N: usize, const X: bool, R, const F: bool, FUNC>(
        &mut self,
        name: &str,
        f: FUNC,
        from_files: bool,
    ) where
        R: Variant + Clone,
        FUNC: RhaiNativeFunc<A, N, X, R, F> + Send + Sync + 'static,
    {
        if FUNC::has_context() {
            // Needs Rhai's call context: compiled scripts leave such calls to Rhai.
            return;
        }
        // Rhai files `&str` and `String` parameters under its own string type.
        let types = FUNC::param_types()
            .iter()
            .map(|&t| {
                if t == TypeId::of::<&str>() || t == TypeId::of::<String>() {
                    TypeId::of::<rhai::ImmutableString>()
                } else {
                    t
                }
            })
            .collect();
        // Purity as Rhai's `FuncRegistration` sets it for these names.
        let is_pure = !(name.starts_with("set$") || name == "index$set$");
        let func = f.into_rhai_function(is_pure, false);
        let arities = self.by_name.entry(name.to_string()).or_default();
        let at = match arities.iter().position(|(n, _)| *n == N) {
            Some(at) => at,
            None => {
                arities.push((N, Vec::new()));
                arities.len() - 1
            }
        };
        arities[at].1.push(Native { types, func, from_files });
    }

    /// Records that the functions `name(game, part)` and `name(game, part, owner)` registered
    /// with Rhai do what `reader` does (compiled scripts then call `reader` instead).
    pub fn record_part_reader(&mut self, name: &str, reader: PartReader) {
        self.part_functions.insert(name.to_string(), PartFunction::Read(reader));
    }

    /// Records that the functions `name(game, part, value)` and `name(game, part, owner,
    /// value)` registered with Rhai do what `writer` does.
    pub fn record_part_writer(&mut self, name: &str, writer: PartWriter) {
        self.part_functions.insert(name.to_string(), PartFunction::Write(writer));
    }

    /// Records that the functions `name(game, component, zone)` and `name(game, component,
    /// zone, owner)` registered with Rhai do what `placer` does.
    pub fn record_part_placer(&mut self, name: &str, placer: PartPlacer) {
        self.part_functions.insert(name.to_string(), PartFunction::Place(placer));
    }

    /// Records that the functions `name(game, from[, from_owner], to[, to_owner])` registered
    /// with Rhai do what `transfer` does.
    pub fn record_part_transfer(&mut self, name: &str, transfer: PartTransfer) {
        self.part_functions.insert(name.to_string(), PartFunction::Transfer(transfer));
    }

    /// Records that the part reader `name` (see [`NativeTable::record_part_reader`]) lists
    /// the components `lister` lists, as handles.
    pub fn record_part_lister(&mut self, name: &str, lister: PartLister) {
        self.part_listers.insert(name.to_string(), lister);
    }

    /// The lister of the part reader of this name, if one was recorded.
    pub(crate) fn part_lister(&self, name: &str) -> Option<PartLister> {
        self.part_listers.get(name).copied()
    }

    /// Records that the getter of the game handle's property `name` registered with Rhai
    /// reads what `read` does.
    pub fn record_game_property(&mut self, name: &str, read: GameProperty) {
        self.game_properties.insert(name.to_string(), read);
    }

    /// The game handle's property of this name, if it was recorded (see
    /// [`NativeTable::record_game_property`]).
    pub(crate) fn game_property(&self, name: &str) -> Option<GameProperty> {
        self.game_properties.get(name).copied()
    }

    /// How the function of this name works on a named part, if it was recorded so.
    pub(crate) fn part_function(&self, name: &str) -> Option<PartFunction> {
        self.part_functions.get(name).copied()
    }

    /// Whether some function of this name takes `n` arguments.
    pub(crate) fn has(&self, name: &str, n: usize) -> bool {
        self.list(name, n).is_some()
    }

    /// The function Rhai would pick for these arguments: an exact match of every argument's
    /// type first, then one whose `Dynamic` parameters take the rest.
    pub(crate) fn find(&self, name: &str, args: &[&mut Dynamic]) -> Option<&RhaiFunc> {
        Self::pick(self.list(name, args.len())?, args)
    }

    /// Like [`NativeTable::find`] for a list already looked up by name.
    pub(crate) fn pick<'t>(list: &'t [Native], args: &[&mut Dynamic]) -> Option<&'t RhaiFunc> {
        Self::pick_native(list, args).map(Native::func)
    }

    /// Like [`NativeTable::pick`], with what is known about the function.
    pub(crate) fn pick_native<'t>(list: &'t [Native], args: &[&mut Dynamic]) -> Option<&'t Native> {
        let exact = list.iter().find(|n| n.types.iter().zip(args.iter()).all(|(t, a)| *t == a.type_id()));
        if exact.is_some() {
            return exact;
        }
        let any = TypeId::of::<Dynamic>();
        list.iter().find(|n| n.types.iter().zip(args.iter()).all(|(t, a)| *t == a.type_id() || *t == any))
    }

    /// The functions of this name taking `n` arguments.
    pub(crate) fn list(&self, name: &str, n: usize) -> Option<&[Native]> {
        self.by_name.get(name)?.iter().find(|(a, _)| *a == n).map(|(_, l)| l.as_slice())
    }
}

/// Calls a recorded function; its error ends the compiled call (Rhai then reruns it).
pub(crate) fn invoke(func: &RhaiFunc, args: &mut [&mut Dynamic]) -> Option<Dynamic> {
    let f = func.get_native_fn()?;
    f(None, args).ok()
}
