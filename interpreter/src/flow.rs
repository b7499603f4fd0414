//! The flow machine: pops frames off the state's stack and runs them (phases, scripts,
//! moves) until a decision is pending or the game is over; opens decisions; resolves
//! answers. Everything here works on a [`Work`] copy that the caller commits only on success.

use crate::api::card_map;
use crate::def::{Best, Ties};
use crate::error::PlayError;
use crate::log::{Event, EventKind};
use crate::rules::{Contest, FnRef, FollowFrom, OptionSource, PlayerSel, PlayersSel, Repeat, StepKind, Subset};
use crate::script::Work;
use crate::state::{Asked, Choice, Frame, Outcome, Pending, ScriptedChoice, SeatOptions, State, SubsetChoice};
use crate::subset::Candidate;
use crate::value::PlainScriptValue;
use crate::value::Value;
use crate::Game;
use rhai::Dynamic;
use smallvec::SmallVec;

pub(crate) mod recycle;

impl Game {
    /// Calls a script and stacks the steps it pushed (first pushed runs first).
    pub(crate) fn call(
        &self,
        work: &mut Work,
        f: &FnRef,
        args: Vec<Dynamic>,
        ctx: &Value,
    ) -> Result<Dynamic, PlayError> {
        self.call_giving_back(work, f, args, ctx, &mut [])
    }

    /// [`Game::call`], with `back[k]` receiving `args[k]` again when the script only read it
    /// (`()` otherwise; see [`crate::script::Scripts::call`]): a value the engine would make
    /// again for a later call is then made once.
    pub(crate) fn call_giving_back(
        &self,
        work: &mut Work,
        f: &FnRef,
        args: Vec<Dynamic>,
        ctx: &Value,
        back: &mut [Dynamic],
    ) -> Result<Dynamic, PlayError> {
        let taken = std::mem::replace(work, Work::placeholder());
        let (w, result) = self.scripts.call_giving_back(&self.rules, taken, f, args, ctx, back);
        std::mem::replace(work, w).give_back_placeholder();
        let out = result.map_err(PlayError::Script)?;
        let pushed = std::mem::take(&mut work.pushed);
        work.state.stack.extend(pushed.into_iter().rev());
        Ok(out)
    }

    /// A script returned something the engine cannot use: an error located at the script
    /// function's definition (its `fn` line), as a script's own failure is.
    #[cold]
    #[inline(never)]
    pub(crate) fn returned(&self, function: &str, message: String) -> PlayError {
        PlayError::Script(Box::new(crate::script::ScriptError {
            function: function.to_string(),
            message,
            location: self.scripts.function_location(function),
        }))
    }

    fn truthy(&self, work: &mut Work, f: &FnRef) -> Result<bool, PlayError> {
        let v = self.call(work, f, vec![], &Value::Unit)?;
        v.as_bool().map_err(|t| self.returned(&f.name, format!("must return true or false, returned {t}")))
    }

    /// Runs the flow until a decision is pending or the game is over.
    pub(crate) fn advance(&self, work: &mut Work) -> Result<(), PlayError> {
        loop {
            if work.state.outcome.is_some() || work.state.pending.is_some() {
                return Ok(());
            }
            if work.state.ending || work.state.stack.is_empty() {
                return self.finish(work);
            }
            self.count_step(&mut work.state)?;
            // A phase under way moves on where its frame lies, unless a script must first say
            // whether it goes on (then as any frame: taken off, run, put back).
            if matches!(work.state.stack.last(), Some(Frame::Phase { .. })) && self.phase_in_place(work)? {
                continue;
            }
            let frame = work.state.stack.pop().expect("checked non-empty");
            match frame {
                Frame::Run { func, with_ctx, ctx } => {
                    let _ = self.call(work, &FnRef { name: func, with_ctx }, vec![], &ctx)?;
                }
                Frame::Ask { decision, player, ctx } => self.open(work, decision, Seats::One(player), false, ctx)?,
                Frame::Commit { decision, players, ctx } => {
                    self.open(work, decision, Seats::Listed(players), true, ctx)?
                }
                frame @ Frame::Phase { phase, .. } => self.phase_while(work, phase, frame)?,
                Frame::Trick { trick, leader, asked, plays } => self.trick_step(work, trick, leader, asked, plays)?,
            }
        }
    }

    /// Counts one step of the flow against the game's limit.
    fn count_step(&self, st: &mut State) -> Result<(), PlayError> {
        st.steps += 1;
        if st.steps > self.rules.max_steps {
            return Err(PlayError::StepLimit(self.rules.max_steps));
        }
        Ok(())
    }

    /// One step of the phase whose frame is on top of the stack, changing the frame where it
    /// lies: its next step, the next seat's turn or pass, or (the phase done) taking it off.
    /// False, with nothing done, when a `while` script must say whether a new pass begins
    /// ([`Game::phase_while`] does that).
    fn phase_in_place(&self, work: &mut Work) -> Result<bool, PlayError> {
        let st = &mut *work.state;
        let Some(Frame::Phase { phase, step, pass, begun, .. }) = st.stack.last_mut() else { return Ok(false) };
        let (phase, info) = (*phase, &self.rules.phases[*phase]);
        if *begun {
            let at = *step;
            if at < info.steps.len() {
                *step = at + 1;
                self.run_step(work, phase, at)?;
            } else {
                self.end_pass(st);
            }
            return Ok(true);
        }
        let go = match &info.repeat {
            Repeat::Once => *pass == 0,
            Repeat::Times(n) => u64::from(*pass) < *n,
            Repeat::WhileCards(z) => st.zones[*z].iter().any(|slot| !slot.cards.is_empty()),
            Repeat::While(_) => return Ok(false),
        };
        if go {
            self.begin_pass(work)?;
        } else {
            st.stack.pop();
        }
        Ok(true)
    }

    /// A phase that repeats while a script says so, its frame `frame` taken off the stack:
    /// the script runs (the steps it pushes go under the phase), and the phase begins a new
    /// pass on top of them, or is done.
    fn phase_while(&self, work: &mut Work, phase: usize, frame: Frame) -> Result<(), PlayError> {
        let Repeat::While(f) = &self.rules.phases[phase].repeat else {
            unreachable!("phase_in_place moves every other phase on")
        };
        if self.truthy(work, f)? {
            work.state.stack.push(frame);
            self.begin_pass(work)?;
        }
        Ok(())
    }

    /// Begins a new pass of the phase whose frame, not under way, is on top of the stack: the
    /// pass counter, the first seat's turn, and its first step.
    fn begin_pass(&self, work: &mut Work) -> Result<(), PlayError> {
        let st = &mut *work.state;
        let Some(Frame::Phase { phase, step, pos, pass, begun }) = st.stack.last_mut() else {
            unreachable!("called with a phase on top")
        };
        let (phase, info) = (*phase, &self.rules.phases[*phase]);
        *pass += 1;
        *step = 0;
        *pos = 0;
        let pass = *pass;
        let first = st.turn_order.first().copied();
        // Without seats a phase played once per seat does not begin (its frame stays).
        *begun = !(info.for_each_player && first.is_none());
        let begun = *begun;
        if let Some(c) = info.counter {
            for o in 0..st.tracks[c].len() {
                st.set_track(&self.rules, c, o, i64::from(pass));
            }
        }
        if !begun {
            return Ok(());
        }
        if let (true, Some(p)) = (info.for_each_player, first) {
            st.current = p;
        }
        if info.steps.is_empty() {
            self.end_pass(st);
            return Ok(());
        }
        if let Some(Frame::Phase { step, .. }) = st.stack.last_mut() {
            *step = 1;
        }
        self.run_step(work, phase, 0)
    }

