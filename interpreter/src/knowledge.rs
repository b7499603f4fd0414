//! [`Knowledge`]: where each seat knows a component may be, followed from what the table saw.
//!
//! Every seat starts knowing where every component lies (the game files declare it). From
//! then on each recorded move ([`crate::state::Moved`]) is read as the table saw it: a seat
//! that sees the component leave or arrive (a place it may see, the top of a `top` pile)
//! knows where it went; otherwise it saw only "a component went from there to there", so
//! every component that might have been there might now be at the destination. A place left
//! empty holds nothing any more; a place a seat sees whole holds exactly what it shows.
//!
//! The identity of a component moved unseen is never used: what a seat knows depends only
//! on what it could see, which is what lets determinization ([`crate::determinize`]) sample
//! hidden information without reading it.

use crate::def::Visibility;
use crate::rules::Rules;
use crate::state::{Moved, State, NOWHERE};

/// Per seat, per component: the set of places it may be in (a bit set over the zone slots,
/// with one extra place, "nowhere", for components out of every zone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knowledge {
    /// First slot number of each zone (a zone has one slot, or one per seat).
    base: Vec<usize>,
    /// Number of places, "nowhere" (the last) included.
    places: usize,
    /// 64-bit words per component.
    words: usize,
    /// `bits[seat][component * words + w]`.
    bits: Vec<Vec<u64>>,
}

/// The numbers of the set bits of a row of words, lowest first (bit `b` of word `w` is
/// number `64 * w + b`).
struct SetBits<'a> {
    /// The words not read yet.
    rest: &'a [u64],
    /// The bits of the word being read not given yet.
    word: u64,
    /// The number of the next word's bit 0.
    next: usize,
}

impl Iterator for SetBits<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.word == 0 {
            let (first, rest) = self.rest.split_first()?;
            (self.word, self.rest) = (*first, rest);
            self.next += 64;
        }
        let bit = self.word.trailing_zeros() as usize;
        self.word &= self.word - 1;
        Some(self.next - 64 + bit)
    }
}

/// Whether `seat` sees everything in the slot `owner` of a zone with this visibility.
pub fn sees_all(vis: Visibility, per_player: bool, owner: usize, seat: usize) -> bool {
    match vis {
        Visibility::Public => true,
        Visibility::Owner => per_player && owner == seat,
        _ => false,
    }
}

/// Whether `seat` knows everything in a zone slot: it sees it, or the zone is declared
/// `known` (its contents follow from public facts).
pub fn knows_all(rules: &Rules, st: &State, zone: usize, owner: usize, seat: usize) -> bool {
    rules.zones[zone].known || sees_all(st.visibility(rules, zone, owner), rules.zones[zone].per_player, owner, seat)
}

impl Knowledge {
    /// What every seat knows of a state nobody has played yet (declared components where the
    /// game files put them: public knowledge).
    pub fn new(rules: &Rules, st: &State) -> Knowledge {
        let mut base = Vec::with_capacity(rules.zones.len());
        let mut places = 0;
        for slots in &st.zones {
            base.push(places);
            places += slots.len();
        }
        places += 1;
        let words = places.div_ceil(64);
        let mut k = Knowledge { base, places, words, bits: vec![Vec::new(); st.players] };
        for seat in 0..st.players {
            k.bits[seat] = vec![0; st.location.len() * words];
            for (c, loc) in st.location.iter().enumerate() {
                let place = k.place(*loc);
                k.set(seat, c, place);
            }
        }
        k
    }

    /// The place number of a (zone, owner) location, or "nowhere".
    pub fn place(&self, loc: (u32, u32)) -> usize {
        if loc == NOWHERE {
            self.places - 1
        } else {
            self.base[loc.0 as usize] + loc.1 as usize
        }
    }

    /// Number of places ("nowhere" included).
    pub fn places(&self) -> usize {
        self.places
    }

    /// Whether `seat` thinks component `c` may be at place `place`.
    pub fn may_be(&self, seat: usize, c: usize, place: usize) -> bool {
        self.bits[seat].get(c * self.words + place / 64).is_some_and(|w| w & (1 << (place % 64)) != 0)
    }

