//! One answer applied to a state, in place: what a session does with a legal choice, and what
//! [`super::rollback`] does again when it replays the answers since its checkpoint. Both must
//! change the state alike, so both run this code.

use crate::error::PlayError;
use crate::log::{Event, EventKind};
use crate::script::Work;
use crate::state::{Moved, Pending, SeatOptions, State};
use crate::Game;

/// A legal answer as the session applied it: who, which option, and the session's modes at
/// that moment (they decide what the state records: logged bytes, the trace).
#[derive(Clone, Copy, Debug)]
pub(super) struct Answer {
    /// The seat answering.
    pub player: usize,
    /// Its place among the pending decision's seats (found once, by the session's checks).
    pub slot: usize,
    /// The index of its option.
    pub index: usize,
    /// Whether the session recorded its log.
    pub logging: bool,
    /// Whether the session followed what each seat knows (the state records a trace).
    pub tracking: bool,
    /// Whether the session keeps its moves (the answer gives its option's id).
    pub keeping_moves: bool,
    /// Whether it is a hidden commit that other seats still have to make, and so is only
    /// recorded ([`only_recorded`], asked once by the session's checks: a replay of the answer
    /// finds the same state).
    pub waits: bool,
}

/// What an answer produced besides the new state, filled in by [`apply`] (an out-parameter:
/// moving it back through the calls cost more than the fields it mostly leaves empty).
#[derive(Default)]
pub(super) struct Answered {
    /// The option's id, when the session keeps its moves (for the history).
    pub id: Option<std::sync::Arc<str>>,
    /// The option's label, when logging.
    pub label: Option<String>,
    /// Log events.
    pub events: Vec<Event>,
    /// The components moved, when tracking.
    pub moves: Option<Vec<Moved>>,
}

/// Gives the state as it was before the answer, for a transaction that must run again
/// ([`crate::script::transaction`]).
pub(super) type Fresh<'a> = dyn FnMut() -> Result<Box<State>, PlayError> + 'a;

/// Applies `answer`, which the caller checked is legal, to `state` in place, and fills in
/// `answered`. `stand_in` holds the state's place while the flow works on it (see
/// [`on_work`]). On error `state` is half-changed: the caller puts back the one before.
pub(super) fn apply(
    game: &Game,
    state: &mut Box<State>,
    stand_in: &mut Option<Box<State>>,
    answer: Answer,
    fresh: &mut Fresh,
    answered: &mut Answered,
) -> Result<(), PlayError> {
    let Answer { player, slot, index, logging, tracking, keeping_moves, waits } = answer;
    let r = &game.rules;
    let Some(pending) = state.pending.as_ref().filter(|p| p.players.get(slot) == Some(&player)) else {
        return Err(not_deciding(r, player));
    };
    if let Some(card) = pending.options[slot].added(index) {
        return add_to_set(game, state, stand_in, answer, card, fresh, answered);
    }
    answered.id = keeping_moves.then(|| game.choice_shared_id(state, &pending.options[slot].at(index)));
    if logging {
        log_answer(game, state, answer, answered)?;
    }
    if waits {
        record_commit(state, answer);
        return Ok(());
    }
    // The pending decision is moved out of the state while it is resolved.
    let mut pending = state.pending.take().expect("checked");
    pending.chosen[slot] = Some(index);
    let mut events = Vec::new();
    let result = on_work(state, stand_in, logging, fresh, &mut events, |work| {
        work.state.pending = None;
        if tracking {
            work.state.trace = Some(Vec::new());
        }
        if !answered.events.is_empty() {
            work.events = answered.events.clone();
        }
        work.state.steps = 0;
        work.state.seat_answered(player);
        game.resolve(work, &pending).and_then(|()| game.advance(work))
    });
    crate::flow::recycle::recycle(pending);
    result?;
    answered.moves = state.trace.take();
    answered.events = events;
    Ok(())
}

/// The error of a seat that has no decision to make now.
#[cold]
#[inline(never)]
pub(super) fn not_deciding(rules: &crate::rules::Rules, player: usize) -> PlayError {
    PlayError::Illegal(format!("{} does not decide now", rules.seat_name(player)))
}

