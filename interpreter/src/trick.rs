//! Tricks as data (`[tricks.NAME]`, played by a `trick` step): every seat is asked in turn
//! order from the leader, each card played is laid in its player's slot of the table zone and
//! the first one sets the suit led; when every play is in, the engine finds the winner (highest
//! of the suit led or of every card, trumps beating it, or the game's own `winner` script),
//! runs the `then` hook, hands the cards left on the table to the winner and names the next
//! leader.

use crate::api::card_map;
use crate::def::{Best, NextLeader, ThenWhen};
use crate::error::PlayError;
use crate::log::{Event, EventKind};
use crate::rules::TrickInfo;
use crate::script::Work;
use crate::state::{Frame, State};
use crate::value::Value;
use crate::Game;
use rhai::Dynamic;
use smallvec::SmallVec;
use std::sync::Arc;

/// The fields of the `trick` value a `then` hook reads (worked out once, when the game is
/// made: see [`crate::script::Scripts::fields_read_each`]), one bit each, so that the engine
/// asks no set of names at every trick which fields to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TrickFields(u8);

impl TrickFields {
    /// The fields, by bit.
    const NAMES: [&'static str; 5] = ["winner", "index", "card", "plays", "led"];
    const WINNER: u8 = 1;
    const INDEX: u8 = 2;
    const CARD: u8 = 4;
    const PLAYS: u8 = 8;
    const LED: u8 = 16;

    /// The fields among `reads` (every field when the hook may see the whole value: `None`).
    pub(crate) fn of(reads: Option<&std::collections::BTreeSet<String>>) -> TrickFields {
        let bits = Self::NAMES
            .iter()
            .enumerate()
            .filter(|(_, name)| reads.is_none_or(|r| r.contains(**name)))
            .fold(0, |bits, (i, _)| bits | 1 << i);
        TrickFields(bits)
    }

    fn has(self, field: u8) -> bool {
        self.0 & field != 0
    }
}

/// The turn order read from one seat on (the trick's leader), without copying it.
struct SeatsFrom<'s> {
    order: &'s [usize],
    start: usize,
}

impl SeatsFrom<'_> {
    fn len(&self) -> usize {
        self.order.len()
    }

    /// The seat `k` places after the first (`k` below [`SeatsFrom::len`]).
    fn seat(&self, k: usize) -> usize {
        self.order[(self.start + k) % self.order.len()]
    }
}

impl Game {
    /// Starts a trick: reads who leads and stacks the trick's frame.
    pub(crate) fn start_trick(&self, work: &mut Work, trick: usize) -> Result<(), PlayError> {
        let t = &self.rules.tricks[trick];
        let leader = match work.state.vars[t.leader][0].get() {
            Value::Int(p) if *p >= 0 && (*p as usize) < work.state.players => *p as usize,
            other => {
                return Err(PlayError::Rule(format!(
                    "trick `{}`: var `{}` must hold the number of the seat that leads (0..{}), but holds {other}",
                    t.name,
                    self.rules.vars[t.leader].name,
                    work.state.players - 1
                )))
            }
        };
        if let Some(led) = t.led {
            work.state.vars[led][0].set_copy(&self.rules.vars[led].default);
        }
        work.state.stack.push(Frame::Trick { trick, leader, asked: 0, plays: crate::flow::recycle::plays() });
        Ok(())
    }

    /// Runs a trick's frame: asks the next play, or ends the trick once every play is in.
    pub(crate) fn trick_step(
        &self,
        work: &mut Work,
        trick: usize,
        leader: usize,
        asked: usize,
        plays: Vec<(usize, u32)>,
    ) -> Result<(), PlayError> {
        let t = &self.rules.tricks[trick];
        let order = self.seats_from(&work.state, t, leader)?;
        if asked < order.len() * t.plays.len() {
            let who = order.seat(asked % order.len());
            let decision = t.plays[asked / order.len()];
            work.state.current = who;
            work.state.stack.push(Frame::Trick { trick, leader, asked: asked + 1, plays });
            work.state.stack.push(Frame::Ask { decision, player: who, ctx: Value::Unit });
            return Ok(());
        }
        let ended = self.end_trick(work, trick, leader, &plays);
        crate::flow::recycle::keep_plays(plays);
        ended
    }

