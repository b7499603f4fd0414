//! The engine through its public API: hidden commits, legality, transactions, limits,
//! determinism, views and redacted logs.

use crate::load;
use rulebook::PlayError;

fn goofspiel() -> rulebook::Game {
    load("games/goofspiel", &[], &[])
}

#[test]
fn both_players_commit_before_anything_is_revealed() {
    let game = goofspiel();
    let mut s = game.start(2, 1).unwrap();
    assert_eq!(s.to_act(), vec![0, 1]);
    assert!(s.is_commit());
    s.apply(0, "p1-13").unwrap();
    assert_eq!(s.to_act(), vec![1], "only P2 still has to bid");
    // P2 sees that P1 has committed, not what.
    let v = s.view(1);
    let pending = v.pending.as_ref().unwrap();
    assert_eq!(pending.committed, vec![0]);
    assert_eq!(pending.my_commit, None);
    let p1_hand = v.zones.iter().find(|z| z.name == "hand" && z.owner == Some(0)).unwrap();
    assert_eq!(p1_hand.count, Some(13), "the committed card is still in P1's hand until the reveal");
    assert!(p1_hand.cards.is_empty(), "P2 cannot see P1's hand");
    let json = serde_json::to_string(&v).unwrap();
    assert!(!json.contains("p1-13"), "P2's view leaks P1's bid: {json}");
    assert!(s.log_for(Some(1)).iter().all(|l| !l.contains("13")), "P2's log leaks P1's bid: {:?}", s.log_for(Some(1)));
    assert!(s.log_for(Some(0)).iter().any(|l| l == "P1 committed 13 (bid)"));
    // P1 sees their own commit.
    assert_eq!(s.view(0).pending.unwrap().my_commit.as_deref(), Some("13"));
}

#[test]
fn the_single_highest_bid_wins_the_prize() {
    let game = goofspiel();
    let mut s = game.start(2, 3).unwrap();
    let prize =
        s.public_view().zones.iter().find(|z| z.name == "prize").unwrap().cards[0].props["value"].as_int().unwrap();
    s.apply(0, "p1-13").unwrap();
    s.apply(1, "p2-1").unwrap();
    let scores: Vec<i64> = s.public_view().tracks.iter().map(|t| t.value.as_int().unwrap()).collect();
    assert_eq!(scores, vec![prize, 0]);
    assert!(s.log_for(None).iter().any(|l| l == "bid revealed: P1 13, P2 1"), "{:?}", s.log_for(None));
}

#[test]
fn a_tie_for_highest_gives_the_prize_to_nobody() {
    let game = load("games/goofspiel", &[], &[("cards", "3")]);
    let mut s = game.start(3, 5).unwrap();
    s.apply(0, "p1-3").unwrap();
    s.apply(1, "p2-3").unwrap();
    s.apply(2, "p3-1").unwrap();
    let v = s.public_view();
    assert!(v.tracks.iter().all(|t| t.value.as_int() == Some(0)), "{:?}", v.tracks);
    assert_eq!(v.zones.iter().find(|z| z.name == "discard").unwrap().count, Some(1));
}

#[test]
fn an_illegal_bid_is_refused_and_changes_nothing() {
    let game = goofspiel();
    let mut s = game.start(2, 1).unwrap();
    let before = serde_json::to_string(s.state()).unwrap();
    let err = s.apply(0, "p2-5").unwrap_err();
    assert!(matches!(err, PlayError::Illegal(_)));
    let msg = err.to_string();
    assert!(msg.contains("`p2-5` is not a legal option for P1 in `bid`"), "{msg}");
    assert!(msg.contains("p1-1 (1)"), "the message lists the legal options: {msg}");
    assert_eq!(serde_json::to_string(s.state()).unwrap(), before);
    s.apply(0, "7").unwrap(); // by label
    let again = s.apply(0, "p1-8").unwrap_err().to_string();
    assert!(again.contains("already committed"), "{again}");
}

#[test]
fn a_failing_script_leaves_the_game_untouched() {
    let game = load("tests/fixtures/failing-reveal", &[], &[]);
    let mut s = game.start(2, 1).unwrap();
    s.apply(1, "low").unwrap();
    let before = serde_json::to_string(s.state()).unwrap();
    let log_before = s.log().len();
    let err = s.apply(0, "high").unwrap_err();
    let PlayError::Script(e) = &err else { panic!("expected a script error, got {err}") };
    assert_eq!(e.function, "explode");
    assert!(e.message.contains("the high card is cursed"), "{e}");
    let loc = e.location.as_ref().expect("located");
    assert!(loc.file.ends_with("rules.rhai"), "{loc}");
    assert_eq!(loc.line, 8);
    assert_eq!(serde_json::to_string(s.state()).unwrap(), before, "the score change before the throw was rolled back");
    assert_eq!(s.log().len(), log_before);
    assert_eq!(s.to_act(), vec![0], "P1 can still choose");
    s.apply(0, "low").unwrap();
}

