//! The vectors of an answered decision, kept per thread for the next decision the flow opens:
//! a decision's seats, answers and option lists are built anew at every decision, and most
//! games ask one decision after another. They are kept in the answered decision's box (a
//! `RefCell` per thread), so keeping and taking one moves no more than a pointer or a vector.

use crate::state::{Pending, SeatOptions};
use crate::value::Value;
use std::cell::RefCell;

/// Option lists kept at most (one per seat of the largest decision that is usual).
const MAX_LISTS: usize = 8;

/// Emptied vectors of answered decisions.
#[derive(Default)]
struct Buffers {
    /// An answered decision's box, its lists emptied (those taken for the next decision are
    /// left empty without room). The option lists stay in their outer list, holding at most
    /// [`MAX_LISTS`] inner lists, each emptied (filled in turn by the next decision's seats).
    pending: Option<Box<Pending>>,
    /// A second answered decision's box, kept as it is: a decision is opened while the one
    /// answered is resolved, before its box comes back, so a flow of decisions uses two boxes
    /// (and a series of games keeps both from one game to the next).
    second: Option<Box<Pending>>,
    /// For the cards played to a trick.
    plays: Vec<(usize, u32)>,
}

thread_local! {
    static SPARE: RefCell<Buffers> = RefCell::new(Buffers::default());
}

/// A pending decision asking nobody yet, with empty lists.
fn empty() -> Box<Pending> {
    Box::new(Pending {
        decision: 0,
        commit: false,
        players: Vec::new(),
        options: Vec::new(),
        chosen: Vec::new(),
        ctx: Value::Unit,
        building: Vec::new(),
    })
}

/// Runs `f` on the kept box, when there is one.
fn with_kept<T: Default>(f: impl FnOnce(&mut Pending) -> T) -> T {
    SPARE.with_borrow_mut(|b| b.pending.as_deref_mut().map(f).unwrap_or_default())
}

/// An empty list for the seats of a decision (a kept one when there is one).
pub(super) fn players() -> Vec<usize> {
    with_kept(|p| std::mem::take(&mut p.players))
}

/// A box for a pending decision to fill in place: the kept one when there is one (its lists
/// emptied, with their room; its option lists emptied in their outer list), else a new one.
pub(super) fn pending() -> Box<Pending> {
    SPARE.with_borrow_mut(|b| b.pending.take().or_else(|| b.second.take())).unwrap_or_else(empty)
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

/// Keeps an answered decision's box and its lists, emptied (its options are let go of).
pub(crate) fn recycle(mut pending: Box<Pending>) {
    let p = &mut *pending;
    p.players.clear();
    p.chosen.clear();
    p.options.truncate(MAX_LISTS);
    p.options.iter_mut().for_each(SeatOptions::clear);
    p.ctx.set(Value::Unit);
    p.building.clear();
    SPARE.with_borrow_mut(|kept| match (kept.pending.as_deref_mut(), &kept.second) {
        (None, _) => kept.pending = Some(pending),
        (Some(_), None) => kept.second = Some(pending),
        (Some(k), Some(_)) => {
            let Pending { players, chosen, options, .. } = *pending;
            keep_lists(k, players, chosen, options);
        }
    });
}

/// Keeps emptied lists in the kept box, where they have more room than the ones there.
fn keep_lists(kept: &mut Pending, players: Vec<usize>, chosen: Vec<Option<usize>>, options: Vec<SeatOptions>) {
    keep_larger(&mut kept.players, players);
    keep_larger(&mut kept.chosen, chosen);
    if options.len() >= kept.options.len() {
        kept.options = options;
    }
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
    use crate::state::Choice;

    #[test]
    fn an_answered_decision_leaves_its_box_and_vectors_empty_for_the_next() {
        let pending = Box::new(Pending {
            decision: 0,
            commit: true,
            players: vec![0, 1],
            options: vec![
                SeatOptions::from_choices(vec![Choice::Component(3), Choice::Component(4)]),
                SeatOptions::from_choices(vec![Choice::Component(5)]),
            ],
            chosen: vec![Some(0), Some(1)],
            ctx: Value::Int(7),
            building: vec![vec![3]],
        });
        let address = &*pending as *const Pending;
        recycle(pending);
        let next = super::pending();
        assert_eq!(&*next as *const Pending, address, "the next decision fills the kept box");
        assert!(next.players.is_empty() && next.players.capacity() >= 2);
        assert!(next.chosen.is_empty() && next.chosen.capacity() >= 2);
        assert_eq!(next.options.len(), 2, "the two option lists are kept in their outer list");
        assert!(next.options.iter().all(|l| l.is_empty() && l.room() >= 1));
        assert!(next.ctx == Value::Unit && next.building.is_empty());
        let fresh = super::pending();
        assert_ne!(&*fresh as *const Pending, address, "the kept box is taken once");
        assert!(fresh.players.capacity() == 0 && fresh.options.is_empty());
    }

    #[test]
    fn two_answered_decisions_keep_their_boxes_and_a_third_gives_its_lists() {
        let answered = |seats: usize| {
            let mut p = super::pending();
            p.players.extend(0..seats);
            p.chosen.extend((0..seats).map(Some));
            p
        };
        let (first, second, third) = (answered(1), answered(2), answered(9));
        let addresses = [&*first as *const Pending, &*second as *const Pending];
        recycle(first);
        recycle(second);
        // The third box goes, its longer lists kept in the first box.
        recycle(third);
        let (a, b) = (super::pending(), super::pending());
        assert_eq!([&*a as *const Pending, &*b as *const Pending], addresses, "both boxes kept, the first first");
        assert!(a.players.capacity() >= 9 && a.chosen.capacity() >= 9, "the longer lists are kept");
        assert!(b.players.is_empty() && b.players.capacity() >= 2);
    }
}
