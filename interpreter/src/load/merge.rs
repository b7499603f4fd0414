//! One TOML table from many files: each file's spans shifted into the global address space,
//! overlays deep-merged into their base, values looked up in a raw table, and the merged table
//! deserialized into `def` with serde's errors turned into located diagnostics.

use super::{Loader, Table};
use crate::def::Ref;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

impl Loader {
    /// Reports a serde error from deserializing the merged table, located, with a stable code
    /// and a "did you mean" for an unknown field.
    pub(super) fn push_toml_error(&mut self, e: toml::de::Error) {
        let msg = e.message().trim().to_string();
        let span = e.span();
        let help = unknown_field_hint(&msg);
        let (code, msg) = if msg.starts_with("unknown field") {
            ("E0102", msg)
        } else if msg.starts_with("missing field") {
            ("E0103", msg)
        } else if msg.starts_with("invalid type")
            || msg.starts_with("invalid value")
            || msg.starts_with("unknown variant")
        {
            ("E0104", msg)
        } else {
            ("E0101", msg)
        };
        let d = self.error(code, msg, span);
        d.help = help;
    }
}

/// "did you mean" for serde's "unknown field `x`, expected one of `a`, `b`" messages.
fn unknown_field_hint(msg: &str) -> Option<String> {
    let rest = msg.strip_prefix("unknown field `")?;
    let (field, rest) = rest.split_once('`')?;
    let candidates: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    crate::diag::did_you_mean(field, candidates).map(|s| format!("did you mean `{s}`?"))
}

/// Deserializes a parsed TOML value with its spans, so serde's errors come out located.
pub(super) fn deserialize_value<T: serde::de::DeserializeOwned>(
    v: Spanned<DeValue<'static>>,
) -> Result<T, toml::de::Error> {
    let span = v.span();
    match v.into_inner() {
        DeValue::Table(t) => T::deserialize(toml::de::Deserializer::from(Spanned::new(span, t))),
        other => T::deserialize(toml::de::ValueDeserializer::from(Spanned::new(span, other))),
    }
}

pub(super) fn get<'a>(t: &'a Table, path: &[&str]) -> Option<&'a Spanned<DeValue<'static>>> {
    let (first, rest) = path.split_first()?;
    let v = t.get(*first)?;
    if rest.is_empty() {
        return Some(v);
    }
    match v.get_ref() {
        DeValue::Table(t) => get(t, rest),
        _ => None,
    }
}

pub(super) fn get_str(t: &Table, path: &[&str]) -> Option<Ref> {
    let v = get(t, path)?;
    v.get_ref().as_str().map(|s| Spanned::new(v.span(), s.to_string()))
}

pub(super) fn get_str_list(t: &Table, path: &[&str]) -> Vec<Ref> {
    match get(t, path).map(Spanned::get_ref) {
        Some(DeValue::Array(a)) => {
            a.iter().filter_map(|v| v.get_ref().as_str().map(|s| Spanned::new(v.span(), s.to_string()))).collect()
        }
        _ => Vec::new(),
    }
}

/// Shifts every span in a parsed TOML value by `base`, making it global.
pub(super) fn shift(v: Spanned<DeValue<'static>>, base: usize) -> Spanned<DeValue<'static>> {
    let span = v.span();
    let span = span.start + base..span.end + base;
    let inner = match v.into_inner() {
        DeValue::Table(t) => {
            let mut out = DeTable::new();
            for (k, v) in t {
                let ks = k.span();
                out.insert(Spanned::new(ks.start + base..ks.end + base, k.into_inner()), shift(v, base));
            }
            DeValue::Table(out)
        }
        DeValue::Array(a) => DeValue::Array(a.into_iter().map(|v| shift(v, base)).collect()),
        other => other,
    };
    Spanned::new(span, inner)
}

/// Deep-merges an overlay into a base: tables merge key by key, anything else is replaced.
pub(super) fn merge(base: &mut Table, overlay: Table) {
    for (k, v) in overlay {
        let key: &str = k.get_ref();
        match (base.get_mut(key).map(Spanned::get_mut), v) {
            (Some(DeValue::Table(b)), v) if matches!(v.get_ref(), DeValue::Table(_)) => {
                if let DeValue::Table(o) = v.into_inner() {
                    merge(b, o);
                }
            }
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &'static str) -> Table {
        let t = DeTable::parse(text).unwrap();
        match shift(Spanned::new(t.span(), DeValue::Table(t.into_inner())), 0).into_inner() {
            DeValue::Table(t) => t,
            _ => unreachable!(),
        }
    }

    #[test]
    fn overlay_merges_tables_and_replaces_values() {
        let mut base = parse("[a]\nx = 1\ny = [1, 2]\n[b]\nz = 'q'\n");
        merge(&mut base, parse("[a]\ny = [3]\nw = 0x10\n"));
        let v: toml::Table = deserialize_value(Spanned::new(0..0, DeValue::Table(base))).unwrap();
        assert_eq!(v["a"]["x"].as_integer(), Some(1));
        assert_eq!(v["a"]["y"].as_array().unwrap().len(), 1);
        assert_eq!(v["a"]["w"].as_integer(), Some(16));
        assert_eq!(v["b"]["z"].as_str(), Some("q"));
    }
}
