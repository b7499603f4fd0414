//! What compiled scripts do to values: Rhai's built-in operators on integers, booleans,
//! characters, strings and `()`, the few standard functions game scripts lean on (`len`,
//! `push`, `contains`, ...), and calls into the engine's own functions. Each does exactly what
//! Rhai does for the types it accepts; for anything else it gives up ([`Stop::Bail`]) and Rhai
//! runs the whole transaction again.

use super::discard::discard;
use super::natives::{invoke, Native, NativeTable};
use super::{bailed, Rt, R};
use rhai::{Dynamic, Token, INT};
use std::any::TypeId;

/// Gives up: Rhai reruns the transaction.
#[track_caller]
pub(crate) fn bail<T>() -> R<T> {
    Err(bailed())
}

/// A checked integer result, as Rhai's arithmetic reports overflow (an error, so: give up).
#[inline]
fn int(v: Option<INT>) -> R<Dynamic> {
    v.map(Dynamic::from_int).ok_or_else(|| bailed())
}

/// Both integers, when both values are integers (asked first: a failed `as_int` would look up
/// the other type's name for its error).
#[inline]
pub(crate) fn ints(x: &Dynamic, y: &Dynamic) -> Option<(INT, INT)> {
    if x.is_int() && y.is_int() {
        Some((x.as_int().ok()?, y.as_int().ok()?))
    } else {
        None
    }
}

/// The built-in binary operators Rhai applies before any registered function, for values
/// that are not custom types; `None` when Rhai has no built-in for these types.
pub(crate) fn builtin_binary(op: &Token, x: &Dynamic, y: &Dynamic) -> Option<R<Dynamic>> {
    use Token::*;
    if let Some((a, b)) = ints(x, y) {
        return Some(match op {
            Plus => int(a.checked_add(b)),
            Minus => int(a.checked_sub(b)),
            Multiply => int(a.checked_mul(b)),
            Divide => {
                if b == 0 {
                    bail()
                } else {
                    int(a.checked_div(b))
                }
            }
            Modulo => {
                if b == 0 {
                    bail()
                } else {
                    int(a.checked_rem(b))
                }
            }
            ExclusiveRange => Ok(Dynamic::from(a..b)),
            InclusiveRange => Ok(Dynamic::from(a..=b)),
            _ => compare(op, a, b),
        });
    }
    if let Some((Ok(a), Ok(b))) = (x.is_bool() && y.is_bool()).then(|| (x.as_bool(), y.as_bool())) {
        return Some(compare(op, a, b));
    }
    if let Some((Ok(a), Ok(b))) =
        (x.is_string() && y.is_string()).then(|| (x.as_immutable_string_ref(), y.as_immutable_string_ref()))
    {
        // `+` checks the string size limit: [`plus`] does it.
        return Some(compare::<&str>(op, &a, &b));
    }
    if let Some((Ok(a), Ok(b))) = (x.is_char() && y.is_char()).then(|| (x.as_char(), y.as_char())) {
        return Some(compare(op, a, b));
    }
    if x.is_unit() && y.is_unit() {
        return Some(match op {
            EqualsTo => Ok(Dynamic::TRUE),
            NotEqualsTo | GreaterThan | GreaterThanEqualsTo | LessThan | LessThanEqualsTo => Ok(Dynamic::FALSE),
            _ => bail(),
        });
    }
    if (x.is_unit() && y.is_string()) || (x.is_string() && y.is_unit()) {
        return Some(match op {
            EqualsTo | GreaterThan | GreaterThanEqualsTo | LessThan | LessThanEqualsTo => Ok(Dynamic::FALSE),
            NotEqualsTo => Ok(Dynamic::TRUE),
            _ => bail(),
        });
    }
    // Rhai's default for values of different types (integers are its only numbers here):
    // comparisons are false, `!=` is true. Ranges and char with string have their own rules.
    let (tx, ty) = (x.type_id(), y.type_id());
    if tx != ty {
        if (x.is_char() && y.is_string()) || (x.is_string() && y.is_char()) || is_range(tx) || is_range(ty) {
            return None;
        }
        return match op {
            NotEqualsTo => Some(Ok(Dynamic::TRUE)),
            EqualsTo | GreaterThan | GreaterThanEqualsTo | LessThan | LessThanEqualsTo => Some(Ok(Dynamic::FALSE)),
            _ => None,
        };
    }
    None
}

