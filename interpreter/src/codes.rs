//! Numbered property values. A few properties are compared by the engine for every card at
//! every decision: a `follow` rule's `by` (which cards follow the value led), a trick's `suit`
//! and `rank` (which card wins). Each value the declared components give such a property is
//! numbered once, at load, and each component keeps the numbers of its values (made when its
//! properties are, see `state::Component`), so that comparing two cards compares two integers
//! instead of looking both properties up by name and comparing two strings.
//!
//! A small non-negative integer without a number of its own (a value out of a `range`, which
//! depends on the seats and parameters, so is not numbered at load) is its own number, marked
//! with [`INT`]: equal integers get equal numbers, and a contest or a rank reads the integer
//! back without a lookup ([`int_of`]).
//!
//! Any other value no declared component has (set later by a script) has no number: it is
//! [`UNCODED`], and compared by value.

use crate::value::{Value, ValueMap};

/// The component has no such property.
pub const MISSING: u32 = u32::MAX;

/// The value is none of the numbered ones (a script set it): compare it by value.
pub const UNCODED: u32 = u32::MAX - 1;

/// Marks the number of an integer that is its own number (`INT | n` for `n` in
/// `0..=MAX_INT`); the numbers of listed values stay below it.
pub const INT: u32 = 1 << 31;

/// The largest integer that is its own number (below [`UNCODED`] and [`MISSING`] once marked).
pub const MAX_INT: i64 = (UNCODED - INT - 1) as i64;

/// The numbered properties and their values (part of the rules: the same for every game).
#[derive(Clone, Debug, Default)]
pub struct PropCodes {
    /// Property names, by slot.
    keys: Vec<String>,
    /// Each slot's values: a value's number is its place here.
    values: Vec<Vec<Value>>,
}

impl PropCodes {
    /// The slot of property `name`, added if it has none yet.
    pub fn slot(&mut self, name: &str) -> usize {
        if let Some(i) = self.keys.iter().position(|k| k == name) {
            return i;
        }
        self.keys.push(name.to_string());
        self.values.push(Vec::new());
        self.keys.len() - 1
    }

    /// The numbered properties, by slot.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// Numbers `value` for the property in `slot` (once: a value seen before keeps its number).
    pub fn add_value(&mut self, slot: usize, value: &Value) {
        let values = &mut self.values[slot];
        if !values.contains(value) && values.len() < INT as usize {
            values.push(value.clone());
        }
    }

    /// The number of `value` for the property in `slot` ([`MISSING`] for none, `INT | n` for
    /// an integer `n` without a listed number, [`UNCODED`] for any other value without one).
    pub fn code(&self, slot: usize, value: Option<&Value>) -> u32 {
        match value {
            None => MISSING,
            Some(v) => match self.values[slot].iter().position(|x| x == v) {
                Some(i) => i as u32,
                None => match v {
                    Value::Int(n) if (0..=MAX_INT).contains(n) => INT | *n as u32,
                    _ => UNCODED,
                },
            },
        }
    }

    /// The listed value numbered `code` in `slot` (`None` for [`MISSING`], [`UNCODED`] and an
    /// integer's own number: see [`int_of`]).
    pub fn value(&self, slot: usize, code: u32) -> Option<&Value> {
        self.values[slot].get(code as usize)
    }

    /// Gives `key` its slot, added if the property has none yet.
    pub fn give_slot(&mut self, key: &mut PropKey) {
        key.slot = self.slot(&key.name);
    }

    /// The numbers of a component's properties, by slot.
    pub fn codes_of(&self, props: &ValueMap) -> Vec<u32> {
        self.keys.iter().enumerate().map(|(slot, k)| self.code(slot, props.get(k))).collect()
    }
}

/// A property the engine reads of every card it compares (a `follow` rule's, a trick's suit
/// and rank): its name, and its slot in [`PropCodes`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropKey {
    /// The property's name.
    pub name: String,
    /// Its slot (given by [`PropCodes::give_slot`] once the rules are read; 0 until then).
    pub slot: usize,
}

