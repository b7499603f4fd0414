//! Parameters: each `[params.NAME]` with its default, bounds and choices, then the values
//! given with `--option NAME=VALUE`, parsed and checked against them.

use super::{LoadOptions, Loader};
use crate::def::GameFile;
use crate::rules::{unknown, IntSpec, ParamInfo, Rules};
use crate::value::Value;

impl Loader {
    /// Checks `[params]` and applies the `--option` values.
    pub(super) fn params(&mut self, r: &mut Rules, f: &GameFile, options: &LoadOptions) {
        for (name, p) in &f.params {
            let default = match p.default.as_ref().map(Value::from_toml) {
                Some(Ok(v)) => v,
                // No default: the first of the choices, else the lower bound.
                None if p.choices.as_ref().is_some_and(|c| !c.is_empty()) => p
                    .choices
                    .as_ref()
                    .and_then(|c| c.first())
                    .and_then(|v| Value::from_toml(v).ok())
                    .unwrap_or_default(),
                None if p.min.is_some() => Value::Int(p.min.unwrap_or(0)),
                None => {
                    let loc = self.key("params", name);
                    self.error_at("E0307", format!("param `{name}` needs a `default` (or `choices` or `min`)"), loc);
                    Value::Unit
                }
                Some(Err(e)) => {
                    self.error_at("E0302", format!("param `{name}`: {e}"), self.key("params", name));
                    Value::Unit
                }
            };
            let choices: Option<Vec<Value>> =
                p.choices.as_ref().map(|c| c.iter().filter_map(|v| Value::from_toml(v).ok()).collect());
            if let Err(e) = check_param(&default, p.min, p.max, choices.as_deref()) {
                self.error_at("E0307", format!("param `{name}`: its default {default} {e}"), self.key("params", name));
            }
            r.params.insert(
                name.clone(),
                ParamInfo {
                    value: default,
                    description: p.description.clone().unwrap_or_default(),
                    min: p.min,
                    max: p.max,
                    choices,
                },
            );
        }
        for (k, v) in &options.options {
            match r.params.get_mut(k) {
                None => {
                    let msg = unknown("parameter", k, r.params.keys());
                    self.error_at("E0303", msg, None).help =
                        Some("`rulebook list` shows each game's parameters".into());
                }
                Some(p) => match parse_param(v, p) {
                    Ok(val) => p.value = val,
                    Err(e) => {
                        self.error_at("E0304", format!("--option {k}={v}: {e}"), None);
                    }
                },
            }
        }
    }
}

fn parse_param(text: &str, p: &ParamInfo) -> Result<Value, String> {
    let v = if let Ok(i) = text.parse::<i64>() {
        Value::Int(i)
    } else if text == "true" || text == "false" {
        Value::Bool(text == "true")
    } else {
        Value::Str(text.to_string())
    };
    match (&p.value, &v) {
        (Value::Int(_), Value::Int(_))
        | (Value::Bool(_), Value::Bool(_))
        | (Value::Str(_), Value::Str(_))
        | (Value::Unit, _) => {}
        (Value::List(_), _) => {
            let items = text.split(',').map(|s| Value::Str(s.trim().to_string())).collect();
            return Ok(Value::List(items));
        }
        (expected, _) => return Err(format!("expected a value like `{expected}`")),
    }
    check_param(&v, p.min, p.max, p.choices.as_deref())?;
    Ok(v)
}

/// Checks a parameter value against its bounds and choices.
fn check_param(v: &Value, min: Option<i64>, max: Option<i64>, choices: Option<&[Value]>) -> Result<(), String> {
    if let Value::Int(i) = v {
        if min.is_some_and(|m| *i < m) || max.is_some_and(|m| *i > m) {
            let show = |b: Option<i64>, inf: &str| b.map_or(inf.to_string(), |m| m.to_string());
            return Err(format!("must be between {} and {}", show(min, "-inf"), show(max, "inf")));
        }
    }
    if let Some(c) = choices {
        if !c.contains(v) {
            return Err(format!("must be one of {}", c.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ")));
        }
    }
    Ok(())
}

/// An integer a declaration may take from a parameter: a number, or the name of an integer
/// parameter (so that `--option` and variants reach it). The error says what the value is
/// instead, to follow "`KEY` ".
pub(super) fn int_or_param(r: &Rules, v: &toml::Value) -> Result<IntSpec, String> {
    match v {
        toml::Value::Integer(i) => Ok(IntSpec::Int(*i)),
        toml::Value::String(p) => match r.params.get(p) {
            Some(info) if info.value.as_int().is_some() => Ok(IntSpec::Param(p.clone())),
            Some(_) => Err(format!("names parameter `{p}`, which is not an integer")),
            // Arithmetic over parameters, fixed once they are: `suits * ranks`.
            None if p.contains(['+', '-', '*', '/', '(']) => {
                crate::expr::int_expr(p, &|n| r.params.get(n).and_then(|i| i.value.as_int())).map(IntSpec::Int)
            }
            None => Err(format!("names `{p}`, which is not a declared parameter")),
        },
        other => Err(format!("must be an integer or the name of an integer parameter, not `{other}`")),
    }
}

impl Loader {
    /// Checks `[game] checks` against the parameters in force: a rule that does not name
    /// `players` must hold now (`E0319`); one that does must hold for some player count the
    /// game allows, and the counts it fails are refused when a game starts.
    pub(super) fn checks(&mut self, r: &mut Rules, f: &GameFile) {
        for c in &f.game.checks {
            let names_players = crate::expr::int_expr(&c.check, &|n| {
                if n == "players" {
                    None
                } else {
                    r.params.get(n).and_then(|p| p.value.as_int())
                }
            })
            .is_err_and(|e| e.contains("`players`"));
            let message = c.message.clone().unwrap_or_default();
            let values = |r: &Rules| -> String {
                let used: Vec<String> = r
                    .params
                    .iter()
                    .filter(|(k, _)| c.check.contains(k.as_str()))
                    .map(|(k, p)| format!("{k} = {}", p.value))
                    .collect();
                used.join(", ")
            };
            let at_players = |n: usize| {
                crate::expr::int_expr(&c.check, &|name| {
                    if name == "players" {
                        Some(n as i64)
                    } else {
                        r.params.get(name).and_then(|p| p.value.as_int())
                    }
                })
            };
            let results: Vec<(usize, Result<i64, String>)> =
                (r.min_players.max(1)..=r.max_players.max(r.min_players.max(1))).map(|n| (n, at_players(n))).collect();
            let location = self.key("game", "checks");
            if let Some((_, Err(e))) = results.iter().find(|(_, v)| v.is_err()) {
                self.error_at("E0319", format!("`[game] checks`: {e}"), location);
                continue;
            }
            let broken: Vec<usize> = results.iter().filter(|(_, v)| *v == Ok(0)).map(|(n, _)| *n).collect();
            let say = if message.is_empty() { String::new() } else { format!(": {message}") };
            if !names_players && !broken.is_empty() {
                self.error_at(
                    "E0319",
                    format!("the parameters break the check `{}`{say} ({})", c.check, values(r)),
                    location,
                );
            } else if names_players && broken.len() == results.len() {
                self.error_at(
                    "E0319",
                    format!(
                        "the check `{}` fails for every player count the game allows{say} ({})",
                        c.check,
                        values(r)
                    ),
                    location,
                );
            } else if names_players {
                r.player_checks.push(crate::rules::ParamCheck { check: c.check.clone(), message });
            }
        }
    }
}
