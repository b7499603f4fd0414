//! Script values to engine values: what a script hands the engine (a var, a property, a
//! context, an option) is measured first — depth and size, without copying anything — and only
//! then converted. Component handles become their ids.

use crate::value::{Value, MAX_VALUE_BYTES, MAX_VALUE_DEPTH, SLOT_BYTES};
use rhai::Dynamic;

/// The approximate bytes a Rhai value would take as a [`Value`], refused (without copying
/// anything) when it nests deeper than [`MAX_VALUE_DEPTH`] or exceeds `cap` bytes.
pub fn measure_dynamic(d: &Dynamic, cap: u64) -> Result<u64, String> {
    measure(d, cap).map(|m| m.bytes)
}

/// What [`measure`] finds out about a value in one walk.
pub(crate) struct Measured {
    /// The approximate bytes it would take as a [`Value`].
    pub bytes: u64,
    /// Whether it holds only plain data, so that it can be kept as the script made it (see
    /// [`PlainScriptValue::new`]).
    pub plain: bool,
    /// What it counts against the sandbox's size limits, as [`Value::add_script_sizes`]
    /// counts the value it equals: `[array elements, map entries, bytes of strings]`.
    pub sizes: [usize; 3],
}

/// [`measure_dynamic`], also telling whether the value is plain data: a script's value the
/// engine will keep is walked once, not once to measure and once more to see if it is plain.
pub(crate) fn measure(d: &Dynamic, cap: u64) -> Result<Measured, String> {
    fn walk(d: &Dynamic, depth: usize, m: &mut Measured, cap: u64) -> Result<(), String> {
        if depth > MAX_VALUE_DEPTH {
            return Err(format!(
                "a value nested more than {MAX_VALUE_DEPTH} lists or maps deep cannot be stored in the game state"
            ));
        }
        m.bytes += SLOT_BYTES;
        if m.plain && (d.tag() != 0 || d.is_shared()) {
            m.plain = false;
        }
        // The type is asked first (an inline match), then the value read once.
        if d.is_string() {
            let len = d.read_lock::<rhai::ImmutableString>().map_or(0, |s| s.len());
            m.bytes += len as u64;
            m.sizes[2] += len;
        } else if d.is_map() {
            let map = d.read_lock::<rhai::Map>().ok_or("map is locked")?;
            m.sizes[1] += map.len();
            for (k, v) in map.iter() {
                m.bytes += k.len() as u64;
                walk(v, depth + 1, m, cap)?;
            }
        } else if d.is_array() {
            let arr = d.read_lock::<rhai::Array>().ok_or("array is locked")?;
            m.sizes[0] += arr.len();
            for v in arr.iter() {
                walk(v, depth + 1, m, cap)?;
            }
        } else if m.plain && !(d.is_unit() || d.is_bool() || d.is_int()) {
            m.plain = false;
        }
        if m.bytes > cap {
            return Err(format!(
                "a value of more than {} cannot be handed to the engine",
                crate::files::human_bytes(cap)
            ));
        }
        Ok(())
    }
    let mut m = Measured { bytes: 0, plain: true, sizes: [0; 3] };
    walk(d, 0, &mut m, cap)?;
    Ok(m)
}

/// Converts from a Rhai value; values without a plain-data meaning (functions, custom
/// types) are refused with a message naming their type, and so are values nested deeper
/// than [`MAX_VALUE_DEPTH`] or larger than [`MAX_VALUE_BYTES`] (measured before anything
/// is copied).
pub fn from_dynamic(d: &Dynamic) -> Result<Value, String> {
    measure_dynamic(d, MAX_VALUE_BYTES)?;
    convert_dynamic(d)
}

