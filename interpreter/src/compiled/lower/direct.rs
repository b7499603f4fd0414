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

use super::{chain_value, method, Code, Hint, Link, Lower, Root, U};
use crate::compiled::discard::discard;
use crate::compiled::natives::{
    invoke, ComponentList, GameProperty, Native, NativeTable, PartFunction, PartLister, PartPlacer, PartReader,
    PartTransfer, PartValue, PartWriter,
};
use crate::compiled::{bailed, ops, Rt, R};
use crate::script::GameHandle;
use crate::state::Components;
use rhai::{ASTFlags, Dynamic, Expr, FnArgsVec, ImmutableString};
use smallvec::SmallVec;
use std::sync::Arc;

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

/// The call `s[slot].name(args...)` of a function the engine has none of (`list.len()`,
/// `s.index_of("x")`): what the general way does for a chain of that one link, without the
/// chain's walk.
pub(super) fn standard_on_variable(slot: usize, name: ImmutableString, args: Vec<Code>) -> Code {
    Box::new(move |s, rt| -> R<Dynamic> {
        let mut vals = rt.vec();
        for a in &args {
            vals.push(a(s, rt)?);
        }
        method(rt, &name, None, &mut s[slot], vals)
    })
}

/// The call `value.name(args...)` on a value made for it (`"ABCDEF".index_of(s)`,
/// `game.cards(z).len()`): the arguments are made first, then the value, as Rhai does, and the
/// method is called on the value where it lies.
pub(super) fn method_on_value(
    value: Code,
    name: ImmutableString,
    natives: Option<Vec<Native>>,
    args: Vec<Code>,
) -> Code {
    Box::new(move |s, rt| -> R<Dynamic> {
        let mut vals = rt.vec();
        for a in &args {
            vals.push(a(s, rt)?);
        }
        let mut this = value(s, rt)?;
        let r = method(rt, &name, natives.as_deref(), &mut this, vals);
        discard(this);
        r
    })
}

/// The read `s[slot].name`, `links` being that one property link (the general way's, kept for
/// values that are neither maps nor components; `hint` is the link's, copied). When `game` is
/// the game handle's property of that name, a variable holding the handle is read with it,
/// before anything else is tried.
pub(super) fn property_of_variable(
    slot: usize,
    (name, hint): (ImmutableString, Hint),
    links: Vec<Link>,
    game: Option<GameProperty>,
) -> Code {
    let root = Root::Slot(slot);
    let read = move |s: &mut [Dynamic], rt: &mut Rt| -> R<Dynamic> {
        let cur = &s[slot];
        if cur.is_map() {
            if let Some(m) = cur.read_lock::<rhai::Map>() {
                return Ok(ops::map_get(&m, &name).cloned().unwrap_or(Dynamic::UNIT));
            }
        }
        if let Some(v) = crate::api::component::read_property(cur, &name, &hint.0) {
            return Ok(v);
        }
        chain_value(rt, s, &root, &links, &mut [])
    };
    match game {
        None => Box::new(read),
        Some(property) => Box::new(move |s, rt| match on_game(s, slot, property) {
            Some(v) => done(rt, v, None, None),
            None => read(s, rt),
        }),
    }
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

    /// Calls `f` with the name where it lies, if it is a string; `None` otherwise.
    #[inline]
    fn with<T>(&self, s: &[Dynamic], f: impl FnOnce(&str) -> T) -> Option<T> {
        match self {
            PartName::Text(t) => Some(f(t.as_str())),
            PartName::Slot(i) => s[*i].read_lock::<ImmutableString>().map(|n| f(n.as_str())),
        }
    }
}

/// What a part call calls on its general way: the method's name and the engine's functions of
/// that name and number of arguments.
pub(super) struct GeneralWay {
    name: ImmutableString,
    natives: Vec<Native>,
}

impl GeneralWay {
    /// Calls the method with the arguments made so far, in the script's order: `before` (a
    /// placer's component), the name, `after` (owners, a destination's name, a value).
    fn call(
        &self,
        s: &mut [Dynamic],
        rt: &mut Rt,
        slot: usize,
        before: Option<Dynamic>,
        name: &PartName,
        after: [Option<Dynamic>; 3],
    ) -> R<Dynamic> {
        let mut all = rt.vec();
        all.extend(before);
        all.push(name.value(s));
        all.extend(after.into_iter().flatten());
        method(rt, &self.name, Some(&self.natives), &mut s[slot], all)
    }
}

