//! The bots through the engine's API and the command line: mixed tables, reproducible search,
//! strength where it is cheap to show, and clear refusals.

use rulebook::bot::BotTable;
use rulebook::sim::{play_keeping, play_one, Keep};
use std::process::Command;

fn table(entries: &[&str]) -> BotTable {
    BotTable::parse(&entries.iter().map(|e| e.to_string()).collect::<Vec<_>>(), &[]).unwrap()
}

fn rulebook(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rulebook")).args(args).current_dir(crate::root()).output().unwrap()
}

#[test]
fn mcts_plays_the_same_game_again_for_a_seed_and_an_iteration_count() {
    let game = crate::load("games/goofspiel", &[], &[]);
    let t = table(&["P2=mcts:iterations=50", "random"]);
    let a = play_one(&game, 3, 0, 11, &t).unwrap();
    let b = play_one(&game, 3, 0, 11, &t).unwrap();
    assert_eq!(a.moves, b.moves);
    assert_eq!(a.scores, b.scores);
}

#[test]
fn an_outcome_only_playout_is_the_same_game_without_its_moves() {
    // What `simulate` plays when it keeps no transcripts: the same games, the moves not kept.
    let game = crate::load("games/goofspiel", &[], &[]);
    let t = table(&["P1=first", "random"]);
    for i in 0..5 {
        let full = play_one(&game, 3, i, 40 + i, &t).unwrap();
        let outcome = play_keeping(&game, 3, i, 40 + i, &t, Keep::OUTCOME).unwrap();
        assert_eq!(full.decisions, full.moves.len() as u64, "every answer is a move");
        assert!(outcome.moves.is_empty());
        assert_eq!(outcome, rulebook::sim::GameRecord { moves: Vec::new(), ..full });
    }
    // A game that fails is played again keeping its moves: the failure names them all.
    let cursed = crate::load("tests/fixtures/cursed-option", &[], &[]);
    let kept = play_one(&cursed, 2, 0, 7, &t).unwrap_err();
    let replayed = play_keeping(&cursed, 2, 0, 7, &t, Keep::OUTCOME).unwrap_err();
    assert!(!kept.moves.is_empty());
    assert_eq!((replayed.moves, replayed.error.to_string()), (kept.moves, kept.error.to_string()));
}

#[test]
fn every_bot_plays_every_bundled_game_through() {
    // A few decisions of each search bot in each game (cheap settings): no bot fails on a game
    // `validate` accepts. The whole games are played by `strength.py` (interpreter/BOTS.md).
    for (path, players) in [
        ("games/goofspiel", 3),
        ("games/flaschenteufel", 3),
        ("games/adel-verpflichtet", 2),
        ("games/adel-verplicht", 3),
        ("games/mille-grazie", 2),
        ("games/club-degli-spendaccioni", 2),
        ("games/liars-dice", 2),
    ] {
        let game = crate::load(path, &[], &[]);
        for spec in ["mcts:iterations=8,depth=6", "greedy:samples=1"] {
            let t = table(&[&format!("P1={spec}"), "random"]);
            let mut session = rulebook::Session::new_tracked(&game, players, 3, false).unwrap();
            let mut bots: Vec<_> =
                (0..players).map(|p| rulebook::bot::make_bot(t.spec(p), &game, 3, p).unwrap()).collect();
            for _ in 0..15 {
                let Some(&p) = session.to_act().first() else { break };
                let obs = rulebook::bot::SeatObservation::new(&session, p);
                let choice = bots[p].choose(&obs).unwrap_or_else(|e| panic!("{path} {spec}: {e}"));
                session.apply_index(p, choice).unwrap();
            }
        }
    }
}

#[test]
fn mcts_beats_random_at_two_player_goofspiel() {
    let game = crate::load("games/goofspiel", &[], &[]);
    let t = table(&["P1=mcts:iterations=100", "random"]);
    let wins = (0..30).filter(|i| play_one(&game, 2, *i, 100 + i, &t).unwrap().winners == [0]).count();
    assert!(wins >= 24, "mcts won only {wins} of 30");
}

