//! Decisions: where their options come from (a zone, with a filter, or a script), subsets,
//! the script hooks (`then`, `reveal`, `auto`), following a led suit and contests.

use super::resolve::{zone_ref, ScriptFns};
use super::Loader;
use crate::codes::PropKey;
use crate::def::{self, GameFile, Ref};
use crate::rules::{Contest, DecisionInfo, FnRef, Follow, FollowFrom, OptionSource, Rules};
use crate::value::Value;

impl Loader {
    /// Checks `[decisions]`.
    pub(super) fn decisions(&mut self, r: &mut Rules, f: &GameFile, fns: &ScriptFns) {
        for (name, d) in &f.decisions {
            let source = match (&d.from, &d.options) {
                (Some(z), None) => OptionSource::Zone {
                    zone: zone_ref(self, r, z),
                    filter: d.filter.as_ref().map(|f| fns.check(self, f, 3, "filter")),
                },
                (None, Some(o)) => OptionSource::Script(fns.check(self, o, 2, "options")),
                _ => {
                    self.error_at(
                        "E0320",
                        format!("decision `{name}` needs exactly one of `from` (a zone) or `options` (a script)"),
                        self.key("decisions", name),
                    );
                    OptionSource::Script(FnRef { name: String::new(), with_ctx: false })
                }
            };
            if d.filter.is_some() && d.from.is_none() {
                self.error_at(
                    "E0321",
                    format!("decision `{name}`: `filter` only applies with `from`"),
                    self.key("decisions", name),
                );
            }
            if d.label_by.is_some() && d.options.is_none() {
                self.error_at(
                    "E0324",
                    format!("decision `{name}`: `label_by` labels the options of an `options` script; a `from` decision's options are labelled by the `label` template"),
                    self.key("decisions", name),
                );
            }
            let subset = d.subset.as_ref().map(|sd| {
                let loc = self.key("decisions", name);
                // A bound is a number or an integer parameter's value in force.
                let mut bound = |key: &str, v: &Option<toml::Value>| {
                    let spec = super::params::int_or_param(r, v.as_ref()?).map_err(|e| {
                        self.error_at("E0360", format!("decision `{name}`: `subset.{key}` {e}"), loc.clone());
                    });
                    spec.ok().map(|s| s.get(&r.params, 0))
                };
                let (min, max) = (bound("min", &sd.min), bound("max", &sd.max));
                let problem = if d.from.is_none() {
                    Some("`subset` chooses among the components of `from`: add `from`".to_string())
                } else if d.follow.is_some() || d.contest.is_some() {
                    Some("`subset` cannot be combined with `follow` or `contest`, which judge single components".into())
                } else if min.zip(max).is_some_and(|(a, b)| a > b) {
                    Some("`subset.min` is larger than `subset.max`".into())
                } else if min.is_some_and(|m| m < 0) {
                    Some("`subset.min` must not be negative".into())
                } else if max.is_some_and(|m| m < 1) {
                    Some("`subset.max` must be at least 1".into())
                } else if sd.order.is_some() && sd.consecutive.is_none() {
                    Some("`subset.order` orders the values of `consecutive`: add `consecutive`".into())
                } else {
                    None
                };
                if let Some(p) = problem {
                    self.error_at("E0360", format!("decision `{name}`: {p}"), loc);
                }
                let order = sd.order.as_ref().map(|o| o.iter().filter_map(|v| Value::from_toml(v).ok()).collect());
                crate::rules::Subset {
                    min: min.unwrap_or(1).max(0) as usize,
                    max: max.map_or(usize::MAX, |m| m.max(1) as usize),
                    same: sd.same.clone(),
                    distinct: sd.distinct.clone(),
                    consecutive: sd.consecutive.clone().map(|c| (c, order)),
                    valid: sd.valid.as_ref().map(|f| fns.check(self, f, 3, "valid")),
                }
            });
            let to = d.to.as_ref().map(|z| zone_ref(self, r, z));
            if d.to.is_some() && (d.from.is_none() || d.subset.is_some()) {
                self.error_at(
                    "E0325",
                    format!("decision `{name}`: `to` moves the chosen component, so it needs `from` (and no `subset`)"),
                    self.key("decisions", name),
                );
            }
            r.decisions.push(DecisionInfo {
                to,
                subset,
                name: name.clone(),
                prompt: d.prompt.clone().unwrap_or_else(|| name.clone()),
                source,
                label: d.label.clone(),
                label_by: d.label_by.as_ref().map(|f| fns.check(self, f, 3, "label_by")),
                then: d.then.as_ref().map(|f| fns.check(self, f, 3, "then")),
                reveal: d.reveal.as_ref().map(|f| fns.check(self, f, 2, "reveal")),
                secret: d.secret,
                auto: d.auto.as_ref().map(|f| fns.check(self, f, 3, "auto")),
                auto_if: d.auto_if.as_ref().map(|f| fns.check(self, f, 2, "auto_if")),
                follow: d.follow.as_ref().and_then(|f| {
                    let loc = self.key("decisions", name);
                    if d.from.is_none() {
                        self.error_at("E0323", format!("decision `{name}`: `follow` only applies with `from`"), loc);
                        return None;
                    }
                    let from = match (&f.var, &f.zone) {
                        (Some(v), None) => match r.var(v.get_ref()) {
                            Ok(i) if !r.vars[i].per_player => FollowFrom::Var(i),
                            Ok(_) => {
                                self.error(
                                    "E0323",
                                    format!("decision `{name}`: `follow.var` must be a global var"),
                                    Some(v.span()),
                                );
                                return None;
                            }
                            Err(m) => {
                                self.error("E0310", m, Some(v.span()));
                                return None;
                            }
                        },
                        (None, Some(z)) => match r.zone(z.get_ref()) {
                            Ok(i) if !r.zones[i].per_player => FollowFrom::Zone(i),
                            Ok(_) => {
                                self.error(
                                    "E0323",
                                    format!("decision `{name}`: `follow.zone` must be a global zone"),
                                    Some(z.span()),
                                );
                                return None;
                            }
                            Err(m) => {
                                self.error("E0310", m, Some(z.span()));
                                return None;
                            }
                        },
                        _ => {
                            self.error_at(
                                "E0323",
                                format!("decision `{name}`: `follow` needs exactly one of `var` or `zone`"),
                                loc,
                            );
                            return None;
                        }
                    };
                    let free = f.free.as_ref().and_then(|v| Value::from_toml(v).ok()).unwrap_or(Value::Unit);
                    // The slot is given once every decision is in (below).
                    Some(Follow { by: PropKey::named(&f.by), from, free })
                }),
                contest: d.contest.as_ref().and_then(|c| self.contest(r, name, c)),
                actor: d.actor.clone(),
                skip_if_no_options: match d.if_no_options.as_deref() {
                    None | Some("error") => false,
                    Some("skip") => true,
                    Some(other) => {
                        let loc = self.key("decisions", name);
                        self.error_at(
                            "E0322",
                            format!("decision `{name}`: `if_no_options` must be \"error\" or \"skip\", not `{other}`"),
                            loc,
                        );
                        false
                    }
                },
            });
        }
        // A `follow` rule compares its property for every card at every decision: numbered.
        for follow in r.decisions.iter_mut().filter_map(|d| d.follow.as_mut()) {
            r.prop_codes.give_slot(&mut follow.by);
        }
        // So does a contest, for each card revealed.
        for contest in r.decisions.iter_mut().filter_map(|d| d.contest.as_mut()) {
            r.prop_codes.give_slot(&mut contest.by);
        }
    }