    /// The places `seat` thinks component `c` may be at.
    pub fn possible(&self, seat: usize, c: usize) -> impl Iterator<Item = usize> + '_ {
        // The set bits of the component's row, word by word, lowest first (no bit past the
        // last place is ever set).
        let row = self.bits[seat].get(c * self.words..(c + 1) * self.words).unwrap_or(&[]);
        SetBits { rest: row, word: 0, next: 0 }
    }

    fn row(&mut self, seat: usize, c: usize) -> &mut [u64] {
        let w = self.words;
        &mut self.bits[seat][c * w..(c + 1) * w]
    }

    fn set(&mut self, seat: usize, c: usize, place: usize) {
        self.row(seat, c)[place / 64] |= 1 << (place % 64);
    }

    /// `seat` knows exactly where `c` is.
    fn know(&mut self, seat: usize, c: usize, place: usize) {
        self.row(seat, c).fill(0);
        self.set(seat, c, place);
    }

    /// Nothing is at `place` any more, as far as `seat` can tell.
    fn clear_place(&mut self, seat: usize, place: usize, except: &[u32]) {
        let (w, bit) = (place / 64, 1u64 << (place % 64));
        let n = self.bits[seat].len() / self.words;
        for c in 0..n {
            if !except.contains(&(c as u32)) {
                self.bits[seat][c * self.words + w] &= !bit;
            }
        }
    }

    /// Reads the moves recorded since the last call, then what each seat sees in `st` now.
    pub fn absorb(&mut self, rules: &Rules, st: &State, moves: &[Moved]) {
        let components = st.location.len();
        for seat_bits in &mut self.bits {
            // Components created since: known to be nowhere until they move.
            let before = seat_bits.len() / self.words;
            if components > before {
                seat_bits.resize(components * self.words, 0);
                let nowhere = self.places - 1;
                for c in before..components {
                    seat_bits[c * self.words + nowhere / 64] |= 1 << (nowhere % 64);
                }
            }
        }
        for m in moves {
            self.absorb_move(rules, m);
        }
        for seat in 0..st.players {
            self.look(rules, st, seat);
        }
    }

    fn absorb_move(&mut self, rules: &Rules, m: &Moved) {
        let (from, to) = (self.place(m.from), self.place(m.to));
        let zone = |loc: (u32, u32)| &rules.zones[loc.0 as usize];
        for seat in 0..self.bits.len() {
            let seen_from = m.from != NOWHERE
                && (zone(m.from).known
                    || sees_all(m.from_visible, zone(m.from).per_player, m.from.1 as usize, seat)
                    || (m.from_visible == Visibility::Top && m.from_top));
            let seen_to = m.to != NOWHERE
                && (zone(m.to).known
                    || sees_all(m.to_visible, zone(m.to).per_player, m.to.1 as usize, seat)
                    || m.to_visible == Visibility::Top);
            if seen_from || seen_to {
                self.know(seat, m.card as usize, to);
            } else {
                // Some component went from `from` to `to`: any that may have been there may
                // now be here.
                let (fw, fb) = (from / 64, 1u64 << (from % 64));
                let (tw, tb) = (to / 64, 1u64 << (to % 64));
                for row in self.bits[seat].chunks_exact_mut(self.words) {
                    if row[fw] & fb != 0 {
                        row[tw] |= tb;
                    }
                }
                // A move the tracker did not follow (a scenario's arrangement) must still
                // leave the component somewhere it may be.
                self.set(seat, m.card as usize, to);
            }
            if m.from != NOWHERE && m.from_left == 0 {
                self.clear_place(seat, from, &[]);
            }
        }
    }

    /// What `seat` sees now: the contents of places it sees whole (exactly those), the top
    /// of `top` piles, and what was shown to it.
    fn look(&mut self, rules: &Rules, st: &State, seat: usize) {
        for (z, slots) in st.zones.iter().enumerate() {
            for (o, slot) in slots.iter().enumerate() {
                let vis = st.visibility(rules, z, o);
                let place = self.base[z] + o;
                if knows_all(rules, st, z, o, seat) {
                    self.clear_place(seat, place, &slot.cards);
                    for c in &slot.cards {
                        self.know(seat, *c as usize, place);
                    }
                } else if vis == Visibility::Top {
                    if let Some(c) = slot.cards.last() {
                        self.know(seat, *c as usize, place);
                    }
                }
                if slot.cards.is_empty() {
                    self.clear_place(seat, place, &[]);
                }
            }
        }
        for shown in st.shown.iter().filter(|s| s.seats.contains(&seat)) {
            for c in &shown.cards {
                let place = self.place(st.location[*c as usize]);
                self.know(seat, *c as usize, place);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_places_a_component_may_be_at_are_its_set_bits_in_order_across_words() {
        // 70 places (two words a component), one seat, three components.
        let mut k = Knowledge { base: vec![0], places: 70, words: 2, bits: vec![vec![0; 6]] };
        for (c, place) in [(0, 0), (0, 63), (0, 64), (0, 69), (1, 5), (1, 6), (1, 41)] {
            k.set(0, c, place);
        }
        for c in 0..3 {
            let by_bit: Vec<usize> = k.possible(0, c).collect();
            let by_place: Vec<usize> = (0..k.places).filter(|p| k.may_be(0, c, *p)).collect();
            assert_eq!(by_bit, by_place, "component {c}");
        }
        assert_eq!(k.possible(0, 0).collect::<Vec<_>>(), [0, 63, 64, 69]);
        assert_eq!(k.possible(0, 2).count(), 0);
        // A component the rows do not cover (created after the knowledge was made) may be
        // nowhere known.
        assert_eq!(k.possible(0, 3).count(), 0);
    }
}