/// The six comparisons, as Rhai's built-ins make them for two values of one type.
fn compare<T: PartialOrd>(op: &Token, a: T, b: T) -> R<Dynamic> {
    use Token::*;
    Ok(Dynamic::from_bool(match op {
        EqualsTo => a == b,
        NotEqualsTo => a != b,
        GreaterThan => a > b,
        GreaterThanEqualsTo => a >= b,
        LessThan => a < b,
        LessThanEqualsTo => a <= b,
        _ => return bail(),
    }))
}

/// Range types: Rhai compares them by their own rules (left to Rhai).
pub(crate) fn is_range(t: TypeId) -> bool {
    t == TypeId::of::<std::ops::Range<INT>>() || t == TypeId::of::<std::ops::RangeInclusive<INT>>()
}

/// A binary operator, resolved as Rhai does: built-ins first for plain values, the engine's
/// registered operators first for custom types, then Rhai's default comparisons.
pub(crate) fn binary(
    rt: &mut Rt,
    op: &Token,
    natives: Option<&[Native]>,
    mut x: Dynamic,
    mut y: Dynamic,
) -> R<Dynamic> {
    if !x.is_variant() && !y.is_variant() {
        if matches!(op, Token::Plus) {
            return plus(rt, x, y);
        }
        let r = builtin_binary(op, &x, &y);
        discard(x);
        discard(y);
        return r.unwrap_or_else(bail);
    }
    if let Some(f) = natives.and_then(|l| NativeTable::pick(l, &[&mut x, &mut y])) {
        return invoke(f, &mut [&mut x, &mut y]).ok_or_else(|| bailed());
    }
    match builtin_binary(op, &x, &y) {
        Some(r) => r,
        None => bail(),
    }
}

/// `+`: integers, and string with string (within the string size limit).
fn plus(rt: &mut Rt, x: Dynamic, y: Dynamic) -> R<Dynamic> {
    if let Some((a, b)) = ints(&x, &y) {
        discard(x);
        discard(y);
        return int(a.checked_add(b));
    }
    if x.is_string() && y.is_string() {
        let a = x.into_immutable_string().map_err(|_| bailed())?;
        let b = y.into_immutable_string().map_err(|_| bailed())?;
        if a.len() + b.len() > rt.prog.max_string {
            return bail();
        }
        return Ok((a + b).into());
    }
    bail()
}

/// `x op= y` on a variable or element: integers and appending strings or characters;
/// anything else gives up.
pub(crate) fn op_assign(rt: &mut Rt, op: &Token, target: &mut Dynamic, y: Dynamic) -> R<()> {
    use Token::*;
    if let Some((a, b)) = ints(target, &y) {
        let v = match op {
            Plus => a.checked_add(b),
            Minus => a.checked_sub(b),
            Multiply => a.checked_mul(b),
            Divide if b != 0 => a.checked_div(b),
            Modulo if b != 0 => a.checked_rem(b),
            _ => None,
        };
        discard(y);
        let v = v.ok_or_else(|| bailed())?;
        // Both were integers: neither holds anything to free.
        discard(std::mem::replace(target, Dynamic::from_int(v)));
        return Ok(());
    }
    if matches!(op, Plus) && target.is_array() && !target.is_read_only() {
        // Rhai's built-in `+=` on an array: appends another array's items, pushes any other value.
        let sized = y.is_array() || y.is_map() || y.is_string();
        {
            let mut a = target.write_lock::<rhai::Array>().ok_or_else(|| bailed())?;
            if y.is_array() {
                a.extend(y.into_array().map_err(|_| bailed())?);
            } else {
                a.push(y);
            }
        }
        let over = if sized {
            too_big(rt, target)
        } else {
            target.as_array_ref().map_or(true, |a| a.len() >= rt.prog.max_array)
        };
        return if over { bail() } else { Ok(()) };
    }
    if matches!(op, Plus) && target.is_string() && (y.is_string() || y.is_char()) && !target.is_read_only() {
        let extra = if y.is_string() { y.as_immutable_string_ref().map(|s| s.len()).unwrap_or(0) } else { 4 };
        let mut s = target.as_immutable_string_mut().map_err(|_| bailed())?;
        if s.len() + extra > rt.prog.max_string {
            return bail();
        }
        if let Ok(c) = y.as_char() {
            *s += c;
        } else {
            let t = y.into_immutable_string().map_err(|_| bailed())?;
            *s += &t;
        }
        return Ok(());
    }
    if super::debugging() {
        eprintln!("no `{op}=` for {} and {}", target.type_name(), y.type_name());
    }
    bail()
}

