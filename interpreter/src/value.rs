//! [`Value`]: the engine's plain, serializable data type, and its conversions to and from
//! TOML values and Rhai's `Dynamic`.

use indexmap::IndexMap;
use rhai::Dynamic;
use serde::{Deserialize, Serialize};
use std::fmt::{self, Write as _};

/// A plain data value: what component properties, variables, option values and script
/// context hold. Deterministic to serialize (maps keep insertion order).
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
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
    Map(Box<ValueMap>),
}

impl Clone for Value {
    fn clone(&self) -> Self {
        match self {
            Value::Unit => Value::Unit,
            Value::Bool(b) => Value::Bool(*b),
            Value::Int(n) => Value::Int(*n),
            Value::Str(s) => Value::Str(s.clone()),
            Value::List(l) => Value::List(l.clone()),
            Value::Map(m) => Value::Map(m.clone()),
        }
    }

    /// Copies into the buffers `self` already has where the kinds match (a transaction copies
    /// every variable of the state before each decision: a string variable then allocates
    /// nothing).
    fn clone_from(&mut self, source: &Self) {
        match (self, source) {
            (Value::Str(a), Value::Str(b)) => a.clone_from(b),
            (Value::List(a), Value::List(b)) => a.clone_from(b),
            (Value::Map(a), Value::Map(b)) => a.clone_from(b),
            (this, source) => *this = source.clone(),
        }
    }
}

/// The hasher of the engine's maps keyed by names: ahash under fixed keys (faster than the
/// standard SipHash for the short names looked up on every property read or `game.*` call,
/// and the same in every run).
pub type NameHasher = std::hash::BuildHasherDefault<ahash::AHasher>;

/// A map from names to values, in insertion order: what [`Value::Map`] and component
/// properties hold (the hasher never shows: iteration follows insertion order).
pub type ValueMap = IndexMap<String, Value, NameHasher>;

/// How deeply lists and maps may nest in a value a script hands to the engine.
pub const MAX_VALUE_DEPTH: usize = 32;
/// The largest single value a script may hand to the engine, in (approximate) bytes.
pub const MAX_VALUE_BYTES: u64 = 16 << 20;
/// What one value slot costs in the budgets besides its content.
pub(crate) const SLOT_BYTES: u64 = 16;

/// Fills `{prop}` placeholders from a component's properties (`{id}` is the id; `{prop?}`
/// is left empty when the component has no such property, `{prop}` is kept as written).
/// Surrounding spaces are trimmed.
pub fn fill_template(t: &str, props: &ValueMap, id: &str) -> String {
    fill_template_by(t, id, |key, out| match props.get(key) {
        Some(v) => {
            let _ = write!(out, "{v}");
            true
        }
        None => false,
    })
}