    /// The seats in turn order, starting with the leader.
    fn seats_from<'s>(&self, st: &'s State, t: &TrickInfo, leader: usize) -> Result<SeatsFrom<'s>, PlayError> {
        let start = st.turn_order.iter().position(|p| *p == leader).ok_or_else(|| {
            PlayError::Rule(format!(
                "trick `{}`: {} leads but is not in the turn order",
                t.name,
                self.rules.seat_name(leader)
            ))
        })?;
        Ok(SeatsFrom { order: &st.turn_order, start })
    }

    /// Called as a single seat's decision resolves with a component: when it answers the play
    /// a trick asked for, the card goes to the table (and, as the first card, sets the suit led).
    pub(crate) fn trick_played(
        &self,
        work: &mut Work,
        decision: usize,
        player: usize,
        card: u32,
    ) -> Result<(), PlayError> {
        let Some(Frame::Trick { trick, leader, asked, plays }) = work.state.stack.last() else { return Ok(()) };
        let t = &self.rules.tricks[*trick];
        let order = self.seats_from(&work.state, t, *leader)?;
        let expected = order.seat((*asked - 1) % order.len());
        if !t.plays.contains(&decision) || expected != player || plays.len() >= *asked {
            return Ok(());
        }
        let first = plays.is_empty();
        if let Some(Frame::Trick { plays, .. }) = work.state.stack.last_mut() {
            plays.push((player, card));
        }
        work.state.put(&self.rules, card, t.table, player).map_err(PlayError::Rule)?;
        if let (true, Some(led), Some(suit)) = (first, t.led, &t.suit) {
            let st = &mut *work.state;
            let value = st.components.coded_prop(&self.rules.prop_codes, card, suit).unwrap_or(&Value::Unit);
            st.vars[led][0].set_copy(value);
        }
        Ok(())
    }

    /// Ends a trick: the winner, the `then` hook, the cards to the winner, the next leader.
    fn end_trick(&self, work: &mut Work, trick: usize, leader: usize, plays: &[(usize, u32)]) -> Result<(), PlayError> {
        let t = &self.rules.tricks[trick];
        if plays.is_empty() {
            return Err(PlayError::Rule(format!("trick `{}` is over, but nobody played a card to it", t.name)));
        }
        // The `plays` the winner script only read serve the `then` hook too, unless a
        // component changed meanwhile (a handle shows the component as it was when made).
        // Holding the components keeps a change from being made in place: a changed list is
        // another list.
        let mut kept = [Dynamic::UNIT];
        let components = work.state.components.clone();
        let index = match &t.winner {
            Some(f) => {
                let plays_value = self.plays_value(&work.state, plays);
                let back: &mut [Dynamic] = if t.then.is_some() { &mut kept } else { &mut [] };
                let v = self.call_giving_back(work, f, vec![plays_value], &Value::Unit, back)?;
                v.as_int().ok().and_then(|i| usize::try_from(i).ok()).filter(|i| *i < plays.len()).ok_or_else(|| {
                    self.returned(
                        &f.name,
                        format!(
                            "a trick's winner script must return an index into plays (0..{}), returned {v}",
                            plays.len() - 1
                        ),
                    )
                })?
            }
            None => self.best_play(&work.state, t, plays)?,
        };
        let (winner, card) = plays[index];
        if work.logging {
            let text = format!(
                "{} wins the trick with {}",
                self.rules.seat_name(winner),
                self.component_label(&work.state, card)
            );
            work.events.push(Event::public(EventKind::Message, text));
        }
        if let Some(f) = t.then.as_ref().filter(|_| self.then_runs(&work.state, t, card)) {
            let [kept] = kept;
            let same = !kept.is_unit() && Arc::ptr_eq(&components, &work.state.components);
            drop(components);
            // Only the fields the hook reads are made (all of them when it may see the whole).
            let wants = self.trick_then_fields.get(trick).copied().unwrap_or(TrickFields::of(None));
            let plays_value = match (wants.has(TrickFields::PLAYS), same) {
                (false, _) => Dynamic::UNIT,
                (true, true) => kept,
                (true, false) => self.plays_value(&work.state, plays),
            };
            let info = self.trick_value(&work.state, t, plays, index, plays_value, wants);
            let _ = self.call(work, f, vec![info], &Value::Unit)?;
        }
        if let Some(won) = t.won {
            for seat in 0..work.state.players {
                // Bottom card first; each move takes the card off the table (no copy of the list).
                for _ in 0..work.state.zones[t.table][seat].cards.len() {
                    let c = work.state.zones[t.table][seat].cards[0];
                    work.state.put(&self.rules, c, won, winner).map_err(PlayError::Rule)?;
                }
            }
        }
        let next = match t.next_leader {
            NextLeader::Winner => winner,
            NextLeader::Leader => leader,
            NextLeader::Next => {
                let order = self.seats_from(&work.state, t, leader)?;
                if order.len() > 1 {
                    order.seat(1)
                } else {
                    leader
                }
            }
        };
        work.state.vars[t.leader][0].set(Value::Int(next as i64));
        if let Some(led) = t.led {
            work.state.vars[led][0].set(self.rules.vars[led].default.clone());
        }
        work.state.current = next;
        Ok(())
    }

    /// The declared winner rule: the best `rank` among the cards below `trump_below` if any
    /// was played, else among trumps (the `trump` suit) if any was played, else among every
    /// card (`any_suit`) or the cards of the suit led. The first played wins a tie.
    fn best_play(&self, st: &State, t: &TrickInfo, plays: &[(usize, u32)]) -> Result<usize, PlayError> {
        let Some(rank) = &t.rank else {
            return Err(PlayError::Rule(format!("trick `{}` has neither `winner` nor `rank`", t.name)));
        };
        let card = |c: u32| &st.components.list[c as usize];
        let codes = &self.rules.prop_codes;
        // Every card's rank, read once; a card that competes must have one.
        let comps = &st.components;
        let ranks: SmallVec<[Option<i64>; 8]> = plays.iter().map(|(_, c)| comps.coded_int(codes, *c, rank)).collect();
        let no_rank = |i: usize| {
            PlayError::Rule(format!(
                "trick `{}` ranks cards by `{rank}`, but `{}` has no integer `{rank}`",
                t.name,
                card(plays[i].1).id
            ))
        };
        let best = |competes: &dyn Fn(usize) -> bool| best_of(t.best, &ranks, competes).map_err(no_rank);
        if let Some(track) = t.trump_below {
            // Every card is compared with the track, so every card needs a rank.
            if let Some(i) = ranks.iter().position(Option::is_none) {
                return Err(no_rank(i));
            }
            let below = st.tracks[track][0];
            let low = |i: usize| ranks[i].is_some_and(|r| r < below);
            if (0..plays.len()).any(low) {
                return best(&low);
            }
        }
        // Without a suit (the loader allows it only with `any_suit`), every card competes.
        let Some(suit) = &t.suit else { return best(&|_| true) };
        // Suits are compared by number (see `crate::codes`), by value only where one has none.
        let suit_is = |i: usize, code: u32, value: Option<&Value>| {
            let c = plays[i].1;
            crate::codes::same(comps.code(c, suit.slot), code, || card(c).prop(&suit.name) == value)
        };
        let trump = t.trump.map(|v| st.vars[v][0].get()).map(|tr| (codes.code(suit.slot, Some(tr)), tr));
        match trump.filter(|(code, tr)| (0..plays.len()).any(|i| suit_is(i, *code, Some(tr)))) {
            Some((code, trump)) => best(&|i| suit_is(i, code, Some(trump))),
            None if t.any_suit => best(&|_| true),
            None => {
                let first = plays[0].1;
                match comps.code(first, suit.slot) {
                    // A first card without a suit: the cards without one compete.
                    crate::codes::MISSING => best(&|i| comps.code(plays[i].1, suit.slot) == crate::codes::MISSING),
                    code => best(&|i| suit_is(i, code, card(first).prop(&suit.name))),
                }
            }
        }
    }

    /// Whether the trick's `then` hook runs after a trick won with `card` (`then_when`).
    fn then_runs(&self, st: &State, t: &TrickInfo, card: u32) -> bool {
        let comps = &st.components;
        match t.then_when {
            ThenWhen::Always => true,
            ThenWhen::Below => match (t.trump_below, &t.rank) {
                (Some(track), Some(rank)) => {
                    comps.coded_int(&self.rules.prop_codes, card, rank).is_some_and(|r| r < st.tracks[track][0])
                }
                _ => false,
            },
            ThenWhen::Trump => match (t.trump, &t.suit) {
                (Some(v), Some(suit)) => {
                    comps.coded_prop(&self.rules.prop_codes, card, suit) == Some(st.vars[v][0].get())
                }
                _ => false,
            },
        }
    }

    /// `plays` as a script sees it: `[#{ player, card }]` in the order played.
    fn plays_value(&self, st: &State, plays: &[(usize, u32)]) -> Dynamic {
        let list: rhai::Array = plays
            .iter()
            .map(|(p, c)| {
                let mut m = rhai::Map::new();
                m.insert("player".into(), Dynamic::from_int(*p as i64));
                m.insert("card".into(), card_map(st, *c));
                Dynamic::from_map(m)
            })
            .collect();
        Dynamic::from_array(list)
    }

    /// The `trick` a `then` hook receives: `#{ winner, index, card, plays, led }`, each field
    /// only if `wants` it (the hook reads it).
    fn trick_value(
        &self,
        st: &State,
        t: &TrickInfo,
        plays: &[(usize, u32)],
        index: usize,
        plays_value: Dynamic,
        wants: TrickFields,
    ) -> Dynamic {
        let (winner, card) = plays[index];
        let mut m = rhai::Map::new();
        if wants.has(TrickFields::WINNER) {
            m.insert("winner".into(), Dynamic::from_int(winner as i64));
        }
        if wants.has(TrickFields::INDEX) {
            m.insert("index".into(), Dynamic::from_int(index as i64));
        }
        if wants.has(TrickFields::CARD) {
            m.insert("card".into(), card_map(st, card));
        }
        if wants.has(TrickFields::PLAYS) {
            m.insert("plays".into(), plays_value);
        }
        if wants.has(TrickFields::LED) {
            let first = plays[0].1;
            let led = t.suit.as_ref().and_then(|s| st.components.coded_prop(&self.rules.prop_codes, first, s).cloned());
            m.insert("led".into(), led.unwrap_or(Value::Unit).to_dynamic());
        }
        Dynamic::from_map(m)
    }
}