/// A failing answer leaves the game exactly as it was however deep into the game it comes (an
/// answer changes the state in place; a failure replays the answers since the last checkpoint),
/// in a turn and in a hidden commit, with and without the log and the knowledge followed; the
/// game then goes on as a game that never tried the failing option, and as Rhai alone plays it
/// (compiled scripts give up on every `draw`: Rhai runs it again from the state before).
#[test]
fn a_failing_answer_deep_in_a_game_changes_nothing() {
    use rulebook::Session;
    let game = load("tests/fixtures/cursed-option", &[], &[]);
    let json = |s: &Session| serde_json::to_string(s.state()).unwrap();
    for (players, seed, logging, tracked) in [(2, 1, true, false), (3, 7, false, true), (2, 3, true, true)] {
        let start = || {
            if tracked {
                Session::new_tracked(&game, players, seed, logging).unwrap()
            } else {
                Session::new(&game, players, seed, logging).unwrap()
            }
        };
        let (mut s, mut clean) = (start(), start());
        let mut rhai = rulebook::script::rhai_only(start);
        let (mut tried, mut step) = (0, 0);
        while !s.is_over() {
            step += 1;
            let p = s.to_act()[0];
            let last_committer = !s.is_commit() || s.to_act().len() == 1;
            if step % 3 != 0 && last_committer {
                let (before, log) = (json(&s), s.log().len());
                let cursed = if s.is_commit() { "cursed" } else { "curse" };
                let err = s.apply(p, cursed).unwrap_err();
                assert!(matches!(err, PlayError::Script(_)), "step {step}: {err}");
                assert_eq!(json(&s), before, "step {step}: the failed answer changed the state");
                assert_eq!(s.log().len(), log, "step {step}: the failed answer was logged");
                tried += 1;
            }
            let options = ["draw", "discard", "low", "high"];
            let pick = options.iter().filter(|o| s.check(p, o).is_ok()).nth(step % 2).expect("a choice");
            s.apply(p, pick).unwrap();
            clean.apply(p, pick).unwrap();
            rulebook::script::rhai_only(|| rhai.apply(p, pick)).unwrap();
            assert_eq!(json(&s), json(&clean), "step {step}: the game went elsewhere than the clean one");
            assert_eq!(json(&s), json(&rhai), "step {step}: the game went elsewhere than Rhai's");
        }
        assert!(tried > 60, "only {tried} failures tried");
        assert_eq!(s.log_for(None), clean.log_for(None));
        assert_eq!(s.log_for(None), rhai.log_for(None));
        assert_eq!(s.knowledge(), clean.knowledge());
        for seat in 0..players {
            assert_eq!(s.view(seat), clean.view(seat));
        }
    }
}

/// A copy of a session (it shares the original's checkpoint) and a session restored to a
/// snapshot (its answers start from the snapshot's state) take a failing answer back too.
#[test]
fn copies_and_restored_sessions_take_a_failing_answer_back() {
    use rulebook::Session;
    let game = load("tests/fixtures/cursed-option", &[], &[]);
    let json = |s: &Session| serde_json::to_string(s.state()).unwrap();
    // Plays `steps` answers; every few, a copy tries the failing option first.
    let play = |s: &mut Session, steps: usize| {
        for step in 0..steps {
            let p = s.to_act()[0];
            if step % 4 == 1 && (!s.is_commit() || s.to_act().len() == 1) {
                let mut copy = s.clone();
                let cursed = if s.is_commit() { "cursed" } else { "curse" };
                assert!(copy.apply(p, cursed).is_err());
                assert_eq!(json(&copy), json(s), "step {step}: the copy's failed answer changed it");
                let pick = if s.is_commit() { "high" } else { "draw" };
                copy.apply(p, pick).unwrap();
                let mut again = s.clone();
                again.apply(p, pick).unwrap();
                assert_eq!(json(&copy), json(&again), "step {step}: the copy went elsewhere after its failure");
            }
            let pick = if s.is_commit() { "low" } else { "draw" };
            s.apply(p, pick).unwrap();
        }
    };
    let mut s = Session::new(&game, 2, 5, true).unwrap();
    play(&mut s, 40);
    let saved = s.snapshot();
    let at_snapshot = json(&s);
    play(&mut s, 50);
    s.restore(&saved).unwrap();
    assert_eq!(json(&s), at_snapshot);
    play(&mut s, 45);
    if s.is_commit() && s.to_act().len() > 1 {
        // Only the last commit resolves the decision (and fails).
        let p = s.to_act()[0];
        s.apply(p, "low").unwrap();
    }
    let p = s.to_act()[0];
    let before = json(&s);
    let err = s.apply(p, if s.is_commit() { "cursed" } else { "curse" }).unwrap_err();
    assert!(matches!(err, PlayError::Script(_)), "{err}");
    assert_eq!(json(&s), before, "a failed answer 45 answers after a restore changed the state");
}

/// `clone_from` makes the copy `clone` makes, in the buffers the session already has: a
/// session of another seed, further on, without a log or knowledge, becomes the original's
/// copy (state, log, history, knowledge, seed), takes a failing answer back, and plays on as a
/// plain clone does.
#[test]
fn a_copy_made_in_another_sessions_buffers_is_the_same_copy() {
    use rulebook::Session;
    let game = load("tests/fixtures/cursed-option", &[], &[]);
    let json = |s: &Session| serde_json::to_string(s.state()).unwrap();
    let pick = |s: &Session, step: usize| {
        if s.is_commit() {
            ["low", "high"][step % 2]
        } else {
            ["draw", "discard"][step % 2]
        }
    };
    let play = |s: &mut Session, steps: usize| {
        for step in 0..steps {
            let p = s.to_act()[0];
            s.apply(p, pick(s, step)).unwrap();
        }
    };
    let mut original = Session::new_tracked(&game, 3, 4, true).unwrap();
    play(&mut original, 17);
    let mut copy = Session::new(&game, 3, 9, false).unwrap();
    play(&mut copy, 30);
    copy.clone_from(&original);
    let mut clone = original.clone();
    assert_eq!(json(&copy), json(&original));
    assert_eq!(copy.log_for(None), original.log_for(None));
    assert_eq!(copy.history(), original.history());
    assert_eq!(copy.knowledge(), original.knowledge());
    assert_eq!((copy.seed(), copy.answers()), (original.seed(), original.answers()));
    for step in 0..40 {
        let p = copy.to_act()[0];
        if step % 5 == 0 && (!copy.is_commit() || copy.to_act().len() == 1) {
            let before = json(&copy);
            assert!(copy.apply(p, if copy.is_commit() { "cursed" } else { "curse" }).is_err());
            assert_eq!(json(&copy), before, "step {step}: the copy's failed answer changed it");
        }
        let choice = pick(&copy, step);
        copy.apply(p, choice).unwrap();
        clone.apply(p, choice).unwrap();
        assert_eq!(json(&copy), json(&clone), "step {step}: the copy went elsewhere than the clone");
    }
    assert_eq!(copy.log_for(None), clone.log_for(None));
    assert_eq!(copy.knowledge(), clone.knowledge());
}

