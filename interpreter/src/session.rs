//! [`Session`]: one game being played. The narrow interface every front end, bot, test and
//! replay uses: who must decide, their legal options, applying a decision, the view of a
//! seat, the log and the outcome.

use crate::error::PlayError;
use crate::grid::{Entry, Piece, Pieces, Placed};
use crate::knowledge::Knowledge;
use crate::log::Event;
use crate::script::Work;
use crate::state::{Outcome, State};
use crate::view::{DerivedValues, View};
use crate::Game;
use serde::Serialize;

mod answer;
mod rollback;
pub(crate) use rollback::Origin;

use answer::{Answer, Answered};
use rollback::Rollback;

/// A legal option of a pending decision, as shown to the player who must choose.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OptionInfo {
    /// Stable id (use it in transcripts and scenarios).
    pub id: String,
    /// Human label.
    pub label: String,
}

/// One applied decision, as recorded for replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Move {
    /// Seat.
    pub player: usize,
    /// Option id (shared with the component chosen, when the option is one).
    pub option: std::sync::Arc<str>,
    /// The option's label, when the session records its log (for readable transcripts).
    pub label: Option<String>,
}

/// A game in progress. A clone is an independent copy (for checks and search); `clone_from`
/// makes the copy in the buffers the session already has (a search that tries option after
/// option in a copy of one position allocates its states once).
pub struct Session<'g> {
    game: &'g Game,
    /// Boxed: transactions swap it with their copy (see [`Work::state`]).
    state: Box<State>,
    log: Vec<Event>,
    history: Vec<Move>,
    /// Whether answers are kept in `history` (see [`Session::forget_moves`]).
    keeping_moves: bool,
    /// Answers applied since the start (the history's length, when it keeps them).
    answers: u64,
    logging: bool,
    seed: u64,
    /// The derived vars of the current state, computed as read; every `&mut self` method
    /// that can change the state starts afresh ([`Session::changed`]).
    derived: DerivedValues,
    /// An empty state that holds the session's place while its state is being changed.
    stand_in: StandIn,
    /// How a failed answer is taken back (see [`rollback`]).
    rollback: Rollback,
    /// What each seat knows of where components are, when the session follows it (search
    /// bots sample hidden information from it; see [`Session::new_tracked`]).
    knowledge: Option<Box<Knowledge>>,
}

impl Clone for Session<'_> {
    fn clone(&self) -> Self {
        Session {
            game: self.game,
            state: self.state.clone(),
            log: self.log.clone(),
            history: self.history.clone(),
            keeping_moves: self.keeping_moves,
            answers: self.answers,
            logging: self.logging,
            seed: self.seed,
            derived: self.derived.clone(),
            stand_in: self.stand_in.clone(),
            rollback: self.rollback.clone(),
            knowledge: self.knowledge.clone(),
        }
    }

    /// The copy made in this session's buffers: its state, log, history and knowledge keep
    /// their room (and its stand-in stays its own).
    fn clone_from(&mut self, source: &Self) {
        // Every field named (a field added later must say how it is copied).
        let Session {
            game,
            state,
            log,
            history,
            keeping_moves,
            answers,
            logging,
            seed,
            derived,
            stand_in: _,
            rollback,
            knowledge,
        } = source;
        self.game = game;
        (*self.state).clone_from(state);
        self.log.clone_from(log);
        self.history.clone_from(history);
        self.keeping_moves = *keeping_moves;
        self.answers = *answers;
        self.logging = *logging;
        self.seed = *seed;
        self.derived.clone_from(derived);
        self.rollback.clone_from(rollback);
        self.knowledge.clone_from(knowledge);
    }
}

/// A state kept only to hold a place (see [`Session::stand_in`]). Copies of a session do not
/// copy it.
#[derive(Default)]
struct StandIn(Option<Box<State>>);

impl Clone for StandIn {
    fn clone(&self) -> Self {
        StandIn(None)
    }
}

/// A point of a session to come back to, for tree search: the state, and how far the log and
/// the history had got. Taking one copies the state only; [`Session::restore`] copies it back
/// into the session's own buffers and cuts the log and history back.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Shared with the sessions restored to it (their rollback starts from it).
    state: std::sync::Arc<State>,
    log: usize,
    history: usize,
    answers: u64,
    knowledge: Option<Box<Knowledge>>,
}

thread_local! {
    /// The state of the last session dropped on this thread, whose buffers the next game
    /// started here copies its initial state into (see [`Game::initial_state_in`]).
    static SPARE_STATE: std::cell::Cell<Option<Box<State>>> = const { std::cell::Cell::new(None) };
}

/// A dropped session leaves its state's buffers to the next game started on its thread (when
/// it has a stand-in to leave in their place: every session that answered a decision).
impl Drop for Session<'_> {
    fn drop(&mut self) {
        if let Some(stand_in) = self.stand_in.0.take() {
            let state = std::mem::replace(&mut self.state, stand_in);
            let _ = SPARE_STATE.try_with(|s| s.set(Some(state)));
        }
    }
}

/// A copy of `source` made in the buffers of the last session dropped on this thread, when
/// there is one (a search's samples, made and dropped one after the other, then allocate
/// almost nothing).
pub(crate) fn copy_in_spare(source: &State) -> Box<State> {
    match SPARE_STATE.with(std::cell::Cell::take) {
        Some(mut spare) => {
            (*spare).clone_from(source);
            spare
        }
        None => Box::new(source.clone()),
    }
}

