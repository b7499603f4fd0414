//! Where components live and what they are: zones (capacity, overflow, numbered places) and
//! component types with their declared instances (counts, per-player sets, property ranges).

use super::resolve::zone_ref;
use super::Loader;
use crate::def::{self, GameFile, Ref};
use crate::rules::{ComponentType, DeclaredComponent, IntSpec, PropSpec, Rules, ZoneInfo};
use crate::value::Value;
use toml::Spanned;

impl Loader {
    /// Checks `[zones]`.
    pub(super) fn zones(&mut self, r: &mut Rules, f: &GameFile) {
        for (name, z) in &f.zones {
            let overflow_to = z.overflow_to.as_ref().map(|t| zone_ref(self, r, t));
            if z.overflow == def::Overflow::PushOut && (overflow_to.is_none() || z.capacity.is_none()) {
                self.error_at(
                    "E0311",
                    format!("zone `{name}`: `overflow = \"push-out\"` needs `capacity` and `overflow_to`"),
                    self.key("zones", name),
                );
            }
            r.zones.push(ZoneInfo {
                name: name.clone(),
                per_player: z.per_player,
                ordered: z.ordered.unwrap_or(true),
                visible: z.visible,
                known: z.known,
                capacity: z.capacity.as_ref().and_then(|c| match (c, super::params::int_or_param(r, c)) {
                    (toml::Value::String(s), _) if s == "players" => Some(IntSpec::Players),
                    (_, Ok(IntSpec::Int(i))) if i >= 0 => Some(IntSpec::Int(i)),
                    (_, Ok(spec @ IntSpec::Param(_))) => Some(spec),
                    (other, _) => {
                        let loc = self.key("zones", name);
                        self.error_at("E0314", format!("zone `{name}`: `capacity` must be a non-negative integer, \"players\" or an integer parameter, not `{other}`"), loc);
                        None
                    }
                }),
                overflow: z.overflow,
                overflow_to,
                places: self.places(name, z),
                card_label: z.card_label.clone(),
                description: z.description.clone().unwrap_or_default(),
            });
        }
    }

    /// Checks `[components]`: each type and its declared instances.
    pub(super) fn components(&mut self, r: &mut Rules, f: &GameFile) {
        for (ti, (name, c)) in f.components.iter().enumerate() {
            let faces = c.faces.as_ref().and_then(|f| self.faces(r, name, f));
            r.component_types.push(ComponentType {
                name: name.clone(),
                label: c.label.clone(),
                edges: c.edges.clone(),
                faces,
                description: c.description.clone().unwrap_or_default(),
            });
            let zone = c.zone.as_ref().map(|z| zone_ref(self, r, z));
            for inst in c.instances.iter().chain(&c.extra_instances) {
                if let Some(d) = self.declared_instances(r, ti, name, inst, zone, c.zone.as_ref()) {
                    r.components.push(d);
                }
            }
        }
    }

    /// A die type's faces: a list of plain values, or `{ from, to }` with integers or integer
    /// parameter names (resolved now: parameters are fixed for the whole game).
    fn faces(&mut self, r: &Rules, name: &str, f: &toml::Value) -> Option<Vec<Value>> {
        let bound = |v: Option<&toml::Value>| match v {
            Some(toml::Value::Integer(i)) => Some(*i),
            Some(toml::Value::String(p)) => {
                crate::expr::int_expr(p, &|n| r.params.get(n).and_then(|i| i.value.as_int())).ok()
            }
            _ => None,
        };
        let faces: Option<Vec<Value>> = match f {
            toml::Value::Array(items) => items.iter().map(|v| Value::from_toml(v).ok()).collect(),
            toml::Value::Table(t) => match (bound(t.get("from")), bound(t.get("to"))) {
                (Some(a), Some(b)) if a <= b && b - a < 1000 => Some((a..=b).map(Value::Int).collect()),
                _ => None,
            },
            _ => None,
        };
        match faces {
            Some(v) if !v.is_empty() && v.len() <= 1000 => Some(v),
            _ => {
                self.error_at(
                    "E0309",
                    format!(
                        "components `{name}`: `faces` must be a list of 1 to 1,000 plain values or \
                         `{{ from = A, to = B }}` (integers or integer parameters, A <= B, at most 1,000 faces), not `{f}`"
                    ),
                    self.key("components", name),
                );
                None
            }
        }
    }

    /// A zone's numbered places: the template and whether place 1 is the top.
    fn places(&mut self, name: &str, z: &def::ZoneDef) -> Option<(String, bool)> {
        let from_top = match z.places_from.as_deref() {
            None | Some("bottom") => false,
            Some("top") => true,
            Some(other) => {
                let loc = self.key("zones", name);
                self.error_at(
                    "E0318",
                    format!("zone `{name}`: `places_from` must be \"bottom\" or \"top\", not `{other}`"),
                    loc,
                );
                false
            }
        };
        if z.places.is_none() && z.places_from.is_some() {
            let loc = self.key("zones", name);
            self.error_at(
                "E0318",
                format!("zone `{name}`: `places_from` needs `places` (a label such as \"cell {{n}}\")"),
                loc,
            );
        }
        z.places.clone().map(|p| (p, from_top))
    }