/// A search's sample keeps no copy of its first state: it takes a failing answer back by
/// drawing itself again from its sampler's copy of the true state, and so do its copies. An
/// answer whose compiled scripts give up (every `draw`) runs again on the sample drawn again,
/// and ends as Rhai alone plays the same sample.
#[test]
fn samples_take_a_failing_answer_back() {
    use rulebook::Session;
    let game = load("tests/fixtures/cursed-option", &[], &[]);
    let json = |s: &Session| serde_json::to_string(s.state()).unwrap();
    let mut s = Session::new_tracked(&game, 3, 7, false).unwrap();
    for step in 0..10 {
        let p = s.to_act()[0];
        s.apply(p, if s.is_commit() { "low" } else { ["draw", "discard"][step % 2] }).unwrap();
    }
    let sampler = rulebook::determinize::Sampler::new(&s, 0).unwrap();
    let mut tried = 0;
    for seed in 0..4 {
        let mut sample = sampler.sample(seed).unwrap();
        let mut rhai = rulebook::script::rhai_only(|| sampler.sample(seed)).unwrap();
        assert_eq!(json(&sample), json(&rhai), "seed {seed}: Rhai drew another sample");
        // Past the answers kept before a checkpoint is taken (32), and over it again.
        for step in 0..50 {
            let p = sample.to_act()[0];
            if step % 3 != 1 && (!sample.is_commit() || sample.to_act().len() == 1) {
                let before = json(&sample);
                let cursed = if sample.is_commit() { "cursed" } else { "curse" };
                let mut copy = sample.clone();
                assert!(sample.apply(p, cursed).is_err());
                assert_eq!(json(&sample), before, "seed {seed}, step {step}: the failed answer changed the sample");
                assert!(copy.apply(p, cursed).is_err());
                assert_eq!(json(&copy), before, "seed {seed}, step {step}: the failed answer changed the copy");
                tried += 1;
            }
            let pick = if sample.is_commit() { ["low", "high"][step % 2] } else { ["draw", "discard"][step % 2] };
            sample.apply(p, pick).unwrap();
            rulebook::script::rhai_only(|| rhai.apply(p, pick)).unwrap();
            assert_eq!(json(&sample), json(&rhai), "seed {seed}, step {step}: the sample went elsewhere than Rhai's");
        }
    }
    assert!(tried > 50, "only {tried} failures tried");
}

#[test]
fn an_endless_script_stops_with_a_located_error() {
    let game = load("tests/fixtures/endless-loop", &[], &[]);
    let started = std::time::Instant::now();
    let err = game.start(2, 1).err().expect("the loop must be stopped");
    let PlayError::Script(e) = &err else { panic!("expected a script error, got {err}") };
    assert!(e.message.contains("operations"), "{e}");
    assert_eq!(e.location.as_ref().map(|l| l.line), Some(1), "points at `fn spin`: {e}");
    // Not a timing assertion on performance: a generous bound that only catches a hang.
    assert!(started.elapsed().as_secs() < 30);
}

#[test]
fn an_endless_flow_hits_the_step_limit() {
    let game = load("tests/fixtures/endless-flow", &[], &[]);
    let err = game.start(2, 1).err().expect("the flow must be stopped");
    assert_eq!(err, PlayError::StepLimit(10_000));
    assert!(err.to_string().contains("max_steps"));
}

#[test]
fn same_seed_and_decisions_give_the_same_game() {
    let game = goofspiel();
    let run = |seed| {
        let summary = rulebook::sim::play_one(&game, 3, 0, seed, &rulebook::bot::BotTable::default()).unwrap();
        let mut s = game.start(3, seed).unwrap();
        for m in &summary.moves {
            s.apply(m.player, &m.option).unwrap();
        }
        (serde_json::to_string(s.state()).unwrap(), s.log_for(None))
    };
    assert_eq!(run(42), run(42));
    assert_ne!(run(42).0, run(43).0);
}

#[test]
fn player_counts_outside_the_game_are_refused() {
    let game = goofspiel();
    let err = game.start(1, 0).err().unwrap();
    assert!(err.to_string().contains("2–8 players, not 1"), "{err}");
}

#[test]
fn variants_and_options_change_the_game() {
    let short = load("games/goofspiel", &["short"], &[]);
    assert_eq!(short.rules.params["cards"].value.as_int(), Some(6));
    let s = short.start(2, 1).unwrap();
    assert_eq!(s.options(0).len(), 6);
    let five = load("games/goofspiel", &[], &[("cards", "5")]);
    assert_eq!(five.start(2, 1).unwrap().options(1).len(), 5);
    let bad = rulebook::load_game(
        &crate::rel("games/goofspiel"),
        &rulebook::LoadOptions { variants: vec![], options: vec![("cards".into(), "99".into())] },
    );
    assert!(bad.game.is_none());
    assert!(bad.diagnostics[0].message.contains("must be between 1 and 30"), "{}", bad.diagnostics[0]);
}