/// A game started: the initial state, setup run and the flow advanced to the first decision
/// (the state still holds its trace when tracking), and the knowledge followed from there.
fn started(game: &Game, start: &rollback::Start) -> Result<(Work, Option<Box<Knowledge>>), PlayError> {
    let r = &game.rules;
    crate::script::transaction(|| -> Result<_, PlayError> {
        let into = SPARE_STATE.with(std::cell::Cell::take).unwrap_or_else(|| Box::new(State::empty()));
        let mut work = Work::new(game.initial_state_in(start.players, start.seed, into)?, start.logging);
        work.state.forced_draws = start.draws.iter().rev().copied().collect();
        let knowledge = start.track.then(|| Box::new(Knowledge::new(r, &work.state)));
        if start.track {
            work.state.trace = Some(Vec::new());
        }
        work.state.stack.push(crate::state::Frame::Phase { phase: r.start, step: 0, pos: 0, pass: 0, begun: false });
        if let Some(setup) = &r.setup {
            let _ = game.call(&mut work, setup, vec![], &crate::value::Value::Unit)?;
        }
        game.advance(&mut work)?;
        Ok((work, knowledge))
    })
}

impl<'g> Session<'g> {
    /// Starts a game: creates the state, runs setup and the flow up to the first decision.
    pub fn new(game: &'g Game, players: usize, seed: u64, logging: bool) -> Result<Session<'g>, PlayError> {
        Session::start(game, players, seed, logging, false, &[])
    }

    /// Like [`Session::new`], and the session follows what each seat knows of where the
    /// components are ([`Knowledge`]), which [`crate::determinize`] needs to sample what a
    /// seat cannot see. Costs a little on every decision; simulations turn it on only for
    /// search bots.
    pub fn new_tracked(game: &'g Game, players: usize, seed: u64, logging: bool) -> Result<Session<'g>, PlayError> {
        Session::start(game, players, seed, logging, true, &[])
    }

    /// Like [`Session::new`] (with a log), the first chance draws fixed: the draws the game
    /// makes as it starts (dice rolled at setup) and after take these results in turn (see
    /// [`Session::fix_draws`]). A scenario's `draws` line before anything else starts the game
    /// this way.
    pub fn new_with_draws(game: &'g Game, players: usize, seed: u64, draws: &[i64]) -> Result<Session<'g>, PlayError> {
        Session::start(game, players, seed, true, false, draws)
    }

    fn start(
        game: &'g Game,
        players: usize,
        seed: u64,
        logging: bool,
        track: bool,
        draws: &[i64],
    ) -> Result<Session<'g>, PlayError> {
        let r = &game.rules;
        if players < r.min_players || players > r.max_players {
            return Err(PlayError::Players(format!(
                "{} is for {}–{} players, not {players}",
                r.title, r.min_players, r.max_players
            )));
        }
        if let Some(c) = r.player_checks.iter().find(|c| !c.holds(&r.params, players)) {
            let say = if c.message.is_empty() { String::new() } else { format!(": {}", c.message) };
            return Err(PlayError::Players(format!(
                "{} cannot start with {players} players: the check `{}` does not hold{say}",
                r.title, c.check
            )));
        }
        let start = rollback::Start { players, seed, logging, track, draws: draws.to_vec() };
        let (work, mut knowledge) = started(game, &start)?;
        let mut state = work.state;
        if let (Some(k), Some(moves)) = (knowledge.as_mut(), state.trace.take()) {
            k.absorb(r, &state, &moves);
        }
        Ok(Session {
            game,
            state,
            log: work.events,
            // Made with room for a short game's moves at the first answer it keeps (see
            // `Session::apply_index`), unless the session stops keeping them before.
            history: Vec::new(),
            keeping_moves: true,
            answers: 0,
            logging,
            seed,
            derived: DerivedValues::default(),
            stand_in: StandIn::default(),
            rollback: Rollback::from_start(start),
            knowledge,
        })
    }

    /// A session around a state made elsewhere (a determinization: see
    /// [`crate::determinize`]), with no log, no history and no knowledge followed. `origin`
    /// makes the state again from `key` (its rollback keeps no copy of it).
    pub(crate) fn from_state(
        game: &'g Game,
        state: Box<State>,
        seed: u64,
        origin: std::sync::Arc<dyn rollback::Origin>,
        key: u64,
    ) -> Session<'g> {
        Session {
            game,
            state,
            log: Vec::new(),
            history: Vec::new(),
            keeping_moves: true,
            answers: 0,
            logging: false,
            seed,
            derived: DerivedValues::default(),
            stand_in: StandIn::default(),
            rollback: Rollback::from_origin(origin, key),
            knowledge: None,
        }
    }

    /// The state, to change by hand (tests that build a situation no game reaches).
    #[cfg(test)]
    pub(crate) fn state_mut(&mut self) -> &mut State {
        self.changed();
        &mut self.state
    }

    /// What each seat knows of where the components are, if the session follows it.
    pub fn knowledge(&self) -> Option<&Knowledge> {
        self.knowledge.as_deref()
    }

    /// The game being played.
    pub fn game(&self) -> &'g Game {
        self.game
    }

