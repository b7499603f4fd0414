//! The `mcts` bot: single-observer information-set Monte Carlo tree search (SO-ISMCTS,
//! Cowling, Powley and Whitehouse 2012).
//!
//! Every iteration samples a complete game consistent with what the seat knows
//! ([`Observation::sample`]), walks the one tree of the seat's information set down it
//! (choosing by UCB among the options legal in this sample, with availability counts), adds
//! one node, plays the rest at random (or greedily) and credits every seat on the way with its
//! share of the win. Nodes are keyed by option ids, so samples that differ in what the seat
//! cannot see share the tree.
//!
//! A simultaneous hidden commit is searched as one node where every committing seat has its
//! own statistics and chooses without seeing the others' choices (decoupled UCT); the child
//! is the joint choice. So the searcher never answers another seat's commit of the same step,
//! nor the others its own.

use super::eval::{shares_by_estimate, win_shares, Judge};
use super::greedy::standing;
use super::{Bot, BotSpec, Observation};
use crate::error::PlayError;
use crate::rng::GameRng;
use crate::session::Session;
use crate::value::NameHasher;
use crate::Game;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The options `mcts` takes, with their meaning and default.
pub const OPTIONS: &[(&str, &str)] = &[
    ("iterations", "simulations per decision (default 200; at least 1)"),
    ("time", "seconds per decision: search until then (iterations, if given, still caps it); not reproducible"),
    ("c", "exploration constant of UCB (default 0.7; returns are shares of a win, 0 to 1)"),
    (
        "depth",
        "decisions a playout runs before the game's evaluation judges it (default: the game's [bots] depth, \
         else to the end)",
    ),
    ("playout", "`random` (default) or `greedy` (the best of a few options by the game's evaluation)"),
];

/// Default simulations per decision.
pub const DEFAULT_ITERATIONS: u64 = 200;

/// Options a greedy playout compares at each decision.
const GREEDY_PLAYOUT_WIDTH: usize = 4;

/// Information-set MCTS.
pub struct MctsBot {
    rng: GameRng,
    iterations: u64,
    time: Option<Duration>,
    c: f64,
    depth: Option<u32>,
    judge: Option<Judge>,
    greedy_playout: bool,
}

impl MctsBot {
    /// An MCTS bot for `game` with the options of `spec`.
    pub fn new(spec: &BotSpec, game: &Game, rng: GameRng) -> Result<MctsBot, String> {
        let iterations: u64 =
            spec.number("iterations", if spec.option("time").is_some() { u64::MAX } else { DEFAULT_ITERATIONS })?;
        if iterations == 0 {
            return Err("bot `mcts`: `iterations` must be at least 1 (a budget of 0 cannot choose)".into());
        }
        let time = match spec.option("time") {
            None => None,
            Some(_) => {
                let secs: f64 = spec.number("time", 0.0)?;
                if !(secs > 0.0 && secs.is_finite()) {
                    return Err(format!("bot `mcts`: `time` must be a positive number of seconds, not {secs}"));
                }
                Some(Duration::from_secs_f64(secs))
            }
        };
        let c: f64 = spec.number("c", 0.7)?;
        if !(c >= 0.0 && c.is_finite()) {
            return Err(format!("bot `mcts`: `c` must be 0 or more, not {c}"));
        }
        let depth = match spec.option("depth") {
            Some(_) => Some(spec.number("depth", 0u32)?),
            None => game.rules.playout_depth,
        };
        let greedy_playout = match spec.option("playout").unwrap_or("random") {
            "random" => false,
            "greedy" => true,
            other => return Err(format!("bot `mcts`: `playout` is `random` or `greedy`, not `{other}`")),
        };
        let judge = if depth.is_some() || greedy_playout {
            Some(Judge::of(game).map_err(|e| format!("bot `mcts` with a playout depth or greedy playouts: {e}"))?)
        } else {
            None
        };
        Ok(MctsBot { rng, iterations, time, c, depth, judge, greedy_playout })
    }
}

/// An option id, interned for the search.
type Key = u32;

/// One option of one seat at a node.
struct Edge {
    key: Key,
    /// Times chosen.
    visits: u32,
    /// Times legal when the node was visited with this seat to choose.
    available: u32,
    /// Sum of the seat's returns after choosing it.
    total: f64,
}

/// A seat's statistics at a node.
struct Bandit {
    seat: usize,
    edges: Vec<Edge>,
}

/// A decision point of the searcher's information set.
#[derive(Default)]
struct Node {
    bandits: Vec<Bandit>,
    /// Child per joint choice (one key, or one per committing seat), found by hashing: a
    /// node of a simultaneous decision has a child per combination of choices (169 for two
    /// seats with 13 options each), which a list would compare one by one at every visit.
    children: HashMap<Vec<Key>, usize, NameHasher>,
}

