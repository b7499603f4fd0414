//! The sets a `subset` decision lets a player build, one component at a time: whether a set
//! meets the declared constraints (size, shared and distinct properties, a run of consecutive
//! values) and whether a partial set can still grow into one. The search prunes as it goes and
//! stops with an error past a fixed cap, so a decision can never hang.

use crate::rules::Subset;
use crate::value::Value;

/// Most partial sets one check may look at.
const MAX_VISITS: usize = 1_000_000;

/// A candidate: its component index and its properties.
pub struct Candidate<'a> {
    /// Component index.
    pub idx: u32,
    /// Component properties.
    pub props: &'a crate::value::ValueMap,
    /// Its place in the run, when already known ([`crate::state::Component::run_rank`]);
    /// else it is worked out from `props`.
    pub rank: Option<i64>,
}

/// The candidates of one decision with what the checks need precomputed.
pub struct Pool<'s, 'a> {
    spec: &'s Subset,
    cands: &'s [Candidate<'a>],
    /// Each candidate's place in the run (if the spec has `consecutive`).
    ranks: Option<Vec<i64>>,
    /// Candidate positions by rank (then position), the order searches walk.
    walk: Vec<usize>,
    /// The lowest rank, when every rank fits in 64 places above it: a set's ranks are then
    /// one bit mask (no list to build and sort at each step of a search).
    bits_from: Option<i64>,
    /// With `bits_from`: the ranks the candidates have, as a mask (worked out once: every
    /// check of the decision's step asks it).
    rank_bits: u64,
}

