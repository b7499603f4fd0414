//! What a script may ask the engine about a decision: whether it would offer a seat any
//! option now. For a decision whose options the engine lists itself (a zone's components,
//! possibly built into a `subset`), the engine answers without running a script: the
//! question a rule asks before it lets a seat take an action that leads to that decision
//! ("does this player hold a valid collection?").

use super::{player, reg, GameHandle};
use crate::rules::{OptionSource, Rules};
use crate::script::Work;
use crate::subset::{Candidate, Pool};

/// `game.has_options(decision, player)`.
fn has_options_in(r: &Rules, w: &mut Work, decision: &str, seat: i64) -> Result<bool, String> {
    let index = r.decision(decision)?;
    let d = &r.decisions[index];
    let seat = player(&w.state, seat)?;
    let OptionSource::Zone { zone, filter: None } = &d.source else {
        return Err(format!(
            "`has_options` answers only for a decision whose options are a zone's components without a `filter` script; `{decision}` runs a script to list them: call that script instead"
        ));
    };
    let owner = if r.zones[*zone].per_player { seat } else { 0 };
    crate::reads::note(crate::reads::Part::Zone(*zone, Some(owner)));
    let cards = &w.state.zones[*zone][owner].cards;
    // A `follow` rule narrows a hand only to the cards that follow, when there are any: it
    // never empties it.
    let Some(spec) = &d.subset else {
        return Ok(!cards.is_empty());
    };
    if spec.valid.is_some() {
        return Err(format!("`has_options` cannot answer for `{decision}`: its sets are judged by a `valid` script"));
    }
    let list = &w.state.components.list;
    let cands: Vec<Candidate<'_>> = cards
        .iter()
        .map(|&idx| Candidate { idx, props: &list[idx as usize].props, rank: list[idx as usize].run_rank(index) })
        .collect();
    let fail = |e: String| format!("decision `{decision}` for {}: {e}", r.seat_name(seat));
    Pool::new(spec, &cands).and_then(|pool| pool.any_set()).map_err(fail)
}

/// Registers `has_options`.
pub(super) fn register(engine: &mut crate::compiled::Registry) {
    reg!(
        engine,
        "has_options",
        "Whether `decision` would offer `player` any option now, for a decision whose options are a zone's components (a `subset` included: whether any valid set can be built), answered without listing them. A decision whose options or filter come from a script, or a `subset` judged by a `valid` script, is an error: call that script.",
        &["game: Game", "decision: &str", "player: i64", "bool"],
        |h: &mut GameHandle, decision: &str, p: i64| h.with(|r, w| has_options_in(r, w, decision, p))
    );
}
