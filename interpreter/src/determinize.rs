//! Determinization: a complete game consistent with everything one seat knows, sampled
//! without reading what it does not know. Search bots play their simulations in such samples.
//!
//! What a sample keeps and what it draws anew (the rules authors rely on, in `games/README.md`):
//!
//! - **Components** in places the seat sees whole, and the top of `top` piles, stay where
//!   they are. Every other component is dealt anew, at random, among the places the seat
//!   cannot see into, keeping how many each holds, and only where the seat's [`Knowledge`]
//!   says it may be (a card seen going into a hand stays in that hand). The order of what a
//!   seat cannot see is drawn anew too (a shuffled deck is shuffled again).
//! - **Hidden commits** of other seats not yet revealed are forgotten: those seats decide
//!   again, from options worked out anew in the sample. The seat's own commit and options
//!   stay.
//! - **Values** (tracks and vars) another seat alone may see are reset to their declared
//!   start or default. Values nobody sees (`hidden`) are the rules' bookkeeping of what the
//!   table saw and are kept; a secret belongs in a zone or an `owner` value.
//! - **The random generator** is reseeded from the sample's seed: a copy that kept it would
//!   know every future shuffle and draw.
//! - The flow position (phases, steps, the contexts scripts passed along), grids, properties
//!   of components and what was shown to the table are kept.
//!
//! Everything a sample depends on is in what the seat sees, its [`Knowledge`], the number of
//! components in each place and the seed: two states alike in those give the same samples.

use crate::error::PlayError;
use crate::knowledge::{knows_all, Knowledge};
use crate::rng::{derive_seed, GameRng};
use crate::script::Work;
use crate::session::{Origin, Session};
use crate::state::{State, NOWHERE};
use crate::Game;
use std::sync::Arc;

/// Samples a complete game consistent with what `seat` knows in `session`, from `seed`.
/// The session must follow what seats know ([`Session::new_tracked`]). Many samples of one
/// position are cheaper drawn from one [`Sampler`].
pub fn sample<'g>(session: &Session<'g>, seat: usize, seed: u64) -> Result<Session<'g>, PlayError> {
    Sampler::new(session, seat)?.sample(seed)
}

/// Draws samples of one position for one seat, from one copy of the session's state and of
/// what each seat knows. The samples share that copy: one that takes back a failed answer
/// draws itself again from it, instead of keeping a copy of its own first state.
pub struct Sampler<'g> {
    game: &'g Game,
    ground: Arc<Ground>,
}

/// What a [`Sampler`]'s samples are drawn from.
struct Ground {
    state: State,
    knowledge: Knowledge,
    seat: usize,
    /// The session's seed (a sample's session reports it).
    seed: u64,
}

impl<'g> Sampler<'g> {
    /// Samples of what `seat` knows in `session` (which must follow what seats know:
    /// [`Session::new_tracked`]).
    pub fn new(session: &Session<'g>, seat: usize) -> Result<Sampler<'g>, PlayError> {
        let knowledge = session.knowledge().ok_or_else(|| {
            PlayError::Illegal(
                "this game does not follow what each seat knows, so hidden information cannot be sampled: \
                 start it with Session::new_tracked"
                    .into(),
            )
        })?;
        let mut state = session.state().clone();
        // What every sample clears, cleared once (each sample copies less).
        state.trace = None;
        state.pushed_out.clear();
        state.forced_draws.clear();
        let ground = Ground { state, knowledge: knowledge.clone(), seat, seed: session.seed() };
        Ok(Sampler { game: session.game(), ground: Arc::new(ground) })
    }

    /// A complete game consistent with what the seat knows, drawn from `seed`.
    pub fn sample(&self, seed: u64) -> Result<Session<'g>, PlayError> {
        let mut last_error = None;
        for attempt in 0..ATTEMPTS {
            let key = derive_seed(seed, attempt);
            match self.ground.draw(self.game, key) {
                Ok(st) => {
                    let origin: Arc<dyn Origin> = self.ground.clone();
                    return Ok(Session::from_state(self.game, st, self.ground.seed, origin, key));
                }
                Err(e) => last_error = Some(e),
            }
        }
        Err(last_error.expect("at least one attempt"))
    }
}

