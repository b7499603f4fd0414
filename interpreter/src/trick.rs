//! Tricks as data (`[tricks.NAME]`, played by a `trick` step): every seat is asked in turn
//! order from the leader, each card played is laid in its player's slot of the table zone and
//! the first one sets the suit led; when every play is in, the engine finds the winner (highest
//! of the suit led, trumps beating it, or the game's own `winner` script), runs the `then`
//! hook, hands the cards left on the table to the winner and names the next leader.

use crate::api::card_map;
use crate::def::{Best, NextLeader};
use crate::error::PlayError;
use crate::log::{Event, EventKind};
use crate::rules::TrickInfo;
use crate::script::Work;
use crate::state::{Frame, State};
use crate::value::Value;
use crate::Game;
use rhai::Dynamic;
use std::sync::Arc;

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
            work.state.vars[led][0].set(self.rules.vars[led].default.clone());
        }
        work.state.stack.push(Frame::Trick { trick, leader, asked: 0, plays: Vec::new() });
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
        self.end_trick(work, t, leader, &plays)
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
            let value = work.state.components.list[card as usize].prop(suit).cloned().unwrap_or(Value::Unit);
            work.state.vars[led][0].set(value);
        }
        Ok(())
    }

    /// Ends a trick: the winner, the `then` hook, the cards to the winner, the next leader.
    fn end_trick(
        &self,
        work: &mut Work,
        t: &TrickInfo,
        leader: usize,
        plays: &[(usize, u32)],
    ) -> Result<(), PlayError> {
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
        if let Some(f) = &t.then {
            let [kept] = kept;
            let same = !kept.is_unit() && Arc::ptr_eq(&components, &work.state.components);
            drop(components);
            let plays_value = if same { kept } else { self.plays_value(&work.state, plays) };
            let info = self.trick_value(&work.state, t, plays, index, plays_value);
            let _ = self.call(work, f, vec![info], &Value::Unit)?;
        }
        if let Some(won) = t.won {
            for seat in 0..work.state.players {
                let cards = work.state.zones[t.table][seat].cards.clone();
                for c in cards {
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

    /// The declared winner rule: the best `rank` among trumps if any was played, else among
    /// cards of the suit led; the first played wins a tie.
    fn best_play(&self, st: &State, t: &TrickInfo, plays: &[(usize, u32)]) -> Result<usize, PlayError> {
        let (Some(suit), Some(rank)) = (&t.suit, &t.rank) else {
            return Err(PlayError::Rule(format!("trick `{}` has neither `winner` nor `suit` and `rank`", t.name)));
        };
        let card = |c: u32| &st.components.list[c as usize];
        let led = card(plays[0].1).prop(suit).cloned().unwrap_or(Value::Unit);
        let trump = t.trump.map(|v| st.vars[v][0].get().clone());
        let trumped = trump.as_ref().filter(|tr| plays.iter().any(|(_, c)| card(*c).prop(suit) == Some(tr)));
        let wanted = trumped.unwrap_or(&led);
        let mut best: Option<(usize, i64)> = None;
        for (i, (_, c)) in plays.iter().enumerate() {
            if card(*c).prop(suit) != Some(wanted) {
                continue;
            }
            let value = card(*c).prop(rank).and_then(Value::as_int).ok_or_else(|| {
                PlayError::Rule(format!(
                    "trick `{}` ranks cards by `{rank}`, but `{}` has no integer `{rank}`",
                    t.name, st.components.list[*c as usize].id
                ))
            })?;
            let better = match (best, t.best) {
                (None, _) => true,
                (Some((_, b)), Best::Highest) => value > b,
                (Some((_, b)), Best::Lowest) => value < b,
            };
            if better {
                best = Some((i, value));
            }
        }
        // The first card always matches the suit led, so there is a best.
        Ok(best.map_or(0, |(i, _)| i))
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

    /// The `trick` a `then` hook receives: `#{ winner, index, card, plays, led }`.
    fn trick_value(
        &self,
        st: &State,
        t: &TrickInfo,
        plays: &[(usize, u32)],
        index: usize,
        plays_value: Dynamic,
    ) -> Dynamic {
        let (winner, card) = plays[index];
        let mut m = rhai::Map::new();
        m.insert("winner".into(), Dynamic::from_int(winner as i64));
        m.insert("index".into(), Dynamic::from_int(index as i64));
        m.insert("card".into(), card_map(st, card));
        m.insert("plays".into(), plays_value);
        let led = t.suit.as_ref().and_then(|s| st.components.list[plays[0].1 as usize].props.get(s).cloned());
        m.insert("led".into(), led.unwrap_or(Value::Unit).to_dynamic());
        Dynamic::from_map(m)
    }
}