/// `==` as Rhai's `contains` and `index_of` use it: registered operators first, built-ins,
/// then `false` for different types; same-typed values without an operator give up.
pub(crate) fn equals(rt: &mut Rt, x: &mut Dynamic, y: &mut Dynamic) -> R<bool> {
    if x.is_variant() || y.is_variant() {
        let prog: &super::Program = rt.prog;
        if let Some(f) = prog.natives.find("==", &[&mut *x, &mut *y]) {
            let mut a = x.clone();
            let mut b = y.clone();
            return invoke(f, &mut [&mut a, &mut b]).and_then(|v| v.as_bool().ok()).ok_or_else(|| bailed());
        }
    }
    match builtin_binary(&Token::EqualsTo, x, y) {
        Some(r) => r.and_then(|v| v.as_bool().map_err(|_| bailed())),
        None => bail(),
    }
}

/// A value as text, as string interpolation shows it: strings as they are, integers,
/// booleans and characters as Rhai prints them, engine types through their `to_string`.
pub(crate) fn text(rt: &mut Rt, v: &mut Dynamic, out: &mut String) -> R<()> {
    use std::fmt::Write;
    if v.is_string() {
        out.push_str(&v.as_immutable_string_ref().map_err(|_| bailed())?);
    } else if let Ok(n) = v.as_int() {
        let _ = write!(out, "{n}");
    } else if let Ok(b) = v.as_bool() {
        out.push_str(if b { "true" } else { "false" });
    } else if let Ok(c) = v.as_char() {
        out.push(c);
    } else if v.is_variant() {
        let prog: &super::Program = rt.prog;
        let f = prog.natives.find("to_string", &[&mut *v]).ok_or_else(|| bailed())?;
        let s = invoke(f, &mut [&mut *v]).ok_or_else(|| bailed())?;
        out.push_str(&s.into_immutable_string().map_err(|_| bailed())?);
    } else {
        return bail();
    }
    Ok(())
}

/// An index into an array of `len` elements, negative ones counting from the end.
pub(crate) fn array_index(len: usize, index: INT) -> R<usize> {
    if index < 0 {
        let back = usize::try_from(index.unsigned_abs()).map_err(|_| bailed())?;
        if back <= len && len > 0 {
            return Ok(len - back);
        }
        return bail();
    }
    let i = usize::try_from(index).map_err(|_| bailed())?;
    if i < len {
        Ok(i)
    } else {
        bail()
    }
}