    /// Checks one `[[components.TYPE.instances]]` entry.
    fn declared_instances(
        &mut self,
        r: &Rules,
        kind: usize,
        type_name: &str,
        inst: &toml::Table,
        type_zone: Option<usize>,
        type_zone_ref: Option<&Ref>,
    ) -> Option<DeclaredComponent> {
        let what = format!("components `{type_name}`");
        let int_spec = |l: &mut Loader, key: &str, v: &toml::Value| -> Option<IntSpec> {
            match v {
                toml::Value::Integer(i) => Some(IntSpec::Int(*i)),
                toml::Value::String(p) if p.contains(['+', '-', '*', '/', '(']) => {
                    match crate::expr::int_expr(p, &|n| r.params.get(n).and_then(|i| i.value.as_int())) {
                        Ok(v) => Some(IntSpec::Int(v)),
                        Err(e) => {
                            l.error_at("E0305", format!("{what}: `{key}`: {e}"), l.key("components", type_name));
                            None
                        }
                    }
                }
                toml::Value::String(p) if r.params.get(p).is_some_and(|p| p.value.as_int().is_some()) => {
                    Some(IntSpec::Param(p.clone()))
                }
                other => {
                    l.error_at(
                        "E0305",
                        format!(
                            "{what}: `{key}` must be an integer or the name of an integer parameter, not `{other}`"
                        ),
                        l.key("components", type_name),
                    );
                    None
                }
            }
        };
        let mut d = DeclaredComponent {
            kind,
            id: None,
            props: Default::default(),
            count: IntSpec::Int(1),
            per_player: false,
            zone: type_zone,
        };
        for (k, v) in inst {
            match k.as_str() {
                "id" => d.id = v.as_str().map(str::to_string),
                "count" => d.count = int_spec(self, "count", v)?,
                "per_player" => d.per_player = v.as_bool().unwrap_or(false),
                "zone" => match v.as_str().map(|z| r.zone(z)) {
                    Some(Ok(z)) => d.zone = Some(z),
                    Some(Err(m)) => {
                        self.error_at("E0310", format!("{what}: {m}"), self.key("components", type_name));
                        return None;
                    }
                    None => {
                        self.error_at(
                            "E0305",
                            format!("{what}: `zone` must be a zone name"),
                            self.key("components", type_name),
                        );
                        return None;
                    }
                },
                "kind" | "label" => {
                    self.error_at(
                        "E0308",
                        format!("{what}: `{k}` is reserved (scripts read the component type as `c.kind` and its label as `c.label`); name the property differently"),
                        self.key("components", type_name),
                    );
                    return None;
                }
                _ => {
                    let spec = match v {
                        toml::Value::Table(t) if t.contains_key("from") || t.contains_key("to") => {
                            let (Some(from), Some(to)) = (t.get("from"), t.get("to")) else {
                                self.error_at(
                                    "E0305",
                                    format!("{what}: property `{k}` needs both `from` and `to`"),
                                    self.key("components", type_name),
                                );
                                return None;
                            };
                            let names = match t.get("names").map(Value::from_toml) {
                                None => None,
                                Some(Ok(Value::List(items))) => Some(items),
                                Some(_) => {
                                    self.error_at(
                                        "E0305",
                                        format!("{what}: property `{k}`: `names` must be a list of values"),
                                        self.key("components", type_name),
                                    );
                                    return None;
                                }
                            };
                            PropSpec::Range(int_spec(self, "from", from)?, int_spec(self, "to", to)?, names)
                        }
                        toml::Value::Table(t) if t.contains_key("each") => match t.get("each").map(Value::from_toml) {
                            Some(Ok(Value::List(items))) => PropSpec::Each(items),
                            _ => {
                                self.error_at(
                                    "E0305",
                                    format!("{what}: property `{k}`: `each` must be a list of values"),
                                    self.key("components", type_name),
                                );
                                return None;
                            }
                        },
                        other => match Value::from_toml(other) {
                            Ok(v) => PropSpec::Fixed(v),
                            Err(e) => {
                                self.error_at(
                                    "E0302",
                                    format!("{what} property `{k}`: {e}"),
                                    self.key("components", type_name),
                                );
                                return None;
                            }
                        },
                    };
                    d.props.insert(k.clone(), spec);
                }
            }
        }
        if let Some(zone) = d.zone.and_then(|z| r.zones.get(z)) {
            if zone.per_player != d.per_player {
                let msg = if d.per_player {
                    format!("{what}: `per_player` instances need a per-player zone, and `{}` is global", zone.name)
                } else {
                    format!("{what}: `{}` is a per-player zone; add `per_player = true` to the instances or deal them in a script", zone.name)
                };
                self.error("E0312", msg, type_zone_ref.map(Spanned::span));
                return None;
            }
        }
        Some(d)
    }
}

/// Numbers the values the declared components give each property in [`Rules::prop_codes`]
/// (after every part of the game that names one: see [`crate::codes`]). Values out of a range
/// are left unnumbered (they depend on the seats and parameters): they compare by value.
pub(super) fn number_declared_values(r: &mut Rules) {
    let Rules { prop_codes, components, component_types, .. } = r;
    for slot in 0..prop_codes.keys().len() {
        let key = prop_codes.keys()[slot].clone();
        for c in components.iter() {
            for (k, spec) in &c.props {
                match spec {
                    PropSpec::Fixed(v) if *k == key => prop_codes.add_value(slot, v),
                    PropSpec::Each(items) if *k == key => items.iter().for_each(|v| prop_codes.add_value(slot, v)),
                    PropSpec::Range(_, _, Some(names)) if key.strip_suffix("_name") == Some(k.as_str()) => {
                        names.iter().for_each(|v| prop_codes.add_value(slot, v))
                    }
                    _ => {}
                }
            }
        }
        if key == "face" {
            for v in component_types.iter().filter_map(|t| t.faces.as_ref()).flatten() {
                prop_codes.add_value(slot, v);
            }
        }
    }
}
