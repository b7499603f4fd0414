//! Chains of one link on a local variable, run without the general chain machinery (no walk
//! over links, no vector of arguments taken and given back):
//!
//! - `x.f(a, b)` where `f` is one of the engine's functions (most calls scripts make:
//!   `game.track("score")`, `game.cards("hand", p)`): the arguments are made, the engine's
//!   function is picked by the arguments' types and called with the variable itself;
//! - `x.name` where `x` holds a map or a component (`m.name`, `c.kind`): the entry or the
//!   property, copied;
//! - `game.f(...)` where `f` reads or changes one named part of the state, or puts a component
//!   into a named zone (`game.count("hand", p)`, `game.set_var("place", p, v)`,
//!   `game.move(c, "hand", p)`): the engine's function is called with the name and the owner
//!   where they lie.
//!
//! Anything else (the engine has no function for these types, `x` holds another kind of value)
//! goes the general way.

use super::{chain_value, method, Code, Link, Lower, Root, U};
use crate::compiled::discard::discard;
use crate::compiled::natives::{invoke, Native, NativeTable, PartFunction};
use crate::compiled::{bailed, ops, R};
use crate::script::GameHandle;
use rhai::{ASTFlags, Dynamic, Expr, FnArgsVec, ImmutableString};
use smallvec::SmallVec;

/// The call `s[slot].name(args...)`, `natives` being the engine's functions of that name and
/// number of arguments.
pub(super) fn method_on_variable(slot: usize, name: ImmutableString, natives: Vec<Native>, args: Vec<Code>) -> Code {
    Box::new(move |s, rt| -> R<Dynamic> {
        let mut vals: SmallVec<[Dynamic; 4]> = SmallVec::new();
        for a in &args {
            vals.push(a(s, rt)?);
        }
        {
            let mut refs: FnArgsVec<&mut Dynamic> = FnArgsVec::new();
            refs.push(&mut s[slot]);
            refs.extend(vals.iter_mut());
            if let Some(f) = NativeTable::pick_native(&natives, &refs) {
                let v = invoke(f.func(), &mut refs).ok_or_else(|| bailed())?;
                drop(refs);
                vals.into_iter().for_each(discard);
                // The game files' data, counted whole, may keep such a result within the limits.
                if !(f.returns_files_data() && rt.prog.files_data_small) && ops::too_big(rt, &v) {
                    return ops::bail();
                }
                return Ok(v);
            }
        }
        method(rt, &name, Some(&natives), &mut s[slot], vals.into_vec())
    })
}

/// The read `s[slot].name`, `links` being that one property link (the general way's, kept for
/// values that are neither maps nor components).
pub(super) fn property_of_variable(slot: usize, links: Vec<Link>) -> Code {
    let root = Root::Slot(slot);
    Box::new(move |s, rt| -> R<Dynamic> {
        if let [Link::Prop { name, hint, .. }] = &links[..] {
            let cur = &s[slot];
            if cur.is_map() {
                if let Some(m) = cur.read_lock::<rhai::Map>() {
                    return Ok(m.get(name.as_str()).cloned().unwrap_or(Dynamic::UNIT));
                }
            }
            if let Some(v) = crate::api::component::read_property(cur, name, &hint.0) {
                return Ok(v);
            }
        }
        chain_value(rt, s, &root, &links, &mut [])
    })
}

/// The name of the part a call works on: written in the script, or a local variable's string.
pub(super) enum PartName {
    Text(ImmutableString),
    Slot(usize),
}

impl PartName {
    /// The name as a script value (for the general way).
    fn value(&self, s: &[Dynamic]) -> Dynamic {
        match self {
            PartName::Text(t) => Dynamic::from(t.clone()),
            PartName::Slot(i) => s[*i].clone(),
        }
    }
}

/// What a part call calls on its general way: the method's name and the engine's functions of
/// that name and number of arguments.
pub(super) struct GeneralWay {
    name: ImmutableString,
    natives: Vec<Native>,
}

/// The arguments of a part call besides the name, as the script wrote them.
struct PartArgs {
    /// `move`'s component (before the zone's name).
    component: Option<Code>,
    owner: Option<Code>,
    /// A writer's value (last).
    value: Option<Code>,
}