    /// The seed the game started with.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Number of seats.
    pub fn players(&self) -> usize {
        self.state.players
    }

    /// The full state (omniscient: for tests, hashing and tools, never for players or bots).
    pub fn state(&self) -> &State {
        &self.state
    }

    /// Decisions applied so far (all of them, unless the session stopped keeping its moves:
    /// see [`Session::forget_moves`]).
    pub fn history(&self) -> &[Move] {
        &self.history
    }

    /// Answers applied since the start: the history's length, unless the session stopped
    /// keeping its moves ([`Session::forget_moves`]).
    pub fn answers(&self) -> u64 {
        self.answers
    }

    /// Stops keeping the moves from now on: [`Session::history`] keeps those made so far and
    /// grows no more. A simulation that reads only how a game ends saves recording each
    /// answer (the option's id is shared, which costs on every answer).
    pub fn forget_moves(&mut self) {
        self.keeping_moves = false;
    }

    /// The decisions taken, handed over (the session is done with).
    pub fn into_history(mut self) -> Vec<Move> {
        std::mem::take(&mut self.history)
    }

    /// The whole event log (omniscient; see [`Session::log_for`]).
    pub fn log(&self) -> &[Event] {
        &self.log
    }

    /// The log as one seat may read it.
    pub fn log_for(&self, viewer: Option<usize>) -> Vec<String> {
        crate::log::redacted_lines(&self.log, viewer)
    }

    /// The log as a spectator may read it: public events, and the public stand-in of
    /// private ones (unlike `log_for(None)`, which is omniscient).
    pub fn public_log(&self) -> Vec<String> {
        self.log.iter().filter_map(|e| e.public_text().map(str::to_string)).collect()
    }