/// The standard-library functions compiled scripts run themselves, on a receiver passed by
/// reference (as Rhai passes a method's object). `None`: not one of them.
pub(crate) fn standard(rt: &mut Rt, name: &str, this: &mut Dynamic, args: &mut [Dynamic]) -> Option<R<Dynamic>> {
    if this.is_array() {
        return array_method(rt, name, this, args);
    }
    if this.is_string() {
        let s = this.as_immutable_string_ref().ok()?.clone();
        return match (name, args) {
            ("len", []) => Some(Ok(Dynamic::from_int(s.chars().count() as INT))),
            ("is_empty", []) => Some(Ok(s.is_empty().into())),
            ("to_string", []) => Some(Ok(s.into())),
            ("contains", [x]) if x.is_string() => {
                Some(Ok(find(&s, x.as_immutable_string_ref().ok()?.as_str()).is_some().into()))
            }
            ("contains", [x]) if x.is_char() => Some(Ok(s.contains(x.as_char().ok()?).into())),
            ("starts_with", [x]) if x.is_string() => {
                Some(Ok(s.starts_with(x.as_immutable_string_ref().ok()?.as_str()).into()))
            }
            ("index_of", [x]) if x.is_string() || x.is_char() => {
                let at = if let Ok(c) = x.as_char() {
                    s.find(c)
                } else {
                    find(&s, x.as_immutable_string_ref().ok()?.as_str())
                };
                let n = match (s.is_empty(), at) {
                    (false, Some(i)) => INT::try_from(s[0..i].chars().count()).unwrap_or(-1),
                    _ => -1,
                };
                Some(Ok(Dynamic::from_int(n)))
            }
            ("sub_string", [start]) if start.is_int() => {
                Some(Ok(sub_string(&s, start.as_int().ok()?, s.len() as INT).into()))
            }
            ("pad", [n, c]) if n.is_int() && c.is_char() && !this.is_read_only() => {
                let (n, c) = (n.as_int().ok()?, c.as_char().ok()?);
                let have = s.chars().count();
                let Ok(want) = usize::try_from(n) else {
                    return Some(Ok(Dynamic::UNIT));
                };
                if want > have {
                    if s.len() + (want - have) * c.len_utf8() >= rt.prog.max_string {
                        return Some(bail());
                    }
                    let mut t = s.to_string();
                    t.extend(std::iter::repeat_n(c, want - have));
                    *this = Dynamic::from(t);
                }
                Some(Ok(Dynamic::UNIT))
            }
            ("sub_string", [start, len]) if start.is_int() && len.is_int() => {
                Some(Ok(sub_string(&s, start.as_int().ok()?, len.as_int().ok()?).into()))
            }
            ("split", [d]) if d.is_string() => {
                let d = d.as_immutable_string_ref().ok()?.clone();
                let parts: Vec<Dynamic> = if s.is_empty() || (!d.is_empty() && !s.contains(d.as_str())) {
                    vec![s.clone().into()]
                } else {
                    s.split(d.as_str()).map(|p| Dynamic::from(p.to_string())).collect()
                };
                Some(Ok(Dynamic::from_array(parts)))
            }
            ("parse_int", []) => Some(INT::from_str_radix(s.trim(), 10).map(Dynamic::from_int).map_err(|_| bailed())),
            ("ends_with", [x]) if x.is_string() => {
                Some(Ok(s.ends_with(x.as_immutable_string_ref().ok()?.as_str()).into()))
            }
            _ => None,
        };
    }
    if this.is_map() {
        if !this.is_read_only() {
            match (name, &mut *args) {
                ("remove", [k]) if k.is_string() => {
                    let k = k.as_immutable_string_ref().ok()?.clone();
                    let mut m = this.write_lock::<rhai::Map>()?;
                    return Some(Ok(m.remove(k.as_str()).unwrap_or(Dynamic::UNIT)));
                }
                ("mixin", [other]) if other.is_map() => {
                    let other = std::mem::take(other).try_cast::<rhai::Map>()?;
                    this.write_lock::<rhai::Map>()?.extend(other);
                    if too_big(rt, this) {
                        return Some(bail());
                    }
                    return Some(Ok(Dynamic::UNIT));
                }
                _ => {}
            }
        }
        let m = this.as_map_ref().ok()?;
        return match (name, args) {
            ("len", []) => Some(Ok(Dynamic::from_int(m.len() as INT))),
            ("is_empty", []) => Some(Ok(m.is_empty().into())),
            ("contains", [k]) if k.is_string() => {
                Some(Ok(m.contains_key(k.as_immutable_string_ref().ok()?.as_str()).into()))
            }
            ("keys", []) => Some(Ok(Dynamic::from_array(
                m.keys().map(|k| Dynamic::from(rhai::ImmutableString::from(k.as_str()))).collect(),
            ))),
            ("values", []) => Some(Ok(Dynamic::from_array(m.values().cloned().collect()))),
            _ => None,
        };
    }
    if let Ok(n) = this.as_int() {
        return match (name, args) {
            ("abs", []) => Some(int(n.checked_abs())),
            ("to_string", []) => Some(Ok(n.to_string().into())),
            ("max", [y]) if y.is_int() => Some(Ok(Dynamic::from_int(n.max(y.as_int().ok()?)))),
            ("min", [y]) if y.is_int() => Some(Ok(Dynamic::from_int(n.min(y.as_int().ok()?)))),
            _ => None,
        };
    }
    None
}