impl Ground {
    /// One attempt of [`Sampler::sample`], in a transaction, as every other state change of
    /// the engine: the scripts that work out the other seats' options again
    /// (`reopen_commits`) run compiled, and if one gives up, the attempt is drawn again from
    /// the start with Rhai alone (the same draws: they come from the key). Outside one, Rhai
    /// would interpret every call.
    fn draw(&self, game: &Game, key: u64) -> Result<Box<State>, PlayError> {
        crate::script::transaction(|| draw(game, &self.state, &self.knowledge, self.seat, key))
    }
}

/// A sample is drawn again as it was drawn the first time (the same key: the same draws).
impl Origin for Ground {
    fn make_again(&self, game: &Game, key: u64) -> Result<Box<State>, PlayError> {
        self.draw(game, key)
    }
}

/// One attempt of [`Sampler::sample`]: `state`, what `seat` cannot see drawn anew from
/// `seed`.
fn draw(game: &Game, state: &State, knowledge: &Knowledge, seat: usize, seed: u64) -> Result<Box<State>, PlayError> {
    let mut rng = GameRng::new(derive_seed(seed, 0x5A3B1E));
    let mut st = crate::session::copy_in_spare(state);
    st.trace = None;
    st.pushed_out.clear();
    // Draws a scenario fixed are not the seat's to know.
    st.forced_draws.clear();
    redeal(game, knowledge, &mut st, seat, &mut rng)?;
    reset_secret_values(game, &mut st, seat);
    reroll_unseen_dice(game, &mut st, seat, &mut rng);
    st.rng = GameRng::new(derive_seed(seed, 0xD1CE));
    reopen_commits(game, &mut st, seat)?;
    Ok(st)
}

/// Draws a sample tries before giving up: a draw the game's own rules contradict (a seat the
/// flow asks to decide has no legal option in it) is thrown away and drawn again, which
/// conditions the sample on what the seat saw of the flow.
const ATTEMPTS: u64 = 50;

/// Short lists kept one after the other in one flat list, so that a sample allocates one list
/// for them all, not one each (a list per place, a list per component).
struct Lists<T> {
    items: Vec<T>,
    /// Where each list begins in `items`, and one more entry: where the list being filled
    /// begins.
    starts: Vec<usize>,
}

impl<T> Default for Lists<T> {
    /// No list yet.
    fn default() -> Self {
        Lists { items: Vec::new(), starts: vec![0] }
    }
}

impl<T> Lists<T> {
    /// No list any more, the room kept.
    fn clear(&mut self) {
        self.items.clear();
        self.starts.clear();
        self.starts.push(0);
    }

    /// Adds `item` to the list being filled.
    fn push(&mut self, item: T) {
        self.items.push(item);
    }

    /// Ends the list being filled; the next item begins a new one.
    fn end_list(&mut self) {
        self.starts.push(self.items.len());
    }

    /// Where list `i` lies in the flat list.
    fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.starts[i]..self.starts[i + 1]
    }

    /// List `i`.
    fn get(&self, i: usize) -> &[T] {
        &self.items[self.range(i)]
    }

    /// The number of lists ended.
    fn len(&self) -> usize {
        self.starts.len() - 1
    }
}

/// The places `seat` cannot see into, with the positions in each that it cannot see.
#[derive(Default)]
struct Unseen {
    /// Per place, numbered zone after zone ("nowhere" last, in the order the zones are
    /// walked): the positions (indexes into the zone's cards) to fill.
    open: Lists<usize>,
    /// The components at those positions, in index order (who they are is known: everything
    /// the seat does not see).
    cards: Vec<u32>,
}

