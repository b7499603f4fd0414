//! `x.f(a, b)` where `x` is a local variable and `f` is one of the engine's functions (most
//! calls scripts make: `game.track("price")`, `game.cards("hand", p)`): the arguments are made,
//! the engine's function is picked by the arguments' types and called with the variable
//! itself, without going through the general chain (no vector of arguments taken and given
//! back, no walk over links). Anything the engine has no function for goes the general way.

use super::{method, Code};
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
