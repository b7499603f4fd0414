//! Compiled scripts against Rhai: every bundled game and variant, played by random bots once
//! with compiled scripts and once with Rhai interpreting every call, takes the same decisions
//! and writes the same log (the engine's promise that compiled scripts never change a game).

use rulebook::sim::play_one;

/// The bundled games, each with no variant and then each of its variants alone.
fn configurations() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let games = crate::root().join("games");
    let mut folders: Vec<_> = std::fs::read_dir(&games).unwrap().flatten().map(|e| e.path()).collect();
    folders.sort();
    for folder in folders.into_iter().filter(|f| f.join("game.toml").exists()) {
        let name = folder.file_name().unwrap().to_string_lossy().to_string();
        out.push((name.clone(), Vec::new()));
        let mut variants: Vec<String> = std::fs::read_dir(folder.join("variants"))
            .map(|d| {
                d.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                    .map(|p| p.file_stem().unwrap().to_string_lossy().to_string())
                    .collect()
            })
            .unwrap_or_default();
        variants.sort();
        out.extend(variants.into_iter().map(|v| (name.clone(), vec![v])));
    }
    out
}

/// The full log and outcome of one seeded random game, as text.
fn played(game: &rulebook::Game, players: usize, seed: u64) -> String {
    let record =
        play_one(game, players, 0, seed, &rulebook::bot::BotTable::default()).unwrap_or_else(|f| panic!("{f}"));
    let mut s = game.start(players, seed).unwrap();
    for m in &record.moves {
        s.apply(m.player, &m.option).unwrap();
    }
    format!("winners {:?} scores {:?}\n{}", record.winners, record.scores, s.log_for(None).join("\n"))
}

#[test]
fn compiled_scripts_play_every_bundled_game_as_rhai_does() {
    let configurations = configurations();
    assert!(configurations.len() >= 10, "expected the bundled games and their variants");
    for (name, variants) in configurations {
        let variants: Vec<&str> = variants.iter().map(String::as_str).collect();
        let game = crate::load(&format!("games/{name}"), &variants, &[]);
        let players = game.rules.min_players..=game.rules.max_players;
        for (i, p) in players.enumerate() {
            let seed = 11 + i as u64;
            let compiled = played(&game, p, seed);
            let interpreted = rulebook::script::rhai_only(|| played(&game, p, seed));
            assert!(
                compiled == interpreted,
                "{name} {variants:?}, {p} players, seed {seed}: compiled scripts played a different game"
            );
        }
    }
}

#[test]
fn a_script_error_is_reported_as_rhai_reports_it() {
    // The compiled call gives up at the error; Rhai runs the transaction again, and its
    // message and location are the ones the player sees.
    let dir = crate::Scratch::new("compiled");
    let fixture = crate::root().join("tests/fixtures/dice-bid");
    std::fs::copy(fixture.join("game.toml"), dir.join("game.toml")).unwrap();
    let rules = std::fs::read_to_string(fixture.join("rules.rhai")).unwrap();
    let broken = rules.replace("fn roll(game) {\n", "fn roll(game) {\n    let a = [1, 2];\n    let x = a[5];\n");
    assert_ne!(broken, rules, "the fixture's `roll` is where the error goes");
    std::fs::write(dir.join("rules.rhai"), broken).unwrap();
    let game = rulebook::load_game(&dir, &rulebook::LoadOptions::default()).game.expect("loads");
    let compiled = game.start(2, 1).err().map(|e| e.to_string());
    let interpreted = rulebook::script::rhai_only(|| game.start(2, 1).err().map(|e| e.to_string()));
    drop(dir);
    assert!(compiled.is_some(), "the script error stops the game");
    assert_eq!(compiled, interpreted);
    assert!(compiled.unwrap().contains("rules.rhai:4"), "located at the failing line");
}

#[test]
fn a_new_profile_forgets_the_calls_counted_before() {
    let dir = crate::root().join("games/mille-grazie");
    let game = rulebook::load_game(&dir, &rulebook::LoadOptions::default()).game.expect("loads");
    let bots = rulebook::bot::BotTable::default();
    game.scripts.start_profile();
    play_one(&game, 3, 0, 1, &bots).expect("plays");
    let calls = |g: &rulebook::Game| g.scripts.nested_profile().iter().map(|(_, n, _)| *n).sum::<u64>();
    let first = calls(&game);
    assert!(first > 0, "scripts call scripts in Mille Grazie");
    game.scripts.start_profile();
    assert_eq!(calls(&game), 0, "start_profile starts from nothing");
    play_one(&game, 3, 0, 1, &bots).expect("plays");
    assert_eq!(calls(&game), first, "the same game makes the same calls");
}