impl<'s, 'a> Pool<'s, 'a> {
    /// Prepares the checks; fails if a candidate has no rank in the run.
    pub fn new(spec: &'s Subset, cands: &'s [Candidate<'a>]) -> Result<Self, String> {
        let ranks = match &spec.consecutive {
            Some((prop, order)) => {
                let known_or_worked_out =
                    |c: &Candidate<'_>| c.rank.map_or_else(|| rank(c.props, prop, order.as_deref()), Ok);
                Some(cands.iter().map(known_or_worked_out).collect::<Result<Vec<_>, _>>()?)
            }
            None => None,
        };
        let mut walk: Vec<usize> = (0..cands.len()).collect();
        if let Some(r) = &ranks {
            walk.sort_by_key(|i| (r[*i], *i));
        }
        let bits_from = ranks.as_ref().and_then(|r| {
            let (lo, hi) = (r.iter().min().copied().unwrap_or(0), r.iter().max().copied().unwrap_or(0));
            (hi.checked_sub(lo)? < 64).then_some(lo)
        });
        let rank_bits = match (&ranks, bits_from) {
            (Some(r), Some(lo)) => r.iter().fold(0u64, |b, rank| b | 1 << (rank - lo)),
            _ => 0,
        };
        Ok(Pool { spec, cands, ranks, walk, bits_from, rank_bits })
    }

    /// Whether the set (candidate positions) meets every declared constraint.
    pub fn satisfies(&self, set: &[usize]) -> bool {
        self.compatible(set) && self.satisfies_compatible(set)
    }

    /// [`Pool::satisfies`] for a set already known to be compatible (every set a search
    /// builds: a candidate joins only if it fits).
    fn satisfies_compatible(&self, set: &[usize]) -> bool {
        set.len() >= self.spec.min.max(1) && set.len() <= self.spec.max && self.gaps(set).is_none()
    }

    /// Whether any set of the candidates meets every constraint: what a decision's first step
    /// offers (each candidate that can grow into one, and finishing with none when that is one).
    pub fn any_set(&self) -> Result<bool, String> {
        if self.satisfies(&[]) {
            return Ok(true);
        }
        for pos in 0..self.cands.len() {
            if self.completable(&[pos])? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether the set can grow (or is already) a set that meets every constraint.
    pub fn completable(&self, set: &[usize]) -> Result<bool, String> {
        if set.len() > self.spec.max || !self.compatible(set) {
            return Ok(false);
        }
        if let Some(answer) = self.completable_run(set) {
            return Ok(answer);
        }
        let mut chosen = set.to_vec();
        let mut visits = 0;
        self.search(&mut chosen, 0, &mut visits)
    }

    /// [`Pool::completable`] worked out without a search, for a run alone (no shared or
    /// distinct properties) whose ranks fit one mask; `None` otherwise. The sets without a gap
    /// that hold `set` lie within the block of ranks around it that all have candidates: the
    /// smallest adds one candidate of each rank missing inside `set`'s span, and from it
    /// candidates can be added one at a time (of a rank in the run or next to it) until the
    /// block's candidates are all in. So every size from that smallest to the block's number
    /// of candidates is reached, and the set can be completed when one of them is allowed.
    fn completable_run(&self, set: &[usize]) -> Option<bool> {
        if !self.spec.same.is_empty() || !self.spec.distinct.is_empty() {
            return None;
        }
        let (ranks, from) = (self.ranks.as_ref()?, self.bits_from?);
        let bit = |i: usize| 1u64 << (ranks[i] - from);
        let have = self.rank_bits;
        let chosen = set.iter().fold(0u64, |b, i| b | bit(*i));
        let least = self.spec.min.max(1);
        // The candidates of a block of ranks.
        let count = |block: u64| (0..self.cands.len()).filter(|i| block & bit(*i) != 0).count();
        if chosen == 0 {
            // Any block of ranks that all have candidates, holding enough of them.
            let mut rest = have;
            while rest != 0 {
                let block = block_at(rest, rest.trailing_zeros());
                if least <= self.spec.max.min(count(block)) {
                    return Some(true);
                }
                rest &= !block;
            }
            return Some(false);
        }
        let (lo, hi) = (chosen.trailing_zeros(), 63 - chosen.leading_zeros());
        let span = (u64::MAX >> (63 - hi)) & (u64::MAX << lo);
        if have & span != span {
            return Some(false);
        }
        let smallest = set.len() + (span & !chosen).count_ones() as usize;
        Some(least.max(smallest) <= self.spec.max.min(count(block_at(have, lo))))
    }

    /// Depth-first: adds candidates until the set meets the constraints. A set with a hole in
    /// its run can only be completed through a candidate of the lowest missing rank, so only
    /// those are tried; otherwise candidates from `walk[from..]` are tried in order.
    fn search(&self, chosen: &mut Vec<usize>, from: usize, visits: &mut usize) -> Result<bool, String> {
        *visits += 1;
        if *visits > MAX_VISITS {
            return Err(format!(
                "a subset check looked at more than {MAX_VISITS} partial sets (tighten `min`, `max`, `same`, `distinct` or `consecutive`)"
            ));
        }
        if self.satisfies_compatible(chosen) {
            return Ok(true);
        }
        if chosen.len() >= self.spec.max {
            return Ok(false);
        }
        if let (Some(g), Some(r)) = (self.gaps(chosen), &self.ranks) {
            for (i, _) in r.iter().enumerate().filter(|(_, rank)| **rank == g) {
                if self.try_add(chosen, i, 0, visits)? {
                    return Ok(true);
                }
            }
            return Ok(false);
        }
        for pos in from..self.walk.len() {
            if self.try_add(chosen, self.walk[pos], pos + 1, visits)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Adds candidate `i` if it fits and searches on from `walk[from..]`.
    fn try_add(&self, chosen: &mut Vec<usize>, i: usize, from: usize, visits: &mut usize) -> Result<bool, String> {
        if chosen.contains(&i) || !self.fits(chosen, i) {
            return Ok(false);
        }
        chosen.push(i);
        let found = self.search(chosen, from, visits);
        chosen.pop();
        found
    }

    /// Shared and distinct properties hold between every two members.
    fn compatible(&self, set: &[usize]) -> bool {
        if self.spec.same.is_empty() && self.spec.distinct.is_empty() {
            return true;
        }
        (1..set.len()).all(|k| self.fits(&set[..k], set[k]))
    }

    fn fits(&self, set: &[usize], i: usize) -> bool {
        let props = self.cands[i].props;
        let first = set.first().map(|f| self.cands[*f].props);
        let same = self.spec.same.iter().all(|p| first.is_none_or(|f| f.get(p) == props.get(p)));
        same && self.spec.distinct.iter().all(|p| set.iter().all(|c| self.cands[*c].props.get(p) != props.get(p)))
    }

    /// The lowest rank missing inside the set's run, if any.
    fn gaps(&self, set: &[usize]) -> Option<i64> {
        let r = self.ranks.as_ref()?;
        if let Some(from) = self.bits_from {
            let bits = set.iter().fold(0u64, |b, i| b | 1 << (r[*i] - from));
            if bits == 0 {
                return None;
            }
            let lowest = bits.trailing_zeros();
            let run = bits >> lowest;
            // A run without holes is a block of ones: adding one clears them all.
            if run & run.wrapping_add(1) == 0 {
                return None;
            }
            return Some(from + i64::from(lowest + (!run).trailing_zeros()));
        }
        let mut have: Vec<i64> = set.iter().map(|i| r[*i]).collect();
        have.sort_unstable();
        have.dedup();
        have.windows(2).find(|w| w[1] - w[0] > 1).map(|w| w[0] + 1)
    }
}

/// The block of consecutive bits of `mask` that holds bit `at` (set in `mask`).
fn block_at(mask: u64, at: u32) -> u64 {
    // Set bits from `at` upward, and just below it, each up to the first clear one.
    let up_len = (!(mask >> at)).trailing_zeros();
    let up = if at + up_len >= 64 { u64::MAX << at } else { ((1u64 << up_len) - 1) << at };
    let down_len = if at == 0 { 0 } else { (!(mask << (64 - at))).leading_zeros() };
    let down = if down_len == 0 { 0 } else { ((1u64 << down_len) - 1) << (at - down_len) };
    up | down
}

/// A component's place in a run by `prop`: its integer value, or the position of its value in
/// `order`.
pub fn rank(props: &crate::value::ValueMap, prop: &str, order: Option<&[Value]>) -> Result<i64, String> {
    let v = props.get(prop).ok_or_else(|| format!("a subset runs by `{prop}`, but a candidate has no `{prop}`"))?;
    match order {
        Some(order) => order
            .iter()
            .position(|o| o == v)
            .map(|p| p as i64)
            .ok_or_else(|| format!("a subset runs by `{prop}`, but the value {v} is not in its `order`")),
        None => v
            .as_int()
            .ok_or_else(|| format!("a subset runs by `{prop}`, but the value {v} is not an integer (give an `order`)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(series: &str, year: i64) -> crate::value::ValueMap {
        let mut m = crate::value::ValueMap::default();
        m.insert("series".to_string(), Value::Str(series.into()));
        m.insert("year".to_string(), Value::Int(year));
        m
    }

    fn run_spec(min: usize) -> Subset {
        let order = ["A", "B", "C", "D"].iter().map(|s| Value::Str((*s).into())).collect();
        Subset { min, max: usize::MAX, consecutive: Some(("series".into(), Some(order))), ..Subset::default() }
    }

    fn cands(props: &[crate::value::ValueMap]) -> Vec<Candidate<'_>> {
        props.iter().enumerate().map(|(i, p)| Candidate { idx: i as u32, props: p, rank: None }).collect()
    }

    #[test]
    fn a_run_has_no_gap_and_may_repeat_a_value() {
        // A A B D
        let props = [card("A", 1), card("A", 2), card("B", 3), card("D", 4)];
        let c = cands(&props);
        let spec = run_spec(3);
        let pool = Pool::new(&spec, &c).unwrap();
        assert!(pool.satisfies(&[0, 1, 2]));
        assert!(!pool.satisfies(&[0, 2]), "too small");
        assert!(!pool.satisfies(&[1, 2, 3]), "B D leaves out C");
        // A then B can grow into A A B; D can join nothing (no C)
        assert!(pool.completable(&[0]).unwrap());
        assert!(pool.completable(&[0, 2]).unwrap());
        assert!(!pool.completable(&[3]).unwrap());
        assert!(!pool.completable(&[0, 3]).unwrap());
    }

    #[test]
    fn a_gap_can_be_filled_later() {
        // A then C is fine while a B is left to add
        let props = [card("A", 1), card("C", 2), card("B", 3)];
        let c = cands(&props);
        let spec = run_spec(3);
        let pool = Pool::new(&spec, &c).unwrap();
        assert!(!pool.satisfies(&[0, 1]));
        assert!(pool.completable(&[0, 1]).unwrap());
        assert!(pool.satisfies(&[0, 1, 2]));
    }

    #[test]
    fn same_distinct_and_bounds() {
        let props = [card("A", 1), card("A", 1), card("B", 1), card("A", 2)];
        let c = cands(&props);
        let same = Subset { min: 2, max: 2, same: vec!["series".into()], ..Subset::default() };
        let pool = Pool::new(&same, &c).unwrap();
        assert!(pool.satisfies(&[0, 3]));
        assert!(!pool.satisfies(&[0, 2]));
        assert!(!pool.satisfies(&[0, 1, 3]), "above max");
        assert!(!pool.completable(&[2]).unwrap(), "no other B");
        let distinct = Subset { min: 2, max: 3, distinct: vec!["year".into()], ..Subset::default() };
        let pool = Pool::new(&distinct, &c).unwrap();
        assert!(pool.satisfies(&[0, 3]));
        assert!(!pool.completable(&[0, 1]).unwrap());
    }

    #[test]
    fn any_set_is_there_when_some_run_is_long_enough() {
        let spec = run_spec(3);
        // A B D D: no run of three (B-D has a gap); A A B: one.
        let no_run = [card("A", 1), card("B", 2), card("D", 3), card("D", 4)];
        let a_run = [card("A", 1), card("A", 2), card("B", 3)];
        assert!(!Pool::new(&spec, &cands(&no_run)).unwrap().any_set().unwrap());
        assert!(Pool::new(&spec, &cands(&a_run)).unwrap().any_set().unwrap());
        assert!(!Pool::new(&spec, &[]).unwrap().any_set().unwrap(), "no candidate, no set");
    }

    #[test]
    fn an_impossible_completion_is_found_out_quickly() {
        // 30 cards of series A, one of D: A..D can never be completed, and the search says so
        // without walking every subset
        let mut props: Vec<_> = (0..30).map(|i| card("A", i)).collect();
        props.push(card("D", 99));
        let c = cands(&props);
        let spec = run_spec(3);
        let pool = Pool::new(&spec, &c).unwrap();
        assert!(!pool.completable(&[0, 30]).unwrap());
    }

    /// The search, without the shortcut for a run alone.
    fn searched(pool: &Pool<'_, '_>, set: &[usize]) -> bool {
        if set.len() > pool.spec.max || !pool.compatible(set) {
            return false;
        }
        pool.search(&mut set.to_vec(), 0, &mut 0).unwrap()
    }

    #[test]
    fn a_run_alone_is_judged_as_the_search_judges_it() {
        // Every set of every pool of these ranks (gaps, repeats, one rank alone), for sizes
        // that are easy, tight and impossible to meet.
        for years in [vec![1, 2, 2, 4, 5, 6, 6], vec![3, 3, 3], vec![0, 2, 4, 6], vec![5, 1, 2, 3, 9, 8, 7]] {
            let props: Vec<_> = years.iter().map(|y| card("A", *y)).collect();
            let c = cands(&props);
            for (min, max) in [(0, usize::MAX), (1, 1), (2, 3), (3, 3), (4, 5), (5, usize::MAX), (8, 9), (3, 2)] {
                let spec = Subset { min, max, consecutive: Some(("year".into(), None)), ..Subset::default() };
                let pool = Pool::new(&spec, &c).unwrap();
                for mask in 0u32..1 << years.len() {
                    let set: Vec<usize> = (0..years.len()).filter(|i| mask & 1 << i != 0).collect();
                    assert_eq!(
                        pool.completable(&set).unwrap(),
                        searched(&pool, &set),
                        "{set:?} of {years:?}, min {min}, max {max}"
                    );
                }
            }
        }
    }

    #[test]
    fn blocks_of_bits_are_found_around_a_bit() {
        assert_eq!(block_at(0b0111_0110, 1), 0b0000_0110);
        assert_eq!(block_at(0b0111_0110, 5), 0b0111_0000);
        assert_eq!(block_at(0b0111_0110, 6), 0b0111_0000);
        assert_eq!(block_at(1, 0), 1);
        assert_eq!(block_at(u64::MAX, 0), u64::MAX);
        assert_eq!(block_at(u64::MAX, 63), u64::MAX);
        assert_eq!(block_at(u64::MAX << 60, 61), u64::MAX << 60);
    }

    #[test]
    fn the_bit_mask_finds_the_same_gaps_as_the_sorted_list() {
        // Integer runs: small negative ones (a mask) and one 100 wide (a list); every subset.
        for years in [vec![-3, -1, -2, 0, 2, 2, 5], vec![1, 3, 101, 2, 4, 4, 7]] {
            let props: Vec<_> = years.iter().map(|y| card("A", *y)).collect();
            let c = cands(&props);
            let spec = Subset { consecutive: Some(("year".into(), None)), ..Subset::default() };
            let pool = Pool::new(&spec, &c).unwrap();
            assert_eq!(pool.bits_from.is_some(), years.iter().max().unwrap() - years.iter().min().unwrap() < 64);
            let listed = Pool { bits_from: None, ..Pool::new(&spec, &c).unwrap() };
            for mask in 0u32..1 << years.len() {
                let set: Vec<usize> = (0..years.len()).filter(|i| mask & 1 << i != 0).collect();
                assert_eq!(pool.gaps(&set), listed.gaps(&set), "{set:?} of {years:?}");
            }
        }
        let props: Vec<_> = [1, 2, 4, 6].iter().map(|y| card("A", *y)).collect();
        let c = cands(&props);
        let spec = Subset { consecutive: Some(("year".into(), None)), ..Subset::default() };
        assert_eq!(Pool::new(&spec, &c).unwrap().gaps(&[0, 2, 3]), Some(2), "the lowest hole");
    }

    #[test]
    fn a_value_outside_the_order_is_an_error() {
        let props = [card("Z", 1)];
        let c = cands(&props);
        let spec = run_spec(1);
        assert!(Pool::new(&spec, &c).err().unwrap().contains("not in its `order`"));
    }

    #[test]
    fn a_rank_known_beforehand_is_taken_as_it_is() {
        // A A D: no set of three without a gap; told that the D is a B, the pool finds one.
        let props = [card("A", 1), card("A", 2), card("D", 3)];
        let mut c = cands(&props);
        let spec = run_spec(3);
        assert!(!Pool::new(&spec, &c).unwrap().any_set().unwrap());
        c[2].rank = Some(1);
        assert!(Pool::new(&spec, &c).unwrap().any_set().unwrap());
    }
}