    /// The pass of the phase on top of the stack has run its last step: the next seat's turn
    /// (a phase played once per seat), else the phase waits to begin its next pass.
    fn end_pass(&self, st: &mut State) {
        let Some(Frame::Phase { phase, step, pos, begun, .. }) = st.stack.last_mut() else { return };
        *step = 0;
        if self.rules.phases[*phase].for_each_player && *pos + 1 < st.turn_order.len() {
            *pos += 1;
            st.current = st.turn_order[*pos];
        } else {
            *pos = 0;
            *begun = false;
        }
    }

    /// Runs step `step` of phase `phase`, unless its condition says no. The phase's frame, on
    /// top of the stack, already points to the step after it.
    fn run_step(&self, work: &mut Work, phase: usize, step: usize) -> Result<(), PlayError> {
        let s = &self.rules.phases[phase].steps[step];
        if let Some(cond) = &s.condition {
            if !self.truthy(work, cond)? {
                return Ok(());
            }
        }
        match &s.kind {
            StepKind::Run(f) => {
                let _ = self.call(work, f, vec![], &Value::Unit)?;
            }
            // Without a script run first, a decision is opened at once: as stacking it and
            // taking it off at the next step would, which is counted.
            StepKind::Ask(d, PlayerSel::Current) if s.condition.is_none() => {
                self.count_step(&mut work.state)?;
                self.open(work, *d, Seats::One(work.state.current), false, Value::Unit)?
            }
            StepKind::Commit(d, PlayersSel::All) if s.condition.is_none() => {
                self.count_step(&mut work.state)?;
                self.open(work, *d, Seats::All, true, Value::Unit)?
            }
            StepKind::Ask(d, sel) => {
                let player = match sel {
                    PlayerSel::Current => work.state.current,
                    PlayerSel::Script(f) => {
                        let v = self.call(work, f, vec![], &Value::Unit)?;
                        self.player_value(&work.state, &v, &f.name)?
                    }
                };
                work.state.stack.push(Frame::Ask { decision: *d, player, ctx: Value::Unit });
            }
            StepKind::Commit(d, sel) => {
                let players = match sel {
                    PlayersSel::All => {
                        let mut all = recycle::players();
                        all.extend(0..work.state.players);
                        all
                    }
                    PlayersSel::Script(f) => {
                        let v = self.call(work, f, vec![], &Value::Unit)?;
                        let arr = v.into_array().map_err(|t| {
                            self.returned(&f.name, format!("must return an array of players, returned {t}"))
                        })?;
                        arr.iter().map(|p| self.player_value(&work.state, p, &f.name)).collect::<Result<Vec<_>, _>>()?
                    }
                };
                work.state.stack.push(Frame::Commit { decision: *d, players, ctx: Value::Unit });
            }
            StepKind::Phase(p) => {
                work.state.stack.push(Frame::Phase { phase: *p, step: 0, pos: 0, pass: 0, begun: false })
            }
            StepKind::Move { from, to, count, deal } => self.move_step(work, *from, *to, *count, *deal)?,
            StepKind::Trick(t) => self.start_trick(work, *t)?,
            StepKind::Roll(z) => {
                for owner in 0..work.state.zones[*z].len() {
                    let (_, line) = work.state.roll_slot(&self.rules, *z, owner).map_err(PlayError::Rule)?;
                    if work.logging {
                        work.events.push(line);
                    }
                }
            }
            StepKind::Shuffle(z) => {
                let owner = if self.rules.zones[*z].per_player { work.state.current } else { 0 };
                let mut cards = std::mem::take(&mut work.state.zones[*z][owner].cards);
                work.state.rng.shuffle(&mut cards);
                work.state.zones[*z][owner].cards = cards;
                if work.logging {
                    self.log_shuffled(work, *z);
                }
            }
        }
        Ok(())
    }

    /// Logs the shuffle of a zone (kept out of [`Game::run_step`], which mostly runs without a
    /// log).
    #[cold]
    #[inline(never)]
    fn log_shuffled(&self, work: &mut Work, zone: usize) {
        work.events.push(Event::public(EventKind::Chance, format!("shuffled {}", self.rules.zones[zone].name)));
    }

    fn move_step(&self, work: &mut Work, from: usize, to: usize, count: usize, deal: bool) -> Result<(), PlayError> {
        let r = &self.rules;
        let cur = work.state.current;
        let owner = |z: usize| if r.zones[z].per_player { cur } else { 0 };
        let from_owner = owner(from);
        // Dealt round the table in turn order, else to the one owner of `to`.
        let seats = if deal { work.state.turn_order.len() } else { 1 };
        for _ in 0..count {
            for k in 0..seats {
                let t = if deal { work.state.turn_order[k] } else { owner(to) };
                work.state.put_top(r, (from, from_owner), to, t).map_err(PlayError::Rule)?;
            }
        }
        Ok(())
    }

    fn player_value(&self, st: &State, v: &Dynamic, f: &str) -> Result<usize, PlayError> {
        match v.as_int() {
            Ok(p) if p >= 0 && (p as usize) < st.players => Ok(p as usize),
            _ => Err(self.returned(f, format!("must return a player number 0..{}, returned {v}", st.players - 1))),
        }
    }

    /// Computes a player's options for a decision.
    pub(crate) fn options_for(
        &self,
        work: &mut Work,
        decision: usize,
        player: usize,
        ctx: &Value,
    ) -> Result<SeatOptions, PlayError> {
        let mut out = SeatOptions::default();
        self.options_building(work, decision, player, ctx, &[], &mut out)?;
        Ok(out)
    }

    /// The options of a seat, for a `subset` decision with `building` already in its set, put
    /// into `out`, an empty list whose room is used. On an error `out` is left empty. Always
    /// inlined: as a call, its entry and exit cost a third of what listing a hand does.
    #[inline(always)]
    pub(crate) fn options_building(
        &self,
        work: &mut Work,
        decision: usize,
        player: usize,
        ctx: &Value,
        building: &[u32],
        out: &mut SeatOptions,
    ) -> Result<(), PlayError> {
        if !self.zone_options(&work.state, decision, player, out) {
            let room = out.take_room();
            out.set_choices(self.options_worked_out(work, decision, player, ctx, building, room)?);
        }
        Ok(())
    }

