//! Chains of one link on a local variable, run without the general chain machinery (no walk
//! over links, no vector of arguments taken and given back):
//!
//! - `x.f(a, b)` where `f` is one of the engine's functions (most calls scripts make:
//!   `game.track("score")`, `game.cards("hand", p)`): the arguments are made, the engine's
//!   function is picked by the arguments' types and called with the variable itself;
//! - `x.name` where `x` holds a map or a component (`m.name`, `c.kind`): the entry or the
//!   property, copied.
//!
//! Anything else (the engine has no function for these types, `x` holds another kind of value)
//! goes the general way.

use super::{chain_value, method, Code, Link, Root};
use crate::compiled::discard::discard;
use crate::compiled::natives::{invoke, Native, NativeTable};
use crate::compiled::{bailed, ops, R};
use rhai::{Dynamic, FnArgsVec, ImmutableString};
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