/// dice-bid with a data table and `roll` replaced by `body`, in a folder of its own.
fn dice_bid_with_table(tag: &str, body: &str) -> (crate::Scratch, rulebook::Game) {
    let table = "[tables.t]\nname = \"prizes\"\nrows = [{ id = \"a\", n = [1, 2] }, { id = \"b\", n = [3] }]\nby = { x = { y = 5 } }\n";
    dice_bid_with(tag, table, body)
}

/// dice-bid with `extra` added to its game file and `body` put at the start of `roll`, in a
/// folder of its own (removed when the guard is dropped).
fn dice_bid_with(tag: &str, extra: &str, body: &str) -> (crate::Scratch, rulebook::Game) {
    let dir = crate::Scratch::new(&format!("compiled-{tag}"));
    let fixture = crate::root().join("tests/fixtures/dice-bid");
    let toml = std::fs::read_to_string(fixture.join("game.toml")).unwrap() + "\n" + extra;
    std::fs::write(dir.join("game.toml"), toml).unwrap();
    let rules = std::fs::read_to_string(fixture.join("rules.rhai")).unwrap();
    let changed = rules.replace("fn roll(game) {\n", &format!("fn roll(game) {{\n{body}\n"));
    assert_ne!(changed, rules, "the fixture's `roll` is where the body goes");
    std::fs::write(dir.join("rules.rhai"), changed).unwrap();
    let game = rulebook::load_game(&dir, &rulebook::LoadOptions::default()).game.expect("loads");
    (dir, game)
}

/// The log of a game of `game` (in its own folder `dir`, removed afterwards) started with
/// compiled scripts, after checking that every function is compiled, that `roll` ran compiled
/// to its end, and that Rhai interpreting every call writes the same log.
fn log_as_rhai_writes_it(dir: crate::Scratch, game: &rulebook::Game) -> String {
    let log = |g: &rulebook::Game| g.start(2, 1).map(|s| s.log_for(None).join("\n")).map_err(|e| e.to_string());
    let compiled = log(game);
    let program = game.scripts.program().expect("compiled scripts are on");
    assert!(program.coverage().1.is_empty(), "every function is compiled: {:?}", program.coverage().1);
    assert_eq!(program.give_ups(), vec![], "`roll` ran compiled to its end");
    let interpreted = rulebook::script::rhai_only(|| log(game));
    drop(dir);
    assert_eq!(compiled, interpreted);
    compiled.expect("plays")
}

#[test]
fn reading_part_of_a_table_is_what_rhai_reads() {
    // `game.table(t)` followed by properties and indexes reads the part in place (no copy of
    // the whole table): the same values, a copy the script may change, `()` for a missing
    // last entry, as Rhai gives them.
    let body = r#"
    let part = game.table("t").rows[1].n;
    part.push(9);
    let missing = game.table("t").by.missing;
    game.log(`${game.table("t").name} ${game.table("t").rows[0].id} ${game.table("t")["rows"][-1].n[0]} ${part.len()} ${part[1]} ${game.table("t").by.x.y} ${type_of(missing)} ${game.table("t").rows.len()} ${game.table("t").rows[1].n.len()}`);
"#;
    // The copy grew (9 added), the table did not (its `n` still holds one number).
    reads_as_rhai("table-read", body, dice_bid_with_table, "prizes a 3 2 9 5 () 2 1");
}

/// `body`, put in a game made by `game_with`, logs what Rhai logs, and that log holds
/// `expected`.
fn reads_as_rhai(tag: &str, body: &str, game_with: fn(&str, &str) -> (crate::Scratch, rulebook::Game), expected: &str) {
    let (dir, game) = game_with(tag, body);
    let compiled = log_as_rhai_writes_it(dir, &game);
    assert!(compiled.contains(expected), "{compiled}");
}

/// dice-bid with a track of three spaces (from 1) and `roll` replaced by `body`.
fn dice_bid_with_spaces(tag: &str, body: &str) -> (crate::Scratch, rulebook::Game) {
    let track = "[tracks.path]\nmin = 1\nmax = 3\nspaces = [{ name = \"start\", moves = [1, 2] }, { name = \"middle\", x = { y = 7 } }, { name = \"end\", last = true }]\n";
    dice_bid_with(tag, track, body)
}