/// The index of the best of `ranks` among those `competes` admits (by index); the first wins a
/// tie. The first when none competes (never the case: the first card is of the suit led, and a
/// tier is judged only when a card of it was played). `Err(i)`: play `i` competes without a rank.
fn best_of(best: Best, ranks: &[Option<i64>], competes: &dyn Fn(usize) -> bool) -> Result<usize, usize> {
    let mut found: Option<(usize, i64)> = None;
    for (i, rank) in ranks.iter().enumerate() {
        if !competes(i) {
            continue;
        }
        let value = rank.ok_or(i)?;
        let better = match (found, best) {
            (None, _) => true,
            (Some((_, b)), Best::Highest) => value > b,
            (Some((_, b)), Best::Lowest) => value < b,
        };
        if better {
            found = Some((i, value));
        }
    }
    Ok(found.map_or(0, |(i, _)| i))
}

#[cfg(test)]
mod tests {
    use super::TrickFields;

    #[test]
    fn a_hook_gets_the_fields_it_reads_or_all_when_it_may_see_the_whole() {
        let reads: std::collections::BTreeSet<String> = ["card", "winner", "other"].map(String::from).into();
        let fields = TrickFields::of(Some(&reads));
        assert!(fields.has(TrickFields::WINNER) && fields.has(TrickFields::CARD));
        assert!(!fields.has(TrickFields::INDEX) && !fields.has(TrickFields::PLAYS) && !fields.has(TrickFields::LED));
        let all = TrickFields::of(None);
        let each = [TrickFields::WINNER, TrickFields::INDEX, TrickFields::CARD, TrickFields::PLAYS, TrickFields::LED];
        assert!(each.iter().all(|f| all.has(*f)));
        assert_eq!(TrickFields::of(Some(&Default::default())), TrickFields(0));
    }
}
