//! The engine's one source of chance: a seeded, serializable PCG generator with unbiased
//! bounded draws and a Fisher–Yates shuffle written here, so results never depend on another
//! crate's algorithm choices.

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::Serialize;

/// A seeded random number generator. Same seed, same draws, on every machine.
#[derive(Clone, Debug, Serialize)]
pub struct GameRng(Pcg64);

impl GameRng {
    /// A generator for a game seed.
    pub fn new(seed: u64) -> Self {
        GameRng(Pcg64::seed_from_u64(seed))
    }

    /// A uniformly random integer in `0..n` (`n > 0`), without modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        loop {
            let x = self.0.next_u64();
            if in_zone(x, n) {
                return x % n;
            }
        }
    }

    /// Shuffles a slice in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

/// Whether draw `x` lies in the zone [`GameRng::below`] keeps for `n` (`n > 0`): all but the
/// last `2^64 mod n` values, which it draws again. Every draw up to `u64::MAX - (n - 1)` lies in
/// the zone (`2^64 mod n < n`), so only a draw that far up, once in `2^64 / n`, pays the
/// division that finds the zone's end.
#[inline(always)]
fn in_zone(x: u64, n: u64) -> bool {
    x <= u64::MAX - (n - 1) || x <= u64::MAX - (u64::MAX % n + 1) % n
}

/// Derives the seed of game `index` of a series from the series seed (SplitMix64), so games
/// of a simulation are independent and can run in any order or in parallel.
pub fn derive_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_draws() {
        let mut a = GameRng::new(7);
        let mut b = GameRng::new(7);
        let xs: Vec<u64> = (0..20).map(|_| a.below(13)).collect();
        let ys: Vec<u64> = (0..20).map(|_| b.below(13)).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().all(|x| *x < 13));
    }

    #[test]
    fn the_zone_without_its_division_is_the_zone() {
        let zone = |n: u64| u64::MAX - (u64::MAX % n + 1) % n;
        let sizes = [1, 2, 3, 7, 13, 36, 1 << 32, (1 << 63) - 1, 1 << 63, (1 << 63) + 1, u64::MAX - 1, u64::MAX];
        for n in sizes {
            // Every draw near the top (where the zone ends), and some further down.
            let top = (u64::MAX - n.min(1000).saturating_mul(2))..=u64::MAX;
            let low = [0, 1, n - 1, n, u64::MAX / 2, u64::MAX - n];
            for x in top.chain(low) {
                assert_eq!(in_zone(x, n), x <= zone(n), "draw {x} for {n}");
            }
        }
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut v: Vec<u32> = (0..50).collect();
        GameRng::new(1).shuffle(&mut v);
        let mut s = v.clone();
        s.sort();
        assert_eq!(s, (0..50).collect::<Vec<_>>());
        assert_ne!(v, s);
    }
}
