//! The values a game keeps besides components: tracks (numbers with bounds and per-space data),
//! vars (free values, maybe derived by a script) and read-only data tables.

use super::resolve::ScriptFns;
use super::Loader;
use crate::def::{self, GameFile};
use crate::rules::{IntSpec, Rules, TrackInfo, VarInfo};
use crate::value::Value;

impl Loader {
    /// Checks `[tracks]`.
    pub(super) fn tracks(&mut self, r: &mut Rules, f: &GameFile) {
        for (name, t) in &f.tracks {
            let spaces =
                t.spaces.iter().map(|s| Value::from_toml(&toml::Value::Table(s.clone())).unwrap_or_default()).collect();
            if matches!(t.visible, def::Visibility::Top | def::Visibility::Count) {
                self.error_at(
                    "E0313",
                    format!("track `{name}`: visibility must be public, owner or hidden"),
                    self.key("tracks", name),
                );
            }
            r.tracks.push(TrackInfo {
                name: name.clone(),
                per_player: t.per_player,
                start: match &t.start {
                    None => IntSpec::Int(0),
                    Some(toml::Value::Integer(i)) => IntSpec::Int(*i),
                    Some(toml::Value::String(p)) if r.params.get(p).is_some_and(|p| p.value.as_int().is_some()) => {
                        IntSpec::Param(p.clone())
                    }
                    Some(other) => {
                        let loc = self.key("tracks", name);
                        self.error_at("E0315", format!("track `{name}`: `start` {}", not_int_or_param(r, other)), loc);
                        IntSpec::Int(0)
                    }
                },
                min: self.track_bound(r, name, "min", t.min.as_ref()),
                max: self.track_bound(r, name, "max", t.max.as_ref()),
                visible: t.visible,
                spaces,
                space_label: t.space_label.clone(),
                description: t.description.clone().unwrap_or_default(),
            });
        }
    }

    /// A track's `min` or `max`: an integer, or the value in force of an integer parameter.
    fn track_bound(&mut self, r: &Rules, name: &str, key: &str, v: Option<&toml::Value>) -> Option<i64> {
        match v? {
            toml::Value::Integer(i) => Some(*i),
            toml::Value::String(p) if r.params.get(p).is_some_and(|p| p.value.as_int().is_some()) => {
                r.params.get(p).and_then(|p| p.value.as_int())
            }
            other => {
                let loc = self.key("tracks", name);
                self.error_at("E0315", format!("track `{name}`: `{key}` {}", not_int_or_param(r, other)), loc);
                None
            }
        }
    }

    /// Checks `[vars]`.
    pub(super) fn vars(&mut self, r: &mut Rules, f: &GameFile, fns: &ScriptFns) {
        for (name, v) in &f.vars {
            let default = v.default.as_ref().map(Value::from_toml).transpose().unwrap_or_else(|e| {
                self.error_at("E0302", format!("var `{name}`: {e}"), self.key("vars", name));
                None
            });
            if matches!(v.visible, def::Visibility::Top | def::Visibility::Count) {
                self.error_at(
                    "E0313",
                    format!("var `{name}`: visibility must be public, owner or hidden"),
                    self.key("vars", name),
                );
            }
            let derived = v.derived.as_ref().map(|f| fns.check(self, f, if v.per_player { 2 } else { 1 }, "derived"));
            r.vars.push(VarInfo {
                name: name.clone(),
                per_player: v.per_player,
                default: default.unwrap_or_default(),
                visible: v.visible,
                derived,
                description: v.description.clone().unwrap_or_default(),
            });
        }
    }

    /// Checks `[tables]`.
    pub(super) fn tables(&mut self, r: &mut Rules, f: &GameFile) {
        for (name, t) in &f.tables {
            match Value::from_toml(t) {
                Ok(v) => {
                    r.tables.insert(name.clone(), v);
                }
                Err(e) => {
                    self.error_at("E0302", format!("table `{name}`: {e}"), self.key("tables", name));
                }
            }
        }
    }
}

/// Why a value is not an integer or an integer parameter's name.
fn not_int_or_param(r: &Rules, v: &toml::Value) -> String {
    match v.as_str() {
        Some(p) if r.params.contains_key(p) => format!("names parameter `{p}`, which is not an integer"),
        Some(p) => format!("names `{p}`, which is not a declared parameter"),
        None => format!("must be an integer or the name of an integer parameter, not `{v}`"),
    }
}