/// Runs an optional argument's code.
#[inline]
fn made(code: &Option<Code>, s: &mut [Dynamic], rt: &mut Rt) -> R<Option<Dynamic>> {
    match code {
        Some(c) => Ok(Some(c(s, rt)?)),
        None => Ok(None),
    }
}

/// An optional owner as an integer: `Some(None)` when there is none, `None` when it is not an
/// integer (the general way then decides).
#[inline]
fn owner_int(owner: &Option<Dynamic>) -> Option<Option<i64>> {
    match owner {
        None => Some(None),
        Some(v) => v.as_int().ok().map(Some),
    }
}

/// Runs `f` on the rules and the work of the game handle in `s[slot]` (`None` when it holds
/// something else); its error ends the compiled call.
#[inline]
fn on_game<T>(
    s: &[Dynamic],
    slot: usize,
    f: impl FnOnce(&crate::rules::Rules, &mut crate::script::Work) -> Result<T, String>,
) -> Option<R<T>> {
    let h = s[slot].read_lock::<GameHandle>()?;
    Some(h.with(|r, w| f(r, w)).map_err(|_| bailed()))
}

/// A part call's result, checked against the size limits as any engine function's; the
/// owners it was given are let go of.
#[inline(always)]
fn done(rt: &Rt, v: R<Dynamic>, first: Option<Dynamic>, second: Option<Dynamic>) -> R<Dynamic> {
    if let Some(x) = first {
        discard(x);
    }
    if let Some(x) = second {
        discard(x);
    }
    let v = v?;
    if ops::too_big(rt, &v) {
        return ops::bail();
    }
    Ok(v)
}

/// [`done`] for a part reader's value: checked by the sizes the reader knows, if it does.
#[inline(always)]
fn done_read(rt: &Rt, v: R<PartValue>, owner: Option<Dynamic>) -> R<Dynamic> {
    match v {
        Ok(PartValue { value, sizes: Some(sizes) }) => {
            if let Some(x) = owner {
                discard(x);
            }
            if ops::near_limits(rt, sizes) {
                return ops::bail();
            }
            Ok(value)
        }
        v => done(rt, v.map(|p| p.value), owner, None),
    }
}

/// A call of an engine function that works on a named part ([`PartFunction`]), with the
/// function and its arguments besides the name, as the script wrote them.
enum PartCall {
    Read(PartReader, Option<Code>),
    Write(PartWriter, Option<Code>, Code),
    Place(PartPlacer, Code, Option<Code>),
    Transfer(PartTransfer, Option<Code>, PartName, Option<Code>),
}

/// `s[slot].f(...)` as a part call: when the variable holds the game handle, the names are
/// strings and the owners integers, the engine's function is called with them where they lie
/// (no argument values made, picked, taken and dropped). Anything else is called the general
/// way with the values already made, in the script's order; an error ends the compiled call
/// (Rhai then reports it). Each shape has its own closure, handling only its arguments.
fn part_call(slot: usize, part: PartName, call: PartCall, general: GeneralWay) -> Code {
    match call {
        PartCall::Read(f, owner) => Box::new(move |s, rt| {
            let owner = made(&owner, s, rt)?;
            if let Some(o) = owner_int(&owner) {
                if let Some(v) = part.with(s, |name| on_game(s, slot, |r, w| f(r, w, name, o))).flatten() {
                    return done_read(rt, v, owner);
                }
            }
            general.call(s, rt, slot, None, &part, [owner, None, None])
        }),
        PartCall::Write(f, owner, value) => Box::new(move |s, rt| {
            let owner = made(&owner, s, rt)?;
            let mut value = Some(value(s, rt)?);
            if let Some(o) = owner_int(&owner) {
                let run = |name: &str| on_game(s, slot, |r, w| f(r, w, name, o, value.take().unwrap_or_default()));
                if let Some(v) = part.with(s, run).flatten() {
                    return done(rt, v, owner, None);
                }
            }
            general.call(s, rt, slot, None, &part, [owner, value, None])
        }),
        PartCall::Place(f, component, owner) => Box::new(move |s, rt| {
            let component = component(s, rt)?;
            let owner = made(&owner, s, rt)?;
            if let Some(o) = owner_int(&owner) {
                if let Some(v) = part.with(s, |zone| on_game(s, slot, |r, w| f(r, w, &component, zone, o))).flatten() {
                    return done(rt, v, owner, Some(component));
                }
            }
            general.call(s, rt, slot, Some(component), &part, [owner, None, None])
        }),
        PartCall::Transfer(f, owner, to, to_owner) => Box::new(move |s, rt| {
            let owner = made(&owner, s, rt)?;
            let to_owner = made(&to_owner, s, rt)?;
            if let (Some(o), Some(to_o)) = (owner_int(&owner), owner_int(&to_owner)) {
                let run = |from: &str| to.with(s, |t| on_game(s, slot, |r, w| f(r, w, from, o, t, to_o))).flatten();
                if let Some(v) = part.with(s, run).flatten() {
                    return done(rt, v, owner, to_owner);
                }
            }
            let to_name = Some(to.value(s));
            general.call(s, rt, slot, None, &part, [owner, to_name, to_owner])
        }),
    }
}

