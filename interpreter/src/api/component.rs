//! Components as scripts see them: the `Component` handle (read through its indexer and
//! getters, compared with `==`, listed with `props`) and how a script value names a component
//! (a handle, an id or a map with an `id`).

use super::reg;
use crate::state::{Component, Components, State};
use rhai::{Dynamic, Map};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// A component as scripts see it: a light handle. `c.id`, `c.kind`, `c.label` and `c.PROP`
/// read its id, type, label and properties (as they were when the handle was taken); `()` for a missing one.
#[derive(Clone)]
pub struct ComponentHandle {
    idx: u32,
    components: Arc<Components>,
}

impl ComponentHandle {
    fn component(&self) -> &Component {
        &self.components.list[self.idx as usize]
    }

    /// The component's id.
    pub fn id(&self) -> &str {
        &self.component().id
    }

    fn get(&self, key: &str) -> Dynamic {
        let c = self.component();
        let values = c.script_values();
        match key {
            "id" => values.id.clone(),
            "kind" => values.kind.clone(),
            "label" => c.label().into(),
            _ => c.props.get_index_of(key).map_or(Dynamic::UNIT, |i| values.props[i].clone()),
        }
    }
}

/// `c.NAME` when `d` is a component handle: what its getters and its indexer give (`None` for
/// any other value). `hint` is where this property was found last time: properties are kept
/// in declaration order, so one place in a script mostly reads the same position. It must
/// agree with the getters registered below (`api_doc`'s tests list them).
pub(crate) fn read_property(d: &Dynamic, name: &str, hint: &AtomicU32) -> Option<Dynamic> {
    with_property(d, name, hint, Dynamic::clone)
}

/// Like [`read_property`], handing the property to `f` where it lies instead of copying it
/// (compiled scripts compare `c.kind == "action"` so).
pub(crate) fn with_property<T>(d: &Dynamic, name: &str, hint: &AtomicU32, f: impl FnOnce(&Dynamic) -> T) -> Option<T> {
    let h = d.read_lock::<ComponentHandle>()?;
    let c = h.component();
    let values = c.script_values();
    Some(match name {
        "id" => f(&values.id),
        "kind" => f(&values.kind),
        "label" => f(&c.label().into()),
        _ => {
            let at = hint.load(Ordering::Relaxed) as usize;
            if c.props.get_index(at).is_some_and(|(k, _)| k == name) {
                f(&values.props[at])
            } else {
                match c.props.get_index_of(name) {
                    Some(i) => {
                        hint.store(i as u32, Ordering::Relaxed);
                        f(&values.props[i])
                    }
                    None => f(&Dynamic::UNIT),
                }
            }
        }
    })
}

/// The script value for a component.
pub fn card_map(st: &State, idx: u32) -> Dynamic {
    Dynamic::from(ComponentHandle { idx, components: st.components.clone() })
}

/// Makes `slot` a handle of component `idx` of `components`: a handle of the same components
/// that `slot` holds (not shared with a closure) is pointed at `idx` where it lies, without a
/// new one made; anything else is let go of and replaced. What a script sees is the same as a
/// new handle put there (a value is only ever held in one place).
pub(crate) fn set_handle(slot: &mut Dynamic, components: &Arc<Components>, idx: u32) {
    if !slot.is_shared() {
        if let Some(mut h) = slot.write_lock::<ComponentHandle>() {
            if Arc::ptr_eq(&h.components, components) {
                h.idx = idx;
                return;
            }
        }
    }
    crate::compiled::put(slot, Dynamic::from(ComponentHandle { idx, components: components.clone() }));
}

/// Makes `slot` a copy of `item`: a handle is copied with [`set_handle`] (into the handle
/// `slot` may hold), anything else cloned.
pub(crate) fn set_copy(slot: &mut Dynamic, item: &Dynamic) {
    if let Some(h) = item.read_lock::<ComponentHandle>() {
        set_handle(slot, &h.components, h.idx);
    } else {
        crate::compiled::put(slot, item.clone());
    }
}

/// The component a script value is, if it is a component handle.
pub(crate) fn component_index(d: &Dynamic) -> Option<u32> {
    d.read_lock::<ComponentHandle>().map(|h| h.idx)
}

/// A component argument: a component handle, an id string, or a map with an `id`.
pub(crate) fn card_arg(st: &State, d: &Dynamic) -> Result<u32, String> {
    if let Some(h) = d.read_lock::<ComponentHandle>() {
        return Ok(h.idx);
    }
    if d.is_string() {
        return st.component_index(&d.to_string());
    }
    if let Some(m) = d.read_lock::<Map>() {
        if let Some(id) = m.get("id") {
            return st.component_index(&id.to_string());
        }
    }
    Err(format!("expected a component or a component id, got {}", d.type_name()))
}

/// Registers the `Component` type's indexer, comparisons, texts, `props` and getters.
pub(super) fn register(engine: &mut crate::compiled::Registry) {
    reg!(
        engine,
        "index$get$",
        "`c.id`, `c.kind` (component type), `c.label` and `c.PROP` (a property, `()` if missing).",
        &["component: Component", "property: &str", "Dynamic"],
        |c: &mut ComponentHandle, key: &str| c.get(key)
    );
    reg!(
        engine,
        "==",
        "Two handles on the same component.",
        &["a: Component", "b: Component", "bool"],
        |a: &mut ComponentHandle, b: ComponentHandle| a.idx == b.idx
    );
    reg!(
        engine,
        "!=",
        "Handles on different components.",
        &["a: Component", "b: Component", "bool"],
        |a: &mut ComponentHandle, b: ComponentHandle| a.idx != b.idx
    );
    reg!(engine, "to_string", "The component's id.", &["component: Component", "String"], |c: &mut ComponentHandle| c
        .id()
        .to_string());
    reg!(
        engine,
        "to_debug",
        "`Component(id)`.",
        &["component: Component", "String"],
        |c: &mut ComponentHandle| format!("Component({})", c.id())
    );
    reg!(
        engine,
        "props",
        "All the component's properties as a map.",
        &["component: Component", "Map"],
        |c: &mut ComponentHandle| {
            let mut m = Map::new();
            let values = c.component().script_values();
            for (k, v) in c.component().props.keys().zip(&values.props) {
                m.insert(k.as_str().into(), v.clone());
            }
            m
        }
    );

    // Direct getters for the handle's own fields (faster than the indexer fallback).
    reg!(engine, "get$id", "The component's id.", &["component: Component", "String"], |c: &mut ComponentHandle| c
        .get("id"));
    reg!(
        engine,
        "get$kind",
        "The component's type.",
        &["component: Component", "String"],
        |c: &mut ComponentHandle| c.get("kind")
    );
    reg!(
        engine,
        "get$label",
        "The component's label (its type's label template filled in).",
        &["component: Component", "String"],
        |c: &mut ComponentHandle| c.get("label")
    );
}