#[test]
fn split_ties_variant_shares_the_prize() {
    let game = load("games/goofspiel", &["split-ties"], &[("cards", "4")]);
    let mut s = game.start(2, 9).unwrap();
    s.arrange("prize", None, &["prize-4"]).unwrap();
    s.arrange("deck", None, &["prize-1", "prize-2", "prize-3"]).unwrap();
    s.apply(0, "p1-2").unwrap();
    s.apply(1, "p2-2").unwrap();
    let scores: Vec<i64> = s.public_view().tracks.iter().map(|t| t.value.as_int().unwrap()).collect();
    assert_eq!(scores, vec![2, 2]);
}

#[test]
fn rollover_variant_keeps_a_tied_prize_up() {
    let game = load("games/goofspiel", &["rollover"], &[("cards", "3")]);
    let mut s = game.start(2, 9).unwrap();
    s.arrange("prize", None, &["prize-3"]).unwrap();
    s.arrange("deck", None, &["prize-1", "prize-2"]).unwrap();
    s.apply(0, "p1-1").unwrap();
    s.apply(1, "p2-1").unwrap();
    // Tied: prize 3 stays, prize 2 joins it; the next winner takes 5.
    s.apply(0, "p1-3").unwrap();
    s.apply(1, "p2-2").unwrap();
    let scores: Vec<i64> = s.public_view().tracks.iter().map(|t| t.value.as_int().unwrap()).collect();
    assert_eq!(scores, vec![5, 0]);
}

#[test]
fn snapshot_of_a_view_and_its_log() {
    let game = load("games/goofspiel", &[], &[("cards", "3")]);
    let mut s = game.start(2, 11).unwrap();
    s.apply(0, "p1-2").unwrap();
    insta::assert_json_snapshot!("goofspiel_view_p2_mid_commit", s.view(1));
    s.apply(1, "p2-3").unwrap();
    s.apply(1, "p2-1").unwrap();
    s.apply(0, "p1-3").unwrap();
    s.apply(0, "p1-1").unwrap();
    s.apply(1, "p2-2").unwrap();
    assert!(s.is_over());
    insta::assert_snapshot!("goofspiel_log_p1", s.log_for(Some(0)).join("\n"));
}

#[test]
fn grids_show_by_visibility_and_refuse_misplaced_pieces() {
    let game = load("tests/fixtures/grid-tiles", &[], &[]);
    let mut s = game.start(2, 1).unwrap();
    // P1 sees their own board (owner visibility) and the public table, not P2's board.
    let v = s.view(0);
    let grids: Vec<(String, Option<usize>)> = v.grids.iter().map(|g| (g.name.clone(), g.owner)).collect();
    assert_eq!(grids, [("board".to_string(), Some(0)), ("table".to_string(), None)]);
    let board = &v.grids[0];
    assert_eq!(board.rows, [1, 2]);
    assert_eq!(board.cells.len(), 2, "the marker and the labelled cell");
    assert_eq!(board.cells[1].label.as_deref(), Some("star"));
    assert!(s.view(1).grids.iter().all(|g| g.owner != Some(0)));
    let before = serde_json::to_string(s.state()).unwrap();
    for (option, message) in [
        ("off", "row 3, column 1 is off grid `board` (rows 1..2, columns 1..2)"),
        ("taken", "row 1, column 1 of grid `board` is taken by X"),
        ("misfit", "its W edge `c` does not match the E edge `b` of `t1` at row 0, column 0"),
    ] {
        let err = s.apply(0, option).unwrap_err();
        let PlayError::Script(e) = &err else { panic!("expected a script error, got {err}") };
        assert!(e.message.contains(message), "{option}: {e}");
        assert_eq!(serde_json::to_string(s.state()).unwrap(), before, "{option} changed the state");
    }
    s.apply(0, "fit").unwrap();
    let table = s.view(1).grids.into_iter().find(|g| g.name == "table").unwrap();
    assert_eq!(table.cols, [0, 1]);
    assert_eq!(
        table.cells[1].pieces[0].edges.as_deref(),
        Some(&["-".to_string(), "*".into(), "c".into(), "b".into()][..])
    );
    let drawn = rulebook::grid_text::lines(&table, &["P1".into(), "P2".into()]).join("\n");
    assert!(drawn.contains("0 | * t1 b | b t2 * |"), "{drawn}");
}

/// A zone declared with `places` lists its numbered places in every view that sees it all:
/// place 1 at the declared end, the empty places up to the capacity, each component under the
/// zone's `card_label` (Adel's prison: cells in order, each thief with its owner's colour).
#[test]
fn numbered_places_list_every_cell_in_order() {
    let game = crate::load("games/adel-verpflichtet", &[], &[]);
    let mut s = game.start(3, 18).unwrap();
    // bottom to top: the last component is cell 1
    s.arrange("prison", None, &["brown-thief-1", "blue-thief-2"]).unwrap();
    let view = s.view(2);
    let prison = view.zones.iter().find(|z| z.name == "prison").unwrap();
    let cells: Vec<(String, Option<String>)> =
        prison.places.iter().map(|p| (p.label.clone(), p.card.as_ref().map(|c| c.label.clone()))).collect();
    assert_eq!(
        cells,
        vec![
            ("cell 1".to_string(), Some("thief 2 (blue)".to_string())),
            ("cell 2".to_string(), Some("thief 1 (brown)".to_string())),
            ("cell 3".to_string(), None),
        ]
    );
    // the zone's own card list keeps its order, under the zone's card label
    assert_eq!(prison.cards.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["brown-thief-1", "blue-thief-2"]);
    // a zone without `places` has none
    assert!(view.zones.iter().filter(|z| z.name != "prison").all(|z| z.places.is_empty()));
}

