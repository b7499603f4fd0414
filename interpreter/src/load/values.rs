//! The values a game keeps besides components: tracks (numbers with bounds and per-space data),
//! vars (free values, maybe derived by a script) and read-only data tables.

use super::params::int_or_param;
use super::resolve::ScriptFns;
use super::Loader;
use crate::def::{self, GameFile};
use crate::rules::{IntSpec, Rules, TrackInfo, VarInfo};
use crate::value::Value;

impl Loader {
    /// Checks `[tracks]`.
    pub(super) fn tracks(&mut self, r: &mut Rules, f: &GameFile) {
        for (name, t) in &f.tracks {
            let spaces: Vec<Value> =
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
                start: self.track_int(r, name, "start", t.start.as_ref()).unwrap_or(IntSpec::Int(0)),
                min: self.track_int(r, name, "min", t.min.as_ref()).map(|m| m.get(&r.params, 0)),
                max: self.track_int(r, name, "max", t.max.as_ref()).map(|m| m.get(&r.params, 0)),
                visible: t.visible,
                space_names: TrackInfo::name_spaces(&spaces, t.space_label.as_deref()),
                spaces,
                space_label: t.space_label.clone(),
                description: t.description.clone().unwrap_or_default(),
            });
        }
    }

    /// A track's `start`, `min` or `max`: an integer or an integer parameter (E0315 if not).
    fn track_int(&mut self, r: &Rules, name: &str, key: &str, v: Option<&toml::Value>) -> Option<IntSpec> {
        int_or_param(r, v?)
            .map_err(|e| {
                let loc = self.key("tracks", name);
                self.error_at("E0315", format!("track `{name}`: `{key}` {e}"), loc);
            })
            .ok()
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
                holds: v.holds,
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
