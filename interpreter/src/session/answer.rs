//! One answer applied to a state, in place: what a session does with a legal choice, and what
//! [`super::rollback`] does again when it replays the answers since its checkpoint. Both must
//! change the state alike, so both run this code.

use crate::error::PlayError;
use crate::log::{Event, EventKind};
use crate::script::Work;
use crate::state::{Choice, Moved, State};
use crate::Game;

/// A legal answer as the session applied it: who, which option, and the session's modes at
/// that moment (they decide what the state records: logged bytes, the trace).
#[derive(Clone, Copy, Debug)]
pub(super) struct Answer {
    /// The seat answering.
    pub player: usize,
    /// The index of its option.
    pub index: usize,
    /// Whether the session recorded its log.
    pub logging: bool,
    /// Whether the session followed what each seat knows (the state records a trace).
    pub tracking: bool,
    /// Whether the session keeps its moves (the answer gives its option's id).
    pub keeping_moves: bool,
}

/// What an answer produced besides the new state.
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

/// Applies `answer`, which the caller checked is legal, to `state` in place and gives the state
/// back. On error the state given back is half-changed: the caller puts back the one before.
pub(super) fn apply(
    game: &Game,
    mut state: Box<State>,
    answer: Answer,
    fresh: &mut Fresh,
) -> (Box<State>, Result<Answered, PlayError>) {
    let Answer { player, index, logging, tracking, keeping_moves } = answer;
    let r = &game.rules;
    let Some(pending) = state.pending.as_ref() else {
        return (state, Err(PlayError::Illegal(format!("{} does not decide now", r.seat_name(player)))));
    };
    let Some(slot) = pending.players.iter().position(|x| *x == player) else {
        return (state, Err(PlayError::Illegal(format!("{} does not decide now", r.seat_name(player)))));
    };
    let choice = &pending.options[slot][index];
    if let Choice::Add(card) = *choice {
        return add_to_set(game, state, answer, slot, card, fresh);
    }
    let id = keeping_moves.then(|| game.choice_shared_id(&state, choice));
    let label = match logging.then(|| game.choice_label(&state, pending.asked(slot), choice)).transpose() {
        Ok(label) => label,
        Err(e) => return (state, Err(e)),
    };
    let mut events = Vec::new();
    if let (true, Some(label)) = (pending.commit, &label) {
        let who = r.seat_name(player);
        let name = &r.decisions[pending.decision].name;
        events.push(Event::private(
            EventKind::Commit,
            vec![player],
            format!("{who} committed {label} ({name})"),
            Some(format!("{who} committed ({name})")),
        ));
    }
    let remaining = pending.chosen.iter().filter(|c| c.is_none()).count();
    if pending.commit && remaining > 1 {
        // Recording one hidden commit cannot fail and runs no script.
        state.pending.as_mut().expect("checked").chosen[slot] = Some(index);
        state.seat_answered(player);
        return (state, Ok(Answered { id, label, events, moves: None }));
    }
    // The pending decision is moved out of the state while it is resolved.
    let mut pending = state.pending.take().expect("checked");
    pending.chosen[slot] = Some(index);
    let mut first = Some(state);
    let (mut work, result) = crate::script::transaction(|| {
        let mut work = match first.take().map_or_else(&mut *fresh, Ok) {
            Ok(mut state) => {
                state.pending = None;
                Work::new(state, logging)
            }
            Err(e) => return (Work::new(Box::new(State::empty()), logging), Err(e)),
        };
        if tracking {
            work.state.trace = Some(Vec::new());
        }
        if !events.is_empty() {
            work.events = events.clone();
        }
        work.state.steps = 0;
        work.state.seat_answered(player);
        let result = game.resolve(&mut work, &pending).and_then(|()| game.advance(&mut work));
        (work, result)
    });
    crate::flow::recycle::recycle(pending);
    let moves = work.state.trace.take();
    let result = result.map(|()| Answered { id, label, events: std::mem::take(&mut work.events), moves });
    (work.state, result)
}

/// One step of a `subset` decision: the component joins the seat's set and its options are
/// worked out anew. Nothing is logged (the finished set is).
fn add_to_set(
    game: &Game,
    state: Box<State>,
    answer: Answer,
    slot: usize,
    card: u32,
    fresh: &mut Fresh,
) -> (Box<State>, Result<Answered, PlayError>) {
    let Answer { player, logging, keeping_moves, .. } = answer;
    let pending = state.pending.as_ref().expect("checked");
    let (decision, ctx) = (pending.decision, pending.ctx.clone());
    let mut building = pending.building.get(slot).cloned().unwrap_or_default();
    building.push(card);
    let mut first = Some(state);
    let (mut work, options) = crate::script::transaction(|| {
        let mut work = match first.take().map_or_else(&mut *fresh, Ok) {
            Ok(state) => Work::new(state, logging),
            Err(e) => return (Work::new(Box::new(State::empty()), logging), Err(e)),
        };
        work.state.steps = 0;
        let options = game.options_building(&mut work, decision, player, &ctx, &building, Vec::new());
        (work, options)
    });
    let options = match options {
        Ok(options) => options,
        Err(e) => return (work.state, Err(e)),
    };
    let state = &mut work.state;
    state.seat_answered(player);
    let p = state.pending.as_mut().expect("still pending");
    p.options[slot] = options;
    if let Some(b) = p.building.get_mut(slot) {
        *b = building;
    }
    let component = &state.components.list[card as usize];
    let answered = Answered {
        id: keeping_moves.then(|| component.shared_id().clone()),
        label: logging.then(|| component.label().to_string()),
        events: Vec::new(),
        moves: None,
    };
    (work.state, Ok(answered))
}