/// Plays `n` decisions, each seat taking the option `pick` chooses.
fn play_on(s: &mut rulebook::Session<'_>, n: usize, pick: impl Fn(usize, usize) -> usize) {
    for k in 0..n {
        if s.is_over() {
            return;
        }
        let p = s.to_act()[0];
        s.apply_index(p, pick(k, s.option_count(p))).unwrap();
    }
}

#[test]
fn restoring_a_snapshot_goes_back_exactly_to_where_it_was_taken() {
    let game = load("games/adel-verpflichtet", &[], &[]);
    let mut s = game.start(4, 5).unwrap();
    play_on(&mut s, 30, |k, n| k % n);
    let saved = s.snapshot();
    let (state, log, history) = (serde_json::to_string(s.state()).unwrap(), s.log().to_vec(), s.history().to_vec());
    // Another branch, then back: the same state, log and history, and the same future.
    play_on(&mut s, 25, |_, n| n - 1);
    assert_ne!(serde_json::to_string(s.state()).unwrap(), state);
    s.restore(&saved).unwrap();
    assert_eq!(serde_json::to_string(s.state()).unwrap(), state);
    assert_eq!((s.log(), s.history()), (&log[..], &history[..]));
    let mut fresh = game.start(4, 5).unwrap();
    play_on(&mut fresh, 30, |k, n| k % n);
    play_on(&mut fresh, 40, |k, n| (k * 7) % n);
    play_on(&mut s, 40, |k, n| (k * 7) % n);
    assert_eq!(serde_json::to_string(s.state()).unwrap(), serde_json::to_string(fresh.state()).unwrap());
    assert_eq!(s.log(), fresh.log());
}

#[test]
fn a_snapshot_from_later_in_the_game_is_refused_and_changes_nothing() {
    let game = goofspiel();
    let mut s = game.start(2, 1).unwrap();
    let mut later = game.start(2, 1).unwrap();
    play_on(&mut later, 6, |_, _| 0);
    let before = serde_json::to_string(s.state()).unwrap();
    let err = s.restore(&later.snapshot()).unwrap_err();
    assert!(err.to_string().contains("restore only goes back"), "{err}");
    assert_eq!(serde_json::to_string(s.state()).unwrap(), before);
}

#[test]
fn vars_that_hold_a_seat_or_a_component_are_shown_by_name() {
    let game = load("tests/fixtures/named-vars", &[], &[]);
    let mut s = game.start(2, 4).unwrap();
    let var = |s: &rulebook::Session<'_>, seat: usize, name: &str, owner: Option<usize>| {
        let v = s.view(seat);
        v.vars.iter().find(|x| x.name == name && x.owner == owner).map(|x| (x.value.to_string(), x.shown.clone()))
    };
    assert_eq!(var(&s, 1, "leader", None), Some(("0".into(), Some("P1".into()))), "a seat by its name");
    let (id, label) = var(&s, 0, "mine", Some(0)).unwrap();
    assert_eq!(label, Some(format!("card {}", &id[1..])), "a component the seat sees, by its label");
    assert_eq!(var(&s, 1, "mine", Some(0)), None, "P1's var is P1's to see");
    s.apply(0, "pass").unwrap();
    assert_eq!(var(&s, 1, "leader", None), Some(("-1".into(), Some("nobody".into()))));
}

#[test]
fn secret_dice_are_seen_by_their_owner_only_and_sampled_anew_for_the_others() {
    let game = load("tests/fixtures/secret-dice", &[], &[]);
    let s = rulebook::Session::new_tracked(&game, 2, 9, true).unwrap();
    let faces = |s: &rulebook::Session<'_>, owner: usize| -> Vec<String> {
        let st = s.state();
        let cup = game.rules.zone("cup").unwrap();
        st.zones[cup][owner].cards.iter().map(|c| st.components.list[*c as usize].props["face"].to_string()).collect()
    };
    let mine = faces(&s, 0);
    // P1's view shows P1's faces and only a count of P2's dice; P2's log does not name P1's.
    let v = s.view(0);
    let cup = |owner| v.zones.iter().find(|z| z.name == "cup" && z.owner == Some(owner)).unwrap();
    assert_eq!(cup(0).cards.iter().map(|c| c.label.clone()).collect::<Vec<_>>(), mine);
    assert!(cup(1).cards.is_empty() && cup(1).count == Some(2));
    assert!(s.log_for(Some(1)).iter().any(|l| l == "rolled cup (P1): 2 dice"), "{:?}", s.log_for(Some(1)));
    // Samples for P1 keep P1's dice and draw P2's anew.
    let mut seen = std::collections::BTreeSet::new();
    for k in 0..40 {
        let sample = rulebook::determinize::sample(&s, 0, k).unwrap();
        assert_eq!(faces(&sample, 0), mine, "P1 knows its own dice");
        seen.insert(faces(&sample, 1));
    }
    assert!(seen.len() > 10, "P2's dice are drawn anew in each sample: {seen:?}");
}