fn array_method(rt: &mut Rt, name: &str, this: &mut Dynamic, args: &mut [Dynamic]) -> Option<R<Dynamic>> {
    match (name, args) {
        ("len", []) => Some(Ok(Dynamic::from_int(this.as_array_ref().ok()?.len() as INT))),
        ("is_empty", []) => Some(Ok(this.as_array_ref().ok()?.is_empty().into())),
        ("push", [x]) => {
            if this.is_read_only() {
                return None;
            }
            let sized = x.is_array() || x.is_map() || x.is_string();
            this.write_lock::<rhai::Array>()?.push(std::mem::take(x));
            // Rhai checks the grown array against the size limits (nested values and the
            // bytes of its strings count).
            let over = if sized { too_big(rt, this) } else { this.as_array_ref().ok()?.len() >= rt.prog.max_array };
            if over {
                return Some(bail());
            }
            Some(Ok(Dynamic::UNIT))
        }
        ("pad", [n, item]) if n.is_int() => {
            if this.is_read_only() {
                return None;
            }
            let Ok(n) = usize::try_from(n.as_int().ok()?) else {
                return Some(Ok(Dynamic::UNIT));
            };
            if n > rt.prog.max_array {
                return Some(bail());
            }
            let item = std::mem::take(item);
            {
                let mut a = this.write_lock::<rhai::Array>()?;
                if n > a.len() {
                    a.resize(n, item);
                }
            }
            if too_big(rt, this) {
                return Some(bail());
            }
            Some(Ok(Dynamic::UNIT))
        }
        ("remove", [i]) if i.is_int() => {
            if this.is_read_only() {
                return None;
            }
            let index = i.as_int().ok()?;
            let mut a = this.write_lock::<rhai::Array>()?;
            let len = a.len();
            Some(Ok(match array_index(len, index) {
                Ok(at) => a.remove(at),
                Err(_) => Dynamic::UNIT,
            }))
        }
        ("contains", [x]) => {
            let mut items = this.write_lock::<rhai::Array>()?;
            for item in items.iter_mut() {
                match equals(rt, item, x) {
                    Ok(true) => return Some(Ok(Dynamic::TRUE)),
                    Ok(false) => {}
                    Err(e) => return Some(Err(e)),
                }
            }
            Some(Ok(Dynamic::FALSE))
        }
        ("index_of", [x]) if !x.is_fnptr() => {
            let mut items = this.write_lock::<rhai::Array>()?;
            for (at, item) in items.iter_mut().enumerate() {
                match equals(rt, item, x) {
                    Ok(true) => return Some(Ok(Dynamic::from_int(at as INT))),
                    Ok(false) => {}
                    Err(e) => return Some(Err(e)),
                }
            }
            Some(Ok(Dynamic::from_int(-1)))
        }
        _ => None,
    }
}