/// `s[slot].f(name[, owner])` where `f` also lists components as indices
/// ([`PartLister`]): what a `for` loop over the call runs over.
pub(super) struct ListingCall {
    slot: usize,
    part: PartName,
    owner: Option<Code>,
    lister: PartLister,
    general: GeneralWay,
}

/// What a [`ListingCall`] gave.
pub(super) enum Listing {
    /// The components, as indices into these components.
    Components(ComponentList, Arc<Components>),
    /// The call's value, made the general way.
    Value(Dynamic),
}

impl ListingCall {
    /// Makes the call: the components listed when the variable holds the game handle, the
    /// name is a string and the owner an integer; else the call made the general way. The list
    /// counts against the size limits as the list of handles the call returns would.
    pub(super) fn list(&self, s: &mut [Dynamic], rt: &mut Rt) -> R<Listing> {
        let owner = made(&self.owner, s, rt)?;
        if let Some(o) = owner_int(&owner) {
            let mut ids = ComponentList::new();
            let run = |name: &str| {
                on_game(s, self.slot, |r, w| {
                    (self.lister)(r, w, name, o, &mut ids)?;
                    Ok(w.state.components.clone())
                })
            };
            if let Some(listed) = self.part.with(s, run).flatten() {
                if let Some(x) = owner {
                    discard(x);
                }
                let components = listed?;
                if ids.len() >= rt.prog.max_array {
                    return ops::bail();
                }
                return Ok(Listing::Components(ids, components));
            }
        }
        let v = self.general.call(s, rt, self.slot, None, &self.part, [owner, None, None])?;
        Ok(Listing::Value(v))
    }
}

/// Where a part call's arguments are, by position: the name, the owner, the destination's name
/// and owner (a transfer), the value (a writer), the component (a placer).
struct Positions {
    name: usize,
    owner: Option<usize>,
    to: Option<(usize, Option<usize>)>,
    value: Option<usize>,
    component: Option<usize>,
}

/// The positions of a call of `function` with these arguments, when it has a shape the
/// function takes (a transfer of three arguments tells its two forms apart by which of the
/// second and third is a string written in the script).
fn positions(function: PartFunction, args: &[Expr]) -> Option<Positions> {
    let at = |name, owner, to, value, component| Some(Positions { name, owner, to, value, component });
    let text = |i: usize| matches!(args[i], Expr::StringConstant(..));
    match (function, args.len()) {
        (PartFunction::Read(_), 1) => at(0, None, None, None, None),
        (PartFunction::Read(_), 2) => at(0, Some(1), None, None, None),
        (PartFunction::Write(_), 2) => at(0, None, None, Some(1), None),
        (PartFunction::Write(_), 3) => at(0, Some(1), None, Some(2), None),
        (PartFunction::Place(_), 2) => at(1, None, None, None, Some(0)),
        (PartFunction::Place(_), 3) => at(1, Some(2), None, None, Some(0)),
        (PartFunction::Transfer(_), 2) => at(0, None, Some((1, None)), None, None),
        (PartFunction::Transfer(_), 3) if text(1) => at(0, None, Some((1, Some(2))), None, None),
        (PartFunction::Transfer(_), 3) if text(2) => at(0, Some(1), Some((2, None)), None, None),
        (PartFunction::Transfer(_), 4) => at(0, Some(1), Some((2, Some(3))), None, None),
        _ => None,
    }
}