    /// The outcome, once the game is over.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.state.outcome.as_ref()
    }

    /// True once the game is over.
    pub fn is_over(&self) -> bool {
        self.state.outcome.is_some()
    }

    /// Seats that must decide now (for a hidden commit: those who have not committed yet).
    pub fn to_act(&self) -> Vec<usize> {
        self.seats_to_act().collect()
    }

    /// [`Session::to_act`] without making the list.
    pub fn seats_to_act(&self) -> impl Iterator<Item = usize> + '_ {
        let pending = self.state.pending.as_deref();
        let seats = pending.map(|p| p.players.iter().zip(&p.chosen)).into_iter().flatten();
        seats.filter(|(_, c)| c.is_none()).map(|(p, _)| *p)
    }

    /// The first seat of [`Session::to_act`] (without making the list): who a playout asks next.
    pub fn first_to_act(&self) -> Option<usize> {
        self.next_to_act().map(|(p, _)| p)
    }

    /// The first seat that must decide now and how many options it has: what
    /// [`Session::first_to_act`] and [`Session::option_count`] give, found at once (a
    /// playout asks both at every decision).
    pub fn next_to_act(&self) -> Option<(usize, usize)> {
        let p = self.state.pending.as_ref()?;
        let slot = p.chosen.iter().position(Option::is_none)?;
        Some((p.players[slot], p.options[slot].len()))
    }

    /// The name and prompt of the pending decision.
    pub fn prompt(&self) -> Option<(&str, &str)> {
        let p = self.state.pending.as_ref()?;
        let d = &self.game.rules.decisions[p.decision];
        Some((&d.name, p.prompt(d)))
    }

    /// Whether the pending decision is a simultaneous hidden commit.
    pub fn is_commit(&self) -> bool {
        self.state.pending.as_ref().is_some_and(|p| p.commit)
    }

    /// Number of legal options for a seat (0 if it need not decide).
    pub fn option_count(&self, player: usize) -> usize {
        self.slot(player).map(|(p, s)| p.options[s].len()).unwrap_or(0)
    }

    /// The id of a seat's option `index` (as [`Session::options`] gives it, without building
    /// every label): for search, which compares options by id many times a decision.
    pub fn option_id(&self, player: usize, index: usize) -> Option<&str> {
        let (p, s) = self.slot(player)?;
        self.game.option_id(&self.state, &p.options[s], index)
    }

    /// Legal options of a seat that must decide now.
    pub fn options(&self, player: usize) -> Vec<OptionInfo> {
        let Some((p, s)) = self.slot(player) else {
            return Vec::new();
        };
        p.options[s]
            .iter()
            .map(|c| OptionInfo {
                id: self.game.choice_id(&self.state, &c).to_string(),
                label: self.game.label_or_failure(&self.state, &c, self.game.option_label(&self.state, p.asked(s), &c)),
            })
            .collect()
    }

    fn slot(&self, player: usize) -> Option<(&crate::state::Pending, usize)> {
        let p = self.state.pending.as_ref()?;
        let s = p.players.iter().position(|x| *x == player)?;
        p.chosen[s].is_none().then_some((p, s))
    }

    /// What a seat sees.
    pub fn view(&self, viewer: usize) -> View {
        View::build(self.game, &self.state, &self.derived, Some(viewer))
    }

    /// Saves this point of the game ([`Session::restore`] comes back to it).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            state: std::sync::Arc::new((*self.state).clone()),
            log: self.log.len(),
            history: self.history.len(),
            answers: self.answers,
            knowledge: self.knowledge.clone(),
        }
    }

    /// Comes back to a point saved by [`Session::snapshot`] on this session: the state as it
    /// was, the log and history cut back to where they were (decisions taken since are
    /// forgotten). Fails, changing nothing, for a snapshot taken later than this point (its
    /// history is longer): a session only goes back.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<(), PlayError> {
        if snapshot.answers > self.answers || snapshot.history > self.history.len() || snapshot.log > self.log.len() {
            return Err(PlayError::Illegal(format!(
                "cannot restore a snapshot taken after {} decisions into a session at {}: restore only goes back",
                snapshot.answers, self.answers
            )));
        }
        self.changed();
        (*self.state).clone_from(&snapshot.state);
        self.rollback.start_at(std::sync::Arc::clone(&snapshot.state));
        self.knowledge.clone_from(&snapshot.knowledge);
        self.log.truncate(snapshot.log);
        self.history.truncate(snapshot.history);
        self.answers = snapshot.answers;
        Ok(())
    }

    /// Brings a copy of `original` (made with `clone`) up to `original`'s point, copying only
    /// what was added since: the state, and the history and log entries `original` has beyond
    /// this copy's. The copy must not have gone anywhere `original` did not (restore it to a
    /// snapshot first): its history and log are then a beginning of `original`'s.
    pub(crate) fn catch_up(&mut self, original: &Session<'g>) {
        debug_assert!(self.history.len() <= original.history.len() && self.log.len() <= original.log.len());
        self.changed();
        (*self.state).clone_from(&original.state);
        self.knowledge.clone_from(&original.knowledge);
        self.history.extend_from_slice(&original.history[self.history.len()..]);
        self.log.extend_from_slice(&original.log[self.log.len()..]);
        self.answers = original.answers;
    }

    /// Forgets what was computed from the state (derived vars) and the rollback's checkpoint:
    /// called first by every `&mut self` method, since each may change the state. Applying
    /// an answer keeps the checkpoint (the rollback records the answer).
    fn changed(&mut self) {
        self.derived.next_state();
        self.rollback.forget();
    }

    /// What a spectator sees (public information only).
    pub fn public_view(&self) -> View {
        View::build(self.game, &self.state, &self.derived, None)
    }

    /// Applies a seat's choice, given by option id or, failing that, by exact label. For a
    /// `subset` decision, a whole set may be given at once: its components' ids in any order,
    /// separated by spaces, commas or `+` (each is added, then the set is finished).
    /// On any error the game is unchanged.
    pub fn apply(&mut self, player: usize, option: &str) -> Result<(), PlayError> {
        match self.find_option(player, option) {
            Ok(idx) => self.apply_index(player, idx),
            Err(e) if self.building_set(player) => self.apply_set(player, option).map_err(|why| match why {
                Some(why) => PlayError::Illegal(format!(
                    "`{}` is not a set {} may choose: {why}",
                    quote_input(option),
                    self.game.rules.seat_name(player)
                )),
                None => e,
            }),
            Err(e) => Err(e),
        }
    }

    /// Whether a seat's choice would be accepted, without applying it.
    pub fn check(&self, player: usize, option: &str) -> Result<(), PlayError> {
        match self.find_option(player, option) {
            Ok(_) => Ok(()),
            Err(_) if self.building_set(player) => self.clone().apply(player, option),
            Err(e) => Err(e),
        }
    }

    /// Whether a seat must answer a `subset` decision now.
    fn building_set(&self, player: usize) -> bool {
        self.slot(player).is_some_and(|(p, _)| self.game.rules.decisions[p.decision].subset.is_some())
    }

    /// Applies a whole set: adds each listed component, then finishes. On failure the game
    /// is unchanged; `None` means the text does not even name components.
    fn apply_set(&mut self, player: usize, text: &str) -> Result<(), Option<String>> {
        let ids: Vec<&str> = text.split([' ', ',', '+']).filter(|t| !t.is_empty()).collect();
        if ids.len() < 2 && !text.contains('+') {
            return Err(None);
        }
        let saved = (self.state.clone(), self.history.len(), self.log.len(), self.answers);
        let result = self.add_all(player, &ids);
        if result.is_err() {
            self.changed();
            self.state = saved.0;
            self.history.truncate(saved.1);
            self.log.truncate(saved.2);
            self.answers = saved.3;
        }
        result.map_err(Some)
    }

    fn add_all(&mut self, player: usize, ids: &[&str]) -> Result<(), String> {
        use crate::state::Choice;
        for id in ids {
            let (p, slot) = self.slot(player).ok_or("the decision ended before the set was complete")?;
            let idx = p.options[slot]
                .iter()
                .position(|c| matches!(*c, Choice::Add(i) if self.state.components.list[i as usize].id == *id))
                .ok_or_else(|| format!("`{}` cannot join it", quote_input(id)))?;
            self.apply_index(player, idx).map_err(|e| e.to_string())?;
        }
        let (p, slot) = self.slot(player).ok_or("the decision ended before the set was complete")?;
        let idx = p.options[slot]
            .iter()
            .position(|c| matches!(*c, Choice::Subset(_)))
            .ok_or("it is not complete (it breaks a rule of the set: size, run or the like)")?;
        self.apply_index(player, idx).map_err(|e| e.to_string())
    }

    /// Finds the index of an option by id or label, or says why it is not legal.
    pub fn find_option(&self, player: usize, option: &str) -> Result<usize, PlayError> {
        let r = &self.game.rules;
        let who = r.seat_name(player);
        let Some(pending) = &self.state.pending else {
            return Err(PlayError::Illegal(if self.is_over() {
                "the game is over".into()
            } else {
                "no decision is pending".into()
            }));
        };
        let d = &r.decisions[pending.decision];
        let Some(slot) = pending.players.iter().position(|p| *p == player) else {
            let waiting: Vec<String> = self.to_act().iter().map(|p| r.seat_name(*p)).collect();
            return Err(PlayError::Illegal(format!(
                "{who} does not decide now; `{}` waits for {}",
                d.name,
                waiting.join(", ")
            )));
        };
        if pending.chosen[slot].is_some() {
            return Err(PlayError::Illegal(format!("{who} has already committed to `{}`", d.name)));
        }
        let opts = &pending.options[slot];
        if let Some(i) = opts.iter().position(|c| self.game.choice_id(&self.state, &c) == option) {
            return Ok(i);
        }
        let by_label: Vec<usize> = (0..opts.len())
            .filter(|i| {
                // A set's step reads differently in the list ("add ...", "done: ..."); other
                // options read the same (a label script is called once).
                let asked = pending.asked(slot);
                let c: &crate::state::Choice = &opts.at(*i);
                let listed_apart = matches!(c, crate::state::Choice::Add(_) | crate::state::Choice::Subset(_));
                self.game.choice_label(&self.state, asked, c).is_ok_and(|l| l == option)
                    || (listed_apart && self.game.option_label(&self.state, asked, c).is_ok_and(|l| l == option))
            })
            .collect();
        if by_label.len() == 1 {
            return Ok(by_label[0]);
        }
        if option == "done" {
            if let Some(i) = opts.iter().position(|c| matches!(*c, crate::state::Choice::Subset(_))) {
                return Ok(i);
            }
        }
        let legal: Vec<String> = self
            .options(player)
            .iter()
            .map(|o| if o.id == o.label { o.id.clone() } else { format!("{} ({})", o.id, o.label) })
            .collect();
        let why = if by_label.len() > 1 { "matches several options by label" } else { "is not a legal option" };
        Err(PlayError::Illegal(format!(
            "`{}` {why} for {who} in `{}`; legal: {}",
            quote_input(option),
            d.name,
            legal.join(", ")
        )))
    }

    /// Applies a seat's choice by index into [`Session::options`].
    pub fn apply_index(&mut self, player: usize, index: usize) -> Result<(), PlayError> {
        self.derived.next_state();
        let game = self.game;
        let r = &game.rules;
        if self.answers >= r.max_decisions {
            return Err(PlayError::DecisionLimit(r.max_decisions));
        }
        let Some(pending) = self.state.pending.as_ref() else {
            return Err(answer::not_deciding(r, player));
        };
        let Some(slot) = pending.players.iter().position(|x| *x == player) else {
            return Err(answer::not_deciding(r, player));
        };
        if pending.chosen[slot].is_some() || index >= pending.options[slot].len() {
            return Err(illegal_index(r, player, index));
        }
        let answer = Answer {
            player,
            slot,
            index,
            logging: self.logging,
            tracking: self.knowledge.is_some(),
            keeping_moves: self.keeping_moves,
            waits: answer::only_recorded(pending, slot, index),
        };
        // The answer changes the state in place; the rollback can make the state before it.
        self.rollback.prepare(&self.state);
        if answer.waits && !(self.logging || self.keeping_moves) {
            // A hidden commit that others still have to make: only recorded, as
            // `answer::apply` records it (a replay goes through that), without the result
            // that answer may give (nothing is logged, no move is kept, nothing moved).
            answer::record_commit(&mut self.state, answer);
            self.rollback.record(answer);
            self.answers += 1;
            return Ok(());
        }
        let rollback = &self.rollback;
        let mut answered = Answered::default();
        let result = answer::apply(
            game,
            &mut self.state,
            &mut self.stand_in.0,
            answer,
            &mut || rollback.state_before(game, Box::new(State::empty())),
            &mut answered,
        );
        if let Err(e) = result {
            return Err(self.put_back_state_before(e));
        }
        self.rollback.record(answer);
        if let (Some(k), Some(moves)) = (self.knowledge.as_mut(), answered.moves) {
            k.absorb(r, &self.state, &moves);
        }
        if !answered.events.is_empty() {
            self.log.extend(answered.events);
        }
        self.answers += 1;
        if let Some(option) = answered.id {
            // Room for a short game's moves at once, instead of growing four times.
            if self.history.capacity() == 0 {
                self.history.reserve_exact(32);
            }
            self.history.push(Move { player, option, label: answered.label });
        }
        Ok(())
    }

    /// After an answer failed with `error`: puts back the state before it (the half-changed
    /// one goes to the stand-in) and gives the error to return. Kept out of
    /// [`Session::apply_index`], which mostly runs without it.
    #[cold]
    #[inline(never)]
    fn put_back_state_before(&mut self, error: PlayError) -> PlayError {
        let into = self.stand_in.0.take().unwrap_or_else(|| Box::new(State::empty()));
        match self.rollback.state_before(self.game, into) {
            Ok(before) => {
                self.stand_in.0 = Some(std::mem::replace(&mut self.state, before));
                error
            }
            // Never expected (the engine is deterministic): the half-changed state is kept, a
            // state of this game all the same, and the error says what happened.
            Err(lost) => lost,
        }
    }

    /// Puts exactly these components, bottom to top, into a zone (taking them from wherever
    /// they are). Components that were in the zone and are not listed are left out of play
    /// until another arrangement places them. For tests and scenario setups that recreate
    /// an exact situation; it is not a game action and is not logged.
    pub fn arrange(&mut self, zone: &str, owner: Option<usize>, ids: &[&str]) -> Result<(), PlayError> {
        self.changed();
        let r = &self.game.rules;
        let z = r.zone(zone).map_err(PlayError::Illegal)?;
        let o = self.state.slot_index(r, z, owner).map_err(PlayError::Illegal)?;
        let idx = ids
            .iter()
            .map(|id| self.state.component_index(id))
            .collect::<Result<Vec<_>, _>>()
            .map_err(PlayError::Illegal)?;
        for old in std::mem::take(&mut self.state.zones[z][o].cards) {
            self.state.location[old as usize] = crate::state::NOWHERE;
        }
        for i in idx {
            self.state.take(i);
            self.state.zones[z][o].cards.push(i);
            self.state.location[i as usize] = (z as u32, o as u32);
        }
        if self.knowledge.is_some() {
            // An arrangement is a test's setup, not play: every seat knows it as arranged.
            self.knowledge = Some(Box::new(Knowledge::new(r, &self.state)));
        }
        Ok(())
    }
}