/// Fills `out` (emptied first) with what `seat` cannot see in `st`.
fn unseen(game: &Game, knowledge: &Knowledge, st: &State, seat: usize, out: &mut Unseen) {
    let r = &game.rules;
    let places = knowledge.places();
    let Unseen { open, cards } = out;
    open.clear();
    cards.clear();
    // Room for every component at once: the lists never grow.
    open.starts.reserve(places + 1);
    open.items.reserve(st.location.len());
    cards.reserve(st.location.len());
    for (z, slots) in st.zones.iter().enumerate() {
        for (o, slot) in slots.iter().enumerate() {
            let place = knowledge.place((z as u32, o as u32));
            debug_assert_eq!(place, open.len(), "places are numbered in the order zones are walked");
            if !knows_all(r, st, z, o, seat) {
                let top_seen = st.visibility(r, z, o) == crate::def::Visibility::Top;
                for (pos, c) in slot.cards.iter().enumerate() {
                    if !(top_seen && pos + 1 == slot.cards.len()) {
                        open.push(pos);
                        cards.push(*c);
                    }
                }
            }
            open.end_list();
        }
    }
    // Components out of every zone: "nowhere" (the last place) holds as many as it does.
    debug_assert_eq!(open.len(), places - 1);
    let mut pos = 0;
    for (c, loc) in st.location.iter().enumerate() {
        if *loc == NOWHERE {
            open.push(pos);
            pos += 1;
            cards.push(c as u32);
        }
    }
    open.end_list();
    cards.sort_unstable();
}

/// The lists a sample works with, kept per thread from one sample to the next (emptied, their
/// room kept): a search draws thousands of samples a decision, and each would otherwise
/// allocate a dozen lists.
#[derive(Default)]
struct Scratch {
    /// What the seat cannot see ([`unseen`]).
    unseen: Unseen,
    /// Room left in each place while the components are dealt.
    cap: Vec<usize>,
    /// The places each unseen component may go to.
    allowed: Lists<usize>,
    /// Where each component goes ([`assign`]).
    assigning: Assigning,
    /// The next position of each place to deal to, and the components dealt, place by place.
    next: Vec<usize>,
    dealt: Vec<u32>,
}

thread_local! {
    static SCRATCH: std::cell::Cell<Option<Box<Scratch>>> = const { std::cell::Cell::new(None) };
}

/// Deals the components `seat` cannot see anew among the places it cannot see into, with
/// this thread's [`Scratch`] lists.
fn redeal(game: &Game, knowledge: &Knowledge, st: &mut State, seat: usize, rng: &mut GameRng) -> Result<(), PlayError> {
    let mut scratch = SCRATCH.with(std::cell::Cell::take).unwrap_or_default();
    let dealt = redeal_with(game, knowledge, st, seat, rng, &mut scratch);
    SCRATCH.with(|kept| kept.set(Some(scratch)));
    dealt
}

/// [`redeal`] with lists to fill (emptied first).
fn redeal_with(
    game: &Game,
    knowledge: &Knowledge,
    st: &mut State,
    seat: usize,
    rng: &mut GameRng,
    scratch: &mut Scratch,
) -> Result<(), PlayError> {
    let Scratch { unseen: unseen_here, cap, allowed, assigning, next, dealt } = scratch;
    unseen(game, knowledge, st, seat, unseen_here);
    let unseen = &*unseen_here;
    let places = knowledge.places();
    cap.clear();
    cap.extend((0..places).map(|p| unseen.open.get(p).len()));
    // For each component, the places it may go to. Room for two places a component (mostly
    // there are one or two: a seat's own hand, the others' hands and the deck).
    allowed.clear();
    allowed.starts.reserve(unseen.cards.len() + 1);
    allowed.items.reserve(2 * unseen.cards.len());
    for c in &unseen.cards {
        allowed.items.extend(knowledge.possible(seat, *c as usize).filter(|p| cap[*p] > 0));
        allowed.end_list();
    }
    if !assign(allowed, cap, rng, assigning) {
        return Err(PlayError::Rule(format!(
            "cannot deal the components {} cannot see consistently with what it saw (a move the engine did not follow?)",
            game.rules.seat_name(seat)
        )));
    }
    // The components dealt to each place, in index order within a place. Every place is
    // dealt as many as it has open positions (the components fill every one), so they lie
    // where the place's open positions lie in `unseen.open`.
    next.clear();
    next.extend_from_slice(&unseen.open.starts);
    dealt.clear();
    dealt.resize(unseen.cards.len(), 0);
    for (i, place) in assigning.at.iter().enumerate() {
        dealt[next[*place]] = unseen.cards[i];
        next[*place] += 1;
    }
    debug_assert!((0..places).all(|p| next[p] == unseen.open.range(p).end));
    for (z, slots) in st.zones.iter_mut().enumerate() {
        for (o, slot) in slots.iter_mut().enumerate() {
            let place = knowledge.place((z as u32, o as u32));
            let cards = &mut dealt[unseen.open.range(place)];
            rng.shuffle(cards);
            for (pos, c) in unseen.open.get(place).iter().zip(cards.iter()) {
                slot.cards[*pos] = *c;
                st.location[*c as usize] = (z as u32, o as u32);
            }
        }
    }
    let nowhere = places - 1;
    for c in &dealt[unseen.open.range(nowhere)] {
        st.location[*c as usize] = NOWHERE;
    }
    Ok(())
}