/// `m.get(key)` for the handful of entries most scripts' maps hold: the entries are looked at
/// in order and a key of another length is passed over without comparing its bytes (a search
/// compares the bytes of every key it passes). A larger map is searched.
#[inline]
pub(crate) fn map_get<'m>(m: &'m rhai::Map, key: &str) -> Option<&'m Dynamic> {
    if m.len() > 8 {
        return m.get(key);
    }
    m.iter().find(|(k, _)| k.len() == key.len() && k.as_str() == key).map(|(_, v)| v)
}

/// Whether a value comes near the sandbox's size limits (Rhai would check exactly: give up).
pub(crate) fn too_big(rt: &Rt, v: &Dynamic) -> bool {
    near_limits(rt, script_sizes(v))
}

/// Whether a value of these sizes (see [`script_sizes`]) comes near the sandbox's size limits.
#[inline(always)]
pub(crate) fn near_limits(rt: &Rt, [arrays, maps, bytes]: [usize; 3]) -> bool {
    arrays >= rt.prog.max_array || maps >= rt.prog.max_map || bytes >= rt.prog.max_string
}

/// What a value counts against the sandbox's size limits, everything inside it included:
/// `[array elements, map entries, bytes of strings]` (Rhai adds up the bytes of every string
/// inside a value).
pub(crate) fn script_sizes(v: &Dynamic) -> [usize; 3] {
    let mut sizes = [0; 3];
    add_sizes(v, &mut sizes);
    sizes
}

/// Adds the sizes of `v` to `acc` (see [`script_sizes`]). The type is asked first (an inline
/// match) and the value read once: a number or a flag is never read at all.
fn add_sizes(v: &Dynamic, acc: &mut [usize; 3]) {
    if v.is_string() {
        if let Ok(s) = v.as_immutable_string_ref() {
            acc[2] += s.len();
        }
    } else if v.is_map() {
        if let Ok(m) = v.as_map_ref() {
            acc[1] += m.len();
            m.values().for_each(|x| add_item_sizes(x, acc));
        }
    } else if v.is_array() {
        if let Ok(a) = v.as_array_ref() {
            acc[0] += a.len();
            a.iter().for_each(|x| add_item_sizes(x, acc));
        }
    }
}

/// [`add_sizes`] of an item of a list or map: a string's bytes are added where the item lies
/// and a number, flag or handle is passed over, so that only a list or map inside makes a call
/// (most items are leaves).
#[inline(always)]
fn add_item_sizes(x: &Dynamic, acc: &mut [usize; 3]) {
    if x.is_string() {
        if let Ok(s) = x.as_immutable_string_ref() {
            acc[2] += s.len();
        }
    } else if x.is_map() || x.is_array() {
        add_sizes(x, acc);
    }
}

/// Where `needle` first starts in `s` (in bytes): a needle of one character is searched as that
/// character, without setting up a substring search.
fn find(s: &str, needle: &str) -> Option<usize> {
    let mut chars = needle.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => s.find(c),
        _ => s.find(needle),
    }
}

/// Rhai's `sub_string(start, len)`: by characters, a negative start counting from the end.
fn sub_string(s: &str, start: INT, len: INT) -> String {
    if s.is_empty() || len <= 0 {
        return String::new();
    }
    let chars: Vec<char> = s.chars().collect();
    let offset = if start < 0 {
        let Ok(back) = usize::try_from(start.unsigned_abs()) else {
            return String::new();
        };
        chars.len().saturating_sub(back)
    } else {
        match usize::try_from(start) {
            Ok(at) if at < chars.len() => at,
            _ => return String::new(),
        }
    };
    let len = usize::try_from(len).map_or(chars.len() - offset, |len| {
        if len.checked_add(offset).is_none_or(|end| end > chars.len()) {
            chars.len() - offset
        } else {
            len
        }
    });
    chars.iter().skip(offset).take(len).collect()
}
