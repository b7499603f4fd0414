//! What a script reads of a state, recorded while it computes a derived value: the value holds
//! for any later state that agrees with the first on everything read ([`Reads::agree`]), so
//! views compute it again only when something it read has changed.
//!
//! The game handle ([`crate::script::GameHandle`]) reports every function a script calls on
//! `game`: each says which parts of the state it read ([`note`]), or that it read only the
//! rules ([`note_rules_only`]). A function that says nothing is taken to have read the whole
//! state, so that a value is never kept on a guess: such a value is computed afresh for
//! every state, as it was before.

use crate::state::State;
use std::cell::RefCell;
use std::sync::Arc;

/// One part of a state a script read. Owners are seat indices (global declarations have
/// one copy, owner 0); `None` is every owner's copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    /// The components in a zone (and its visibility).
    Zone(usize, Option<usize>),
    /// A track's value.
    Track(usize, Option<usize>),
    /// A var's value.
    Var(usize, Option<usize>),
    /// The pieces on a grid.
    Grid(usize, Option<usize>),
    /// Where one component (by index) lies.
    Location(usize),
    /// The current player.
    Current,
    /// The turn order.
    TurnOrder,
}

/// Everything one computation read: the parts, or the whole state. Component properties are
/// always taken as read (a script reads them through any component it holds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// The parts read, sorted, each once.
    parts: Vec<Part>,
    /// Whether something read the state beyond what its parts say.
    everything: bool,
}

impl Reads {
    /// Whether `a` and `b` agree on everything read, so that what was computed from one holds
    /// for the other.
    pub fn agree(&self, a: &State, b: &State) -> bool {
        if self.everything || !Arc::ptr_eq(&a.components, &b.components) {
            return false;
        }
        fn same<T: PartialEq>(a: &[T], b: &[T], owner: Option<usize>) -> bool {
            match owner {
                Some(o) => a.get(o) == b.get(o),
                None => a == b,
            }
        }
        self.parts.iter().all(|part| match *part {
            Part::Zone(z, owner) => {
                let same_slot = |o: usize| match (a.zones[z].get(o), b.zones[z].get(o)) {
                    (Some(x), Some(y)) => x.cards == y.cards && x.visible == y.visible,
                    (x, y) => x.is_none() && y.is_none(),
                };
                match owner {
                    Some(o) => same_slot(o),
                    None => a.zones[z].len() == b.zones[z].len() && (0..a.zones[z].len()).all(same_slot),
                }
            }
            Part::Track(t, owner) => same(&a.tracks[t], &b.tracks[t], owner),
            Part::Var(v, owner) => same(&a.vars[v], &b.vars[v], owner),
            Part::Grid(g, owner) => same(&a.grids[g], &b.grids[g], owner),
            Part::Location(c) => a.location.get(c) == b.location.get(c),
            Part::Current => a.current == b.current,
            Part::TurnOrder => a.turn_order == b.turn_order,
        })
    }

    /// Whether the whole state counts as read (nothing computed from it is kept).
    pub fn everything(&self) -> bool {
        self.everything
    }

    /// The parts read, sorted.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    fn add(&mut self, other: &Reads) {
        self.everything |= other.everything;
        self.parts.extend_from_slice(&other.parts);
        self.parts.sort_unstable();
        self.parts.dedup();
    }
}

/// The recording in progress on this thread.
#[derive(Default)]
struct Recorder {
    reads: Reads,
    /// Whether the game function running now has said what it reads.
    said: bool,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// Runs `f`, recording what the scripts it runs read of the state. A recording inside
/// another adds what it read to the outer one.
pub fn recording<T>(f: impl FnOnce() -> T) -> (T, Reads) {
    let outer = RECORDER.with(|r| r.borrow_mut().replace(Recorder::default()));
    let out = f();
    let mut mine = RECORDER.with(|r| std::mem::replace(&mut *r.borrow_mut(), outer)).unwrap_or_default().reads;
    mine.parts.sort_unstable();
    mine.parts.dedup();
    RECORDER.with(|r| {
        if let Some(outer) = r.borrow_mut().as_mut() {
            outer.reads.add(&mine);
        }
    });
    (out, mine)
}

/// A game function starts: whether a recording is on (then [`function_done`] must follow).
pub fn function_starts() -> bool {
    RECORDER.with(|r| match r.borrow_mut().as_mut() {
        Some(rec) => {
            rec.said = false;
            true
        }
        None => false,
    })
}

/// A game function is done: if it did not say what it read, it read everything.
pub fn function_done() {
    RECORDER.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            rec.reads.everything |= !rec.said;
        }
    });
}

/// The game function running now read `part` of the state.
pub fn note(part: Part) {
    RECORDER.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            rec.said = true;
            if rec.reads.parts.last() != Some(&part) {
                rec.reads.parts.push(part);
            }
        }
    });
}

/// The game function running now read the rules (parameters, tables, declarations) and the
/// component handles it was given, nothing else of the state.
pub fn note_rules_only() {
    RECORDER.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            rec.said = true;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_that_does_not_say_what_it_read_read_everything() {
        let ((), reads) = recording(|| {
            assert!(function_starts());
            note(Part::Track(0, Some(1)));
            function_done();
            assert!(function_starts());
            function_done();
        });
        assert!(reads.everything());
        let ((), reads) = recording(|| {
            assert!(function_starts());
            note(Part::Track(0, Some(1)));
            function_done();
            assert!(function_starts());
            note_rules_only();
            function_done();
        });
        assert!(!reads.everything());
        assert_eq!(reads.parts(), &[Part::Track(0, Some(1))]);
    }

    #[test]
    fn nothing_is_recorded_outside_a_recording_and_an_inner_one_adds_to_the_outer() {
        assert!(!function_starts());
        note(Part::Current);
        let ((), outer) = recording(|| {
            function_starts();
            note(Part::Var(2, None));
            function_done();
            let ((), inner) = recording(|| {
                function_starts();
                note(Part::Current);
                note(Part::Var(2, None));
                function_done();
            });
            assert_eq!(inner.parts(), &[Part::Var(2, None), Part::Current]);
        });
        assert_eq!(outer.parts(), &[Part::Var(2, None), Part::Current]);
    }

    #[test]
    fn states_agree_on_what_was_read_only() {
        let mut a = State::empty();
        a.tracks = vec![vec![1, 2], vec![5]];
        a.current = 0;
        let mut b = a.clone();
        b.tracks[0][1] = 3;
        b.current = 1;
        let reads = |parts: Vec<Part>| Reads { parts, everything: false };
        assert!(reads(vec![Part::Track(0, Some(0)), Part::Track(1, None)]).agree(&a, &b));
        assert!(!reads(vec![Part::Track(0, Some(1))]).agree(&a, &b));
        assert!(!reads(vec![Part::Track(0, None)]).agree(&a, &b));
        assert!(!reads(vec![Part::Current]).agree(&a, &b));
        assert!(!Reads { parts: Vec::new(), everything: true }.agree(&a, &a));
    }
}