/// [`assign`]'s lists: its answer (`at`, each item's place) and what it works with.
#[derive(Default)]
struct Assigning {
    /// Each item's place.
    at: Vec<usize>,
    /// The items in a random order.
    shuffled: Vec<usize>,
    /// The items by how many places each may go to ([`by_choices`]).
    order: Vec<usize>,
    /// [`by_choices`]'s counts.
    counts: Vec<usize>,
}

/// Assigns each item one of its allowed places, within each place's capacity, at random:
/// the most constrained first, each to a place drawn in proportion to the room left there;
/// an item that finds no room moves others along (an augmenting path). The places are left in
/// `lists.at`; false if no assignment exists.
fn assign(allowed: &Lists<usize>, cap: &mut [usize], rng: &mut GameRng, lists: &mut Assigning) -> bool {
    let n = allowed.len();
    let Assigning { at, shuffled, order, counts } = lists;
    shuffled.clear();
    shuffled.extend(0..n);
    rng.shuffle(shuffled);
    by_choices(allowed, shuffled, counts, order);
    at.clear();
    at.resize(n, usize::MAX);
    // The items each place holds, in the order they came: only an augmenting path reads
    // them, so they are listed when the first one is needed (`members_so_far`).
    let mut members: Option<Vec<Vec<usize>>> = None;
    for (k, &i) in order.iter().enumerate() {
        let room: usize = allowed.get(i).iter().map(|p| cap[*p]).sum();
        if room > 0 {
            let mut pick = rng.below(room as u64) as usize;
            let Some(&place) = allowed.get(i).iter().find(|p| {
                if pick < cap[**p] {
                    true
                } else {
                    pick -= cap[**p];
                    false
                }
            }) else {
                return false;
            };
            cap[place] -= 1;
            if let Some(m) = members.as_mut() {
                m[place].push(i);
            }
            at[i] = place;
        } else {
            let members = members.get_or_insert_with(|| members_so_far(&order[..k], at, cap.len()));
            let mut visited = vec![false; cap.len()];
            if !augment(i, allowed, cap, members, at, &mut visited) {
                return false;
            }
        }
    }
    true
}

/// `items` (all different) ordered by how many places each may go to, fewest first, in their
/// given order among equals: a stable counting sort, into `sorted` (with `next` to count in).
fn by_choices(allowed: &Lists<usize>, items: &[usize], next: &mut Vec<usize>, sorted: &mut Vec<usize>) {
    let most = items.iter().map(|i| allowed.get(*i).len()).max().unwrap_or(0);
    next.clear();
    next.resize(most + 1, 0);
    for i in items {
        next[allowed.get(*i).len()] += 1;
    }
    let mut start = 0;
    for slot in next.iter_mut() {
        (*slot, start) = (start, start + *slot);
    }
    sorted.clear();
    sorted.resize(items.len(), 0);
    for &i in items {
        let len = allowed.get(i).len();
        sorted[next[len]] = i;
        next[len] += 1;
    }
}