impl Lower<'_> {
    /// `x.f(name[, owner])` as a [`ListingCall`], when `f` is an engine function that also
    /// lists components as indices, `x` a local variable and the name a string written in the
    /// script or a local variable; `None` otherwise.
    pub(super) fn listing_call(&mut self, e: &Expr) -> U<Option<ListingCall>> {
        let Some((slot, f, natives)) = self.engine_method_on_variable(e) else {
            return Ok(None);
        };
        let (Some(lister), 1..=2) = (self.natives.part_lister(&f.name), f.args.len()) else {
            return Ok(None);
        };
        let Some(part) = self.part_name(&f.args[0]) else {
            return Ok(None);
        };
        let owner = f.args.get(1).map(|a| self.expr(a)).transpose()?;
        let general = GeneralWay { name: f.name.clone(), natives };
        Ok(Some(ListingCall { slot, part, owner, lister, general }))
    }

    /// `x.f(...)` with `x` a local variable and `f` one of the engine's functions (no script
    /// function of that name and number of arguments): the variable's slot, the call and the
    /// engine's functions of that name and number of arguments.
    fn engine_method_on_variable<'e>(&self, e: &'e Expr) -> Option<(usize, &'e rhai::FnCallExpr, Vec<Native>)> {
        let Expr::Dot(x, flags, ..) = e else {
            return None;
        };
        let (Expr::Variable(v, ..), Expr::MethodCall(f, ..)) = (&x.lhs, &x.rhs) else {
            return None;
        };
        if flags.intersects(ASTFlags::NEGATED | ASTFlags::BREAK)
            || f.capture_parent_scope
            || self.script_fn(&f.name, f.args.len()).is_some()
        {
            return None;
        }
        let natives = self.natives.list(&f.name, f.args.len() + 1)?.to_vec();
        Some((self.lookup(&v.1)?, f, natives))
    }

    /// The name of a part, as a call's argument: a string written in the script or a local
    /// variable.
    fn part_name(&self, arg: &Expr) -> Option<PartName> {
        match arg {
            Expr::StringConstant(t, ..) => Some(PartName::Text(super::unshared_str(t))),
            Expr::Variable(n, ..) => self.lookup(&n.1).map(PartName::Slot),
            _ => None,
        }
    }

    /// `x.f(...)` as a part call (see [`part_call`]), when `f` is an engine function that works
    /// on named parts, `x` a local variable and each name a string written in the script or a
    /// local variable; `None` otherwise.
    pub(super) fn part_call(&mut self, e: &Expr) -> U<Option<Code>> {
        let Some((slot, f, natives)) = self.engine_method_on_variable(e) else {
            return Ok(None);
        };
        let Some(function) = self.natives.part_function(&f.name) else {
            return Ok(None);
        };
        let Some(at) = positions(function, &f.args) else {
            return Ok(None);
        };
        let name = |lower: &Self, i: usize| lower.part_name(&f.args[i]);
        let (Some(part), to) = (name(self, at.name), at.to.map(|(i, _)| name(self, i))) else {
            return Ok(None);
        };
        let mut lower = |i: Option<usize>| i.map(|i| self.expr(&f.args[i])).transpose();
        let component = lower(at.component)?;
        let owner = lower(at.owner)?;
        let to_owner = lower(at.to.and_then(|(_, o)| o))?;
        let value = lower(at.value)?;
        let call = match (function, component, value, to) {
            (PartFunction::Read(f), ..) => PartCall::Read(f, owner),
            (PartFunction::Write(f), _, Some(value), _) => PartCall::Write(f, owner, value),
            (PartFunction::Place(f), Some(component), ..) => PartCall::Place(f, component, owner),
            (PartFunction::Transfer(f), _, _, Some(Some(to))) => PartCall::Transfer(f, owner, to, to_owner),
            _ => return Ok(None),
        };
        Ok(Some(part_call(slot, part, call, GeneralWay { name: f.name.clone(), natives })))
    }
}