/// [`fill_template`] with the properties read through `write_prop`, which writes property
/// `key` as text onto the end of `out` and says whether there is one.
pub fn fill_template_by(t: &str, id: &str, write_prop: impl Fn(&str, &mut String) -> bool) -> String {
    let mut out = String::with_capacity(t.len() + 8);
    let mut rest = t;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        match rest[start..].find('}') {
            Some(end) => {
                let key = &rest[start + 1..start + end];
                let (key, optional) = match key.strip_suffix('?') {
                    Some(k) => (k, true),
                    None => (key, false),
                };
                if key == "id" {
                    out.push_str(id);
                } else if !write_prop(key, &mut out) && !optional {
                    out.push_str(&rest[start..=start + end]);
                }
                rest = &rest[start + end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    let trimmed = out.trim();
    if trimmed.len() == out.len() {
        out
    } else {
        trimmed.to_string()
    }
}

impl Value {
    /// Puts `new` in this value's place. The old value is dropped without a call when it
    /// holds nothing to free (a `Value`'s drop is a call out of line, and a decision's
    /// context, set and cleared at every decision, is mostly `Unit`).
    #[inline(always)]
    pub fn set(&mut self, new: Value) {
        let old = std::mem::replace(self, new);
        if matches!(old, Value::Unit | Value::Bool(_) | Value::Int(_)) {
            std::mem::forget(old);
        }
    }

    /// Converts a TOML value; floats and datetimes have no engine meaning and are refused.
    pub fn from_toml(v: &toml::Value) -> Result<Value, String> {
        Ok(match v {
            toml::Value::String(s) => Value::Str(s.clone()),
            toml::Value::Integer(i) => Value::Int(*i),
            toml::Value::Boolean(b) => Value::Bool(*b),
            toml::Value::Array(a) => Value::List(a.iter().map(Value::from_toml).collect::<Result<_, _>>()?),
            toml::Value::Table(t) => Value::Map(Box::new(
                t.iter().map(|(k, v)| Ok((k.clone(), Value::from_toml(v)?))).collect::<Result<_, String>>()?,
            )),
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
            // Straight into Rhai's string (one allocation; a `String` copy first would be two).
            Value::Str(s) => Dynamic::from(rhai::ImmutableString::from(s.as_str())),
            Value::List(l) => Dynamic::from_array(l.iter().map(Value::to_dynamic).collect()),
            Value::Map(m) => {
                let mut map = rhai::Map::new();
                for (k, v) in m.iter() {
                    map.insert(k.as_str().into(), v.to_dynamic());
                }
                Dynamic::from_map(map)
            }
        }
    }

    /// Adds what this value counts against the script sandbox's size limits as a script
    /// value to `sizes`: `[array elements, map entries, bytes of strings]`, nested values
    /// included (as Rhai counts them).
    pub fn add_script_sizes(&self, sizes: &mut [usize; 3]) {
        match self {
            Value::Unit | Value::Bool(_) | Value::Int(_) => {}
            Value::Str(s) => sizes[2] += s.len(),
            Value::List(l) => {
                sizes[0] += l.len();
                l.iter().for_each(|v| v.add_script_sizes(sizes));
            }
            Value::Map(m) => {
                sizes[1] += m.len();
                m.values().for_each(|v| v.add_script_sizes(sizes));
            }
        }
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

/// A plain value as text, appended to `out`: a string as it is, an integer in decimal, else
/// the [`Value`] it equals.
fn write_text(v: &Dynamic, out: &mut String) {
    if let Some(s) = v.read_lock::<rhai::ImmutableString>() {
        out.push_str(s.as_str());
    } else if let Ok(i) = v.as_int() {
        let _ = write!(out, "{i}");
    } else {
        let _ = write!(out, "{}", PlainScriptValue(v.clone()).to_value());
    }
}

/// A string's text or an integer in decimal (`None` for anything else).
fn text_or_number(v: &Dynamic) -> Option<String> {
    if let Some(s) = v.read_lock::<rhai::ImmutableString>() {
        return Some(s.as_str().to_owned());
    }
    v.as_int().ok().map(|i| i.to_string())
}

/// A script's value that holds only plain data (unit, booleans, integers, strings, and
/// arrays and maps of them), kept as the script made it: handing it back to a script is a
/// copy, not a conversion. It reads and serializes as the [`Value`] it equals.
#[derive(Clone, Debug)]
pub struct PlainScriptValue(Dynamic);

impl PlainScriptValue {
    /// `d` kept as it is, if it holds only plain data; else `d` back (a character, a handle,
    /// a function, a shared or tagged value: those are converted to a [`Value`] instead).
    pub fn new(d: Dynamic) -> Result<PlainScriptValue, Dynamic> {
        fn plain(d: &Dynamic) -> bool {
            if d.tag() != 0 || d.is_shared() {
                return false;
            }
            if d.is_unit() || d.is_bool() || d.is_int() || d.is_string() {
                return true;
            }
            if let Some(a) = d.read_lock::<rhai::Array>() {
                return a.iter().all(plain);
            }
            if let Some(m) = d.read_lock::<rhai::Map>() {
                return m.values().all(plain);
            }
            false
        }
        if plain(&d) {
            Ok(PlainScriptValue(d))
        } else {
            Err(d)
        }
    }

    /// `d` kept as it is: the caller has found it plain data (`convert::measure` did).
    pub(crate) fn known_plain(d: Dynamic) -> PlainScriptValue {
        PlainScriptValue(d)
    }

    /// The value as a script receives it (a copy: read-write all through).
    pub fn to_dynamic(&self) -> Dynamic {
        self.0.clone()
    }

    /// The entry `key` if this is a map.
    pub fn get(&self, key: &str) -> Option<PlainScriptValue> {
        self.0.read_lock::<rhai::Map>()?.get(key).map(|v| PlainScriptValue(v.clone()))
    }

    /// Writes entry `key` (if this is a map that has one) as the text of the [`Value`] it
    /// equals onto the end of `out`, and says whether there was one.
    pub fn write_entry(&self, key: &str, out: &mut String) -> bool {
        let Some(map) = self.0.read_lock::<rhai::Map>() else { return false };
        let Some(v) = map.get(key) else { return false };
        write_text(v, out);
        true
    }

    /// An option's id and whether it has a `label`, then written into `label`. A map's id is
    /// its entry `id` (a string or an integer, as text; `None` without one), read with the
    /// map looked at once; a bare string or integer is its own id, without a label.
    pub(crate) fn option_id_and_label(&self, label: &mut String) -> (Option<String>, bool) {
        let Some(map) = self.0.read_lock::<rhai::Map>() else { return (text_or_number(&self.0), false) };
        let id = map.get("id").and_then(text_or_number);
        let labelled = map.get("label").is_some_and(|v| {
            write_text(v, label);
            true
        });
        (id, labelled)
    }

    /// The integer inside, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        self.0.as_int().ok()
    }

    /// The equal engine value.
    pub fn to_value(&self) -> Value {
        plain_value(&self.0)
    }
}

/// The engine value equal to `d`, a script's value of plain data (see [`PlainScriptValue`]);
/// anything else in it becomes `()` (callers have found it plain).
pub(crate) fn plain_value(d: &Dynamic) -> Value {
    if d.is_bool() {
        Value::Bool(d.as_bool().unwrap_or_default())
    } else if d.is_int() {
        Value::Int(d.as_int().unwrap_or_default())
    } else if let Some(s) = d.read_lock::<rhai::ImmutableString>() {
        Value::Str(s.to_string())
    } else if let Some(a) = d.read_lock::<rhai::Array>() {
        Value::List(a.iter().map(plain_value).collect())
    } else if let Some(m) = d.read_lock::<rhai::Map>() {
        Value::Map(Box::new(m.iter().map(|(k, v)| (k.to_string(), plain_value(v))).collect()))
    } else {
        Value::Unit
    }
}

impl From<&Value> for PlainScriptValue {
    fn from(v: &Value) -> PlainScriptValue {
        PlainScriptValue(v.to_dynamic())
    }
}

impl Serialize for PlainScriptValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
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
    fn setting_a_value_replaces_any_value_by_any_other() {
        let values = [
            Value::Unit,
            Value::Bool(false),
            Value::Int(7),
            Value::Str("a string with a buffer".into()),
            Value::List(vec![Value::Str("x".into())]),
        ];
        for old in &values {
            for new in &values {
                let mut v = old.clone();
                v.set(new.clone());
                assert_eq!(&v, new, "{old:?} set to {new:?}");
            }
        }
    }

    #[test]
    fn copying_into_any_value_gives_the_source() {
        let mut map = ValueMap::default();
        map.insert("k".into(), Value::Str("v".into()));
        let values = [
            Value::Unit,
            Value::Bool(true),
            Value::Int(-3),
            Value::Str("long enough to have a buffer".into()),
            Value::Str(String::new()),
            Value::List(vec![Value::Int(1), Value::Str("x".into())]),
            Value::Map(Box::new(map)),
        ];
        for target in &values {
            for source in &values {
                let mut copy = target.clone();
                copy.clone_from(source);
                assert_eq!(&copy, source);
            }
        }
    }

    fn plain_map() -> Dynamic {
        let mut inner = rhai::Map::new();
        inner.insert("n".into(), Dynamic::from_int(3));
        let mut m = rhai::Map::new();
        m.insert("id".into(), Dynamic::from("x-1"));
        m.insert("on".into(), Dynamic::from_bool(true));
        m.insert("none".into(), Dynamic::UNIT);
        m.insert("list".into(), Dynamic::from_array(vec![Dynamic::from_int(1), Dynamic::from("two")]));
        m.insert("inner".into(), Dynamic::from_map(inner));
        Dynamic::from_map(m)
    }

    #[test]
    fn a_plain_script_value_reads_and_serializes_as_the_value_it_equals() {
        let d = plain_map();
        let plain = PlainScriptValue::new(d.clone()).expect("plain data");
        let value = plain.to_value();
        assert_eq!(value.to_dynamic().to_string(), d.to_string());
        assert_eq!(serde_json::to_string(&plain).unwrap(), serde_json::to_string(&value).unwrap());
        assert_eq!(plain.get("inner").and_then(|i| i.get("n")).and_then(|n| n.as_int()), Some(3));
        assert_eq!(plain.get("id").map(|v| v.to_value()), Some(Value::Str("x-1".into())));
        assert!(plain.get("missing").is_none());
        assert_eq!(PlainScriptValue::from(&value).to_value(), value);
    }

    #[test]
    fn an_option_is_a_map_with_an_id_or_a_bare_string_or_integer() {
        let id_and_label = |d: Dynamic| {
            let mut label = String::new();
            let (id, labelled) = PlainScriptValue::new(d).expect("plain data").option_id_and_label(&mut label);
            (id, labelled.then_some(label))
        };
        assert_eq!(id_and_label(plain_map()), (Some("x-1".to_string()), None));
        let mut labelled = rhai::Map::new();
        labelled.insert("id".into(), Dynamic::from_int(4));
        labelled.insert("label".into(), Dynamic::from("four"));
        assert_eq!(id_and_label(Dynamic::from_map(labelled)), (Some("4".to_string()), Some("four".to_string())));
        assert_eq!(id_and_label(Dynamic::from("A")), (Some("A".to_string()), None));
        assert_eq!(id_and_label(Dynamic::from_int(7)), (Some("7".to_string()), None));
        // No id: a map without one (or whose `id` is no string or integer), a flag, a list.
        let mut no_id = rhai::Map::new();
        no_id.insert("id".into(), Dynamic::from_bool(true));
        for d in
            [Dynamic::from_map(rhai::Map::new()), Dynamic::from_map(no_id), Dynamic::TRUE, Dynamic::from_array(vec![])]
        {
            assert_eq!(id_and_label(d.clone()), (None, None), "{d}");
        }
    }

    #[test]
    fn only_plain_data_is_kept_as_a_script_value() {
        let nested = |x: Dynamic| {
            let mut m = rhai::Map::new();
            m.insert("id".into(), Dynamic::from("a"));
            m.insert("deep".into(), Dynamic::from_array(vec![x]));
            Dynamic::from_map(m)
        };
        let mut tagged = Dynamic::from_int(1);
        tagged.set_tag(7);
        let others = [
            Dynamic::from_char('c'),
            Dynamic::from(rhai::FnPtr::new("f").unwrap()),
            tagged,
            Dynamic::from_int(2).into_shared(),
        ];
        for other in others {
            assert!(PlainScriptValue::new(other.clone()).is_err(), "{other:?}");
            assert!(PlainScriptValue::new(nested(other.clone())).is_err(), "{other:?} inside");
        }
    }

    #[test]
    fn a_script_receives_a_writable_copy_of_a_constant_option() {
        let d = plain_map().into_read_only();
        assert!(d.is_read_only());
        let plain = PlainScriptValue::new(d).expect("plain data");
        assert!(!plain.to_dynamic().is_read_only());
    }

    #[test]
    fn refuses_floats_from_toml() {
        let err = Value::from_toml(&toml::Value::Float(1.5)).unwrap_err();
        assert!(err.contains("integer"), "{err}");
    }
}
