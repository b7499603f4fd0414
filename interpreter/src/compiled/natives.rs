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
}

/// Functions of one name, grouped by number of parameters.
type ByArity = Vec<(usize, Vec<Native>)>;

/// The registered functions by name and number of parameters.
#[derive(Default)]
pub struct NativeTable {
    /// By name (looked up without allocating), then by number of parameters.
    by_name: HashMap<String, ByArity, crate::value::NameHasher>,
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
        arities[at].1.push(Native { types, func });
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
        let exact = list.iter().find(|n| n.types.iter().zip(args.iter()).all(|(t, a)| *t == a.type_id()));
        if let Some(n) = exact {
            return Some(&n.func);
        }
        let any = TypeId::of::<Dynamic>();
        list.iter()
            .find(|n| n.types.iter().zip(args.iter()).all(|(t, a)| *t == a.type_id() || *t == any))
            .map(|n| &n.func)
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
