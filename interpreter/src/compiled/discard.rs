//! Letting go of script values cheaply. Rhai's drop code for a value is a call that saves six
//! registers before it looks at what the value holds, and most values compiled code lets go of
//! (a statement's `()`, a loop counter, a compared number) hold nothing to free. These helpers
//! look first and run the drop code only for a value that holds something.

use rhai::Dynamic;

/// Whether `v` holds nothing to free: a unit, an integer, a flag or a character, not shared.
#[inline(always)]
pub(crate) fn holds_nothing(v: &Dynamic) -> bool {
    !v.is_shared() && (v.is_unit() || v.is_int() || v.is_bool() || v.is_char())
}

/// Lets go of `v`, running its drop code only when it holds something to free.
#[inline(always)]
pub(crate) fn discard(v: Dynamic) {
    if holds_nothing(&v) {
        std::mem::forget(v);
    } else {
        drop(v);
    }
}

/// Puts `v` into `slot` and lets go of what was there (see [`discard`]).
#[inline(always)]
pub(crate) fn put(slot: &mut Dynamic, v: Dynamic) {
    discard(std::mem::replace(slot, v));
}

/// Empties `values`, letting go of each (see [`discard`]).
#[inline]
pub(crate) fn clear(values: &mut Vec<Dynamic>) {
    for v in values.drain(..) {
        discard(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_unshared_values_hold_nothing() {
        for v in [Dynamic::UNIT, Dynamic::from_int(7), Dynamic::from_bool(true), Dynamic::from_char('x')] {
            assert!(holds_nothing(&v), "{v:?}");
        }
        let shared_int = Dynamic::from_int(7).into_shared();
        let held = [
            Dynamic::from("text"),
            Dynamic::from_array(vec![Dynamic::from_int(1)]),
            Dynamic::from_map(rhai::Map::new()),
            shared_int,
        ];
        for v in held {
            assert!(!holds_nothing(&v), "{v:?}");
        }
    }

    #[test]
    fn put_and_clear_let_go_of_what_they_replace() {
        let probe = std::sync::Arc::new(5);
        let mut slot = Dynamic::from(probe.clone());
        assert_eq!(std::sync::Arc::strong_count(&probe), 2);
        put(&mut slot, Dynamic::from_int(1));
        assert_eq!(std::sync::Arc::strong_count(&probe), 1, "the replaced value was dropped");
        let mut values = vec![Dynamic::from(probe.clone()), Dynamic::from_int(2)];
        assert_eq!(std::sync::Arc::strong_count(&probe), 2);
        clear(&mut values);
        assert!(values.is_empty());
        assert_eq!(std::sync::Arc::strong_count(&probe), 1, "the cleared value was dropped");
    }
}
