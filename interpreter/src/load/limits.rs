//! The caps a game may set for itself, each checked against the engine's hard cap: `[limits]`
//! for every script call, and `[flow] max_steps` / `max_decisions` for a whole game.

use super::Loader;
use crate::def;
use crate::rules::{Rules, MAX_DECISIONS, MAX_STEPS};

impl Loader {
    /// Checks `[limits]` against the hard caps.
    pub(super) fn limits(&mut self, l: &def::LimitsDef) -> Option<crate::script::Limits> {
        use crate::script::{DEFAULT_LIMITS as D, HARD_CAPS as C};
        let mut ok = true;
        let mut pick = |l: &mut Loader, v: Option<u64>, default: u64, cap: u64, key: &str| -> u64 {
            match v {
                Some(v) if v == 0 || v > cap => {
                    let loc = l.key("limits", "");
                    l.error_at("E0350", format!("`[limits] {key} = {v}` is outside 1..={cap}"), loc);
                    ok = false;
                    default
                }
                Some(v) => v,
                None => default,
            }
        };
        let limits = crate::script::Limits {
            max_operations: pick(self, l.max_operations, D.max_operations, C.max_operations, "max_operations"),
            max_call_depth: pick(self, l.max_call_depth, D.max_call_depth, C.max_call_depth, "max_call_depth"),
            max_string_size: pick(self, l.max_string_size, D.max_string_size, C.max_string_size, "max_string_size"),
            max_array_size: pick(self, l.max_array_size, D.max_array_size, C.max_array_size, "max_array_size"),
            max_map_size: pick(self, l.max_map_size, D.max_map_size, C.max_map_size, "max_map_size"),
        };
        ok.then_some(limits)
    }

    /// Checks `[flow] max_steps` and `max_decisions` against the hard caps.
    pub(super) fn flow_caps(&mut self, r: &Rules) {
        for (key, value, cap) in
            [("max_steps", r.max_steps, MAX_STEPS), ("max_decisions", r.max_decisions, MAX_DECISIONS)]
        {
            if value == 0 || value > cap {
                let loc = self.key("flow", "");
                self.error_at("E0350", format!("`[flow] {key} = {value}` must be between 1 and {cap}"), loc);
            }
        }
    }
}
