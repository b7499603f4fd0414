//! `rulebook tune`'s search: the N-Tuple Bandit Evolutionary Algorithm (NTBEA; Lucas, Liu and
//! Perez-Liebana 2018, the optimiser of the TAG framework) over a grid of parameter values.
//!
//! Every evaluated setting updates bandit statistics of each single parameter value (1-tuples)
//! and of the whole setting (the n-tuple). Each step mutates the current setting into a few
//! neighbours, picks the neighbour whose tuples promise most (mean plus an exploration bonus,
//! averaged over the tuples), evaluates it (a noisy fitness, e.g. from simulated games) and
//! moves there. The search is deterministic for a seed; evaluation is the caller's.

use crate::rng::GameRng;
use std::collections::HashMap;

/// Settings of the search.
#[derive(Clone, Debug)]
pub struct Search {
    /// Evaluations in all.
    pub evaluations: usize,
    /// Neighbours considered per step.
    pub neighbours: usize,
    /// Exploration constant of the tuples' UCB.
    pub exploration: f64,
    /// Probability of changing each parameter when making a neighbour (at least one changes).
    pub mutation: f64,
}

impl Default for Search {
    fn default() -> Self {
        Search { evaluations: 30, neighbours: 20, exploration: 2.0, mutation: 0.3 }
    }
}

/// Statistics of one tuple.
#[derive(Clone, Copy, Debug, Default)]
struct Stat {
    n: u32,
    sum: f64,
}

impl Stat {
    fn mean(self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum / self.n as f64
        }
    }
}

/// A setting: one index into each parameter's values.
pub type Point = Vec<usize>;

/// Runs NTBEA over `sizes[i]` values of parameter `i`, maximising `fitness` (higher is
/// better). Returns every evaluated setting with its fitness, in order.
pub fn ntbea(
    sizes: &[usize],
    search: &Search,
    seed: u64,
    mut fitness: impl FnMut(&Point) -> Result<f64, String>,
) -> Result<Vec<(Point, f64)>, String> {
    let mut rng = GameRng::new(seed);
    let mut ones: Vec<Vec<Stat>> = sizes.iter().map(|s| vec![Stat::default(); *s]).collect();
    let mut whole: HashMap<Point, Stat> = HashMap::new();
    let mut current: Point = sizes.iter().map(|s| rng.below(*s as u64) as usize).collect();
    let mut history = Vec::new();
    for step in 0..search.evaluations {
        let value = fitness(&current)?;
        history.push((current.clone(), value));
        for (i, v) in current.iter().enumerate() {
            ones[i][*v].n += 1;
            ones[i][*v].sum += value;
        }
        let s = whole.entry(current.clone()).or_default();
        s.n += 1;
        s.sum += value;
        if step + 1 == search.evaluations {
            break;
        }
        let total = (step + 1) as f64;
        let promise = |p: &Point| {
            let ucb = |s: Stat| {
                if s.n == 0 {
                    1e9
                } else {
                    s.mean() + search.exploration * (total.ln() / s.n as f64).sqrt()
                }
            };
            let mut sum: f64 = p.iter().enumerate().map(|(i, v)| ucb(ones[i][*v])).sum();
            sum += ucb(whole.get(p).copied().unwrap_or_default());
            sum / (p.len() + 1) as f64
        };
        let mut best: Option<(f64, Point)> = None;
        for _ in 0..search.neighbours {
            let n = neighbour(&current, sizes, search.mutation, &mut rng);
            let v = promise(&n);
            if best.as_ref().is_none_or(|(b, _)| v > *b) {
                best = Some((v, n));
            }
        }
        if let Some((_, p)) = best {
            current = p;
        }
    }
    Ok(history)
}

/// The evaluated settings, the one the search trusts most first: best mean fitness over its
/// evaluations (ties: the most evaluated, then the first evaluated).
pub fn ranked(history: &[(Point, f64)]) -> Vec<(Point, f64, usize)> {
    let mut seen: Vec<(Point, f64, usize)> = Vec::new();
    for (p, v) in history {
        match seen.iter_mut().find(|(q, _, _)| q == p) {
            Some(s) => {
                s.1 += v;
                s.2 += 1;
            }
            None => seen.push((p.clone(), *v, 1)),
        }
    }
    let mut means: Vec<(Point, f64, usize)> = seen.into_iter().map(|(p, sum, n)| (p, sum / n as f64, n)).collect();
    means.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.cmp(&a.2)));
    means
}

/// The setting the search trusts most (the first of [`ranked`]).
pub fn best(history: &[(Point, f64)]) -> Option<(Point, f64, usize)> {
    ranked(history).into_iter().next()
}

/// A neighbour: each parameter changed with probability `mutation` (at least one changes,
/// when any can) to another of its values.
fn neighbour(p: &Point, sizes: &[usize], mutation: f64, rng: &mut GameRng) -> Point {
    let mut n = p.clone();
    let changeable: Vec<usize> = (0..sizes.len()).filter(|i| sizes[*i] > 1).collect();
    if changeable.is_empty() {
        return n;
    }
    let forced = changeable[rng.below(changeable.len() as u64) as usize];
    for &i in &changeable {
        let roll = rng.below(1_000_000) as f64 / 1_000_000.0;
        if i == forced || roll < mutation {
            let other = rng.below(sizes[i] as u64 - 1) as usize;
            n[i] = if other >= p[i] { other + 1 } else { other };
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ntbea_finds_the_peak_of_a_noisy_landscape() {
        // Two parameters of 10 values; fitness peaks at (7, 2), with noise.
        let mut noise = GameRng::new(3);
        let history = ntbea(&[10, 10], &Search { evaluations: 120, ..Search::default() }, 1, |p| {
            let d = (p[0] as f64 - 7.0).abs() + (p[1] as f64 - 2.0).abs();
            Ok(-d + (noise.below(100) as f64 / 100.0 - 0.5))
        })
        .unwrap();
        let (p, _, _) = best(&history).unwrap();
        let d = (p[0] as i64 - 7).abs() + (p[1] as i64 - 2).abs();
        assert!(d <= 1, "found {p:?}");
        // Deterministic for a seed.
        let again = ntbea(&[10, 10], &Search { evaluations: 20, ..Search::default() }, 1, |p| Ok(p[0] as f64)).unwrap();
        let twice = ntbea(&[10, 10], &Search { evaluations: 20, ..Search::default() }, 1, |p| Ok(p[0] as f64)).unwrap();
        assert_eq!(again, twice);
    }
}