#[test]
fn a_deck_from_parameters_a_check_between_them_and_a_card_out_of_play() {
    let game = load("tests/fixtures/deck-checks", &[], &[("suits", "3"), ("ranks", "4")]);
    assert_eq!(game.rules.components.len(), 1);
    let mut s = game.start(2, 1).unwrap();
    assert_eq!(s.state().components.list.len(), 12, "suits * ranks cards");
    // Five tricks each for two players: 10 of 12 cards. Three players would need 15.
    let refused = game.start(3, 1).err().expect("three players need 15 cards").to_string();
    assert!(refused.contains("cannot start with 3 players") && refused.contains("not enough cards"), "{refused}");
    // A discarded card leaves play: in no zone, in no view.
    let card = s.options(0)[0].id.clone();
    s.apply(0, &card).unwrap();
    let idx = s.state().component_index(&card).unwrap();
    assert_eq!(s.state().location[idx as usize], rulebook::state::NOWHERE);
    assert!(!serde_json::to_string(&s.view(0)).unwrap().contains(&format!("\"{card}\"")));
    let broken = rulebook::load_game(
        &crate::rel("tests/fixtures/deck-checks"),
        &rulebook::LoadOptions {
            variants: vec![],
            options: vec![("tricks".into(), "7".into()), ("suits".into(), "1".into())],
        },
    );
    assert!(broken.game.is_none());
    assert!(broken.diagnostics.iter().any(|d| d.code == "E0319"), "{:?}", broken.diagnostics);
}

/// A trick's `then` hook gets only the fields of `trick` it reads: Flaschenteufel's
/// `take_bottle` reads `trick.card` and `trick.winner`, the fixture's `count_trick` only
/// `trick.winner`; its variant's `write_down` passes `trick` on, so it gets every field.
#[test]
fn a_trick_hook_that_reads_some_fields_is_known_to_read_only_those() {
    let fields = |game: &rulebook::Game| {
        let then = game.rules.tricks[0].then.as_ref().expect("a then hook");
        game.scripts.fields_read(then, 1, 1).map(|f| f.into_iter().collect::<Vec<_>>())
    };
    assert_eq!(fields(&load("games/flaschenteufel", &[], &[])), Some(vec!["card".to_string(), "winner".to_string()]));
    assert_eq!(fields(&load("tests/fixtures/tricks", &[], &[])), Some(vec!["winner".to_string()]));
    assert_eq!(fields(&load("tests/fixtures/tricks", &["scripted-winner"], &[])), None);
}

/// A `reveal` script that never names its `choices` gets `()` instead of a list of handles
/// (`Game::new` asks [`rulebook::script::Scripts::fields_read`]: no field read at all).
#[test]
fn a_reveal_script_that_never_reads_its_choices_is_known_to_read_none() {
    let reads = |game: &rulebook::Game, decision: &str| {
        let d = game.rules.decisions.iter().find(|d| d.name == decision).expect("the decision");
        game.scripts.fields_read(d.reveal.as_ref().expect("a reveal script"), 1, 1)
    };
    assert_eq!(reads(&load("games/flaschenteufel", &[], &[]), "pass_right"), Some(Default::default()));
    assert_eq!(reads(&load("games/flaschenteufel", &["lopaka"], &[]), "pass_across"), None);
    assert_eq!(reads(&load("games/adel-verpflichtet", &[], &[]), "collection"), None);
}

#[test]
fn a_declared_trick_refuses_a_leader_that_is_not_a_seat_and_leaves_the_game_as_it_was() {
    let game = load("tests/fixtures/tricks", &[], &[]);
    let mut s = game.start(3, 1).unwrap();
    s.set_var("leader", None, rulebook::Value::Int(7)).unwrap();
    let err = s.goto_phase("tricks").unwrap_err().to_string();
    assert!(err.contains("trick `trick`: var `leader` must hold the number of the seat that leads (0..2)"), "{err}");
    // Lowest wins, the same seat leads again, and the trick is collected into `taken`.
    let lowest = load("tests/fixtures/tricks", &["lowest"], &[]);
    let mut s = lowest.start(3, 1).unwrap();
    s.goto_phase("tricks").unwrap();
    for _ in 0..3 {
        let p = s.view(0).pending.as_ref().map(|p| p.waiting_for[0]).unwrap();
        let first = s.view(p).pending.unwrap().options[0].id.clone();
        s.apply(p, &first).unwrap();
    }
    let v = s.view(0);
    let leader = v.vars.iter().find(|x| x.name == "leader").unwrap();
    assert_eq!(leader.value.to_string(), "0", "`next_leader = \"leader\"`: P1 leads again");
    assert_eq!(s.log_for(None).iter().filter(|l| l.contains("wins the trick with")).count(), 1);
    // A range with `names`: ranks 2..14 named 2..9 T J Q K A, shown by the label.
    let full = load("tests/fixtures/tricks", &[], &[("ranks", "13")]);
    let s = full.start(3, 1).unwrap();
    let labels: std::collections::BTreeSet<String> =
        s.state().components.list.iter().map(|c| c.label().to_string()).collect();
    assert!(labels.contains("Ah") && labels.contains("Tc") && labels.contains("2d"), "{labels:?}");
    assert_eq!(labels.len(), 39);
}