/// The items each place holds after the items `done` were placed one by one (each pushed as
/// it was placed, none moved yet): what [`assign`] would have listed from the start.
fn members_so_far(done: &[usize], at: &[usize], places: usize) -> Vec<Vec<usize>> {
    let mut members = vec![Vec::new(); places];
    for &i in done {
        members[at[i]].push(i);
    }
    members
}

/// Finds item `i` a place, moving items already placed along a chain if needed.
fn augment(
    i: usize,
    allowed: &Lists<usize>,
    cap: &mut [usize],
    members: &mut [Vec<usize>],
    at: &mut [usize],
    visited: &mut [bool],
) -> bool {
    for &p in allowed.get(i) {
        if visited[p] {
            continue;
        }
        visited[p] = true;
        if cap[p] > 0 {
            cap[p] -= 1;
            members[p].push(i);
            at[i] = p;
            return true;
        }
        for k in 0..members[p].len() {
            let other = members[p][k];
            if augment(other, allowed, cap, members, at, visited) {
                // `other` found room elsewhere: `i` takes its position here.
                members[p][k] = i;
                at[i] = p;
                return true;
            }
        }
    }
    false
}

/// Values only another seat may see go back to their declared start.
/// Dice the seat does not see (in a place it cannot see into, under the top of a `top` place)
/// show a face drawn anew: what came up was never the seat's to know. (A die the seat saw
/// before it was hidden is forgotten too: the knowledge followed is where components are, not
/// their faces.)
fn reroll_unseen_dice(game: &Game, st: &mut State, seat: usize, rng: &mut GameRng) {
    let r = &game.rules;
    if r.component_types.iter().all(|t| t.faces.is_none()) {
        return;
    }
    for (z, info) in r.zones.iter().enumerate() {
        for owner in 0..st.zones[z].len() {
            let vis = st.visibility(r, z, owner);
            let cards = &st.zones[z][owner].cards;
            let hidden: Vec<u32> = match vis {
                crate::def::Visibility::Public => continue,
                crate::def::Visibility::Owner if info.per_player && owner == seat => continue,
                crate::def::Visibility::Top => cards[..cards.len().saturating_sub(1)].to_vec(),
                _ => cards.clone(),
            };
            for c in hidden {
                let kind = st.components.list[c as usize].kind;
                if let Some(faces) = &r.component_types[kind].faces {
                    let face = faces[rng.below(faces.len() as u64) as usize].clone();
                    std::sync::Arc::make_mut(&mut st.components).set_prop(r, c, "face", face);
                }
            }
        }
    }
}

fn reset_secret_values(game: &Game, st: &mut State, seat: usize) {
    let r = &game.rules;
    let secret = |vis: crate::def::Visibility, per_player: bool, owner: usize| {
        per_player && vis == crate::def::Visibility::Owner && owner != seat
    };
    for (t, info) in r.tracks.iter().enumerate() {
        let start = info.start.get(&r.params, st.players);
        for (o, v) in st.tracks[t].iter_mut().enumerate() {
            if secret(info.visible, info.per_player, o) {
                *v = start;
            }
        }
    }
    for (i, info) in r.vars.iter().enumerate() {
        if info.derived.is_some() {
            continue;
        }
        for (o, v) in st.vars[i].iter_mut().enumerate() {
            if secret(info.visible, info.per_player, o) {
                v.set(info.default.clone());
            }
        }
    }
}