#[test]
fn reading_part_of_a_space_is_what_rhai_reads() {
    // `game.space(t, n)` followed by properties and indexes reads the space in place: the same
    // values, a copy the script may change, `()` for a missing last entry, as Rhai gives them.
    let body = r#"
    let moves = game.space("path", 1).moves;
    moves.push(5);
    let missing = game.space("path", 3).missing;
    game.log(`${game.space("path", 1).name} ${game.space("path", 2).x.y} ${game.space("path", 3).last} ${moves.len()} ${game.space("path", 1).moves.len()} ${type_of(missing)} ${game.space("path", 1)["moves"][-1]}`);
"#;
    // The copy grew (5 added), the space did not.
    reads_as_rhai("space-read", body, dice_bid_with_spaces, "start 7 true 3 2 () 2");
}

#[test]
fn a_bad_read_of_a_space_fails_as_in_rhai() {
    let reads = [
        "game.space(\"path\", 9).name",
        "game.space(\"path\", 0).name",
        "game.space(\"nope\", 1).name",
        "game.space(\"path\", 1).moves[4]",
    ];
    fails_as_in_rhai("space-bad", &reads, dice_bid_with_spaces);
}

/// Each read, put in a game made by `game_with`, stops the game with Rhai's error.
fn fails_as_in_rhai(tag: &str, reads: &[&str], game_with: fn(&str, &str) -> (crate::Scratch, rulebook::Game)) {
    for (i, read) in reads.iter().enumerate() {
        let (dir, game) = game_with(&format!("{tag}-{i}"), &format!("    let x = {read};"));
        let compiled = game.start(2, 1).err().map(|e| e.to_string());
        let interpreted = rulebook::script::rhai_only(|| game.start(2, 1).err().map(|e| e.to_string()));
        drop(dir);
        assert!(compiled.is_some(), "`{read}` fails");
        assert_eq!(compiled, interpreted, "`{read}`");
    }
}

/// dice-bid with `kept()`, a function whose value never changes (a map of data), and `roll`
/// replaced by `body`.
fn dice_bid_with_kept(tag: &str, body: &str) -> (crate::Scratch, rulebook::Game) {
    let (dir, _) = dice_bid_with(tag, "", body);
    let rules = dir.join("rules.rhai");
    let kept = "\nfn kept() { #{ name: \"kept\", list: [1, 2], inner: #{ x: 5 } } }\n";
    std::fs::write(&rules, std::fs::read_to_string(&rules).unwrap() + kept).unwrap();
    let game = rulebook::load_game(&dir, &rulebook::LoadOptions::default()).game.expect("loads");
    (dir, game)
}

#[test]
fn reading_part_of_a_kept_value_is_what_rhai_reads() {
    // A call of a function whose value never changes, followed by properties and indexes,
    // reads the kept value in place: the same values, a copy the script may change, `()` for
    // a missing last entry, as Rhai gives them.
    let body = r#"
    let part = kept().list;
    part.push(9);
    let missing = kept().nothing;
    game.log(`${kept().name} ${kept()["list"][-1]} ${kept().inner.x} ${part.len()} ${kept().list.len()} ${type_of(missing)}`);
"#;
    // The copy grew (9 added), the kept value did not.
    reads_as_rhai("kept-read", body, dice_bid_with_kept, "kept 2 5 3 2 ()");
}

#[test]
fn a_bad_read_of_a_kept_value_fails_as_in_rhai() {
    let reads = ["kept().list[5]", "kept().nothing.x", "kept()[3]", "kept().name.x"];
    fails_as_in_rhai("kept-bad", &reads, dice_bid_with_kept);
}

#[test]
fn a_bad_read_of_a_table_fails_as_in_rhai() {
    let reads = [
        "game.table(\"t\").rows[5].id",
        "game.table(\"t\").missing.n",
        "game.table(\"nope\").rows",
        "game.table(\"t\").name[0].x",
    ];
    fails_as_in_rhai("table-bad", &reads, dice_bid_with_table);
}

