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
    /// For the option lists: the outer list, holding at most [`MAX_LISTS`] inner lists, each
    /// emptied (taken in turn by [`take_list`]).
    options: Vec<Vec<Choice>>,
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

/// An empty list for the answers of a decision, and a list for its option lists that may hold
/// emptied option lists to fill (see [`take_list`]); kept ones when there are.
pub(super) fn answers_and_options() -> (Vec<Option<usize>>, Vec<Vec<Choice>>) {
    SPARE.with_borrow_mut(|b| (std::mem::take(&mut b.chosen), std::mem::take(&mut b.options)))
}

/// The emptied list at `at` of `options` (from [`answers_and_options`]) to fill, or a new one
/// past its end. The filled list goes back with [`put_list`].
pub(super) fn take_list(options: &mut [Vec<Choice>], at: usize) -> Vec<Choice> {
    options.get_mut(at).map(std::mem::take).unwrap_or_default()
}

/// Puts the filled option list of the seat at `at` in place.
pub(super) fn put_list(options: &mut Vec<Vec<Choice>>, at: usize, list: Vec<Choice>) {
    match options.get_mut(at) {
        Some(place) => *place = list,
        None => options.push(list),
    }
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
/// one that asked nobody after all). The option lists stay in their outer list.
pub(super) fn keep(mut players: Vec<usize>, mut chosen: Vec<Option<usize>>, mut options: Vec<Vec<Choice>>) {
    players.clear();
    chosen.clear();
    options.truncate(MAX_LISTS);
    options.iter_mut().for_each(Vec::clear);
    SPARE.with_borrow_mut(|kept| {
        keep_larger(&mut kept.players, players);
        keep_larger(&mut kept.chosen, chosen);
        if options.len() >= kept.options.len() {
            kept.options = options;
        }
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
        let (chosen, mut options) = answers_and_options();
        assert!(chosen.is_empty() && chosen.capacity() >= 2);
        assert_eq!(options.len(), 2, "the two option lists are kept in their outer list");
        let lists = [take_list(&mut options, 0), take_list(&mut options, 1)];
        assert!(lists.iter().all(|l| l.is_empty() && l.capacity() >= 1));
        assert_eq!(take_list(&mut options, 2).capacity(), 0, "a new list past the kept ones");
        let [first, second] = lists;
        put_list(&mut options, 1, second);
        put_list(&mut options, 0, first);
        put_list(&mut options, 2, vec![Choice::Component(7)]);
        assert_eq!(options.len(), 3, "filled in place, then added");
        assert_eq!(super::players().capacity(), 0, "taken once");
        assert!(answers_and_options().1.is_empty(), "taken once");
    }
}