impl Session<'_> {
    /// Puts exactly these pieces on a grid (replacing what it held), each on the grid, in a
    /// cell with room and once only; edges and connection are not judged (a setup recreates a
    /// situation, it is not a placement). For tests and scenario setups; not logged.
    pub fn arrange_grid(&mut self, grid: &str, owner: Option<usize>, pieces: &[Entry]) -> Result<(), PlayError> {
        self.changed();
        let r = &self.game.rules;
        let g = r.grid(grid).map_err(PlayError::Illegal)?;
        let o = self.grid_owner(g, owner)?;
        let info = crate::grid::GridInfo { rule: None, connected: false, ..r.grids[g].clone() };
        let mut slot = crate::grid::GridSlot::default();
        for e in pieces {
            let piece = match info.markers.iter().position(|m| m.as_str() == e.id) {
                Some(m) => Piece::Marker(m as u32),
                None => Piece::Component(self.state.component_index(&e.id).map_err(PlayError::Illegal)?),
            };
            let names = SetupNames(&self.state, &info);
            crate::grid::check_place(&info, &slot, &names, piece, (e.row, e.col, e.rot), None)
                .map_err(|m| PlayError::Illegal(format!("grid `{grid}`: `{}`: {m}", e.id)))?;
            slot.insert(Placed { row: e.row, col: e.col, piece, rot: e.rot });
        }
        self.state.grids[g][o] = slot;
        Ok(())
    }

    /// The pieces on a grid, by row then column.
    pub fn grid_entries(&self, grid: &str, owner: Option<usize>) -> Result<Vec<Entry>, PlayError> {
        let r = &self.game.rules;
        let g = r.grid(grid).map_err(PlayError::Illegal)?;
        let o = self.grid_owner(g, owner)?;
        let names = SetupNames(&self.state, &r.grids[g]);
        Ok(self.state.grids[g][o]
            .placed
            .iter()
            .map(|p| Entry { id: names.name(p.piece), row: p.row, col: p.col, rot: p.rot })
            .collect())
    }

    fn grid_owner(&self, g: usize, owner: Option<usize>) -> Result<usize, PlayError> {
        let info = &self.game.rules.grids[g];
        self.owner_slot(info.per_player, &info.name, owner)
    }
}