/// Fills in the label of a legal answer and, for a commit, the line saying the seat
/// committed (its option shown to that seat alone). Kept out of [`apply`], which mostly runs
/// without a log.
#[cold]
#[inline(never)]
fn log_answer(game: &Game, state: &State, answer: Answer, answered: &mut Answered) -> Result<(), PlayError> {
    let Answer { player, slot, index, .. } = answer;
    let r = &game.rules;
    let pending = state.pending.as_ref().expect("checked");
    let label = game.choice_label(state, pending.asked(slot), &pending.options[slot].at(index))?;
    if pending.commit {
        let who = r.seat_name(player);
        let name = &r.decisions[pending.decision].name;
        answered.events.push(Event::private(
            EventKind::Commit,
            vec![player],
            format!("{who} committed {label} ({name})"),
            Some(format!("{who} committed ({name})")),
        ));
    }
    answered.label = Some(label);
    Ok(())
}

/// Whether option `index` of the seat at `slot` (a legal answer: the caller checked it) to
/// `pending` is a hidden commit that other seats still have to make: then it is only recorded
/// ([`record_commit`]).
#[inline(always)]
pub(super) fn only_recorded(pending: &Pending, slot: usize, index: usize) -> bool {
    if !pending.commit || pending.options[slot].added(index).is_some() {
        return false;
    }
    let mut waiting = 0;
    for c in &pending.chosen {
        waiting += usize::from(c.is_none());
    }
    waiting > 1
}

/// Records a hidden commit that other seats still have to make ([`only_recorded`]): this
/// cannot fail and runs no script.
#[inline]
pub(super) fn record_commit(state: &mut State, answer: Answer) {
    state.pending.as_mut().expect("checked").chosen[answer.slot] = Some(answer.index);
    state.seat_answered(answer.player);
}

/// Runs `body` in a transaction on `state`, lent to a work while the stand-in (a kept empty
/// state, or one made when there is none) holds its place; when the transaction runs again, it
/// runs on the state before the answer (`fresh`). Gives the state back, half-changed on error,
/// and puts the work's log events in `events`.
#[inline(always)]
fn on_work<T>(
    state: &mut Box<State>,
    stand_in: &mut Option<Box<State>>,
    logging: bool,
    fresh: &mut Fresh,
    events: &mut Vec<Event>,
    mut body: impl FnMut(&mut Work) -> Result<T, PlayError>,
) -> Result<T, PlayError> {
    let place = stand_in.take().unwrap_or_else(|| Box::new(State::empty()));
    let mut work = Work::new(std::mem::replace(state, place), logging);
    let mut first = true;
    let result = crate::script::transaction(|| {
        if !std::mem::take(&mut first) {
            // Running again: on the state before the answer.
            work = Work::new(fresh()?, logging);
        }
        body(&mut work)
    });
    *stand_in = Some(std::mem::replace(state, work.state));
    *events = work.events;
    result
}

/// One step of a `subset` decision: the component joins the seat's set and its options are
/// worked out anew. Nothing is logged (the finished set is).
fn add_to_set(
    game: &Game,
    state: &mut Box<State>,
    stand_in: &mut Option<Box<State>>,
    answer: Answer,
    card: u32,
    fresh: &mut Fresh,
    answered: &mut Answered,
) -> Result<(), PlayError> {
    let Answer { player, slot, logging, keeping_moves, .. } = answer;
    let pending = state.pending.as_ref().expect("checked");
    let (decision, ctx) = (pending.decision, pending.ctx.clone());
    let mut building = pending.building.get(slot).cloned().unwrap_or_default();
    building.push(card);
    let mut options = SeatOptions::default();
    on_work(state, stand_in, logging, fresh, &mut Vec::new(), |work| {
        work.state.steps = 0;
        // A rerun starts from an empty list again.
        options.clear();
        game.options_building(work, decision, player, &ctx, &building, &mut options)
    })?;
    state.seat_answered(player);
    let p = state.pending.as_mut().expect("still pending");
    p.options[slot] = options;
    if let Some(b) = p.building.get_mut(slot) {
        *b = building;
    }
    let component = &state.components.list[card as usize];
    answered.id = keeping_moves.then(|| component.shared_id().clone());
    answered.label = logging.then(|| component.label().to_string());
    Ok(())
}