/// The search tree of one decision.
#[derive(Default)]
struct Tree {
    nodes: Vec<Node>,
    /// Hashed with the engine's fast fixed-key hasher (every option of every node visited is
    /// looked up; the keys are numbered in the order they come, whatever the hasher).
    keys: HashMap<Box<str>, Key, NameHasher>,
}

impl Tree {
    fn key(&mut self, id: &str) -> Key {
        if let Some(k) = self.keys.get(id) {
            return *k;
        }
        let k = self.keys.len() as Key;
        self.keys.insert(id.into(), k);
        k
    }

    fn bandit(&mut self, node: usize, seat: usize) -> usize {
        let n = &mut self.nodes[node];
        match n.bandits.iter().position(|b| b.seat == seat) {
            Some(b) => b,
            None => {
                n.bandits.push(Bandit { seat, edges: Vec::new() });
                n.bandits.len() - 1
            }
        }
    }
}

/// `ln(n)`: read from a table of `f64::ln`'s own values for the counts a search mostly meets
/// (every option at every visit asks), worked out for larger ones.
fn ln_count(n: u32) -> f64 {
    static TABLE: std::sync::OnceLock<Box<[f64]>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| (0..4096u32).map(|k| f64::from(k).ln()).collect());
    table.get(n as usize).copied().unwrap_or_else(|| f64::from(n).ln())
}

/// A choice made on the way down: which edge of which bandit of which node.
struct Step {
    node: usize,
    bandit: usize,
    edge: usize,
}

/// The lists an iteration fills, kept for the next iterations of the decision (emptied, not
/// made anew).
#[derive(Default)]
struct Scratch {
    /// The seats choosing at a node.
    actors: Vec<usize>,
    /// Each one's choice: (seat, option index, bandit, edge).
    picks: Vec<(usize, usize, usize, usize)>,
    /// Their joint choice, the child's key.
    joint: Vec<Key>,
    /// The choices made on the way down.
    path: Vec<Step>,
    /// A seat's legal options at a node: (option index, edge).
    legal: Vec<(usize, usize)>,
}

impl MctsBot {
    /// Chooses an option for `seat` at `node` of sample `d`: an untried one at random, else
    /// the best by UCB among those legal here. Returns (option index, edge).
    fn pick(
        &mut self,
        tree: &mut Tree,
        node: usize,
        d: &Session<'_>,
        seat: usize,
        legal: &mut Vec<(usize, usize)>,
    ) -> (usize, usize, usize) {
        let n = d.option_count(seat);
        let b = tree.bandit(node, seat);
        legal.clear();
        // The options mostly come in the order their edges were made: each is looked for
        // first right after the last one found.
        let mut next = 0;
        for i in 0..n {
            let key = tree.key(d.option_id(seat, i).unwrap_or_default());
            let edges = &mut tree.nodes[node].bandits[b].edges;
            let e = match edges.get(next) {
                Some(edge) if edge.key == key => next,
                _ => match edges.iter().position(|e| e.key == key) {
                    Some(e) => e,
                    None => {
                        edges.push(Edge { key, visits: 0, available: 0, total: 0.0 });
                        edges.len() - 1
                    }
                },
            };
            edges[e].available += 1;
            legal.push((i, e));
            next = e + 1;
        }
        let edges = &tree.nodes[node].bandits[b].edges;
        // An untried one at random (counted, then found again: no list made).
        let untried = |(_, e): &&(usize, usize)| edges[*e].visits == 0;
        let count = legal.iter().filter(untried).count();
        if count > 0 {
            let k = self.rng.below(count as u64) as usize;
            let &(i, e) = legal.iter().filter(untried).nth(k).expect("k < count");
            return (i, b, e);
        }
        let ucb = |e: &Edge| e.total / e.visits as f64 + self.c * (ln_count(e.available) / e.visits as f64).sqrt();
        // Each option's bound worked out once; the last of equal bests wins, as `max_by` has it.
        let (_, i, e) = legal
            .iter()
            .map(|&(i, e)| (ucb(&edges[e]), i, e))
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .expect("a seat to act has options");
        (i, b, e)
    }

    /// One iteration on a fresh sample: down the tree, one new node, a playout, the returns.
    fn iterate(&mut self, tree: &mut Tree, obs: &dyn Observation, scratch: &mut Scratch) -> Result<(), PlayError> {
        let mut d = obs.sample(self.rng.below(u64::MAX))?;
        // Nobody reads the moves of a simulation: recording each would cost on every answer.
        d.forget_moves();
        let mut node = 0;
        let Scratch { actors, picks, joint, path, legal } = scratch;
        path.clear();
        while !d.is_over() {
            // Every seat of a commit at once, else the one seat asked.
            actors.clear();
            if d.is_commit() {
                actors.extend(d.seats_to_act());
            } else {
                actors.extend(d.first_to_act());
            }
            if actors.is_empty() {
                return Err(PlayError::Rule("the game is not over but nobody has to decide".into()));
            }
            // Every actor chooses before any choice is applied: none sees another's.
            picks.clear();
            for &p in actors.iter() {
                let (i, b, e) = self.pick(tree, node, &d, p, legal);
                picks.push((p, i, b, e));
            }
            joint.clear();
            joint.extend(picks.iter().map(|(_, _, b, e)| tree.nodes[node].bandits[*b].edges[*e].key));
            for &(p, i, b, e) in picks.iter() {
                d.apply_index(p, i)?;
                path.push(Step { node, bandit: b, edge: e });
            }
            match tree.nodes[node].children.get(joint.as_slice()) {
                Some(child) => node = *child,
                None => {
                    tree.nodes.push(Node::default());
                    let child = tree.nodes.len() - 1;
                    tree.nodes[node].children.insert(joint.clone(), child);
                    break;
                }
            }
        }
        let returns = self.playout(&mut d)?;
        for s in path.iter() {
            let b = &mut tree.nodes[s.node].bandits[s.bandit];
            let r = returns[b.seat];
            let e = &mut b.edges[s.edge];
            e.visits += 1;
            e.total += r;
        }
        Ok(())
    }