/// Converts from a Rhai value already measured by [`measure_dynamic`] (so known to be
/// shallow and small enough).
pub(crate) fn convert_dynamic(d: &Dynamic) -> Result<Value, String> {
    if d.is_unit() {
        return Ok(Value::Unit);
    }
    // Each type asked before it is read: a failed `as_*` looks up the value's type name.
    if d.is_bool() {
        return Ok(Value::Bool(d.as_bool().unwrap_or_default()));
    }
    if d.is_int() {
        return Ok(Value::Int(d.as_int().unwrap_or_default()));
    }
    if d.is_string() {
        return Ok(Value::Str(d.clone().into_string().unwrap_or_default()));
    }
    if d.is_char() {
        return Ok(Value::Str(d.as_char().map(String::from).unwrap_or_default()));
    }
    if let Some(c) = d.read_lock::<crate::api::ComponentHandle>() {
        return Ok(Value::Str(c.id().to_string()));
    }
    if d.is_array() {
        let arr = d.read_lock::<rhai::Array>().ok_or("array is locked")?;
        return Ok(Value::List(arr.iter().map(convert_dynamic).collect::<Result<_, _>>()?));
    }
    if d.is_map() {
        let map = d.read_lock::<rhai::Map>().ok_or("map is locked")?;
        let mut out = crate::value::ValueMap::with_capacity_and_hasher(map.len(), Default::default());
        for (k, v) in map.iter() {
            out.insert(k.to_string(), convert_dynamic(v)?);
        }
        return Ok(Value::Map(Box::new(out)));
    }
    Err(format!("a value of type `{}` cannot be stored in the game state", d.type_name()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_rhai() {
        let mut m = crate::value::ValueMap::default();
        m.insert("a".to_string(), Value::Int(3));
        m.insert("b".to_string(), Value::List(vec![Value::Bool(true), Value::Str("x".into())]));
        let v = Value::Map(Box::new(m));
        assert_eq!(from_dynamic(&v.to_dynamic()).unwrap(), v);
    }

    #[test]
    fn measuring_tells_plain_data_as_a_plain_script_value_does() {
        let list = |x: Dynamic| Dynamic::from_array(vec![Dynamic::from("a"), x]);
        let map = |x: Dynamic| {
            let mut m = rhai::Map::new();
            m.insert("id".into(), Dynamic::from("a"));
            m.insert("deep".into(), list(x));
            Dynamic::from_map(m)
        };
        let mut tagged = Dynamic::from_int(1);
        tagged.set_tag(7);
        let values = [
            Dynamic::UNIT,
            Dynamic::from_bool(true),
            Dynamic::from_int(3),
            Dynamic::from("text"),
            Dynamic::from_char('c'),
            Dynamic::from(rhai::FnPtr::new("f").unwrap()),
            tagged,
            Dynamic::from_int(2).into_shared(),
        ];
        for v in values {
            for d in [v.clone(), list(v.clone()), map(v.clone()), map(v.clone()).into_read_only()] {
                let plain = crate::value::PlainScriptValue::new(d.clone()).is_ok();
                let m = measure(&d, MAX_VALUE_BYTES).unwrap();
                assert_eq!(m.plain, plain, "{d:?}");
                assert_eq!(m.bytes, measure_dynamic(&d, MAX_VALUE_BYTES).unwrap());
                if plain {
                    // A var keeps a plain value's measure in place of the value's own counts.
                    let value = convert_dynamic(&d).unwrap();
                    let mut sizes = [0; 3];
                    value.add_script_sizes(&mut sizes);
                    assert_eq!(m.sizes, sizes, "{d:?}");
                    assert_eq!(m.bytes, value.approx_bytes(), "{d:?}");
                }
            }
        }
        // Bytes: one slot per value, the characters of strings and keys.
        assert_eq!(
            measure(&map(Dynamic::from("xyz")), MAX_VALUE_BYTES).unwrap().bytes,
            5 * SLOT_BYTES + 2 + 1 + 1 + 4 + 3
        );
    }

    #[test]
    fn deep_and_large_values_are_refused_before_conversion() {
        // A thread with the stack script threads get: dropping the deep value recurses.
        let big_stack = std::thread::Builder::new().stack_size(crate::script::SCRIPT_STACK_BYTES);
        big_stack.spawn(deep_and_large).unwrap().join().unwrap();
    }

    fn deep_and_large() {
        let mut deep = Dynamic::from_array(vec![]);
        for _ in 0..10_000 {
            deep = Dynamic::from_array(vec![deep]);
        }
        let err = from_dynamic(&deep).unwrap_err();
        assert!(err.contains("32 lists or maps deep"), "{err}");
        let big = Dynamic::from("x".repeat(1000));
        assert!(measure_dynamic(&big, 500).unwrap_err().contains("more than 500 bytes"));
        assert_eq!(measure_dynamic(&big, 5000), Ok(1000 + SLOT_BYTES));
    }
}