#[test]
fn simulate_takes_a_bot_per_seat_and_names_them() {
    let o = rulebook(&[
        "simulate",
        "goofspiel",
        "-p",
        "2",
        "-n",
        "4",
        "--json",
        "--bot",
        "P1=mcts",
        "--bot-option",
        "iterations=20",
        "--bot",
        "greedy",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["bot"], "P1=mcts:iterations=20 greedy");
}

#[test]
fn bad_bots_are_refused_with_what_is_wrong() {
    for (args, message) in [
        (vec!["--bot", "alphazero"], "unknown bot `alphazero`; available: random, first, greedy, mcts"),
        (vec!["--bot", "mcts:iters=5"], "bot `mcts` has no option `iters`"),
        (vec!["--bot", "mcts:iterations=0"], "`iterations` must be at least 1"),
        (vec!["--bot", "mcts:time=0"], "`time` must be a positive number of seconds"),
        (vec!["--bot", "P3=mcts"], "--bot names seat P3, but the game has 2 seats"),
        (vec!["--bot-option", "iterations=5"], "no bot at this table takes it"),
    ] {
        let mut all = vec!["simulate", "goofspiel", "-p", "2", "-n", "1"];
        all.extend(args.iter());
        let o = rulebook(&all);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
    }
    // A game with no score and no evaluation: nothing to judge a cut-short playout by.
    let o = rulebook(&["simulate", "tests/fixtures/graph-walk", "-p", "2", "-n", "1", "--bot", "greedy"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("declares no score"), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn help_names_the_bots_and_their_options() {
    let o = rulebook(&["simulate", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    for b in rulebook::bot::BOTS {
        assert!(help.contains(b.name), "{help}");
        for (k, _) in b.options {
            assert!(help.contains(&format!("{k}:")), "{k}: {help}");
        }
    }
}

#[test]
fn samples_keep_cards_seen_going_into_a_hand_in_that_hand() {
    // Goofspiel: every seat knows the others' bid cards are in their hands (the game files
    // deal them there), so a sample never swaps them with the prize deck.
    let game = crate::load("games/goofspiel", &[], &[]);
    let mut s = rulebook::Session::new_tracked(&game, 3, 5, false).unwrap();
    for _ in 0..4 {
        let p = s.to_act()[0];
        s.apply_index(p, 0).unwrap();
    }
    let seat = s.to_act()[0];
    let hand = game.rules.zone("hand").unwrap();
    let ids = |st: &rulebook::state::State, owner: usize| {
        let mut v: Vec<String> =
            st.zones[hand][owner].cards.iter().map(|c| st.components.list[*c as usize].id.clone()).collect();
        v.sort();
        v
    };
    for k in 0..20 {
        let sample = rulebook::determinize::sample(&s, seat, k).unwrap();
        for owner in 0..3 {
            assert_eq!(ids(sample.state(), owner), ids(s.state(), owner), "hands are public knowledge by elimination");
        }
    }
}

#[test]
fn search_bots_at_liars_dice_see_their_own_dice_only() {
    // The same position but for the faces under P2's cup: P1's search bots choose the same
    // bid, since they draw P2's dice anew in every sample; samples keep P1's own dice.
    let game = crate::load("games/liars-dice", &[], &[("numdice", "2")]);
    for seed in 0..4 {
        let choices: Vec<Vec<usize>> = [[1, 1], [6, 6]]
            .iter()
            .map(|faces| {
                let mut s = rulebook::Session::new_tracked(&game, 2, seed, false).unwrap();
                s.set_prop("p1-die-1", "face", rulebook::Value::Int(3)).unwrap();
                s.set_prop("p1-die-2", "face", rulebook::Value::Int(6)).unwrap();
                for (n, f) in faces.iter().enumerate() {
                    s.set_prop(&format!("p2-die-{}", n + 1), "face", rulebook::Value::Int(*f)).unwrap();
                }
                let obs = rulebook::bot::SeatObservation::new(&s, 0);
                let mut theirs = std::collections::BTreeSet::new();
                for k in 0..20 {
                    let sample = rulebook::bot::Observation::sample(&obs, k).unwrap();
                    let st = sample.state();
                    let cup = game.rules.zone("cup").unwrap();
                    let faces = |owner: usize| -> Vec<String> {
                        st.zones[cup][owner]
                            .cards
                            .iter()
                            .map(|c| st.components.list[*c as usize].props["face"].to_string())
                            .collect()
                    };
                    assert_eq!(faces(0), ["3", "6"], "P1 knows its own dice");
                    theirs.insert(faces(1));
                }
                assert!(theirs.len() > 5, "P2's dice are drawn anew in each sample: {theirs:?}");
                ["mcts:iterations=200", "greedy"]
                    .iter()
                    .map(|spec| {
                        let t = table(&[&format!("P1={spec}"), "random"]);
                        let mut bot = rulebook::bot::make_bot(t.spec(0), &game, seed, 0).unwrap();
                        bot.choose(&obs).unwrap()
                    })
                    .collect()
            })
            .collect();
        assert_eq!(choices[0], choices[1], "seed {seed}: the bots' bids depend on P2's hidden dice");
    }
}