    /// The options of a decision that offers the components of a zone as they are (no filter
    /// script, no `follow` rule, not a `subset`), put into `out` (empty): those in the seat's
    /// slot of the zone, in a fixed order. False, `out` untouched, for any other decision.
    #[inline]
    fn zone_options(&self, st: &State, decision: usize, player: usize, out: &mut SeatOptions) -> bool {
        let Some(z) = self.zone_listed[decision] else { return false };
        let cards = &st.zones[z.zone][if z.per_player { player } else { 0 }].cards;
        let listed = out.components_to_fill();
        if !copy_in_fixed_order(cards, z.ordered, listed, |c| c) {
            listed.sort_unstable();
        }
        true
    }

    /// [`Game::options_building`] for the decisions [`Game::zone_options`] does not list.
    #[inline(never)]
    fn options_worked_out(
        &self,
        work: &mut Work,
        decision: usize,
        player: usize,
        ctx: &Value,
        building: &[u32],
        mut out: Vec<Choice>,
    ) -> Result<Vec<Choice>, PlayError> {
        debug_assert!(out.is_empty(), "options are worked out into an empty list");
        let d = &self.rules.decisions[decision];
        match &d.source {
            OptionSource::Zone { zone, filter } => {
                let ordered = self.rules.zones[*zone].ordered;
                let owner = if self.rules.zones[*zone].per_player { player } else { 0 };
                let cards = &work.state.zones[*zone][owner].cards;
                match filter {
                    // No filter script: the `follow` rule picks among the indices themselves
                    // (those that follow, or all when none does), each asked once.
                    None => {
                        if let Some(follows) = self.following(&work.state, d) {
                            out.extend(cards.iter().filter(|c| follows(**c)).map(|c| Choice::Component(*c)));
                        }
                        if out.is_empty() {
                            offer_components(cards, ordered, &mut out);
                        } else if !ordered && !out.is_sorted_by_key(|c| c.component()) {
                            // Those that follow, in the same fixed order (fewer to sort).
                            out.sort_unstable_by_key(|c| c.component());
                        }
                    }
                    Some(f) => {
                        // An unordered zone's components are offered in a fixed order (mostly
                        // they lie in it already: dealt in order, only ever taken from); the
                        // filter script sees them in it. Sorted as plain indices.
                        let mut offered: SmallVec<[u32; 32]> = SmallVec::from_slice(cards);
                        if !ordered && !offered.is_sorted() {
                            offered.sort_unstable();
                        }
                        for c in offered {
                            let card = card_map(&work.state, c);
                            let keep = self.call(work, f, vec![Dynamic::from_int(player as i64), card], ctx)?;
                            if keep.as_bool().map_err(|t| {
                                self.returned(&f.name, format!("a filter must return true or false, returned {t}"))
                            })? {
                                out.push(Choice::Component(c));
                            }
                        }
                        if let Some(follows) = self.following(&work.state, d) {
                            let follows = |c: &Choice| c.component().is_some_and(&follows);
                            if out.iter().any(follows) {
                                out.retain(follows);
                            }
                        }
                    }
                }
                match &d.subset {
                    Some(spec) => self.subset_step(work, decision, spec, player, &out, building, ctx),
                    None => Ok(out),
                }
            }
            OptionSource::Script(f) => {
                let v = self.call(work, f, vec![Dynamic::from_int(player as i64)], ctx)?;
                let arr = v.into_array().map_err(|t| {
                    self.returned(&f.name, format!("an options script must return an array, returned {t}"))
                })?;
                out.reserve(arr.len());
                // The ids offered so far, hashed: a new id is compared with the others only
                // where the hashes agree (a decision may offer dozens of options).
                let mut ids: SmallVec<[u64; 32]> = SmallVec::new();
                let hash = |id: &str| std::hash::BuildHasher::hash_one(&crate::value::NameHasher::default(), id);
                for item in arr {
                    // A component offered as it is: its id and label are the option's.
                    if let Some(idx) = crate::api::component_index(&item) {
                        if out.iter().any(|c| matches!(c, Choice::Component(i) if *i == idx)) {
                            return Err(self.returned(
                                &f.name,
                                format!(
                                    "offered the component `{}` twice",
                                    work.state.components.list[idx as usize].id
                                ),
                            ));
                        }
                        out.push(Choice::Component(idx));
                        continue;
                    }
                    let measured =
                        crate::convert::measure(&item, crate::value::MAX_VALUE_BYTES).map_err(PlayError::Rule)?;
                    // Kept as the script made it when it is plain data (most options): handed
                    // back to the `chosen` script as a copy. Else converted, as anything a
                    // script hands the engine is (a component inside becomes its id).
                    let value = if measured.plain {
                        PlainScriptValue::known_plain(item)
                    } else {
                        PlainScriptValue::from(&crate::convert::convert_dynamic(&item).map_err(PlayError::Rule)?)
                    };
                    let mut label = String::new();
                    let (id, labelled) = value.option_id_and_label(&mut label);
                    let Some(id) = id else {
                        let value = value.to_value();
                        return Err(self.returned(
                            &f.name,
                            format!(
                                "returned an option without an `id`: {value} (an option is a map with an `id`, a string or an integer)"
                            ),
                        ));
                    };
                    // Without a `label` of its own, the option is labelled by the decision's
                    // `label_by` script or template when someone reads the label (not now),
                    // else by its id.
                    let label = match (labelled, d.label_by.is_some() || d.label.is_some()) {
                        (true, _) => Some(label),
                        (false, true) => None,
                        (false, false) => Some(id.clone()),
                    };
                    let h = hash(&id);
                    let taken = |c: &Choice| matches!(c, Choice::Scripted(other) if other.id == id);
                    if ids.contains(&h) && out.iter().any(taken) {
                        return Err(self.returned(
                            &f.name,
                            format!(
                                "returned two options with the id `{id}` (the ids of a decision's options must differ)"
                            ),
                        ));
                    }
                    ids.push(h);
                    out.push(Choice::Scripted(Box::new(ScriptedChoice { id, label, value })));
                }
                Ok(out)
            }
        }
    }