/// games/README.md, `[decisions.NAME]` `label`: a scripted option without a `label` of its
/// own is labelled by the decision's template, filled from its fields when someone reads it.
#[test]
fn scripted_options_take_the_decisions_label_template() {
    let game = load("tests/fixtures/dice-bid", &[], &[]);
    let mut s = game.start(2, 1).unwrap();
    let labels: Vec<String> = s.options(0).into_iter().map(|o| format!("{}={}", o.id, o.label)).collect();
    assert_eq!(labels, ["0=0 chips", "1=1 chips", "2=2 chips", "3=3 chips", "4=4 chips"]);
    let view = s.view(0);
    let shown: Vec<&str> = view.pending.as_ref().unwrap().options.iter().map(|o| o.label.as_str()).collect();
    assert_eq!(shown, ["0 chips", "1 chips", "2 chips", "3 chips", "4 chips"]);
    s.apply(0, "3 chips").unwrap();
    s.apply(1, "1").unwrap();
    assert!(s.log_for(None).iter().any(|l| l.contains("P1 3 chips, P2 1 chips")), "{:?}", s.log_for(None));
}

/// games/README.md, `[decisions.NAME]` `label_by`: a script labels the scripted options that
/// have no `label` of their own when a label is read, with the seat and context they were
/// listed for, on a copy of the game (what it changes is dropped).
#[test]
fn scripted_options_take_the_decisions_label_script() {
    let game = load("tests/fixtures/labelled-options", &[], &[]);
    let mut s = game.start(2, 1).unwrap();
    let labels = |s: &rulebook::Session, p: usize| -> Vec<String> {
        s.options(p).into_iter().map(|o| format!("{}={}", o.id, o.label)).collect()
    };
    assert_eq!(
        labels(&s, 0),
        [
            "buy-0=0 goods for 0 coins at the market",
            "buy-1=1 goods for 1 coins at the market",
            "buy-2=2 goods for 2 coins at the market"
        ]
    );
    let before = s.state_hash();
    let view = s.view(0);
    let shown: Vec<&str> = view.pending.as_ref().unwrap().options.iter().map(|o| o.label.as_str()).collect();
    assert_eq!(shown[1], "1 goods for 1 coins at the market");
    assert_eq!(s.state_hash(), before, "reading labels changed the game");
    // An answer may name the option by its label, and the log shows the label.
    s.apply(0, "1 goods for 1 coins at the market").unwrap();
    s.apply(1, "buy-2").unwrap();
    assert!(
        s.log_for(None).iter().any(|l| l == "P1 chose 1 goods for 1 coins at the market (buy)"),
        "{:?}",
        s.log_for(None)
    );
    assert!(s.log_for(None).iter().any(|l| l == "P2 chose 2 goods for 2 coins at the market (buy)"));
    // The label says what the goods cost now: P1 has bought one, so each costs two.
    assert_eq!(labels(&s, 0)[2], "buy-2=2 goods for 4 coins at the market");
}

/// games/README.md, "Options scripts": an option listed as a bare string or integer is its own
/// id; `label_by` labels it; anything else that is no map (a flag here) is refused with what an
/// option may be. The fixture's scenario plays the options through.
#[test]
fn bare_options_are_their_own_ids_and_other_values_are_refused() {
    let game = load("tests/fixtures/bare-options", &[], &[]);
    let s = game.start(2, 1).unwrap();
    let listed: Vec<String> = s.options(0).into_iter().map(|o| format!("{}={}", o.id, o.label)).collect();
    assert_eq!(listed, ["left=go left", "right=go right", "3=wait 3 turns"]);
    let game = load("tests/fixtures/bare-options", &[], &[("broken", "1")]);
    let Err(e) = game.start(2, 1) else { panic!("a flag listed as an option must be refused") };
    let e = e.to_string();
    assert!(e.contains("pick_options") && e.contains("an option is a map with an `id`, a string or an integer"), "{e}");
}

/// A label script that returns something other than a string: a logged game stops at the
/// answer with an error that names the script and changes nothing; a screen shows the option's
/// id and why; a game without a log never reads labels, so it never calls the script.
#[test]
fn a_broken_label_script_is_reported_only_where_labels_are_read() {
    let game = load("tests/fixtures/labelled-options", &[], &[("broken", "1")]);
    let mut s = game.start(2, 1).unwrap();
    let shown = &s.options(0)[0].label;
    assert!(shown.starts_with("buy-0 (its label script failed:") && shown.contains("must return a string"), "{shown}");
    let before = s.state_hash();
    let err = s.apply(0, "buy-1").unwrap_err().to_string();
    assert!(err.contains("broken_label") && err.contains("a label script must return a string"), "{err}");
    assert_eq!(s.state_hash(), before);
    let mut quiet = game.start_quiet(2, 1).unwrap();
    for (p, id) in [(0, "buy-1"), (1, "buy-0"), (0, "buy-2"), (1, "buy-1")] {
        quiet.apply(p, id).unwrap();
    }
    assert!(quiet.is_over());
}

/// games/SCRIPT_API.md, `game.has_options`: the engine says whether a decision whose options
/// are a zone's components would offer a seat any, a `subset` decision whether any valid set
/// can be built; asked about a decision whose options a script lists, it is an error that
/// says to call the script.
#[test]
fn the_engine_says_whether_a_decision_offers_a_seat_anything() {
    let game = load("tests/fixtures/has-options", &[], &[]);
    let s = game.start(2, 1).unwrap();
    let view = s.view(0);
    let answers = view.vars.iter().find(|x| x.name == "answers").map(|x| x.value.to_string()).unwrap_or_default();
    assert!(answers.contains("false true false true"), "no run of A, D; a tile; P2 none; a run of A, B, D: {answers}");
    let game = load("tests/fixtures/has-options", &[], &[("ask", "1")]);
    let Err(e) = game.start(2, 1) else { panic!("asking about a scripted decision must fail") };
    let e = e.to_string();
    assert!(e.contains("`scripted` runs a script to list them: call that script instead"), "{e}");
}

