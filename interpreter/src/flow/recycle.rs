//! The vectors of an answered decision, kept per thread for the next decision the flow opens:
//! a decision's seats, answers and option lists are built anew at every decision, and most
//! games ask one decision after another. They are kept where they lie (a `RefCell` per
//! thread), so keeping and taking one moves no more than the vector itself.

use crate::state::{Choice, Pending};
use std::cell::RefCell;

/// Option lists kept at most (one per seat of the largest decision that is usual).
const MAX_LISTS: usize = 8;

/// Emptied vectors of answered decisions.
#[derive(Default)]
struct Buffers {
    /// For the seats asked.
    players: Vec<usize>,
    /// For the answers.
    chosen: Vec<Option<usize>>,
    /// For the option lists (the outer list).
    options: Vec<Vec<Choice>>,
    /// Option lists, each empty.
    lists: Vec<Vec<Choice>>,
    /// For the cards played to a trick.
    plays: Vec<(usize, u32)>,
}

thread_local! {
    static SPARE: RefCell<Buffers> = RefCell::new(Buffers::default());
}

/// An empty list for the seats of a decision (a kept one when there is one).
pub(super) fn players() -> Vec<usize> {
    SPARE.with_borrow_mut(|b| std::mem::take(&mut b.players))
}

/// Empty lists for the answers and the option lists of a decision (kept ones when there are).
pub(super) fn answers_and_options() -> (Vec<Option<usize>>, Vec<Vec<Choice>>) {
    SPARE.with_borrow_mut(|b| (std::mem::take(&mut b.chosen), std::mem::take(&mut b.options)))
}

/// An empty option list (a kept one when there is one).
pub(super) fn list() -> Vec<Choice> {
    SPARE.with_borrow_mut(|b| b.lists.pop()).unwrap_or_default()
}

/// An empty list for the cards played to a trick (the last trick's, when there is one).
pub(crate) fn plays() -> Vec<(usize, u32)> {
    SPARE.with_borrow_mut(|b| std::mem::take(&mut b.plays))
}

/// Keeps the list of a finished trick's plays, emptied, for the next trick.
pub(crate) fn keep_plays(mut plays: Vec<(usize, u32)>) {
    plays.clear();
    SPARE.with_borrow_mut(|kept| keep_larger(&mut kept.plays, plays));
}

/// Keeps the vectors of an answered decision (its options are let go of).
pub(crate) fn recycle(pending: Pending) {
    let Pending { players, options, chosen, .. } = pending;
    keep(players, chosen, options);
}

/// Keeps a decision's seat, answer and option lists, emptied (for an answered decision, or
/// one that asked nobody after all).
pub(super) fn keep(mut players: Vec<usize>, mut chosen: Vec<Option<usize>>, mut options: Vec<Vec<Choice>>) {
    players.clear();
    chosen.clear();
    SPARE.with_borrow_mut(|kept| {
        for mut list in options.drain(..) {
            if kept.lists.len() < MAX_LISTS {
                list.clear();
                kept.lists.push(list);
            }
        }
        keep_larger(&mut kept.players, players);
        keep_larger(&mut kept.chosen, chosen);
        keep_larger(&mut kept.options, options);
    });
}

/// Keeps `v` in `kept` unless `kept` already has room of its own.
fn keep_larger<T>(kept: &mut Vec<T>, v: Vec<T>) {
    if v.capacity() > kept.capacity() {
        *kept = v;
    }
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
        let players = super::players();
        assert!(players.is_empty() && players.capacity() >= 2);
        let (chosen, options) = answers_and_options();
        assert!(chosen.is_empty() && chosen.capacity() >= 2);
        assert!(options.is_empty() && options.capacity() >= 2);
        let lists = [list(), list()];
        assert!(lists.iter().all(|l| l.is_empty() && l.capacity() >= 1));
        assert_eq!(list().capacity(), 0, "two lists kept, each taken once");
        assert_eq!(super::players().capacity(), 0, "taken once");
    }
}