    /// The options of one step of a `subset` decision: each candidate that can join the set
    /// built so far (the set can still be completed with it), and finishing with the set as
    /// it is, if it meets the constraints and the `valid` script.
    #[allow(clippy::too_many_arguments)]
    fn subset_step(
        &self,
        work: &mut Work,
        decision: usize,
        spec: &Subset,
        player: usize,
        candidates: &[Choice],
        building: &[u32],
        ctx: &Value,
    ) -> Result<Vec<Choice>, PlayError> {
        let name = &self.rules.decisions[decision].name;
        let fail = |e: String| PlayError::Rule(format!("decision `{name}` for {}: {e}", self.rules.seat_name(player)));
        let st = &work.state;
        let cands: Vec<Candidate<'_>> = candidates
            .iter()
            .filter_map(Choice::component)
            .map(|i| {
                let c = &st.components.list[i as usize];
                Candidate { idx: i, props: &c.props, rank: c.run_rank(decision) }
            })
            .collect();
        let mut chosen = Vec::with_capacity(building.len() + 1);
        for b in building {
            let pos = cands.iter().position(|c| c.idx == *b).ok_or_else(|| {
                fail(format!("{} was chosen but is no longer a candidate", st.components.list[*b as usize].id))
            })?;
            chosen.push(pos);
        }
        let pool = crate::subset::Pool::new(spec, &cands).map_err(fail)?;
        let mut out = Vec::new();
        let finish = pool.satisfies(&chosen);
        for (pos, c) in cands.iter().enumerate() {
            if chosen.contains(&pos) {
                continue;
            }
            chosen.push(pos);
            let ok = pool.completable(&chosen).map_err(fail)?;
            chosen.pop();
            if ok {
                out.push(Choice::Add(c.idx));
            }
        }
        crate::alloc::charge(cands.len() * cands.len());
        if finish {
            chosen.sort_unstable();
            let cards: Vec<u32> = chosen.iter().map(|p| cands[*p].idx).collect();
            let ids: Vec<&str> = cards.iter().map(|i| st.components.list[*i as usize].id.as_str()).collect();
            let id = ids.join("+");
            let keep = match &spec.valid {
                Some(f) => {
                    let list: rhai::Array = cards.iter().map(|i| card_map(&work.state, *i)).collect();
                    let ok =
                        self.call(work, f, vec![Dynamic::from_int(player as i64), Dynamic::from_array(list)], ctx)?;
                    ok.as_bool().map_err(|t| {
                        self.returned(&f.name, format!("a subset check must return true or false, returned {t}"))
                    })?
                }
                None => true,
            };
            if keep {
                out.insert(0, Choice::Subset(Box::new(SubsetChoice { id, cards })));
            }
        }
        if out.is_empty() && !building.is_empty() {
            return Err(fail(
                "the set built so far can neither grow nor be finished (its `valid` script refuses it)".into(),
            ));
        }
        Ok(out)
    }

    /// The value of a derived var for one owner, computed on a copy of the state: whatever
    /// the function changes is dropped.
    pub(crate) fn derive(&self, st: &State, var: usize, owner: usize) -> Result<Value, PlayError> {
        let info = &self.rules.vars[var];
        let Some(f) = &info.derived else { return Ok(st.vars[var][owner].get().clone()) };
        let v = crate::script::transaction(|| {
            let mut work = Work::scratch_copy(st);
            let args = if info.per_player { vec![Dynamic::from_int(owner as i64)] } else { Vec::new() };
            let v = self.call(&mut work, f, args, &Value::Unit);
            work.give_back_scratch();
            v
        })?;
        crate::convert::from_dynamic(&v)
            .map_err(|e| PlayError::Rule(format!("derived var `{}`: `{}` returned {e}", info.name, f.name)))
    }

    /// How well `seat` stands in `st` by the game's `[bots] evaluate` script (higher is
    /// better), computed on a copy: whatever the script changes is dropped. `None` if the
    /// game declares no such script.
    pub(crate) fn evaluate(&self, st: &State, seat: usize) -> Option<Result<f64, PlayError>> {
        let f = self.rules.evaluate.as_ref()?;
        let result = crate::script::transaction(|| {
            let mut work = Work::scratch_copy(st);
            let v = self.call(&mut work, f, vec![Dynamic::from_int(seat as i64)], &Value::Unit);
            work.give_back_scratch();
            v
        });
        let v = match result {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        };
        Some(
            v.as_int().map(|i| i as f64).map_err(|t| {
                self.returned(&f.name, format!("an evaluate script must return an integer, returned {t}"))
            }),
        )
    }