    /// Checks a `[decisions.NAME.contest]` table.
    fn contest(&mut self, r: &Rules, decision: &str, c: &def::ContestDef) -> Option<Contest> {
        let zone = |l: &mut Loader, z: &Option<Ref>, per_player: bool, key: &str| -> Option<usize> {
            let z = z.as_ref()?;
            match r.zone(z.get_ref()) {
                Ok(i) if r.zones[i].per_player == per_player => Some(i),
                Ok(_) => {
                    let want = if per_player { "a per-player" } else { "a global" };
                    l.error(
                        "E0340",
                        format!("decision `{decision}` contest: `{key}` must be {want} zone"),
                        Some(z.span()),
                    );
                    None
                }
                Err(m) => {
                    l.error("E0310", m, Some(z.span()));
                    None
                }
            }
        };
        let played_to = zone(self, &c.played_to, false, "played_to");
        let stake = zone(self, &c.stake, false, "stake");
        let stake_to = zone(self, &c.stake_to, true, "stake_to");
        let unclaimed_to = zone(self, &c.unclaimed_to, false, "unclaimed_to");
        if stake.is_some() != stake_to.is_some() {
            self.error_at(
                "E0341",
                format!("decision `{decision}` contest: `stake` and `stake_to` go together"),
                self.key("decisions", decision),
            );
        }
        let score = c.score.as_ref().and_then(|t| match r.track(t.get_ref()) {
            Ok(i) if r.tracks[i].per_player => Some(i),
            Ok(_) => {
                self.error(
                    "E0340",
                    format!("decision `{decision}` contest: `score` must be a per-player track"),
                    Some(t.span()),
                );
                None
            }
            Err(m) => {
                self.error("E0310", m, Some(t.span()));
                None
            }
        });
        let winner_var = c.winner_var.as_ref().and_then(|v| match r.var(v.get_ref()) {
            Ok(i) if !r.vars[i].per_player => Some(i),
            Ok(_) => {
                self.error(
                    "E0340",
                    format!("decision `{decision}` contest: `winner_var` must be a global var"),
                    Some(v.span()),
                );
                None
            }
            Err(m) => {
                self.error("E0310", m, Some(v.span()));
                None
            }
        });
        if score.is_some() && stake.is_none() {
            self.error_at(
                "E0343",
                format!("decision `{decision}` contest: `score` adds up the stake, so it needs `stake`"),
                self.key("decisions", decision),
            );
        }
        let Some(by) = c.by.clone() else {
            self.error_at(
                "E0342",
                format!("decision `{decision}` contest: `by` (the property compared) is required"),
                self.key("decisions", decision),
            );
            return None;
        };
        Some(Contest {
            by: PropKey::named(&by),
            best: c.best,
            ties: c.ties,
            played_to,
            stake,
            stake_to,
            unclaimed_to,
            score,
            winner_var,
        })
    }
}
