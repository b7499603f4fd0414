//! The vectors of an answered decision, kept per thread for the next decision the flow opens:
//! a decision's seats, answers and option lists are built anew at every decision, and most
//! games ask one decision after another.

use crate::state::{Choice, Pending};
use std::cell::Cell;

/// Option lists kept at most (one per seat of the largest decision that is usual).
const MAX_LISTS: usize = 8;

/// Emptied vectors of answered decisions.
#[derive(Default)]
pub(super) struct Buffers {
    /// For the seats asked.
    pub players: Vec<usize>,
    /// For the answers.
    pub chosen: Vec<Option<usize>>,
    /// For the option lists (the outer list).
    pub options: Vec<Vec<Choice>>,
    /// Option lists, each empty.
    pub lists: Vec<Vec<Choice>>,
}

thread_local! {
    static SPARE: Cell<Option<Buffers>> = const { Cell::new(None) };
}

/// This thread's kept vectors (empty ones when there are none).
pub(super) fn take() -> Buffers {
    SPARE.with(Cell::take).unwrap_or_default()
}

/// Keeps what is left of `buffers` for the next decision.
pub(super) fn keep(buffers: Buffers) {
    SPARE.with(|s| s.set(Some(buffers)));
}

/// Keeps the vectors of an answered decision (its options are let go of).
pub(crate) fn recycle(pending: Pending) {
    let Pending { mut players, mut options, mut chosen, .. } = pending;
    let mut kept = take();
    players.clear();
    chosen.clear();
    for mut list in options.drain(..) {
        if kept.lists.len() < MAX_LISTS {
            list.clear();
            kept.lists.push(list);
        }
    }
    (kept.players, kept.chosen, kept.options) = (players, chosen, options);
    keep(kept);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    #[test]
    fn an_answered_decision_leaves_its_vectors_empty_for_the_next() {
        let pending = Pending {
            decision: 0,
            commit: true,
            players: vec![0, 1],
            options: vec![vec![Choice::Component(3), Choice::Component(4)], vec![Choice::Component(5)]],
            chosen: vec![Some(0), Some(1)],
            ctx: Value::Unit,
            building: Vec::new(),
        };
        recycle(pending);
        let b = take();
        assert!(b.players.is_empty() && b.players.capacity() >= 2);
        assert!(b.chosen.is_empty() && b.chosen.capacity() >= 2);
        assert!(b.options.is_empty() && b.options.capacity() >= 2);
        assert_eq!(b.lists.len(), 2);
        assert!(b.lists.iter().all(|l| l.is_empty() && l.capacity() >= 1));
        assert!(take().lists.is_empty(), "taken once");
    }
}