    /// Which components follow the value led, when decision `d` has a `follow` rule and a
    /// value was led (`None` otherwise: every option stays). Compared by number (see
    /// [`crate::codes`]): no property is looked up by name, save a value without a number.
    fn following<'s>(&'s self, st: &'s State, d: &'s crate::rules::DecisionInfo) -> Option<impl Fn(u32) -> bool + 's> {
        let f = d.follow.as_ref()?;
        let codes = &self.rules.prop_codes;
        let comps = &st.components;
        let led = match f.from {
            FollowFrom::Var(v) => Some(st.vars[v][0].get()),
            FollowFrom::Zone(z) => st.zones[z][0].cards.first().and_then(|c| comps.coded_prop(codes, *c, &f.by)),
        };
        let led = led.filter(|led| **led != Value::Unit && **led != f.free)?;
        let led_code = codes.code(f.by.slot, Some(led));
        Some(move |c: u32| {
            crate::codes::same(comps.code(c, f.by.slot), led_code, || {
                comps.list[c as usize].prop(&f.by.name) == Some(led)
            })
        })
    }

    /// Opens a decision: computes options, lets automatic seats answer, and either leaves it
    /// pending or resolves it at once.
    fn open(&self, work: &mut Work, decision: usize, seats: Seats, commit: bool, ctx: Value) -> Result<(), PlayError> {
        let d = &self.rules.decisions[decision];
        // Filled in place: the kept box of the last decision answered, its lists emptied.
        let mut pending = recycle::pending();
        pending.decision = decision;
        pending.commit = commit;
        let Pending { players, options, chosen, .. } = &mut *pending;
        match seats {
            Seats::One(p) => players.push(p),
            Seats::All => {
                // Pushed one by one: `extend` of a range costs more for the few seats of a game.
                for p in 0..work.state.players {
                    players.push(p);
                }
            }
            Seats::Listed(listed) => *players = listed,
        }
        // The seats with options stay in `players`, in order, as the seats asked.
        let mut asked = 0;
        for at in 0..players.len() {
            let p = players[at];
            // The seat's list is filled where it lies (a kept one, emptied, or a new one).
            if options.len() == asked {
                options.push(SeatOptions::default());
            }
            self.options_building(work, decision, p, &ctx, &[], &mut options[asked])?;
            let opts = &options[asked];
            if opts.is_empty() && d.skip_if_no_options {
                continue;
            }
            if opts.is_empty() {
                return Err(self.no_legal_option(decision, p));
            }
            let auto = if d.auto.is_some() { self.auto_choice(work, decision, p, opts, &ctx)? } else { None };
            chosen.push(auto);
            players[asked] = p;
            asked += 1;
        }
        players.truncate(asked);
        options.truncate(asked);
        if asked == 0 {
            recycle::recycle(pending);
            return Ok(());
        }
        if d.subset.is_some() {
            pending.building = vec![Vec::new(); asked];
        }
        pending.ctx.set(ctx);
        if pending.chosen.iter().all(Option::is_some) {
            self.resolve(work, &pending)?;
            recycle::recycle(pending);
        } else {
            work.state.pending = Some(pending);
        }
        Ok(())
    }

    /// The error of a decision that leaves a seat without an option (kept out of
    /// [`Game::open`], which mostly runs without it).
    #[cold]
    #[inline(never)]
    fn no_legal_option(&self, decision: usize, seat: usize) -> PlayError {
        let name = &self.rules.decisions[decision].name;
        PlayError::Rule(format!("decision `{name}` has no legal option for {}", self.rules.seat_name(seat)))
    }

    pub(crate) fn auto_choice(
        &self,
        work: &mut Work,
        decision: usize,
        player: usize,
        opts: &SeatOptions,
        ctx: &Value,
    ) -> Result<Option<usize>, PlayError> {
        let d = &self.rules.decisions[decision];
        let Some(auto) = &d.auto else { return Ok(None) };
        if let Some(cond) = &d.auto_if {
            let v = self.call(work, cond, vec![Dynamic::from_int(player as i64)], ctx)?;
            if !v.as_bool().unwrap_or(false) {
                return Ok(None);
            }
        }
        let arr: rhai::Array = opts.iter().map(|c| self.choice_value(&work.state, decision, &c)).collect();
        let v = self.call(work, auto, vec![Dynamic::from_int(player as i64), Dynamic::from_array(arr)], ctx)?;
        let v = match crate::convert::from_dynamic(&v) {
            // A component handle becomes its id.
            Ok(Value::Str(id)) => Dynamic::from(id),
            _ => v,
        };
        let id = if let Ok(i) = v.as_int() {
            return usize::try_from(i)
                .ok()
                .filter(|i| *i < opts.len())
                .map(Some)
                .ok_or_else(|| self.returned(&auto.name, format!("returned the option index {i}, out of range")));
        } else if let Some(s) = v.clone().try_cast::<String>() {
            s
        } else if let Some(Value::Str(s)) = crate::convert::from_dynamic(&v).ok().and_then(|m| m.get("id").cloned()) {
            s
        } else {
            return Err(self.returned(
                &auto.name,
                format!("an auto script must return an option, its id or its index; returned {v}"),
            ));
        };
        opts.iter()
            .position(|c| self.choice_id(&work.state, &c) == id)
            .map(Some)
            .ok_or_else(|| self.returned(&auto.name, format!("chose `{id}`, which is not an option")))
    }

    /// The stable id of an option.
    pub(crate) fn choice_id<'a>(&self, st: &'a State, c: &'a Choice) -> &'a str {
        match c {
            Choice::Component(i) | Choice::Add(i) => &st.components.list[*i as usize].id,
            Choice::Subset(s) => &s.id,
            Choice::Scripted(s) => &s.id,
        }
    }

    /// The stable id of option `index` of `options` (a seat's options in `st`), if there is
    /// that option.
    pub(crate) fn option_id<'a>(&self, st: &'a State, options: &'a SeatOptions, index: usize) -> Option<&'a str> {
        match options.component(index) {
            Some(i) => Some(&st.components.list[i as usize].id),
            None => options.listed(index).map(|c| self.choice_id(st, c)),
        }
    }

    /// [`Game::choice_id`] as a shared string (a component's is shared, not copied).
    pub(crate) fn choice_shared_id(&self, st: &State, c: &Choice) -> std::sync::Arc<str> {
        match c {
            Choice::Component(i) | Choice::Add(i) => st.components.list[*i as usize].shared_id().clone(),
            other => self.choice_id(st, other).into(),
        }
    }

    /// The label of an option `asked.player` was offered. A scripted option without a `label`
    /// of its own is labelled by the decision's `label_by` script, else its `label` template
    /// filled from the option's fields, else its id.
    pub(crate) fn choice_label(&self, st: &State, asked: Asked<'_>, c: &Choice) -> Result<String, PlayError> {
        match c {
            Choice::Component(i) | Choice::Add(i) => Ok(self.card_option_label(st, asked.decision, *i)),
            Choice::Subset(s) => Ok(self.subset_option_label(st, asked.decision, s)),
            Choice::Scripted(s) => self.scripted_label(st, asked, s),
        }
    }

    /// The label of a component offered by a decision: its `label` template filled from the
    /// component, else the component's own label (made once).
    fn card_option_label(&self, st: &State, decision: usize, i: u32) -> String {
        let comp = &st.components.list[i as usize];
        match &self.rules.decisions[decision].label {
            Some(t) => crate::value::fill_template(t, &comp.props, &comp.id),
            None => comp.label().to_string(),
        }
    }

    /// The label of a set of components (a `subset` decision's answer): theirs, joined by `+`.
    fn subset_option_label(&self, st: &State, decision: usize, s: &SubsetChoice) -> String {
        s.cards.iter().map(|i| self.card_option_label(st, decision, *i)).collect::<Vec<_>>().join(" + ")
    }

    /// The label of a scripted option (see [`Game::choice_label`]).
    fn scripted_label(&self, st: &State, asked: Asked<'_>, s: &ScriptedChoice) -> Result<String, PlayError> {
        let d = &self.rules.decisions[asked.decision];
        match (&s.label, &d.label_by, &d.label) {
            (Some(label), _, _) => Ok(label.clone()),
            (None, Some(f), _) => self.label_by(st, asked, f, s),
            (None, None, Some(t)) => {
                Ok(crate::value::fill_template_by(t, &s.id, |key, out| s.value.write_entry(key, out)))
            }
            (None, None, _) => Ok(s.id.clone()),
        }
    }

    /// Calls a decision's `label_by` script for an option, on a copy of the state: whatever
    /// the script changes is dropped.
    fn label_by(&self, st: &State, asked: Asked<'_>, f: &FnRef, s: &ScriptedChoice) -> Result<String, PlayError> {
        let v = crate::script::transaction(|| {
            let mut work = Work::scratch_copy(st);
            let args = vec![Dynamic::from_int(asked.player as i64), s.value.to_dynamic()];
            let v = self.call(&mut work, f, args, asked.ctx);
            work.give_back_scratch();
            v
        })?;
        v.into_string()
            .map_err(|t| self.returned(&f.name, format!("a label script must return a string, returned {t}")))
    }

    /// The label a player reads in the option list: a `subset` step says what it does.
    pub(crate) fn option_label(&self, st: &State, asked: Asked<'_>, c: &Choice) -> Result<String, PlayError> {
        Ok(match c {
            Choice::Add(i) => format!("add {}", self.card_option_label(st, asked.decision, *i)),
            Choice::Subset(s) => format!("done: {}", self.subset_option_label(st, asked.decision, s)),
            _ => self.choice_label(st, asked, c)?,
        })
    }

    /// A label for a screen: when its label script failed, the option's id and why.
    pub(crate) fn label_or_failure(&self, st: &State, c: &Choice, label: Result<String, PlayError>) -> String {
        label.unwrap_or_else(|e| format!("{} (its label script failed: {e})", self.choice_id(st, c)))
    }

    /// The value a script receives for an option.
    pub(crate) fn choice_value(&self, st: &State, decision: usize, c: &Choice) -> Dynamic {
        match c {
            Choice::Component(i) | Choice::Add(i) => card_map(st, *i),
            Choice::Subset(s) => {
                let mut m = rhai::Map::new();
                m.insert("id".into(), s.id.clone().into());
                m.insert("label".into(), self.subset_option_label(st, decision, s).into());
                let list: rhai::Array = s.cards.iter().map(|i| card_map(st, *i)).collect();
                m.insert("cards".into(), Dynamic::from_array(list));
                Dynamic::from_map(m)
            }
            Choice::Scripted(s) => s.value.to_dynamic(),
        }
    }

    /// Resolves a pending decision whose answers are all in: logs, clears it and runs the
    /// decision's `then` or `reveal` script.
    pub(crate) fn resolve(&self, work: &mut Work, pending: &Pending) -> Result<(), PlayError> {
        let d = &self.rules.decisions[pending.decision];
        work.state.decisions += 1;
        if pending.commit {
            // What the reveal script receives (made only when there is one and it reads them).
            let made = self.reveal_reads_choices[pending.decision];
            let mut choices = if made { vec![Dynamic::UNIT; work.state.players] } else { Vec::new() };
            if made {
                for (slot, &p) in pending.players.iter().enumerate() {
                    choices[p] = self.choice_value(&work.state, pending.decision, &pending.chosen_option(slot));
                }
            }
            if work.logging {
                self.log_reveal(work, pending)?;
            }
            if let Some(to) = d.to {
                self.move_chosen(work, to, pending)?;
            }
            if let Some(c) = &d.contest {
                self.contest(work, c, pending)?;
            }
            if let Some(f) = &d.reveal {
                let choices = if made { Dynamic::from_array(choices) } else { Dynamic::UNIT };
                let _ = self.call(work, f, vec![choices], &pending.ctx)?;
            }
        } else {
            let p = pending.players[0];
            let c = pending.chosen_option(0);
            if work.logging {
                self.log_decision(work, pending)?;
            }
            if let Choice::Component(card) = *c {
                self.trick_played(work, pending.decision, p, card)?;
            }
            if let Some(to) = d.to {
                self.move_chosen(work, to, pending)?;
            }
            if let Some(f) = &d.then {
                let v = self.choice_value(&work.state, pending.decision, &c);
                let _ = self.call(work, f, vec![Dynamic::from_int(p as i64), v], &pending.ctx)?;
            }
        }
        Ok(())
    }

    /// Logs the reveal of a commit whose answers are all in: one public line, or for a secret
    /// decision each seat's own choice to that seat alone. Kept out of [`Game::resolve`], which
    /// mostly runs without a log.
    #[cold]
    #[inline(never)]
    fn log_reveal(&self, work: &mut Work, pending: &Pending) -> Result<(), PlayError> {
        let d = &self.rules.decisions[pending.decision];
        let mut shown = Vec::new();
        for (slot, &p) in pending.players.iter().enumerate() {
            let label = self.choice_label(&work.state, pending.asked(slot), &pending.chosen_option(slot))?;
            let seat = self.rules.seat_name(p);
            if d.secret {
                let text = format!("{}: {seat} chose {label}", d.name);
                work.events.push(Event::private(EventKind::Reveal, vec![p], text, None));
            } else {
                shown.push(format!("{seat} {label}"));
            }
        }
        if !d.secret {
            work.events.push(Event::public(EventKind::Reveal, format!("{} revealed: {}", d.name, shown.join(", "))));
        }
        Ok(())
    }

    /// Logs one seat's answer to a decision (public, or only to that seat for a secret
    /// decision). Kept out of [`Game::resolve`], which mostly runs without a log.
    #[cold]
    #[inline(never)]
    fn log_decision(&self, work: &mut Work, pending: &Pending) -> Result<(), PlayError> {
        let d = &self.rules.decisions[pending.decision];
        let p = pending.players[0];
        let label = self.choice_label(&work.state, pending.asked(0), &pending.chosen_option(0))?;
        let who = d.actor.clone().unwrap_or_else(|| self.rules.seat_name(p));
        work.events.push(if d.secret {
            Event::private(
                EventKind::Decision,
                vec![p],
                format!("{who} chose {label} ({})", d.name),
                Some(format!("{who} chose ({})", d.name)),
            )
        } else {
            Event::public(EventKind::Decision, format!("{who} chose {label} ({})", d.name))
        });
        Ok(())
    }

    /// A decision's `to`: each chosen component goes to zone `to` (the answering seat's own
    /// slot of a per-player zone), in seat order.
    fn move_chosen(&self, work: &mut Work, to: usize, pending: &Pending) -> Result<(), PlayError> {
        // (seat, component, the index of its option: mostly where it lies, see `put_near`)
        let mut chosen: SmallVec<[(usize, u32, usize); 8]> = SmallVec::new();
        for (slot, &p) in pending.players.iter().enumerate() {
            if let Some(i) = pending.chosen[slot] {
                if let Some(c) = pending.options[slot].component(i) {
                    chosen.push((p, c, i));
                }
            }
        }
        chosen.sort_unstable_by_key(|(p, ..)| *p);
        let per_player = self.rules.zones[to].per_player;
        for (p, c, near) in chosen {
            work.state.put_near(&self.rules, c, near, to, if per_player { p } else { 0 }).map_err(PlayError::Rule)?;
            crate::api::log_pushed_out(&self.rules, work);
        }
        Ok(())
    }

    /// Judges a contest: compares the revealed options by a property, moves the revealed
    /// components, hands the stake to the winner and scores it.
    fn contest(&self, work: &mut Work, c: &Contest, pending: &Pending) -> Result<(), PlayError> {
        let r = &self.rules;
        let st = &work.state;
        let codes = &r.prop_codes;
        // Each revealed choice, then put in turn order (seats out of it last, as they answered).
        // The seats of a commit mostly answer in turn order already: then each one's place
        // is its slot, and nothing is looked up or sorted.
        let in_turn_order = same_seats(&pending.players, &st.turn_order);
        let mut entries: SmallVec<[Entry; 8]> = SmallVec::new();
        for (slot, &p) in pending.players.iter().enumerate() {
            let (options, near) = (&pending.options[slot], pending.chosen[slot].expect("every seat has answered"));
            let (component, value) = match (options.component(near), options.listed(near)) {
                (Some(i), _) => (Some(i), st.components.coded_int(codes, i, &c.by)),
                (None, Some(Choice::Scripted(s))) => (None, s.value.get(&c.by.name).and_then(|v| v.as_int())),
                (None, _) => (None, None),
            };
            let Some(value) = value else {
                return Err(self.no_value_to_compare(st, c, p, &options.at(near)));
            };
            let place =
                if in_turn_order { slot } else { st.turn_order.iter().position(|x| *x == p).unwrap_or(usize::MAX) };
            entries.push(Entry { place, seat: p, component, near, value });
        }
        if !in_turn_order && !entries.is_sorted_by_key(|e| e.place) {
            entries.sort_by_key(|e| e.place);
        }
        // Read as a slice from here on (each use of the small vector asks where it lies).
        let entries: &[Entry] = &entries;
        // The best value, how many seats share it and the first of them in turn order, in
        // one pass.
        let (mut best, mut sharing, mut first) = (0, 0, None);
        for e in entries {
            let beats = match c.best {
                Best::Highest => e.value > best,
                Best::Lowest => e.value < best,
            };
            if first.is_none() || beats {
                (best, sharing, first) = (e.value, 1, Some(e.seat));
            } else if e.value == best {
                sharing += 1;
            }
        }
        // The winners are the first `won` of the tied seats, in turn order.
        let won = match (c.ties, sharing) {
            (Ties::Nobody, 1) => 1,
            (Ties::Nobody, _) => 0,
            (Ties::All, n) => n,
            (Ties::First, n) => n.min(1),
        };
        let winner = first.filter(|_| won > 0);
        if let Some(to) = c.played_to {
            for Entry { component, near, .. } in entries {
                if let Some(i) = component {
                    work.state.put_near(r, *i, *near, to, 0).map_err(PlayError::Rule)?;
                }
            }
        }
        let mut stake_labels = Vec::new();
        if let Some(stake) = c.stake {
            // The stake's components, bottom first: each move takes the bottom one (those
            // still to move lie under anything a move may add).
            let count = work.state.zones[stake][0].cards.len();
            if work.logging {
                stake_labels = self.zone_labels(&work.state, stake);
            }
            let bottom = |st: &State| st.zones[stake][0].cards[0];
            match (winner, c.stake_to) {
                (Some(w), Some(to)) => {
                    let mut gain = 0i64;
                    for _ in 0..count {
                        let i = bottom(&work.state);
                        gain += work.state.components.coded_int(&r.prop_codes, i, &c.by).unwrap_or(0);
                        work.state.put_near(r, i, 0, to, w).map_err(PlayError::Rule)?;
                    }
                    if let Some(t) = c.score {
                        let v = work.state.tracks[t][w].saturating_add(gain);
                        work.state.set_track(r, t, w, v);
                    }
                }
                _ => {
                    if let Some(to) = c.unclaimed_to {
                        for _ in 0..count {
                            work.state.put_near(r, bottom(&work.state), 0, to, 0).map_err(PlayError::Rule)?;
                        }
                    }
                }
            }
        }
        if let Some(v) = c.winner_var {
            work.state.vars[v][0].set(Value::Int(winner.map_or(-1, |w| w as i64)));
        }
        if work.logging {
            self.log_contest(work, entries, (best, won), &stake_labels);
        }
        Ok(())
    }

    /// The error of a contest whose compared property a revealed choice lacks (kept out of
    /// [`Game::contest`], which mostly runs without it).
    #[cold]
    #[inline(never)]
    fn no_value_to_compare(&self, st: &State, c: &Contest, seat: usize, choice: &Choice) -> PlayError {
        PlayError::Rule(format!(
            "the contest compares `{}`, but {}'s choice `{}` has no integer `{}`",
            c.by,
            self.rules.seat_name(seat),
            self.choice_id(st, choice),
            c.by
        ))
    }

    /// The labels of the components of a global zone, bottom first (for the log).
    #[cold]
    #[inline(never)]
    fn zone_labels(&self, st: &State, zone: usize) -> Vec<String> {
        st.zones[zone][0].cards.iter().map(|i| self.component_label(st, *i)).collect()
    }

    /// Logs a contest's result: who won the stake (labelled `stake_labels`) with the `best`
    /// value, or the tie nobody won. Kept out of [`Game::contest`], which mostly runs without
    /// a log.
    #[cold]
    #[inline(never)]
    fn log_contest(&self, work: &mut Work, entries: &[Entry], (best, won): (i64, usize), stake_labels: &[String]) {
        let stake = if stake_labels.is_empty() { String::new() } else { format!(" [{}]", stake_labels.join(" ")) };
        let text = if won == 0 {
            format!("tie at {best}: nobody wins{stake}")
        } else {
            let tied = entries.iter().filter(|e| e.value == best).map(|e| e.seat);
            let names: Vec<String> = tied.take(won).map(|w| self.rules.seat_name(w)).collect();
            format!("{} {}{} with {best}", names.join(" and "), if won == 1 { "wins" } else { "win" }, stake)
        };
        work.events.push(Event::public(EventKind::Message, text));
    }

    /// A component's label from its type's template.
    pub(crate) fn component_label(&self, st: &State, idx: u32) -> String {
        st.components.list[idx as usize].label().to_string()
    }

    /// Ends the game: scores, winners, the last log line.
    fn finish(&self, work: &mut Work) -> Result<(), PlayError> {
        let scores: Vec<i64> = self.rules.score.map(|t| work.state.tracks[t].clone()).unwrap_or_default();
        let winners = match &self.rules.winners {
            Some(f) => {
                let v = self.call(work, f, vec![], &Value::Unit)?;
                let arr = v.into_array().map_err(|t| {
                    self.returned(&f.name, format!("a winners script must return an array, returned {t}"))
                })?;
                let mut w =
                    arr.iter().map(|p| self.player_value(&work.state, p, &f.name)).collect::<Result<Vec<_>, _>>()?;
                w.sort_unstable();
                w.dedup();
                w
            }
            None if !scores.is_empty() => {
                let best = scores.iter().copied().max().unwrap_or(0);
                (0..scores.len()).filter(|p| scores[*p] == best).collect()
            }
            None => Vec::new(),
        };
        if work.logging {
            self.log_end(work, &winners, &scores);
        }
        work.state.outcome = Some(Outcome { winners, scores });
        work.state.stack.clear();
        Ok(())
    }

    /// Logs the end of the game: its winners and scores. Kept out of [`Game::finish`], which
    /// mostly runs without a log.
    #[cold]
    #[inline(never)]
    fn log_end(&self, work: &mut Work, winners: &[usize], scores: &[i64]) {
        let names: Vec<String> = winners.iter().map(|p| self.rules.seat_name(*p)).collect();
        let score_text = if scores.is_empty() {
            String::new()
        } else {
            format!(
                "; scores {}",
                scores
                    .iter()
                    .enumerate()
                    .map(|(p, s)| format!("{} {s}", self.rules.seat_name(p)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let who = if names.is_empty() { "nobody".to_string() } else { names.join(" and ") };
        work.events.push(Event::public(EventKind::End, format!("game over: {who} won{score_text}")));
    }
}

/// The seats a decision asks (see [`Game::open`]).
enum Seats {
    /// One seat.
    One(usize),
    /// Every seat, in seat order.
    All,
    /// These seats, in this order.
    Listed(Vec<usize>),
}

/// Offers the components `cards` of a zone (`ordered` or not) as options, appended to `out`,
/// in their fixed order (see [`copy_in_fixed_order`]); else the appended options are sorted where
/// they lie.
#[inline(always)]
fn offer_components(cards: &[u32], ordered: bool, out: &mut Vec<Choice>) {
    let start = out.len();
    if !copy_in_fixed_order(cards, ordered, out, Choice::Component) {
        sort_offered(&mut out[start..]);
    }
}

/// Appends the components `cards` of a zone to `out` (each made an option by `option`), and
/// says whether they lie in the order they are offered in: the order they lie in for an
/// ordered zone, a fixed order (by component) for an unordered one. Mostly an unordered zone's
/// lie in it already (dealt in order, only ever taken from). One pass that checks as it
/// copies, every pair compared without stopping at the first pair out of order (hands are
/// short): a library copy of a hand, whose length changes at every decision, cost more than
/// the pass (its branches on the length mostly guess wrong).
#[inline(always)]
fn copy_in_fixed_order<T>(cards: &[u32], ordered: bool, out: &mut Vec<T>, option: impl Fn(u32) -> T) -> bool {
    let (mut ascending, mut last) = (true, 0);
    out.extend(cards.iter().map(|&c| {
        ascending &= last <= c;
        last = c;
        option(c)
    }));
    ordered || ascending
}

/// [`offer_components`] for components not in their fixed order yet (kept out of the callers,
/// which mostly find them in it).
#[inline(never)]
fn sort_offered(options: &mut [Choice]) {
    options.sort_unstable_by_key(Choice::component);
}

/// Whether two lists of seats are the same, compared in place (a slice compare of a few
/// seats is a library call).
#[inline]
fn same_seats(a: &[usize], b: &[usize]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// A revealed choice in a contest.
struct Entry {
    /// The seat's place in turn order (`usize::MAX` for a seat out of it).
    place: usize,
    /// The seat.
    seat: usize,
    /// The component revealed, if the choice is one.
    component: Option<u32>,
    /// The index of the chosen option: mostly where that component lies in its zone slot
    /// (see [`State::put_near`]).
    near: usize,
    /// The value compared.
    value: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn components(options: &[Choice]) -> Vec<Option<u32>> {
        options.iter().map(Choice::component).collect()
    }

    /// A component's property numbers are read from the components' table (a contest or a
    /// trick compares by them), and setting a property keeps its number there, the other
    /// cards' alike.
    #[test]
    fn a_components_numbers_in_the_table_follow_its_properties() {
        use crate::load::{load_game, LoadOptions};
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tricks");
        let game = load_game(&folder, &LoadOptions::default()).game.expect("the fixture loads");
        let r = &game.rules;
        let (rank, suit) = (r.tricks[0].rank.as_ref().expect("a rank"), r.tricks[0].suit.as_ref().expect("a suit"));
        let mut st = game.initial_state(3, 1).expect("starts");
        let n = st.components.list.len() as u32;
        assert!(n > 1);
        for i in 0..n {
            let c = &st.components.list[i as usize];
            let value = c.prop(&rank.name).and_then(Value::as_int);
            assert!(value.is_some());
            assert_eq!(st.components.coded_int(&r.prop_codes, i, rank), value, "component {i}");
            assert_eq!(st.components.coded_prop(&r.prop_codes, i, suit), c.prop(&suit.name), "component {i}");
        }
        let second = (st.components.code(1, rank.slot), st.components.code(1, suit.slot));
        let comps = std::sync::Arc::make_mut(&mut st.components);
        comps.set_prop(r, 0, &rank.name, Value::Int(99));
        assert_eq!(comps.coded_int(&r.prop_codes, 0, rank), Some(99));
        assert_eq!(comps.code(0, rank.slot), r.prop_codes.code(rank.slot, Some(&Value::Int(99))));
        comps.set_prop(r, 0, &suit.name, Value::Str("x".into()));
        assert_eq!(comps.coded_prop(&r.prop_codes, 0, suit), Some(&Value::Str("x".into())));
        comps.set_prop(r, 0, &rank.name, Value::Str("high".into()));
        assert_eq!(comps.coded_int(&r.prop_codes, 0, rank), None, "no longer an integer");
        assert_eq!((comps.code(1, rank.slot), comps.code(1, suit.slot)), second, "the other cards keep theirs");
        assert_eq!(comps.code(n, rank.slot), crate::codes::MISSING, "no such component: no number");
    }

    /// A move step's `State::put_top` moves the component on top of a slot as `State::put`
    /// moves it, the trace alike, and does nothing for an empty slot.
    #[test]
    fn the_top_component_moved_from_where_it_lies_is_moved_as_put_moves_it() {
        use crate::load::{load_game, LoadOptions};
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/deck-checks");
        let game = load_game(&folder, &LoadOptions::default()).game.expect("the fixture loads");
        let r = &game.rules;
        let (deck, hand) = (r.zone("deck").expect("a deck"), r.zone("hand").expect("hands"));
        let mut by_put = game.initial_state(2, 5).expect("starts");
        by_put.trace = Some(Vec::new());
        let mut by_top = by_put.clone();
        for owner in [1, 0, 1] {
            let top = *by_put.zones[deck][0].cards.last().expect("cards left");
            by_put.put(r, top, hand, owner).expect("moves");
            assert_eq!(by_top.put_top(r, (deck, 0), hand, owner), Ok(Some(top)));
            assert_eq!(by_top.location, by_put.location);
            assert_eq!(by_top.trace, by_put.trace);
            for (zone, slots) in by_put.zones.iter().enumerate() {
                for (o, slot) in slots.iter().enumerate() {
                    assert_eq!(by_top.zones[zone][o].cards, slot.cards, "zone {zone}, owner {o}");
                }
            }
        }
        assert_eq!(by_top.trace.as_ref().map(Vec::len), Some(3));
        let before = by_top.zones[hand][0].cards.clone();
        by_top.put_top(r, (hand, 1), hand, 0).expect("moves");
        by_top.put_top(r, (hand, 1), hand, 0).expect("moves");
        assert!(by_top.zones[hand][1].cards.is_empty());
        assert_eq!(by_top.put_top(r, (hand, 1), hand, 0), Ok(None), "an empty slot moves nothing");
        assert_eq!(by_top.zones[hand][0].cards.len(), before.len() + 2);
        assert_eq!(by_top.trace.as_ref().map(Vec::len), Some(5));
    }

    #[test]
    fn a_zones_components_are_copied_with_a_word_on_their_order() {
        for (cards, ascending) in [
            (&[][..], true),
            (&[0][..], true),
            (&[0, 0, 3, 9][..], true),
            (&[4, 2][..], false),
            (&[1, 5, 9, 8, 12][..], false),
        ] {
            for ordered in [false, true] {
                let mut out = vec![99];
                // An ordered zone's components are in their fixed order as they lie.
                assert_eq!(copy_in_fixed_order(cards, ordered, &mut out, |c| c), ascending || ordered, "{cards:?}");
                assert_eq!(out[0], 99, "appended after what was there");
                assert_eq!(&out[1..], cards);
            }
        }
    }

    #[test]
    fn an_unordered_zone_offers_its_components_by_component_and_an_ordered_one_as_they_lie() {
        let cards = [7, 2, 40, 3];
        let mut out = Vec::new();
        offer_components(&cards, false, &mut out);
        assert_eq!(components(&out), [Some(2), Some(3), Some(7), Some(40)]);
        let mut out = Vec::new();
        offer_components(&cards, true, &mut out);
        assert_eq!(components(&out), [Some(7), Some(2), Some(40), Some(3)]);
        // In order already: offered as they lie. Many out of order: sorted all the same.
        let mut out = Vec::new();
        offer_components(&[1, 5, 9], false, &mut out);
        assert_eq!(components(&out), [Some(1), Some(5), Some(9)]);
        let many: Vec<u32> = (0..40).rev().collect();
        let mut out = Vec::new();
        offer_components(&many, false, &mut out);
        assert_eq!(components(&out), (0..40).map(Some).collect::<Vec<_>>());
    }
}