#[test]
fn a_components_place_in_a_run_follows_its_properties() {
    // Adel's `collection` runs by `series` in the order A..F: each object card knows its
    // place, worked out when its properties were set, and a changed series moves it.
    let game = crate::load("games/adel-verpflichtet", &[], &[]);
    let collection = game.rules.decision("collection").expect("Adel has collections");
    let session = game.start(4, 1).expect("starts");
    let state = session.state();
    let object = state.components.list.iter().find(|c| c.prop("series").is_some()).expect("an object card");
    let series = object.prop("series").and_then(|v| v.as_str()).expect("a letter").to_string();
    let place = "ABCDEF".find(series.as_str()).expect("a series A..F") as i64;
    assert_eq!(object.run_rank(collection), Some(place));
    let mut changed = rulebook::state::Component::clone(object);
    changed.set_prop(&game.rules, "series", rulebook::value::Value::Str("F".into()));
    assert_eq!(changed.run_rank(collection), Some(5));
    changed.set_prop(&game.rules, "series", rulebook::value::Value::Str("Z".into()));
    assert_eq!(changed.run_rank(collection), None, "a value outside the order has no place");
    let location = state.components.list.iter().find(|c| c.prop("series").is_none()).expect("another card");
    assert_eq!(location.run_rank(collection), None, "a card without the property has none");
    let goofspiel = crate::load("games/goofspiel", &[], &[]);
    let bid = goofspiel.rules.decision("bid").expect("Goofspiel bids");
    let started = goofspiel.start(2, 1).expect("starts");
    assert_eq!(started.state().components.list[0].run_rank(bid), None, "no decision runs");
}

#[test]
fn a_phase_repeats_while_a_zone_holds_cards_without_a_script() {
    // tests/fixtures/while-cards: five cards dealt three and two; each pass every player with
    // a card plays one, so the third pass is the last and the second player sits it out.
    let game = load("tests/fixtures/while-cards", &[], &[]);
    let passes = game.rules.tracks.iter().position(|t| t.name == "passes").unwrap();
    let mut s = game.start(2, 1).unwrap();
    let mut played = Vec::new();
    while let Some(p) = s.first_to_act() {
        played.push(p);
        s.apply_index(p, 0).unwrap();
        assert!(played.len() <= 5, "the phase goes on after the hands are empty");
    }
    assert!(s.is_over());
    assert_eq!(played, [0, 1, 0, 1, 0], "the first player's third card is played alone");
    assert_eq!(s.state().tracks[passes][0], 3);
    // A deck of one card: one pass, then the phase ends at once.
    let game = load("tests/fixtures/while-cards", &[], &[("cards", "1")]);
    let mut s = game.start(2, 1).unwrap();
    s.apply_index(0, 0).unwrap();
    assert!(s.is_over());
    assert_eq!(s.state().tracks[passes][0], 1);
}

#[test]
fn a_game_started_where_another_ended_is_the_same_game() {
    // A dropped session leaves its state's buffers to the next game started on its thread,
    // which copies its initial state into them: whatever the last game left there (another
    // game, other zones, a longer stack), the new one must be the game a fresh thread starts.
    fn flaschenteufel_after_20_decisions() -> String {
        let game = load("games/flaschenteufel", &[], &[]);
        let mut s = game.start(4, 7).unwrap();
        for _ in 0..20 {
            let p = s.first_to_act().unwrap();
            s.apply_index(p, 0).unwrap();
        }
        s.state_hash()
    }
    let fresh = std::thread::spawn(flaschenteufel_after_20_decisions).join().unwrap();
    let after_another = std::thread::spawn(|| {
        let game = goofspiel();
        let mut s = game.start(3, 1).unwrap();
        while let Some(p) = s.first_to_act() {
            s.apply_index(p, 0).unwrap();
        }
        drop(s);
        flaschenteufel_after_20_decisions()
    })
    .join()
    .unwrap();
    assert_eq!(after_another, fresh);
}

/// A contest's tie under `ties = "first"` goes to the seat first in turn order, also when the
/// seats' turn order is not their seat order (the contest then sorts the revealed choices;
/// in seat order it takes them as they answered).
#[test]
fn a_tie_won_by_the_first_in_turn_order_follows_a_changed_turn_order() {
    let goofspiel = std::fs::read_to_string(crate::rel("games/goofspiel/game.toml")).unwrap();
    let first_wins = goofspiel.replace("ties = \"nobody\"", "ties = \"first\"");
    assert_ne!(first_wins, goofspiel, "Goofspiel's contest names its ties rule");
    for (order, winner) in [("[0, 1]", 0), ("[1, 0]", 1)] {
        let dir = crate::Scratch::new("contest-turn-order");
        let with_setup = first_wins.replace("[flow]\n", "[flow]\nsetup = \"order\"\n");
        std::fs::write(dir.join("game.toml"), with_setup).unwrap();
        std::fs::write(dir.join("rules.rhai"), format!("fn order(game) {{ game.turn_order = {order}; }}\n")).unwrap();
        let loaded = rulebook::load_game(&dir, &rulebook::LoadOptions::default());
        let game = loaded.game.unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
        let mut s = game.start(2, 9).unwrap();
        s.arrange("prize", None, &["prize-4"]).unwrap();
        // Both seats bid 2: a tie, which the first seat in turn order wins.
        s.apply(0, "p1-2").unwrap();
        s.apply(1, "p2-2").unwrap();
        let scores: Vec<i64> = s.public_view().tracks.iter().map(|t| t.value.as_int().unwrap()).collect();
        let mut expected = vec![0, 0];
        expected[winner] = 4;
        assert_eq!(scores, expected, "turn order {order}");
    }
}
