//! [`Value`]: the engine's plain, serializable data type, and its conversions to and from
//! TOML values and Rhai's `Dynamic`.

use indexmap::IndexMap;
use rhai::Dynamic;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A plain data value: what component properties, variables, option values and script
/// context hold. Deterministic to serialize (maps keep insertion order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(untagged)]
pub enum Value {
    /// No value (`()` in Rhai, `null` in JSON).
    #[default]
    Unit,
    /// A boolean.
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// A string.
    Str(String),
    /// A list of values.
    List(Vec<Value>),
    /// A map from names to values, in insertion order.
    Map(IndexMap<String, Value>),
}

/// How deeply lists and maps may nest in a value a script hands to the engine.
pub const MAX_VALUE_DEPTH: usize = 32;
/// The largest single value a script may hand to the engine, in (approximate) bytes.
pub const MAX_VALUE_BYTES: u64 = 16 << 20;
/// What one value slot costs in the budgets besides its content.
const SLOT_BYTES: u64 = 16;

/// The approximate bytes a Rhai value would take as a [`Value`], refused (without copying
/// anything) when it nests deeper than [`MAX_VALUE_DEPTH`] or exceeds `cap` bytes.
pub fn measure_dynamic(d: &Dynamic, cap: u64) -> Result<u64, String> {
    fn walk(d: &Dynamic, depth: usize, total: &mut u64, cap: u64) -> Result<(), String> {
        if depth > MAX_VALUE_DEPTH {
            return Err(format!(
                "a value nested more than {MAX_VALUE_DEPTH} lists or maps deep cannot be stored in the game state"
            ));
        }
        *total += SLOT_BYTES;
        if d.is_string() {
            *total += d.read_lock::<rhai::ImmutableString>().map_or(0, |s| s.len() as u64);
        } else if d.is_array() {
            let arr = d.read_lock::<rhai::Array>().ok_or("array is locked")?;
            for v in arr.iter() {
                walk(v, depth + 1, total, cap)?;
            }
        } else if d.is_map() {
            let map = d.read_lock::<rhai::Map>().ok_or("map is locked")?;
            for (k, v) in map.iter() {
                *total += k.len() as u64;
                walk(v, depth + 1, total, cap)?;
            }
        }
        if *total > cap {
            return Err(format!(
                "a value of more than {} cannot be handed to the engine",
                crate::files::human_bytes(cap)
            ));
        }
        Ok(())
    }
    let mut total = 0;
    walk(d, 0, &mut total, cap)?;
    Ok(total)
}

impl Value {
    /// Converts a TOML value; floats and datetimes have no engine meaning and are refused.
    pub fn from_toml(v: &toml::Value) -> Result<Value, String> {
        Ok(match v {
            toml::Value::String(s) => Value::Str(s.clone()),
            toml::Value::Integer(i) => Value::Int(*i),
            toml::Value::Boolean(b) => Value::Bool(*b),
            toml::Value::Array(a) => Value::List(a.iter().map(Value::from_toml).collect::<Result<_, _>>()?),
            toml::Value::Table(t) => {
                Value::Map(t.iter().map(|(k, v)| Ok((k.clone(), Value::from_toml(v)?))).collect::<Result<_, String>>()?)
            }
            toml::Value::Float(f) => return Err(format!("floating-point number {f} is not supported; use an integer")),
            toml::Value::Datetime(d) => return Err(format!("date/time {d} is not supported; use a string")),
        })
    }

    /// Converts into a Rhai value.
    pub fn to_dynamic(&self) -> Dynamic {
        match self {
            Value::Unit => Dynamic::UNIT,
            Value::Bool(b) => Dynamic::from_bool(*b),
            Value::Int(i) => Dynamic::from_int(*i),
            Value::Str(s) => Dynamic::from(s.clone()),
            Value::List(l) => Dynamic::from_array(l.iter().map(Value::to_dynamic).collect()),
            Value::Map(m) => {
                let mut map = rhai::Map::new();
                for (k, v) in m {
                    map.insert(k.as_str().into(), v.to_dynamic());
                }
                Dynamic::from_map(map)
            }
        }
    }

    /// Converts from a Rhai value; values without a plain-data meaning (functions, custom
    /// types) are refused with a message naming their type, and so are values nested deeper
    /// than [`MAX_VALUE_DEPTH`] or larger than [`MAX_VALUE_BYTES`] (measured before anything
    /// is copied).
    pub fn from_dynamic(d: &Dynamic) -> Result<Value, String> {
        measure_dynamic(d, MAX_VALUE_BYTES)?;
        Value::convert_dynamic(d)
    }

    /// The approximate bytes this value holds (what the script budgets count).
    pub fn approx_bytes(&self) -> u64 {
        SLOT_BYTES
            + match self {
                Value::Unit | Value::Bool(_) | Value::Int(_) => 0,
                Value::Str(s) => s.len() as u64,
                Value::List(l) => l.iter().map(Value::approx_bytes).sum(),
                Value::Map(m) => m.iter().map(|(k, v)| k.len() as u64 + v.approx_bytes()).sum(),
            }
    }

    fn convert_dynamic(d: &Dynamic) -> Result<Value, String> {
        if d.is_unit() {
            return Ok(Value::Unit);
        }
        if let Ok(b) = d.as_bool() {
            return Ok(Value::Bool(b));
        }
        if let Ok(i) = d.as_int() {
            return Ok(Value::Int(i));
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
            return Ok(Value::List(arr.iter().map(Value::convert_dynamic).collect::<Result<_, _>>()?));
        }
        if d.is_map() {
            let map = d.read_lock::<rhai::Map>().ok_or("map is locked")?;
            let mut out = IndexMap::new();
            for (k, v) in map.iter() {
                out.insert(k.to_string(), Value::convert_dynamic(v)?);
            }
            return Ok(Value::Map(out));
        }
        Err(format!("a value of type `{}` cannot be stored in the game state", d.type_name()))
    }

    /// The integer inside, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The string inside, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Looks up a key if this is a map.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(m) => m.get(key),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Unit => write!(f, "()"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Str(s) => write!(f, "{s}"),
            Value::List(l) => {
                write!(f, "[")?;
                for (i, v) in l.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{v}")?;
                }
                write!(f, "]")
            }
            Value::Map(m) => {
                write!(f, "{{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                write!(f, "}}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_rhai() {
        let mut m = IndexMap::new();
        m.insert("a".to_string(), Value::Int(3));
        m.insert("b".to_string(), Value::List(vec![Value::Bool(true), Value::Str("x".into())]));
        let v = Value::Map(m);
        assert_eq!(Value::from_dynamic(&v.to_dynamic()).unwrap(), v);
    }

    #[test]
    fn refuses_floats_from_toml() {
        let err = Value::from_toml(&toml::Value::Float(1.5)).unwrap_err();
        assert!(err.contains("integer"), "{err}");
    }
}
