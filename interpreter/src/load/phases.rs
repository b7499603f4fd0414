//! Phases and their steps (run, ask, commit, phase, move, shuffle, roll, trick; conditions and repeats),
//! and the `[flow]` entry points: setup, the start phase, winners and the score track.

use super::resolve::{zone_ref, ScriptFns};
use super::Loader;
use crate::def::{GameFile, Ref};
use crate::rules::{unknown, PhaseInfo, PlayerSel, PlayersSel, Repeat, Rules, StepInfo, StepKind, MAX_REPEAT};

impl Loader {
    /// Checks `[phases]`.
    pub(super) fn phases(&mut self, r: &mut Rules, f: &GameFile, fns: &ScriptFns) {
        for (name, p) in &f.phases {
            let mut steps = Vec::new();
            for s in &p.steps {
                let set = [
                    s.run.is_some(),
                    s.ask.is_some(),
                    s.commit.is_some(),
                    s.phase.is_some(),
                    s.move_.is_some(),
                    s.shuffle.is_some(),
                    s.roll.is_some(),
                    s.trick.is_some(),
                ];
                if set.iter().filter(|b| **b).count() != 1 {
                    self.error_at(
                        "E0330",
                        format!(
                            "phase `{name}`: each step needs exactly one of run, ask, commit, phase, move, shuffle, roll, trick"
                        ),
                        self.key("phases", name),
                    );
                    continue;
                }
                let decision_ref = |l: &mut Loader, d: &Ref| {
                    r.decision(d.get_ref()).unwrap_or_else(|m| {
                        l.error("E0310", m, Some(d.span()));
                        0
                    })
                };
                let kind = if let Some(f) = &s.run {
                    StepKind::Run(fns.check(self, f, 1, "run"))
                } else if let Some(d) = &s.ask {
                    let player = match &s.player {
                        None => PlayerSel::Current,
                        Some(p) if p.get_ref() == "current" => PlayerSel::Current,
                        Some(p) => PlayerSel::Script(fns.check(self, p, 1, "player")),
                    };
                    StepKind::Ask(decision_ref(self, d), player)
                } else if let Some(d) = &s.commit {
                    let players = match &s.players {
                        None => PlayersSel::All,
                        Some(p) if p.get_ref() == "all" => PlayersSel::All,
                        Some(p) => PlayersSel::Script(fns.check(self, p, 1, "players")),
                    };
                    StepKind::Commit(decision_ref(self, d), players)
                } else if let Some(z) = &s.shuffle {
                    StepKind::Shuffle(zone_ref(self, r, z))
                } else if let Some(z) = &s.roll {
                    StepKind::Roll(zone_ref(self, r, z))
                } else if let Some(t) = &s.trick {
                    let name = t.get_ref();
                    match r.tricks.iter().position(|x| x.name == *name) {
                        Some(i) => StepKind::Trick(i),
                        // A declared trick that did not check is reported already.
                        None if f.tricks.contains_key(name) => StepKind::Trick(0),
                        None => {
                            self.error("E0310", unknown("trick", name, f.tricks.keys()), Some(t.span()));
                            StepKind::Trick(0)
                        }
                    }
                } else if let Some(ph) = &s.phase {
                    StepKind::Phase(r.phase(ph.get_ref()).unwrap_or_else(|m| {
                        self.error("E0310", m, Some(ph.span()));
                        0
                    }))
                } else {
                    let m = s.move_.as_ref().expect("checked above");
                    match (&m.from, &m.to) {
                        (Some(from), Some(to))
                            if m.deal && r.zone(to.get_ref()).is_ok_and(|z| !r.zones[z].per_player) =>
                        {
                            self.error(
                                "E0336",
                                format!("phase `{name}`: `deal = true` needs a per-player `to` zone"),
                                Some(to.span()),
                            );
                            continue;
                        }
                        (Some(from), Some(to)) => StepKind::Move {
                            from: zone_ref(self, r, from),
                            to: zone_ref(self, r, to),
                            count: m.count.unwrap_or(1) as usize,
                            deal: m.deal,
                        },
                        _ => {
                            self.error_at(
                                "E0331",
                                format!("phase `{name}`: a move step needs `from` and `to`"),
                                self.key("phases", name),
                            );
                            continue;
                        }
                    }
                };
                let condition = s.if_.as_ref().map(|f| fns.check(self, f, 1, "if"));
                steps.push(StepInfo { kind, condition });
            }
            let repeat = match (&p.repeat, &p.repeat_while, &p.repeat_while_cards) {
                (None, None, None) => Repeat::Once,
                (None, Some(w), None) => Repeat::While(fns.check(self, w, 1, "repeat_while")),
                (None, None, Some(z)) => Repeat::WhileCards(zone_ref(self, r, z)),
                (Some(n), None, None) => match n {
                    toml::Value::Integer(i) if (0..=MAX_REPEAT).contains(i) => Repeat::Times(*i as u64),
                    toml::Value::Integer(i) if *i > MAX_REPEAT => {
                        self.error_at(
                            "E0333",
                            format!("phase `{name}`: `repeat = {i}` is more than the {MAX_REPEAT} passes a phase may repeat"),
                            self.key("phases", name),
                        );
                        Repeat::Once
                    }
                    toml::Value::String(p) => match r.params.get(p).and_then(|p| p.value.as_int()) {
                        Some(i) if (0..=MAX_REPEAT).contains(&i) => Repeat::Times(i as u64),
                        Some(i) if i > MAX_REPEAT => {
                            self.error_at(
                                "E0333",
                                format!("phase `{name}`: `repeat` is `{p}` = {i}, more than the {MAX_REPEAT} passes a phase may repeat"),
                                self.key("phases", name),
                            );
                            Repeat::Once
                        }
                        _ => {
                            self.error_at(
                                "E0333",
                                format!("phase `{name}`: `repeat` names `{p}`, which is not an integer parameter"),
                                self.key("phases", name),
                            );
                            Repeat::Once
                        }
                    },
                    _ => {
                        self.error_at(
                            "E0333",
                            format!("phase `{name}`: `repeat` must be a non-negative integer or a parameter name"),
                            self.key("phases", name),
                        );
                        Repeat::Once
                    }
                },
                _ => {
                    self.error_at(
                        "E0332",
                        format!("phase `{name}`: use one of `repeat`, `repeat_while` and `repeat_while_cards`"),
                        self.key("phases", name),
                    );
                    Repeat::Once
                }
            };
            let counter = p.counter.as_ref().map(|c| {
                r.track(c.get_ref()).unwrap_or_else(|m| {
                    self.error("E0310", m, Some(c.span()));
                    0
                })
            });
            r.phases.push(PhaseInfo {
                name: name.clone(),
                steps,
                for_each_player: p.for_each_player,
                repeat,
                counter,
                description: p.description.clone().unwrap_or_default(),
            });
        }
    }