/// Other seats' unrevealed commits are forgotten and their options worked out anew in the
/// sampled state (their hands are not the true ones any more).
fn reopen_commits(game: &Game, st: &mut Box<State>, seat: usize) -> Result<(), PlayError> {
    let Some(mut pending) = st.pending.take() else { return Ok(()) };
    let mut work = Work::new(std::mem::replace(st, Box::new(State::empty())), false);
    for (slot, &p) in pending.players.iter().enumerate() {
        if p == seat {
            continue;
        }
        let building = &mut pending.building;
        if let Some(b) = building.get_mut(slot) {
            b.clear();
        }
        let options = game.options_for(&mut work, pending.decision, p, &pending.ctx)?;
        if options.is_empty() {
            return Err(PlayError::Rule(format!(
                "in a sample of what {} cannot see, {} has no legal option",
                game.rules.seat_name(seat),
                game.rules.seat_name(p)
            )));
        }
        pending.chosen[slot] = game.auto_choice(&mut work, pending.decision, p, &options, &pending.ctx)?;
        pending.options[slot] = options;
    }
    *st = work.state;
    st.pending = Some(pending);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::GameRng;

    /// Every bundled game folder (its name), with its loaded game.
    fn bundled() -> &'static [(String, Game)] {
        static LOADED: std::sync::OnceLock<Vec<(String, Game)>> = std::sync::OnceLock::new();
        LOADED.get_or_init(|| {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../games");
            let mut folders: Vec<_> = std::fs::read_dir(&dir)
                .expect("the games folder")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("game.toml").is_file())
                .collect();
            folders.sort();
            folders
                .into_iter()
                .map(|path| {
                    let loaded = crate::load_game(&path, &crate::LoadOptions::default());
                    let name = path.file_name().expect("a folder").to_string_lossy().into_owned();
                    let game = loaded.game.unwrap_or_else(|| panic!("{name} loads: {:?}", loaded.diagnostics));
                    (name, game)
                })
                .collect()
        })
    }

    /// The (game, player count) pairs the tests sample: each bundled game at its smallest
    /// count and one more.
    fn cases() -> Vec<(&'static str, &'static Game, usize)> {
        let mut out = Vec::new();
        for (name, g) in bundled() {
            let r = &g.rules;
            for players in [r.min_players, (r.min_players + 1).min(r.max_players)] {
                if !out.iter().any(|(n, _, p): &(&str, &Game, usize)| *n == name.as_str() && *p == players) {
                    out.push((name.as_str(), g, players));
                }
            }
        }
        out
    }

    /// A tracked game after `steps` random decisions (fewer if it ends), and the seat to act.
    fn played(game: &Game, players: usize, seed: u64, steps: usize) -> (Session<'_>, usize) {
        let mut s = Session::new_tracked(game, players, seed, false).unwrap();
        let mut rng = GameRng::new(seed ^ 77);
        for _ in 0..steps {
            let Some(p) = s.first_to_act() else { break };
            let n = s.option_count(p) as u64;
            let before = s.clone();
            s.apply_index(p, rng.below(n) as usize).unwrap();
            if s.is_over() {
                s = before;
                break;
            }
        }
        let p = s.first_to_act().expect("a seat must act");
        (s, p)
    }

    fn state_json(s: &Session<'_>) -> String {
        serde_json::to_string(s.state()).unwrap()
    }

    /// The view a seat has, without who has committed (a sample reopens others' commits).
    fn seen(s: &Session<'_>, seat: usize) -> String {
        let mut v = s.view(seat);
        if let Some(p) = v.pending.as_mut() {
            p.waiting_for.clear();
            p.committed.clear();
        }
        serde_json::to_string(&v).unwrap()
    }

    #[test]
    fn a_sample_looks_the_same_to_the_seat_and_plays_on() {
        for (name, g, players) in cases() {
            for (seed, steps) in [(1, 0), (2, 7), (3, 40), (4, 150)] {
                let (s, seat) = played(g, players, seed, steps);
                for k in 0..3 {
                    let mut sample = sample(&s, seat, k).unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
                    assert_eq!(seen(&sample, seat), seen(&s, seat), "{name} seed {seed} step {steps}: the seat's view");
                    assert_eq!(sample.options(seat), s.options(seat));
                    let mut rng = GameRng::new(k);
                    // Far enough to cross a round or two (to the end would test the games, not
                    // the samples, and take long in a debug build).
                    for _ in 0..60 {
                        let Some(p) = sample.first_to_act() else { break };
                        let n = sample.option_count(p) as u64;
                        sample
                            .apply_index(p, rng.below(n) as usize)
                            .unwrap_or_else(|e| panic!("{name} seed {seed} step {steps}: sample plays on: {e}"));
                    }
                }
            }
        }
    }

    #[test]
    fn samples_differ_where_the_seat_cannot_see_and_keep_what_it_knows() {
        for (name, g, players) in cases() {
            let (s, seat) = played(g, players, 9, 3);
            let a = sample(&s, seat, 1).unwrap();
            assert_eq!(state_json(&a), state_json(&sample(&s, seat, 1).unwrap()), "{name}: one seed, one sample");
            // Every component the seat knows to be in one place is there in every sample.
            let k = s.knowledge().unwrap();
            for seed in 0..5 {
                let st = sample(&s, seat, seed).unwrap();
                for c in 0..s.state().location.len() {
                    let places: Vec<usize> = k.possible(seat, c).collect();
                    let at = k.place(st.state().location[c]);
                    assert!(places.contains(&at), "{name}: component {c} sampled where the seat knows it is not");
                }
            }
        }
    }

    /// Changes what `seat` cannot know: swaps unseen components between places they may both
    /// be in, changes other seats' hidden commits, values only they see, and the generator.
    fn perturb(s: &mut Session<'_>, seat: usize, rng: &mut GameRng) {
        let game = s.game();
        let knowledge = s.knowledge().unwrap().clone();
        let st = s.state_mut();
        let mut u = Unseen::default();
        unseen(game, &knowledge, st, seat, &mut u);
        // Unseen positions as (place, zone, owner, pos).
        let mut spots = Vec::new();
        for (z, slots) in st.zones.iter().enumerate() {
            for o in 0..slots.len() {
                let place = knowledge.place((z as u32, o as u32));
                for pos in u.open.get(place) {
                    spots.push((place, z, o, *pos));
                }
            }
        }
        for _ in 0..spots.len() {
            let (i, j) = (rng.below(spots.len() as u64) as usize, rng.below(spots.len() as u64) as usize);
            let (pi, zi, oi, qi) = spots[i];
            let (pj, zj, oj, qj) = spots[j];
            let (ci, cj) = (st.zones[zi][oi].cards[qi], st.zones[zj][oj].cards[qj]);
            if knowledge.may_be(seat, ci as usize, pj) && knowledge.may_be(seat, cj as usize, pi) {
                st.zones[zi][oi].cards[qi] = cj;
                st.zones[zj][oj].cards[qj] = ci;
                st.location[ci as usize] = (zj as u32, oj as u32);
                st.location[cj as usize] = (zi as u32, oi as u32);
            }
        }
        if let Some(p) = st.pending.as_mut() {
            for (slot, who) in p.players.iter().enumerate() {
                if *who != seat && p.commit {
                    if let Some(c) = p.chosen[slot].as_mut() {
                        *c = rng.below(p.options[slot].len() as u64) as usize;
                    }
                }
            }
        }
        for (t, info) in game.rules.tracks.iter().enumerate() {
            if info.per_player && info.visible == crate::def::Visibility::Owner {
                for (o, v) in st.tracks[t].iter_mut().enumerate() {
                    if o != seat {
                        *v += rng.below(5) as i64;
                    }
                }
            }
        }
        for (i, info) in game.rules.vars.iter().enumerate() {
            if info.per_player && info.visible == crate::def::Visibility::Owner && info.derived.is_none() {
                for (o, v) in st.vars[i].iter_mut().enumerate() {
                    if o != seat {
                        v.set(crate::Value::Int(rng.below(9) as i64));
                    }
                }
            }
        }
        st.rng = GameRng::new(rng.below(u64::MAX));
    }

    /// One list of places per item, as [`Lists`].
    fn flat(allowed: &[Vec<usize>]) -> Lists<usize> {
        let mut lists = Lists::default();
        for places in allowed {
            places.iter().for_each(|p| lists.push(*p));
            lists.end_list();
        }
        lists
    }

    /// [`assign`] as it was written first: the places' members listed from the start, the
    /// items ordered by a stable sort, one list of places per item.
    fn assign_eagerly(allowed: &[Vec<usize>], cap: &mut [usize], rng: &mut GameRng) -> Option<Vec<usize>> {
        let mut order: Vec<usize> = (0..allowed.len()).collect();
        rng.shuffle(&mut order);
        order.sort_by_key(|i| allowed[*i].len());
        let mut at = vec![usize::MAX; allowed.len()];
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); cap.len()];
        let flat = flat(allowed);
        for i in order {
            let room: usize = allowed[i].iter().map(|p| cap[*p]).sum();
            if room > 0 {
                let mut pick = rng.below(room as u64) as usize;
                let place = *allowed[i].iter().find(|p| {
                    if pick < cap[**p] {
                        true
                    } else {
                        pick -= cap[**p];
                        false
                    }
                })?;
                cap[place] -= 1;
                members[place].push(i);
                at[i] = place;
            } else {
                let mut visited = vec![false; cap.len()];
                if !augment(i, &flat, cap, &mut members, &mut at, &mut visited) {
                    return None;
                }
            }
        }
        Some(at)
    }

    /// The flat lists, the counting sort and the members listed only for the first augmenting
    /// path draw exactly what the first way drew: random instances, many of which need
    /// augmenting paths (tight capacities) and some of which have no assignment.
    #[test]
    fn assigning_places_draws_as_the_first_way_did() {
        let mut gen = GameRng::new(5);
        let mut augmented = 0;
        // One set of lists for every case, as a thread's samples share theirs.
        let mut assigning = Assigning::default();
        for case in 0..3000 {
            let places = 1 + gen.below(6) as usize;
            let cap: Vec<usize> = (0..places).map(|_| gen.below(4) as usize).collect();
            let items = cap.iter().sum::<usize>();
            let allowed: Vec<Vec<usize>> =
                (0..items).map(|_| (0..places).filter(|p| cap[*p] > 0 && gen.below(3) > 0).collect()).collect();
            let flat = flat(&allowed);
            let (mut cap_a, mut cap_b) = (cap.clone(), cap.clone());
            let a = assign(&flat, &mut cap_a, &mut GameRng::new(case), &mut assigning).then(|| assigning.at.clone());
            let b = assign_eagerly(&allowed, &mut cap_b, &mut GameRng::new(case));
            assert_eq!(a, b, "case {case}: {allowed:?} into {cap:?}");
            assert_eq!(cap_a, cap_b, "case {case}");
            // Whether the draws alone placed every item, or an augmenting path was needed.
            let greedy_fills = {
                let (mut cap, mut rng) = (cap.clone(), GameRng::new(case));
                let mut order: Vec<usize> = (0..items).collect();
                rng.shuffle(&mut order);
                order.sort_by_key(|i| allowed[*i].len());
                order.iter().all(|i| {
                    let room: usize = allowed[*i].iter().map(|p| cap[*p]).sum();
                    if room == 0 {
                        return false;
                    }
                    let mut pick = rng.below(room as u64) as usize;
                    for p in &allowed[*i] {
                        if pick < cap[*p] {
                            cap[*p] -= 1;
                            break;
                        }
                        pick -= cap[*p];
                    }
                    true
                })
            };
            if !greedy_fills {
                augmented += 1;
            }
        }
        assert!(augmented > 100, "only {augmented} instances needed an augmenting path");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// The proof that sampling never reads the hidden state: two states that show a seat
        /// the same (same view, same knowledge) give the same samples from the same seed.
        #[test]
        fn samples_depend_only_on_what_the_seat_knows(which in 0usize..64, seed in 0u64..1000, steps in 0usize..120, k in 0u64..4) {
            let cases = cases();
            let (_, g, players) = cases[which % cases.len()];
            let (s, seat) = played(g, players, seed, steps);
            let mut other = s.clone();
            perturb(&mut other, seat, &mut GameRng::new(seed + 1));
            proptest::prop_assert_eq!(seen(&other, seat), seen(&s, seat));
            let a = sample(&s, seat, k).unwrap();
            let b = sample(&other, seat, k).unwrap();
            proptest::prop_assert_eq!(state_json(&a), state_json(&b));
        }
    }
}