#[test]
fn a_loop_over_a_zone_sees_what_rhai_sees() {
    // `for c in game.cards(..)` runs over the zone's components as indices, the loop's variable
    // pointed at each in turn: copies kept, cards moved and properties changed during the loop,
    // `continue`, `break`, a counter, nested loops and a name held in a variable all give what
    // Rhai gives over its list of handles.
    let extra = "[components.chip]\nlabel = \"{n}\"\nzone = \"pile\"\ninstances = [{ id = \"c{n}\", n = { from = 1, to = 5 } }]\n\n[zones.pile]\nvisible = \"public\"\n\n[zones.side]\nvisible = \"public\"\n";
    let body = r#"
    let kept = [];
    for c in game.cards("pile") {
        kept.push(c);
        if c.n == 2 { game.move(c, "side"); }
    }
    let walk = "";
    for (c, i) in game.cards("pile") {
        if i == 1 { continue; }
        walk += `${i}:${c.id} `;
        if c.n == 4 { break; }
    }
    let pairs = 0;
    for a in game.cards("pile") { for b in game.cards("pile") { if a.n < b.n { pairs += 1; } } }
    let z = "side";
    let last = ();
    for c in game.cards(z) { game.set_prop(c, "n", 20); last = c; walk += `${c.n} `; }
    let ids = "";
    for c in kept { ids += c.id; }
    let found = for c in game.cards("pile") { if c.n == 3 { break c; } };
    game.log(`${ids} | ${walk}| ${pairs} | ${last.id} ${last.n} ${game.cards(z)[0].n} | ${found.id}`);
"#;
    let (dir, game) = dice_bid_with("zone-loop", extra, body);
    let compiled = log_as_rhai_writes_it(dir, &game);
    // c2 went to the side during the first loop, which still went on to c5; the handle kept
    // in `last` shows the value from before `set_prop`, a new one the value after.
    assert!(compiled.contains("c1c2c3c4c5 | 0:c1 2:c4 2 | 6 | c2 2 20 | c3"), "{compiled}");
}

#[test]
fn comparing_with_unit_is_what_rhai_gives() {
    // `x == ()` and `x != ()` (either side) are answered from the value's kind alone: every
    // kind of value, read from a variable or made by an expression, compares as in Rhai.
    // (A range is left to Rhai, whose rules for it are its own.)
    let extra =
        "[components.chip]\nzone = \"pile\"\ninstances = [{ id = \"c1\" }]\n\n[zones.pile]\nvisible = \"public\"\n";
    let body = r#"
    let values = [(), 0, 3, "", "x", true, 'c', [], [()], #{}, game.cards("pile")[0]];
    let out = "";
    for v in values {
        let e = v == ();
        let n = v != ();
        let l = () == v;
        let m = () != v;
        out += `${e}${n}${l}${m} `;
    }
    let none = ();
    out += `${none == ()} ${() != none} ${game.cards("pile")[0] != ()} ${game.cards("pile")[0] == ()} ${[1][0] == ()}`;
    if game.cards("pile")[0] != () && none == () { out += " both"; }
    game.log(out);
"#;
    let (dir, game) = dice_bid_with("unit-compare", extra, body);
    let compiled = log_as_rhai_writes_it(dir, &game);
    assert!(compiled.contains("truefalsetruefalse falsetruefalsetrue"), "{compiled}");
    assert!(compiled.contains("true false true false false both"), "{compiled}");
}

#[test]
fn a_var_read_again_is_a_new_copy_as_in_rhai() {
    // The engine keeps the script form of a var between changes: every read still gives a
    // copy of its own, a value set is not the variable that was handed over, and a component
    // stored in a var is read back as its id.
    let extra = "[vars.list]\ndefault = []\n\n[components.chip]\nzone = \"pile\"\ninstances = [{ id = \"c1\" }]\n\n[zones.pile]\nvisible = \"public\"\n";
    let body = r#"
    let a = game.get_var("list");
    a.push(1);
    let b = game.get_var("list");
    let c = ["x", 2];
    game.set_var("list", c);
    c.push(3);
    let d = game.get_var("list");
    d.push(4);
    let e = game.get_var("list");
    game.set_var("list", [game.card("c1")]);
    let f = game.get_var("list");
    game.log(`${a.len()} ${b.len()} ${c.len()} ${d.len()} ${e.len()} ${e[0]} ${type_of(f[0])} ${f[0]}`);
"#;
    let (dir, game) = dice_bid_with("var-copies", extra, body);
    let compiled = log_as_rhai_writes_it(dir, &game);
    assert!(compiled.contains("1 0 3 3 2 x string c1"), "{compiled}");
}