/// `s[slot].f(...)` where `f` works on a named part ([`PartFunction`]): when the variable holds
/// the game handle, the name is a string and the owner an integer, the engine's function is
/// called with them where they lie (no argument values made, picked, taken and dropped).
/// Anything else is called the general way with the values already made, in the script's
/// order; an error ends the compiled call (Rhai then reports it).
fn part_call(slot: usize, function: PartFunction, part: PartName, args: PartArgs, general: GeneralWay) -> Code {
    Box::new(move |s, rt| -> R<Dynamic> {
        // Made in the order the script gives them (the name has no effects).
        let component = match &args.component {
            Some(c) => Some(c(s, rt)?),
            None => None,
        };
        let owner = match &args.owner {
            Some(c) => Some(c(s, rt)?),
            None => None,
        };
        let mut value = match &args.value {
            Some(c) => Some(c(s, rt)?),
            None => None,
        };
        let owner_int = match &owner {
            None => Some(None),
            Some(v) => v.as_int().ok().map(Some),
        };
        if let Some(owner_int) = owner_int {
            let done = {
                let name_lock;
                let name: Option<&str> = match &part {
                    PartName::Text(t) => Some(t.as_str()),
                    PartName::Slot(i) => {
                        name_lock = s[*i].read_lock::<ImmutableString>();
                        name_lock.as_deref().map(ImmutableString::as_str)
                    }
                };
                match (s[slot].read_lock::<GameHandle>(), name) {
                    (Some(h), Some(name)) => Some(h.with(|r, w| match function {
                        PartFunction::Read(f) => f(r, w, name, owner_int),
                        PartFunction::Write(f) => f(r, w, name, owner_int, value.take().unwrap_or_default()),
                        PartFunction::Place(f) => {
                            f(r, w, component.as_ref().unwrap_or(&Dynamic::UNIT), name, owner_int)
                        }
                    })),
                    _ => None,
                }
            };
            if let Some(done) = done {
                component.into_iter().chain(owner).for_each(discard);
                let v = done.map_err(|_| bailed())?;
                if ops::too_big(rt, &v) {
                    return ops::bail();
                }
                return Ok(v);
            }
        }
        let mut all = rt.vec();
        all.extend(component);
        all.push(part.value(s));
        all.extend(owner);
        all.extend(value);
        method(rt, &general.name, Some(&general.natives), &mut s[slot], all)
    })
}

impl Lower<'_> {
    /// `x.f(...)` as a part call (see [`part_call`]), when `f` is an engine function that works
    /// on a named part, `x` a local variable and the name a string written in the script or a
    /// local variable; `None` otherwise.
    pub(super) fn part_call(&mut self, e: &Expr) -> U<Option<Code>> {
        let Expr::Dot(x, flags, ..) = e else {
            return Ok(None);
        };
        let (Expr::Variable(v, ..), Expr::MethodCall(f, ..)) = (&x.lhs, &x.rhs) else {
            return Ok(None);
        };
        if flags.intersects(ASTFlags::NEGATED | ASTFlags::BREAK)
            || f.capture_parent_scope
            || self.script_fn(&f.name, f.args.len()).is_some()
        {
            return Ok(None);
        }
        let (Some(function), Some(natives), Some(slot)) = (
            self.natives.part_function(&f.name),
            self.natives.list(&f.name, f.args.len() + 1).map(<[Native]>::to_vec),
            self.lookup(&v.1),
        ) else {
            return Ok(None);
        };
        // Where the name is, and which arguments are the owner, the value and the component.
        let (at_name, owner, value, component) = match (function, f.args.len()) {
            (PartFunction::Read(_), 1) => (0, None, None, None),
            (PartFunction::Read(_), 2) => (0, Some(1), None, None),
            (PartFunction::Write(_), 2) => (0, None, Some(1), None),
            (PartFunction::Write(_), 3) => (0, Some(1), Some(2), None),
            (PartFunction::Place(_), 2) => (1, None, None, Some(0)),
            (PartFunction::Place(_), 3) => (1, Some(2), None, Some(0)),
            _ => return Ok(None),
        };
        let part = match &f.args[at_name] {
            Expr::StringConstant(t, ..) => PartName::Text(super::unshared_str(t)),
            Expr::Variable(n, ..) => match self.lookup(&n.1) {
                Some(i) => PartName::Slot(i),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        let mut lower = |i: Option<usize>| i.map(|i| self.expr(&f.args[i])).transpose();
        let args = PartArgs { component: lower(component)?, owner: lower(owner)?, value: lower(value)? };
        Ok(Some(part_call(slot, function, part, args, GeneralWay { name: f.name.clone(), natives })))
    }
}
