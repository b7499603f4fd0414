//! Chains of one link on a local variable, run without the general chain machinery (no walk
//! over links, no vector of arguments taken and given back):
//!
//! - `x.f(a, b)` where `f` is one of the engine's functions (most calls scripts make:
//!   `game.track("score")`, `game.cards("hand", p)`): the arguments are made, the engine's
//!   function is picked by the arguments' types and called with the variable itself;
//! - `x.name` where `x` holds a map or a component (`m.name`, `c.kind`): the entry or the
//!   property, copied;
//! - `game.f(name[, owner])` where `f` reads one named part of the state (`game.count("hand",
//!   p)`, `game.get_var("place", p)`): the engine's reader is called with the name and the owner
//!   where they lie.
//!
//! Anything else (the engine has no function for these types, `x` holds another kind of value)
//! goes the general way.

use super::{chain_value, method, Code, Link, Lower, Root, U};
use crate::compiled::discard::discard;
use crate::compiled::natives::{invoke, Native, NativeTable, PartReader};
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

/// The name a part reader is given: written in the script, or a local variable's string.
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

/// What a part read calls on its general way: the method's name and the engine's functions of
/// that name and number of arguments.
pub(super) struct GeneralWay {
    pub(super) name: ImmutableString,
    pub(super) natives: Vec<Native>,
}

/// `s[slot].f(name[, owner])` where `f` has a part reader ([`PartReader`]): when the variable
/// holds the game handle, the name is a string and the owner an integer, the reader is called
/// with them where they lie (no argument values made, picked, taken and dropped). Anything else
/// is called the general way with the values already made; an error ends the compiled call
/// (Rhai then reports it).
pub(super) fn part_read(
    slot: usize,
    part: PartName,
    owner: Option<Code>,
    reader: PartReader,
    general: GeneralWay,
) -> Code {
    Box::new(move |s, rt| -> R<Dynamic> {
        let owner_value = match &owner {
            Some(c) => Some(c(s, rt)?),
            None => None,
        };
        let owner_int = match &owner_value {
            None => Some(None),
            Some(v) => v.as_int().ok().map(Some),
        };
        if let Some(owner_int) = owner_int {
            let read = {
                let name_lock;
                let name: Option<&str> = match &part {
                    PartName::Text(t) => Some(t.as_str()),
                    PartName::Slot(i) => {
                        name_lock = s[*i].read_lock::<ImmutableString>();
                        name_lock.as_deref().map(ImmutableString::as_str)
                    }
                };
                match (s[slot].read_lock::<GameHandle>(), name) {
                    (Some(h), Some(name)) => Some(h.with(|r, w| reader(r, w, name, owner_int))),
                    _ => None,
                }
            };
            if let Some(read) = read {
                owner_value.into_iter().for_each(discard);
                let v = read.map_err(|_| bailed())?;
                if ops::too_big(rt, &v) {
                    return ops::bail();
                }
                return Ok(v);
            }
        }
        let mut args = rt.vec();
        args.push(part.value(s));
        args.extend(owner_value);
        method(rt, &general.name, Some(&general.natives), &mut s[slot], args)
    })
}

impl Lower<'_> {
    /// `x.f(name[, owner])` as a part read (see [`part_read`]), when `f` is an engine function
    /// with a part reader, `x` a local variable and `name` a string written in the script or a
    /// local variable; `None` otherwise.
    pub(super) fn part_read(&mut self, e: &Expr) -> U<Option<Code>> {
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
        let (Some(reader), Some(natives), Some(slot)) = (
            self.natives.part_reader(&f.name),
            self.natives.list(&f.name, f.args.len() + 1).map(<[Native]>::to_vec),
            self.lookup(&v.1),
        ) else {
            return Ok(None);
        };
        let part = match f.args.first() {
            Some(Expr::StringConstant(t, ..)) => PartName::Text(super::unshared_str(t)),
            Some(Expr::Variable(n, ..)) => match self.lookup(&n.1) {
                Some(i) => PartName::Slot(i),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        let owner = match f.args.len() {
            1 => None,
            2 => Some(self.expr(&f.args[1])?),
            _ => return Ok(None),
        };
        Ok(Some(part_read(slot, part, owner, reader, GeneralWay { name: f.name.clone(), natives })))
    }
}