impl PropKey {
    /// The key for property `name`, its slot not given yet.
    pub fn named(name: &str) -> PropKey {
        PropKey { name: name.to_string(), slot: 0 }
    }
}

/// The property's name.
impl std::fmt::Display for PropKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// The integer value numbered `code` in `slot`: read back from an integer's own number, looked
/// up for a listed value, `None` for anything else (no property, not an integer) and for
/// [`UNCODED`], which the caller looks up by name.
pub fn int_of(codes: &PropCodes, slot: usize, code: u32) -> Option<i64> {
    match code {
        MISSING | UNCODED => None,
        c if c & INT != 0 => Some(i64::from(c & !INT)),
        c => codes.value(slot, c).and_then(Value::as_int),
    }
}

/// Whether two properties with numbers `a` and `b` are equal (both present): by number when
/// both have one, else by value (`by_value` is asked only then).
pub fn same(a: u32, b: u32, by_value: impl FnOnce() -> bool) -> bool {
    match (a, b) {
        (MISSING, _) | (_, MISSING) => false,
        (UNCODED, UNCODED) => by_value(),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suits() -> (PropCodes, usize) {
        let mut codes = PropCodes::default();
        let slot = codes.slot("suit");
        for s in ["red", "blue", "red"] {
            codes.add_value(slot, &Value::Str(s.into()));
        }
        (codes, slot)
    }

    #[test]
    fn each_value_gets_one_number_and_an_unknown_one_none() {
        let (codes, slot) = suits();
        assert_eq!(codes.code(slot, Some(&Value::Str("red".into()))), 0);
        assert_eq!(codes.code(slot, Some(&Value::Str("blue".into()))), 1);
        assert_eq!(codes.code(slot, Some(&Value::Str("green".into()))), UNCODED);
        assert_eq!(codes.code(slot, None), MISSING);
    }

    #[test]
    fn a_slot_is_kept_per_name() {
        let (mut codes, slot) = suits();
        assert_eq!(codes.slot("suit"), slot);
        assert_eq!(codes.slot("rank"), slot + 1);
        assert_eq!(codes.keys(), ["suit", "rank"]);
    }

    #[test]
    fn numbers_compare_by_number_and_unnumbered_values_by_value() {
        assert!(same(1, 1, || unreachable!()));
        assert!(!same(0, 1, || unreachable!()));
        assert!(!same(0, UNCODED, || unreachable!()));
        assert!(!same(MISSING, MISSING, || unreachable!()));
        assert!(same(UNCODED, UNCODED, || true));
        assert!(!same(UNCODED, UNCODED, || false));
    }

    #[test]
    fn an_unlisted_integer_is_its_own_number_and_reads_back() {
        let mut codes = PropCodes::default();
        let slot = codes.slot("value");
        codes.add_value(slot, &Value::Int(7));
        assert_eq!(codes.code(slot, Some(&Value::Int(7))), 0, "a listed integer keeps its number");
        let five = codes.code(slot, Some(&Value::Int(5)));
        assert_eq!(five, INT | 5);
        assert_eq!(codes.code(slot, Some(&Value::Int(5))), five, "equal integers, equal numbers");
        assert_eq!(codes.code(slot, Some(&Value::Int(-1))), UNCODED, "negative: compared by value");
        assert_eq!(codes.code(slot, Some(&Value::Int(MAX_INT + 1))), UNCODED);
        assert_eq!(int_of(&codes, slot, five), Some(5));
        assert_eq!(int_of(&codes, slot, 0), Some(7));
        assert_eq!(int_of(&codes, slot, INT | MAX_INT as u32), Some(MAX_INT));
        assert_eq!(int_of(&codes, slot, UNCODED), None);
        assert_eq!(int_of(&codes, slot, MISSING), None);
        assert_eq!(codes.value(slot, five), None, "no listed value behind an integer's own number");
    }

    #[test]
    fn a_component_gets_the_number_of_each_slot() {
        let (mut codes, _) = suits();
        codes.slot("rank");
        let mut props = ValueMap::default();
        props.insert("suit".into(), Value::Str("blue".into()));
        assert_eq!(codes.codes_of(&props), [1, MISSING]);
    }
}