/// Names pieces for setup messages (no edges: a setup does not judge them).
struct SetupNames<'a>(&'a State, &'a crate::grid::GridInfo);

impl Pieces for SetupNames<'_> {
    fn name(&self, piece: Piece) -> String {
        match piece {
            Piece::Component(i) => self.0.components.list[i as usize].id.clone(),
            Piece::Marker(i) => self.1.markers[i as usize].to_string(),
        }
    }
    fn edges(&self, _: Piece) -> Result<Option<[&str; 4]>, String> {
        Ok(None)
    }
}

/// Setting up exact situations (scenario `setup` lines). None of these is a game action: they
/// are not logged and not recorded; call [`Session::reopen`] afterwards so the pending
/// decision's options reflect the new situation.
impl Session<'_> {
    /// Sets a track value (clamped to its bounds).
    pub fn set_track(&mut self, track: &str, owner: Option<usize>, value: i64) -> Result<(), PlayError> {
        self.changed();
        let r = &self.game.rules;
        let t = r.track(track).map_err(PlayError::Illegal)?;
        let o = self.owner_slot(r.tracks[t].per_player, track, owner)?;
        self.state.set_track(r, t, o, value);
        Ok(())
    }

    /// Sets a variable.
    pub fn set_var(&mut self, var: &str, owner: Option<usize>, value: crate::Value) -> Result<(), PlayError> {
        self.changed();
        let r = &self.game.rules;
        let v = r.var(var).map_err(PlayError::Illegal)?;
        let o = self.owner_slot(r.vars[v].per_player, var, owner)?;
        if r.vars[v].derived.is_some() {
            return Err(PlayError::Illegal(format!(
                "var `{var}` is derived from the state: set what it is computed from"
            )));
        }
        self.state.vars[v][o].set(value);
        Ok(())
    }

    /// Sets a property of a component (a scenario's `prop ID KEY = VALUE`): a die's `face`, a
    /// card's value. `id` and `kind` cannot be set.
    pub fn set_prop(&mut self, id: &str, key: &str, value: crate::Value) -> Result<(), PlayError> {
        self.changed();
        if key == "id" || key == "kind" {
            return Err(PlayError::Illegal(format!("a component's `{key}` cannot be set")));
        }
        let idx = self.state.component_index(id).map_err(PlayError::Illegal)?;
        let r = &self.game.rules;
        let kind = self.state.components.list[idx as usize].kind;
        if let (Some(faces), "face") = (&r.component_types[kind].faces, key) {
            if !faces.contains(&value) {
                let list: Vec<String> = faces.iter().map(|f| f.to_string()).collect();
                return Err(PlayError::Illegal(format!(
                    "`{value}` is not a face of `{id}` (faces: {})",
                    list.join(", ")
                )));
            }
        }
        std::sync::Arc::make_mut(&mut self.state.components).set_prop(r, idx, key, value);
        Ok(())
    }

    /// Fixes the results of the next chance draws (a scenario's `draws N...`): `game.random(n)`
    /// gives each in turn (it must lie in `0..n`), and a die rolls the face of that value (for
    /// dice whose faces are words, the face at that position, from 0). Shuffles are not
    /// affected. Later draws come from the generator again.
    pub fn fix_draws(&mut self, draws: &[i64]) {
        self.changed();
        self.state.forced_draws = draws.iter().rev().copied().collect();
    }

    /// A var's value now (omniscient): stored, or computed for a derived var.
    pub fn var_value(&self, var: &str, owner: Option<usize>) -> Result<crate::Value, PlayError> {
        let r = &self.game.rules;
        let v = r.var(var).map_err(PlayError::Illegal)?;
        let o = self.owner_slot(r.vars[v].per_player, var, owner)?;
        self.derived.get(self.game, &self.state, v, o)
    }

    fn owner_slot(&self, per_player: bool, name: &str, owner: Option<usize>) -> Result<usize, PlayError> {
        match (per_player, owner) {
            (true, Some(p)) if p < self.state.players => Ok(p),
            (true, _) => Err(PlayError::Illegal(format!("`{name}` is per player: say whose"))),
            (false, None) => Ok(0),
            (false, Some(_)) => Err(PlayError::Illegal(format!("`{name}` is global: do not name a player"))),
        }
    }

    /// Sets the current player.
    pub fn set_current(&mut self, player: usize) -> Result<(), PlayError> {
        self.changed();
        if player >= self.state.players {
            return Err(PlayError::Illegal(format!("there is no seat {}", player + 1)));
        }
        self.state.current = player;
        Ok(())
    }

    /// Sets the turn order.
    pub fn set_turn_order(&mut self, order: Vec<usize>) -> Result<(), PlayError> {
        self.changed();
        if order.iter().any(|p| *p >= self.state.players) {
            return Err(PlayError::Illegal("the turn order names a seat that does not exist".into()));
        }
        self.state.turn_order = order;
        Ok(())
    }

    /// Throws away the flow and starts the named phase afresh, running it up to its first
    /// decision.
    pub fn goto_phase(&mut self, phase: &str) -> Result<(), PlayError> {
        self.changed();
        let p = self.game.rules.phase(phase).map_err(PlayError::Illegal)?;
        let mut work = Work::new(self.state.clone(), self.logging);
        work.state.pending = None;
        work.state.outcome = None;
        work.state.ending = false;
        work.state.stack = vec![crate::state::Frame::Phase { phase: p, step: 0, pos: 0, pass: 0, begun: false }];
        self.game.advance(&mut work)?;
        self.state = work.state;
        self.log.extend(work.events);
        Ok(())
    }

    /// Asks the pending decision again, recomputing everyone's options (answers already
    /// committed are dropped).
    pub fn reopen(&mut self) -> Result<(), PlayError> {
        self.changed();
        let Some(p) = self.state.pending.clone() else { return Ok(()) };
        let mut work = Work::new(self.state.clone(), self.logging);
        work.state.pending = None;
        work.state.stack.push(if p.commit {
            crate::state::Frame::Commit { decision: p.decision, players: p.players, ctx: p.ctx }
        } else {
            crate::state::Frame::Ask { decision: p.decision, player: p.players[0], ctx: p.ctx }
        });
        self.game.advance(&mut work)?;
        self.state = work.state;
        self.log.extend(work.events);
        Ok(())
    }

    /// A short fingerprint of the whole state (FNV-1a over its JSON form): equal states have
    /// equal hashes on every machine.
    pub fn state_hash(&self) -> String {
        let bytes = serde_json::to_vec(&self.state).unwrap_or_default();
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{h:016x}")
    }

    /// Seat number of a seat name (as shown: `P1`, or the game's `seat_names`).
    pub fn seat(&self, name: &str) -> Option<usize> {
        (0..self.state.players).find(|p| self.game.rules.seat_name(*p) == name)
    }
}