    /// Checks `[flow]`'s setup, start and winners, `[game] score` and `[bots] evaluate`.
    pub(super) fn flow(&mut self, r: &mut Rules, f: &GameFile, fns: &ScriptFns) {
        r.setup = f.flow.setup.as_ref().map(|s| fns.check(self, s, 1, "setup"));
        r.winners = f.flow.winners.as_ref().map(|s| fns.check(self, s, 1, "winners"));
        r.evaluate = f.bots.evaluate.as_ref().map(|s| fns.check(self, s, 2, "evaluate"));
        r.playout_depth = f.bots.depth;
        match &f.flow.start {
            Some(s) => {
                r.start = r.phase(s.get_ref()).unwrap_or_else(|m| {
                    self.error("E0310", m, Some(s.span()));
                    0
                })
            }
            None => {
                self.error_at("E0334", "`[flow]` needs `start`, the phase play begins in", self.key("flow", ""));
            }
        }
        r.score = f.game.score.as_ref().map(|s| {
            r.track(s.get_ref()).unwrap_or_else(|m| {
                self.error("E0310", m, Some(s.span()));
                0
            })
        });
        if let Some(s) = r.score {
            if r.tracks.get(s).is_some_and(|t| !t.per_player) {
                {
                    let loc = self.key("game", "");
                    self.error_at("E0335", "`[game] score` must name a per-player track", loc);
                }
            }
        }
    }
}