    /// Plays on to the end (or `depth` decisions) and returns each seat's share of the win.
    fn playout(&mut self, d: &mut Session<'_>) -> Result<Vec<f64>, PlayError> {
        let mut steps = 0u32;
        while !d.is_over() && self.depth.is_none_or(|max| steps < max) {
            let Some((p, n)) = d.next_to_act() else { break };
            let i = match self.judge {
                Some(judge) if self.greedy_playout && n > 1 => self.greedy_step(d, p, judge)?,
                _ => self.rng.below(n as u64) as usize,
            };
            d.apply_index(p, i)?;
            steps += 1;
        }
        if d.is_over() {
            return Ok(win_shares(d));
        }
        let judge = self.judge.expect("a playout cut short has a judge");
        Ok(shares_by_estimate(&judge.estimates(d)?))
    }

    /// The best of a few random options of `p` by its standing right after.
    fn greedy_step(&mut self, d: &Session<'_>, p: usize, judge: Judge) -> Result<usize, PlayError> {
        let n = d.option_count(p);
        let mut best = (f64::NEG_INFINITY, 0);
        // Each option is tried in a copy of `d`, made in the last one's buffers.
        let mut copy: Option<Session<'_>> = None;
        for _ in 0..GREEDY_PLAYOUT_WIDTH.min(n) {
            let i = self.rng.below(n as u64) as usize;
            let copy = match &mut copy {
                Some(copy) => {
                    copy.clone_from(d);
                    copy
                }
                None => copy.insert(d.clone()),
            };
            copy.apply_index(p, i)?;
            let v = standing(judge, copy, p)?;
            if v > best.0 {
                best = (v, i);
            }
        }
        Ok(best.1)
    }
}

impl Bot for MctsBot {
    fn choose(&mut self, obs: &dyn Observation) -> Result<usize, String> {
        let n = obs.option_count();
        if n <= 1 {
            return Ok(0);
        }
        let seat = obs.player();
        let mut tree = Tree { nodes: vec![Node::default()], keys: HashMap::default() };
        let start = Instant::now();
        let (mut done, mut failed) = (0u64, 0u64);
        let mut first_error = None;
        let mut scratch = Scratch::default();
        while done + failed < self.iterations && self.time.is_none_or(|t| start.elapsed() < t) {
            match self.iterate(&mut tree, obs, &mut scratch) {
                Ok(()) => done += 1,
                Err(e) => {
                    failed += 1;
                    first_error.get_or_insert(e);
                }
            }
        }
        if done == 0 {
            return Err(format!(
                "bot `mcts`: every simulation failed: {}",
                first_error.map(|e| e.to_string()).unwrap_or_else(|| "no time to simulate".into())
            ));
        }
        // The most visited of the seat's options at the root (its true options, by id).
        let root = &tree.nodes[0];
        let bandit = root.bandits.iter().find(|b| b.seat == seat);
        let visits = |id: &str| -> (u32, f64) {
            let key = tree.keys.get(id);
            bandit
                .and_then(|b| b.edges.iter().find(|e| Some(&e.key) == key))
                .map(|e| (e.visits, if e.visits > 0 { e.total / e.visits as f64 } else { 0.0 }))
                .unwrap_or((0, 0.0))
        };
        let options = obs.options();
        let best = (0..n)
            .max_by(|a, b| {
                let (va, ma) = visits(&options[*a].id);
                let (vb, mb) = visits(&options[*b].id);
                va.cmp(&vb).then(ma.total_cmp(&mb)).then(b.cmp(a))
            })
            .expect("n > 1");
        Ok(best)
    }
}

#[cfg(test)]
mod tests {
    use super::ln_count;

    #[test]
    fn counts_have_their_own_logarithms_in_and_past_the_table() {
        for n in [0u32, 1, 2, 3, 100, 4095, 4096, 4097, 1 << 20, u32::MAX] {
            assert_eq!(ln_count(n).to_bits(), f64::from(n).ln().to_bits(), "ln {n}");
        }
    }
}