/// Input typed by a person or read from a file, made safe to print: control characters
/// escaped (no terminal escapes reach the screen) and cut after 80 characters.
pub fn quote_input(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(80)
        .flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] })
        .collect();
    if text.chars().nth(80).is_some() {
        out.push('…');
    }
    out
}

/// The error of an option index a seat may not answer now (out of its list, or the seat has
/// answered already).
#[cold]
#[inline(never)]
fn illegal_index(rules: &crate::rules::Rules, player: usize, index: usize) -> PlayError {
    PlayError::Illegal(format!("option {index} is not legal for {}", rules.seat_name(player)))
}

#[cfg(test)]
mod tests {
    use crate::{load_game, LoadOptions};

    /// A session that keeps neither log nor moves records a hidden commit that others still
    /// have to make by a short way of its own, and the answer after it is taken back by
    /// replaying that commit: a failing reveal leaves the state as it was before the failing
    /// answer (the first commit made), as in a session that keeps its log and moves.
    #[test]
    fn a_commit_recorded_the_short_way_is_replayed_when_the_answer_after_it_fails() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/failing-reveal");
        let game = load_game(&folder, &LoadOptions::default()).game.expect("the fixture loads");
        for first in 0..2 {
            let mut kept = game.start(2, 3).expect("starts");
            let mut quiet = game.start_quiet(2, 3).expect("starts");
            quiet.forget_moves();
            for session in [&mut kept, &mut quiet] {
                session.apply_index(1, first).expect("the second seat commits first");
            }
            let before = kept.state_hash();
            assert_eq!(quiet.state_hash(), before, "the commit is recorded alike");
            for session in [&mut kept, &mut quiet] {
                // The first seat bids high: the reveal script fails.
                let failed = session.apply_index(0, 1).expect_err("the reveal fails");
                assert!(failed.to_string().contains("cursed"), "{failed}");
                assert_eq!(session.state_hash(), before, "taken back to the commit made");
                assert_eq!(session.to_act(), vec![0]);
            }
            for session in [&mut kept, &mut quiet] {
                session.apply_index(0, 0).expect("a low bid resolves");
            }
            assert_eq!(quiet.state_hash(), kept.state_hash());
        }
    }

    /// The folders of the bundled games, in order.
    fn bundled_games() -> Vec<std::path::PathBuf> {
        let games = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../games");
        let mut folders: Vec<_> =
            std::fs::read_dir(&games).expect("the games folder").flatten().map(|e| e.path()).collect();
        folders.retain(|f| f.join("game.toml").is_file());
        folders.sort();
        assert!(folders.len() >= 5, "the bundled games are found");
        folders
    }

    /// `next_to_act` gives the first of the seats still to act (`seats_to_act`) and that
    /// seat's `option_count`, at every decision of every bundled game (the commits' seats
    /// answering one after another), and nothing once the game is over.
    #[test]
    fn the_next_seat_to_act_comes_with_its_number_of_options() {
        for folder in bundled_games() {
            let game = load_game(&folder, &LoadOptions::default()).game.expect("a bundled game loads");
            let mut session = game.start_quiet(game.rules.min_players, 11).expect("starts");
            let mut turns = 0;
            loop {
                let Some(p) = session.seats_to_act().next() else { break };
                let count = session.option_count(p);
                assert!(count > 0, "{}", folder.display());
                assert_eq!(session.next_to_act(), Some((p, count)), "{} after {turns}", folder.display());
                session.apply_index(p, turns % count).expect("a legal option");
                turns += 1;
                if turns == 300 {
                    break;
                }
            }
            if session.is_over() {
                assert_eq!(session.next_to_act(), None, "{}", folder.display());
            }
        }
    }

    /// A copy kept in step with `catch_up` is the original: same state, history and log, after
    /// each decision of every bundled game, whatever the copy tried (and was taken back from)
    /// in between.
    #[test]
    fn a_copy_caught_up_is_the_original_again() {
        for folder in bundled_games() {
            let game = load_game(&folder, &LoadOptions::default()).game.expect("a bundled game loads");
            let mut session = game.start(game.rules.min_players, 7).expect("starts");
            let mut copy = session.clone();
            let mut turns = 0;
            while !session.is_over() && turns < 40 {
                copy.catch_up(&session);
                let at = format!("{} after {turns} decisions", folder.display());
                assert_eq!(copy.state_hash(), session.state_hash(), "{at}");
                assert_eq!(copy.history(), session.history(), "{at}");
                assert_eq!(copy.log().len(), session.log().len(), "{at}");
                let here = copy.snapshot();
                let p = session.first_to_act().expect("a seat must act");
                // The copy tries another option, then goes back to where the original is.
                if copy.apply_index(p, copy.option_count(p) - 1).is_ok() {
                    copy.restore(&here).expect("goes back");
                }
                session.apply_index(p, turns % session.option_count(p)).expect("a legal option");
                turns += 1;
            }
            copy.catch_up(&session);
            assert_eq!(copy.state_hash(), session.state_hash());
            let lines = |s: &super::Session<'_>| s.log().iter().map(|e| format!("{e:?}")).collect::<Vec<_>>();
            assert_eq!(lines(&copy), lines(&session), "{}", folder.display());
        }
    }
}
