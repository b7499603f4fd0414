//! Tricks: `[tricks.NAME]`, the declared trick of a trick-taking game (who plays from which
//! decision, where cards lie, the suit led, how the winner is found, where the trick goes).

use super::resolve::ScriptFns;
use super::Loader;
use crate::codes::PropKey;
use crate::def::{GameFile, Ref, ThenWhen, TrickDef};
use crate::rules::{OptionSource, Rules, TrickInfo};

impl Loader {
    /// Checks `[tricks]`.
    pub(super) fn tricks(&mut self, r: &mut Rules, f: &GameFile, fns: &ScriptFns) {
        for (name, t) in &f.tricks {
            if let Some(mut info) = self.trick(r, name, t, fns) {
                // The suit and the rank are read of every card of every trick: numbered.
                for key in [&mut info.suit, &mut info.rank].into_iter().flatten() {
                    r.prop_codes.give_slot(key);
                }
                r.tricks.push(info);
            }
        }
    }

    fn trick(&mut self, r: &Rules, name: &str, t: &TrickDef, fns: &ScriptFns) -> Option<TrickInfo> {
        let mut plays = Vec::new();
        for d in &t.plays {
            match r.decision(d.get_ref()) {
                Ok(i) if r.decisions[i].to.is_some() => {
                    let what = format!(
                        "trick `{name}`: the play decision `{}` has `to`, but a trick lays its cards on `table`",
                        d.get_ref()
                    );
                    self.error("E0344", what, Some(d.span()));
                }
                Ok(i) if matches!(r.decisions[i].source, OptionSource::Zone { .. }) => plays.push(i),
                Ok(_) => {
                    let what =
                        format!("trick `{name}`: the play decision `{}` must offer cards (`from` a zone)", d.get_ref());
                    self.error("E0344", what, Some(d.span()));
                }
                Err(m) => {
                    self.error("E0310", m, Some(d.span()));
                }
            }
        }
        if t.plays.is_empty() {
            self.missing(name, "`plays` (the decision each seat answers to play a card)");
        }
        let table = self.trick_zone(r, name, "table", &t.table);
        let leader = self.trick_var(r, name, "leader", &t.leader);
        let won = t.won.as_ref().and_then(|z| self.trick_zone(r, name, "won", &Some(z.clone())));
        let led = t.led.as_ref().and_then(|v| self.trick_var(r, name, "led", &Some(v.clone())));
        let trump = t.trump.as_ref().and_then(|v| self.trick_var(r, name, "trump", &Some(v.clone())));
        let trump_below = t.trump_below.as_ref().and_then(|v| self.trick_track(r, name, v));
        let winner = t.winner.as_ref().map(|w| fns.check(self, w, 2, "winner"));
        if (led.is_some() || trump.is_some()) && t.suit.is_none() {
            self.missing(name, "`suit` (the property naming a card's suit), which `led` and `trump` read");
        }
        if winner.is_none() && (t.rank.is_none() || (t.suit.is_none() && !t.any_suit)) {
            self.missing(
                name,
                "either `winner` (a script) or `rank` with `suit` (highest of the suit led wins) or with `any_suit = true`",
            );
        } else if (t.trump_below.is_some() || t.any_suit) && t.rank.is_none() {
            self.missing(name, "`rank` (the integer property ranking cards), which `trump_below` and `any_suit` read");
        }
        let then_needs = match t.then_when {
            ThenWhen::Always => None,
            _ if t.then.is_none() => Some("`then` (the hook `then_when` says when to run)"),
            ThenWhen::Below if t.trump_below.is_none() => {
                Some("`trump_below`, which `then_when = \"below\"` compares the winning card with")
            }
            ThenWhen::Trump if t.trump.is_none() => Some("`trump`, the suit `then_when = \"trump\"` looks for"),
            _ => None,
        };
        if let Some(what) = then_needs {
            self.missing(name, what);
        }
        Some(TrickInfo {
            name: name.to_string(),
            plays,
            table: table?,
            leader: leader?,
            suit: t.suit.as_deref().map(PropKey::named),
            led,
            rank: t.rank.as_deref().map(PropKey::named),
            best: t.best,
            trump,
            trump_below,
            any_suit: t.any_suit,
            winner,
            then: t.then.as_ref().map(|f| fns.check(self, f, 2, "then")),
            then_when: t.then_when,
            won,
            next_leader: t.next_leader,
            description: t.description.clone().unwrap_or_default(),
        })
    }

    fn missing(&mut self, trick: &str, what: &str) {
        let loc = self.key("tricks", trick);
        self.error_at("E0345", format!("trick `{trick}` needs {what}"), loc);
    }

    /// A per-player zone the trick names under `key`.
    fn trick_zone(&mut self, r: &Rules, trick: &str, key: &str, z: &Option<Ref>) -> Option<usize> {
        let kind = Kind { what: "a per-player zone", find: Rules::zone, fits: |r, i| r.zones[i].per_player };
        self.trick_ref(r, trick, key, z, kind)
    }

    /// A global var the trick names under `key`.
    fn trick_var(&mut self, r: &Rules, trick: &str, key: &str, v: &Option<Ref>) -> Option<usize> {
        let kind = Kind { what: "a global var", find: Rules::var, fits: |r, i| !r.vars[i].per_player };
        self.trick_ref(r, trick, key, v, kind)
    }

    /// The global track the trick names under `trump_below`.
    fn trick_track(&mut self, r: &Rules, trick: &str, track: &Ref) -> Option<usize> {
        let kind = Kind { what: "a global track", find: Rules::track, fits: |r, i| !r.tracks[i].per_player };
        self.trick_ref(r, trick, "trump_below", &Some(track.clone()), kind)
    }

    /// The thing of `kind` the trick names under `key`: reported if missing, unknown or of
    /// another kind.
    fn trick_ref(&mut self, r: &Rules, trick: &str, key: &str, name: &Option<Ref>, kind: Kind) -> Option<usize> {
        let Some(name) = name else {
            self.missing(trick, &format!("`{key}` ({})", kind.what));
            return None;
        };
        match (kind.find)(r, name.get_ref()) {
            Ok(i) if (kind.fits)(r, i) => Some(i),
            Ok(_) => {
                let what = format!("trick `{trick}`: `{key}` must be {}", kind.what);
                self.error("E0344", what, Some(name.span()));
                None
            }
            Err(m) => {
                self.error("E0310", m, Some(name.span()));
                None
            }
        }
    }
}

/// What a trick's key must name: how to find it by name and whether it is of the right kind.
struct Kind {
    what: &'static str,
    find: fn(&Rules, &str) -> Result<usize, String>,
    fits: fn(&Rules, usize) -> bool,
}
