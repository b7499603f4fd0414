//! `rulebook serve` on loopback: the lobby API, tables played over WebSockets by seats and
//! bots, reconnects and spectators, transcripts that replay, what each seat receives (exactly
//! its view, nothing hidden from it), bad input, SIGKILL and restart, load, and a real browser.

mod browser;
mod client;

use client::{play_seat, request, token, Client, TestServer};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A small deterministic generator for the test seats' picks.
struct Pick(u64);

impl Pick {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn link(created: &Value, seat: usize) -> String {
    created["seats"][seat]["link"].as_str().unwrap().to_string()
}

fn replay_ok(transcript: &str, name: &str) {
    let dir = client::temp_dir(name);
    let file = dir.join("game.transcript");
    std::fs::write(&file, transcript).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(["replay", file.to_str().unwrap()])
        .current_dir(crate::root())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.contains("the final state matches"), "replay failed:\n{err}\n{transcript}");
}

/// The ids of the cards a zone shows in a view message.
fn zone_ids(m: &Value, zone: &str, owner: Option<u64>) -> Vec<String> {
    m["view"]["zones"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|z| z["name"] == zone && z["owner"].as_u64() == owner)
        .flat_map(|z| z["cards"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn serve_plays_a_goofspiel_with_two_seats_reconnects_spectates_and_replays() {
    let server = TestServer::start("goofspiel");
    let (status, games) = server.get("/api/games");
    assert_eq!(status, 200);
    assert!(games.contains("\"name\":\"goofspiel\""), "{games}");
    let created = server.create(json!({"game": "goofspiel", "players": 2, "options": {"cards": 5}}));
    assert!(created["seats"][1]["bot"].is_null());
    let (p1, p2) = (link(&created, 0), link(&created, 1));
    let spectator = created["spectator"].as_str().unwrap().to_string();
    assert_ne!(token(&p1), token(&p2));
    assert_eq!(token(&p1).len(), 32, "128-bit tokens");
    // The pages answer for every link.
    for l in [&p1, &p2, &spectator] {
        let (status, page) = server.get(l);
        assert_eq!(status, 200);
        assert!(page.contains("table.js"));
    }
    let (status, _) = server.get(&format!("{p1}/transcript"));
    assert_eq!(status, 409, "no transcript before the end");

    let mut watcher = server.connect(&spectator);
    let first = watcher.until("view");
    assert!(first["seat"].is_null());
    assert_eq!(watcher.choose("p1-1", None)["code"], "spectator");

    // Two rounds by hand, then a reconnect, then the rest of the game by two seats at once.
    let mut a = server.connect(&p1);
    let mut b = server.connect(&p2);
    for round in 0..2u64 {
        let va = a.view_at_least(2 * round);
        assert_eq!(zone_ids(&va, "hand", Some(0)).len(), 5 - round as usize, "P1 sees its own hand");
        assert!(zone_ids(&va, "hand", Some(1)).is_empty(), "P1 does not see P2's hand");
        let mine = va["view"]["pending"]["options"][0]["id"].as_str().unwrap().to_string();
        assert!(mine.starts_with("p1-"));
        assert_eq!(a.choose(&mine, Some(va["version"].as_u64().unwrap()))["type"], "accepted");
        let vb = b.view_at_least(2 * round + 1);
        assert!(zone_ids(&vb, "hand", Some(0)).is_empty(), "P2 does not see P1's hand");
        assert_eq!(vb["view"]["pending"]["committed"], json!([0]), "P2 sees that P1 committed");
        assert!(!vb.to_string().contains(&format!("\"{mine}\"")), "nor what P1 committed");
        let theirs = vb["view"]["pending"]["options"][0]["id"].as_str().unwrap().to_string();
        assert_eq!(b.choose(&theirs, Some(vb["version"].as_u64().unwrap()))["type"], "accepted");
    }
    // A reconnecting seat gets the current view at once.
    drop(a);
    let mut a = server.connect(&p1);
    let again = a.until("view");
    assert_eq!(again["version"], 4);
    assert_eq!(zone_ids(&again, "hand", Some(0)).len(), 3);
    let (_, by_http) = server.get(&format!("{p1}/view"));
    assert_eq!(serde_json::from_str::<Value>(&by_http).unwrap()["version"], 4);

    let deadline = Duration::from_secs(60);
    let (end_a, end_b) = std::thread::scope(|s| {
        let ta = s.spawn(|| play_seat(&mut a, |_| 0, deadline));
        let tb = s.spawn(|| play_seat(&mut b, |o| o.len() - 1, deadline));
        (ta.join().unwrap(), tb.join().unwrap())
    });
    assert_eq!(end_a["version"], 10);
    assert!(end_a["view"]["outcome"].is_object() && end_b["view"]["outcome"].is_object());
    // Every message of the spectator: public zones only; the last one shows the end.
    let end_w = watcher.view_at_least(10);
    assert_eq!(end_w["transcript"], true);
    for m in watcher.received.iter().map(|t| serde_json::from_str::<Value>(t).unwrap()).filter(|m| m["type"] == "view")
    {
        assert!(zone_ids(&m, "hand", Some(0)).is_empty() && zone_ids(&m, "hand", Some(1)).is_empty(), "{m}");
        assert!(m["view"]["pending"]["options"].as_array().is_none_or(|o| o.is_empty()));
    }
    let (status, transcript) = server.get(&format!("{spectator}/transcript"));
    assert_eq!(status, 200);
    assert!(transcript.contains("game goofspiel") && transcript.contains("expect hash"), "{transcript}");
    replay_ok(&transcript, "goofspiel-replay");
    // After the end: choices are refused, views still answer.
    assert_eq!(a.choose("p1-1", None)["code"], "over");
    let mut late = server.connect(&p2);
    assert_eq!(late.until("view")["transcript"], true);
}

/// Every bundled game, one person at P1 and random bots at the other seats: every message P1
/// receives holds exactly P1's view and log at that point (as the engine builds them, replayed
/// from the transcript), and no component P1 has not yet seen (in a zone, shown, offered, or
/// named in its log) is named anywhere in it, by id or by a label only it carries.
#[test]
fn serve_sends_each_seat_only_its_view_in_every_bundled_game() {
    let server = TestServer::start("leaks");
    let (_, games) = server.get("/api/games");
    let games: Vec<Value> = serde_json::from_str(&games).unwrap();
    assert!(games.len() >= 7);
    let check = |i: usize, g: &Value| {
        let name = g["name"].as_str().unwrap();
        let players = g["min_players"].as_u64().unwrap().max(2);
        let started = Instant::now();
        let created = server.create(json!({"game": name, "players": players, "bots": players - 1}));
        let mut seat = server.connect(&link(&created, 0));
        let mut pick = Pick(0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1));
        play_seat(&mut seat, |o| pick.below(o.len()), Duration::from_secs(120));
        let (status, transcript) = server.get(&format!("{}/transcript", link(&created, 0)));
        assert_eq!(status, 200, "{name}: {transcript}");
        let messages = seat.received.len();
        let decisions = check_messages(name, &transcript, &seat.received);
        format!("{name}: {decisions} decisions, {messages} messages, {:.1?}", started.elapsed())
    };
    // Two games at a time.
    let checked: Vec<String> = std::thread::scope(|s| {
        let halves: Vec<_> = (0..2)
            .map(|k| {
                let games = &games;
                let check = &check;
                s.spawn(move || {
                    games.iter().enumerate().filter(|(i, _)| i % 2 == k).map(|(i, g)| check(i, g)).collect::<Vec<_>>()
                })
            })
            .collect();
        halves.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    eprintln!("leak check over the wire:\n  {}", checked.join("\n  "));
}

/// What P1 may receive at each version, from the transcript replayed in this process.
struct Expected {
    view: Value,
    log: Value,
    /// Components P1 has seen (in a zone, shown, offered) up to this version.
    known: HashSet<String>,
}

fn check_messages(name: &str, transcript: &str, received: &[String]) -> usize {
    let file = rulebook::scenario::parse(std::path::Path::new("table.transcript"), transcript).unwrap();
    let h = &file.header;
    let options: Vec<(&str, &str)> = h.options.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let variants: Vec<&str> = h.variants.iter().map(String::as_str).collect();
    let game = crate::load(&format!("games/{name}"), &variants, &options);
    let mut s = rulebook::Session::new(&game, h.players.unwrap(), h.seed.unwrap(), true).unwrap();
    let mut expected = Vec::new();
    let mut known = HashSet::new();
    // What the log told P1 (a reveal, a card drawn in public): a component named there is
    // revealed to P1. The log P1 receives is checked to be exactly P1's redacted log; whether
    // a game's own lines say too much is `rulebook validate`'s leak check (crate::leak).
    let mut told = String::new();
    let mut logged = 0;
    let mut snapshot = |s: &rulebook::Session<'_>, known: &mut HashSet<String>| {
        for e in &s.log()[logged..] {
            told.extend(e.for_viewer(Some(0)).map(|t| format!("{t}\n")));
        }
        logged = s.log().len();
        for c in &s.state().components.list {
            if mentions(&told, &c.id) || (c.label().len() >= 3 && mentions(&told, c.label())) {
                known.insert(c.id.clone());
            }
        }
        let view = s.view(0);
        for z in &view.zones {
            known.extend(z.cards.iter().map(|c| c.id.clone()));
            known.extend(z.places.iter().filter_map(|p| p.card.as_ref().map(|c| c.id.clone())));
        }
        known.extend(view.shown.iter().flat_map(|x| x.cards.iter().map(|c| c.id.clone())));
        known
            .extend(view.grids.iter().flat_map(|g| g.cells.iter().flat_map(|c| c.pieces.iter().map(|p| p.id.clone()))));
        if let Some(p) = &view.pending {
            known.extend(p.options.iter().map(|o| o.id.clone()));
            known.extend(p.my_set.iter().map(|c| c.id.clone()));
        }
        Expected { view: serde_json::to_value(&view).unwrap(), log: json!(s.log_for(Some(0))), known: known.clone() }
    };
    expected.push(snapshot(&s, &mut known));
    for step in &file.scenarios[0].steps {
        if let rulebook::scenario::StepKind::Choose { seat, option } = &step.kind {
            let p = s.seat(seat).unwrap();
            s.apply(p, option).unwrap();
            expected.push(snapshot(&s, &mut known));
        }
    }
    // The rules are public: a name written in a declared prompt (an example) tells nothing.
    let rules: String = game.rules.decisions.iter().map(|d| format!("{}\n", d.prompt)).collect();
    // A component is named by its id, or by its label when no other component carries it and
    // it is more than a number or a short word.
    let mut labels: std::collections::HashMap<&str, usize> = Default::default();
    let list = &s.state().components.list;
    for c in list {
        *labels.entry(c.label()).or_default() += 1;
    }
    let names = |c: &rulebook::state::Component| {
        let mut n = vec![c.id.clone()];
        let l = c.label();
        if labels[l] == 1 && l.len() >= 3 && l.chars().any(char::is_alphabetic) {
            n.push(l.to_string());
        }
        n.retain(|name| !mentions(&rules, name));
        n
    };
    for text in received {
        let m: Value = serde_json::from_str(text).unwrap();
        let version = match m["type"].as_str().unwrap() {
            "view" => m["version"].as_u64().unwrap() as usize,
            // An answer to P1's own choice names that choice only; a refusal of P1's pace or
            // of a choice on an old view names nothing.
            "accepted" => continue,
            "error" if m["code"] == "too_fast" || m["code"] == "stale" => continue,
            other => panic!("{name}: P1 received {other}: {m}"),
        };
        let e = &expected[version];
        assert_eq!(m["view"], e.view, "{name}: P1's message at version {version} is not P1's view");
        assert_eq!(m["log"], e.log, "{name}: P1's log at version {version} is not P1's log");
        assert_eq!(m["seat"], 0);
        let words: HashSet<&str> = text.split(|c: char| !is_word(c)).collect();
        for c in list.iter().filter(|c| !e.known.contains(&c.id)) {
            for n in names(c) {
                // Only a text holding every word of a name can name it.
                let candidate = n.split(|c: char| !is_word(c)).filter(|w| !w.is_empty()).all(|w| words.contains(w));
                assert!(
                    !candidate || !mentions(text, &n),
                    "{name}: P1 is told `{n}` ({}) at version {version} before seeing it:\n{text}",
                    c.id
                );
            }
        }
    }
    expected.len() - 1
}

/// A character that can be part of a name (an id like `p1-10`).
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// Whether `text` names `name` as a whole word.
fn mentions(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(is_word)
            && !text[i + name.len()..].chars().next().is_some_and(is_word)
    })
}

#[test]
fn serve_refuses_bad_messages_and_keeps_the_table_and_the_server() {
    let server = TestServer::start("bad-messages");
    let created = server.create(json!({"game": "goofspiel", "players": 2, "options": {"cards": 3}}));
    let (p1, p2) = (link(&created, 0), link(&created, 1));
    let mut a = server.connect(&p1);
    let mut b = server.connect(&p2);
    let v0 = a.until("view");
    b.until("view");
    let error = |c: &mut Client, text: &str| {
        c.send(text);
        loop {
            let m = c.next().expect("an answer");
            if m["type"] == "error" {
                return m["code"].as_str().unwrap().to_string();
            }
        }
    };
    assert_eq!(error(&mut a, "{not json"), "bad_message");
    assert_eq!(error(&mut a, r#"{"type":"choose"}"#), "bad_message");
    assert_eq!(error(&mut a, r#"{"type":"choose","option":"p1-1","seat":1}"#), "bad_message");
    assert_eq!(error(&mut a, r#"{"type":"shout"}"#), "bad_message");
    assert_eq!(error(&mut a, &format!(r#"{{"type":"choose","option":"{}"}}"#, "x".repeat(10_000))), "too_long");
    a.ws.send(tungstenite::Message::Binary(vec![1, 2, 3].into())).unwrap();
    assert_eq!(a.until("error")["code"], "bad_message");
    // Another seat's card, a card that is not an option, a view from the future.
    assert_eq!(b.choose("p1-1", None)["code"], "illegal");
    assert_eq!(a.choose("prize-1", None)["code"], "illegal");
    assert_eq!(a.choose("p1-1", Some(99))["code"], "stale");
    // A wrong token opens nothing.
    let (status, _) = server.get("/t/00000000000000000000000000000000");
    assert_eq!(status, 404);
    let (status, _) = server.get("/t/..%2F..%2Fetc%2Fpasswd");
    assert_eq!(status, 404);
    let stream = std::net::TcpStream::connect(server.addr).unwrap();
    let refused = tungstenite::client::client(format!("ws://{}/ws/{}", server.addr, "f".repeat(32)), stream);
    assert!(refused.is_err(), "a WebSocket on an unknown token is refused");

    // A flood on a second connection of the same seat: refused, then cut off. First a burst
    // past the limit, read until its refusal (the server has read all of it by then), then a
    // flood that ends the connection: when the server cuts a connection off with a flood still
    // unread, the reset may drop the refusals queued for the client (seen with the machine
    // loaded), so they are not counted there.
    let mut flood = server.connect(&p1);
    flood.until("view");
    let refresh = |c: &mut Client| c.ws.send(tungstenite::Message::Text(r#"{"type":"refresh"}"#.into())).is_ok();
    for _ in 0..100 {
        assert!(refresh(&mut flood), "the connection holds before the limit's refusals run out");
    }
    let refused = std::iter::from_fn(|| flood.next()).any(|m| m["code"] == "too_fast");
    assert!(refused, "a burst past the limit is refused");
    for _ in 0..300 {
        if !refresh(&mut flood) {
            break;
        }
    }
    while flood.next().is_some() {}
    // A message longer than a frame may be closes that connection only.
    let mut big = server.connect(&p1);
    big.until("view");
    let _ = big.ws.send(tungstenite::Message::Text("x".repeat(200_000).into()));
    assert!(big.next().is_none(), "an oversized frame closes the connection");

    // The table is unharmed: the game goes on from where it was, to the end.
    let (status, _) = server.get("/api/games");
    assert_eq!(status, 200, "the server is up");
    let mine = v0["view"]["pending"]["options"][0]["id"].as_str().unwrap();
    assert_eq!(a.choose(mine, Some(0))["type"], "accepted");
    assert_eq!(a.choose(mine, Some(1))["code"], "illegal", "a seat commits once");
    let deadline = Duration::from_secs(60);
    std::thread::scope(|s| {
        s.spawn(|| play_seat(&mut a, |_| 0, deadline));
        s.spawn(|| play_seat(&mut b, |_| 0, deadline));
    });
    let (_, transcript) = server.get(&format!("{p1}/transcript"));
    replay_ok(&transcript, "bad-messages-replay");
}

/// The lobby offers a variant's own parameters when the variant is chosen: the games list
/// names, per variant, the parameters it declares or changes (Flaschenteufel's Lopaka deals
/// `hand_size` cards, a parameter the base game does not have), and a table with the variant
/// may set them.
#[test]
fn serve_lists_the_parameters_a_variant_adds_and_a_table_sets_them() {
    let server = TestServer::start("variant-params");
    let (_, games) = server.get("/api/games");
    let games: Vec<Value> = serde_json::from_str(&games).unwrap();
    let game = games.iter().find(|g| g["name"] == "flaschenteufel").unwrap();
    let names = |list: &Value| -> Vec<String> {
        list.as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap().to_string()).collect()
    };
    assert!(!names(&game["params"]).contains(&"hand_size".to_string()), "{game}");
    let lopaka = game["variants"].as_array().unwrap().iter().find(|v| v["name"] == "lopaka").unwrap();
    assert_eq!(names(&lopaka["params"]), ["hand_size"], "{lopaka}");
    assert_eq!(lopaka["params"][0]["default"], 11);
    assert_eq!((&lopaka["min_players"], &lopaka["max_players"]), (&json!(2), &json!(2)), "{lopaka}");
    // A parameter the variant leaves as the game has it is not listed again.
    let goofspiel = games.iter().find(|g| g["name"] == "goofspiel").unwrap();
    for v in goofspiel["variants"].as_array().unwrap() {
        for p in v["params"].as_array().unwrap() {
            assert!(!goofspiel["params"].as_array().unwrap().contains(p), "{v}");
        }
    }
    let created = server.create(json!({
        "game": "flaschenteufel", "players": 2, "variants": ["lopaka"], "options": {"hand_size": 9}, "bots": 1
    }));
    assert!(created["seats"][0]["link"].as_str().unwrap().contains("/t/"), "{created}");
    let (status, text) = server
        .post("/api/tables", &json!({"game": "flaschenteufel", "players": 2, "options": {"hand_size": 9}}).to_string());
    assert_eq!(status, 400, "without the variant the parameter is unknown: {text}");
}

#[test]
fn serve_refuses_bad_table_requests() {
    let server = TestServer::start("bad-requests");
    let refused = |body: &str, says: &str| {
        let (status, text) = server.post("/api/tables", body);
        assert_eq!(status, 400, "{body} -> {text}");
        let v: Value = serde_json::from_str(&text).unwrap();
        assert!(v["error"].as_str().unwrap().contains(says), "{body} -> {text}");
    };
    refused("{", "not a table request");
    refused(r#"{"game":"goofspiel","players":2,"colour":"red"}"#, "unknown field");
    refused(r#"{"game":"../games/goofspiel","players":2}"#, "no game");
    refused(r#"{"game":"goofspiel","players":99}"#, "players");
    refused(r#"{"game":"goofspiel","players":2,"variants":["nope"]}"#, "nope");
    refused(r#"{"game":"goofspiel","players":2,"options":{"cards":999}}"#, "cards");
    refused(r#"{"game":"goofspiel","players":2,"options":{"cards":[1]}}"#, "cards");
    refused(r#"{"game":"goofspiel","players":2,"bot":["alphazero"]}"#, "alphazero");
    refused(r#"{"game":"goofspiel","players":2,"bots":3}"#, "bots");
    refused(r#"{"game":"goofspiel","players":2,"bot":["P5=random"]}"#, "P5");
    let (status, _) = server.post("/api/tables", &"x".repeat(100_000));
    assert_eq!(status, 413, "an oversized body is refused");
    let (status, _) = server.get("/nope");
    assert_eq!(status, 404);
    // Bots at every seat play to the end on their own; the seats need no links.
    let created = server.create(json!({"game": "goofspiel", "players": 3, "bots": 3, "bot": ["P1=first"]}));
    assert!(created["seats"].as_array().unwrap().iter().all(|s| s["link"].is_null()));
    assert_eq!(created["seats"][0]["bot"], "first");
    let mut watch = server.connect(created["spectator"].as_str().unwrap());
    let end = watch.until("view");
    let end = if end["transcript"] == true { end } else { watch.view_at_least(39) };
    assert_eq!(end["transcript"], true);
}

/// With a bot delay, bots move one at a time, each a pause after the decision before it, and
/// the table answers in the meantime: a person can follow them, and is not kept waiting.
#[test]
fn serve_paces_bot_moves_and_answers_meanwhile() {
    let delay = Duration::from_millis(200);
    let server = TestServer::start_pacing_bots("paced", delay);
    // Three cards, two bots: six decisions, so six pauses before the end.
    let started = Instant::now();
    let created = server.create(json!({"game": "goofspiel", "players": 2, "bots": 2, "options": {"cards": 3}}));
    let spectator = created["spectator"].as_str().unwrap().to_string();
    let (status, view) = server.get(&format!("{spectator}/view"));
    assert_eq!(status, 200);
    let version = serde_json::from_str::<Value>(&view).unwrap()["version"].as_u64().unwrap();
    assert!(version < 6, "a view is answered while the bots pause (version {version} of 6)");
    let mut watch = server.connect(&spectator);
    let end = watch.view_at_least(6);
    assert_eq!(end["transcript"], true);
    assert!(started.elapsed() >= 6 * delay, "six bot moves took {:?}: no pause between them", started.elapsed());

    // A person between two bots: each bot's move comes a pause after the decision before it.
    let created = server.create(json!({"game": "goofspiel", "players": 3, "bots": 2, "options": {"cards": 2}}));
    let mut p1 = server.connect(&link(&created, 0));
    let first = p1.view_at_least(2);
    let mine = first["view"]["pending"]["options"][0]["id"].as_str().unwrap().to_string();
    let chosen = Instant::now();
    assert_eq!(p1.choose(&mine, None)["type"], "accepted");
    p1.view_at_least(5);
    assert!(chosen.elapsed() >= 2 * delay, "the bots answered in {:?}", chosen.elapsed());
}

/// A finished table that nobody watches is let go of (after `keep_finished`) and comes back,
/// replayed from the store, when one of its links is opened: the same final views and
/// transcript. A restart brings back only the tables in play; a finished one wakes when opened.
#[test]
fn serve_lets_go_of_finished_tables_and_replays_them_when_opened() {
    let server = TestServer::start_keeping_finished("keep-finished", Duration::ZERO);
    let status = |server: &TestServer| {
        let (code, body) = server.get("/api/status");
        assert_eq!(code, 200, "{body}");
        serde_json::from_str::<Value>(&body).unwrap()
    };
    let over = server.create(json!({"game": "goofspiel", "players": 2, "bots": 2, "options": {"cards": 3}}));
    let playing = server.create(json!({"game": "goofspiel", "players": 2, "bots": 1, "options": {"cards": 3}}));
    let spectator = over["spectator"].as_str().unwrap().to_string();
    // Polled over HTTP: a view request does not watch the table.
    let deadline = Instant::now() + Duration::from_secs(30);
    let final_view = loop {
        let (code, body) = server.get(&format!("{spectator}/view"));
        assert_eq!(code, 200, "{body}");
        if serde_json::from_str::<Value>(&body).unwrap()["transcript"] == true {
            break body;
        }
        assert!(Instant::now() < deadline, "the bots' game does not end: {body}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let (_, transcript) = server.get(&format!("{spectator}/transcript"));
    let deadline = Instant::now() + Duration::from_secs(30);
    while status(&server)["in_memory"] != 1 {
        assert!(Instant::now() < deadline, "the finished table is kept: {}", status(&server));
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(status(&server), json!({"tables": 2, "in_memory": 1, "in_play": 1}));

    // Opened again: replayed from the store, the same as it was. The transcript first: the
    // table comes back on its own thread, and the answer waits for it to catch up.
    assert_eq!(server.get(&format!("{spectator}/transcript")), (200, transcript.clone()));
    assert_eq!(server.get(&format!("{spectator}/view")), (200, final_view.clone()));
    // Watched, it is kept.
    let mut watcher = server.connect(&spectator);
    assert_eq!(watcher.until("view")["transcript"], true);
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(status(&server)["in_memory"], 2, "a watched finished table is kept");
    drop(watcher);

    // A restart brings back the table in play only.
    let server = server.restart(Duration::from_secs(600));
    assert_eq!(status(&server), json!({"tables": 2, "in_memory": 1, "in_play": 1}));
    let (code, page) = server.get(&spectator);
    assert_eq!(code, 200, "the table page of a finished table: {page}");
    assert_eq!(status(&server)["in_memory"], 1, "a table page alone does not bring the table back");
    assert_eq!(server.get(&format!("{spectator}/view")), (200, final_view));
    assert_eq!(server.get(&format!("{spectator}/transcript")), (200, transcript));
    assert_eq!(status(&server), json!({"tables": 2, "in_memory": 2, "in_play": 1}));
    // The table in play goes on after the restart.
    let mut person = server.connect(&link(&playing, 0));
    let deadline = Duration::from_secs(30);
    play_seat(&mut person, |_| 0, deadline);
    let (code, _) = server.get(&format!("{}/transcript", link(&playing, 0)));
    assert_eq!(code, 200);
}

/// The real binary, killed with SIGKILL in the middle of a game and started again on the same
/// data folder: every acknowledged decision is there, every link works, the game goes on.
#[test]
fn serve_survives_sigkill_and_restart() {
    /// A server process, killed (SIGKILL) when dropped, so a failing test leaves none behind.
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let data = client::temp_dir("sigkill");
    let start = || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rulebook"))
            .args(["serve", "--addr", "127.0.0.1:0", "--data", data.to_str().unwrap()])
            .current_dir(crate::root())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr: std::net::SocketAddr =
            line.split("http://").nth(1).and_then(|r| r.split('/').next()).unwrap().parse().unwrap();
        (Killed(child), addr)
    };
    let (child, addr) = start();
    let (status, body) = request(
        addr,
        "POST",
        "/api/tables",
        Some(&json!({"game": "goofspiel", "players": 2, "options": {"cards": 4}}).to_string()),
    );
    assert_eq!(status, 201, "{body}");
    let created: Value = serde_json::from_str(&body).unwrap();
    let (p1, p2) = (link(&created, 0), link(&created, 1));
    let mut a = Client::connect(addr, &p1);
    let mut b = Client::connect(addr, &p2);
    // Five acknowledged decisions: two rounds and P1's bid in the third.
    let mut version = 0;
    for k in 0..5 {
        let c = if k % 2 == 0 { &mut a } else { &mut b };
        let v = c.view_at_least(version);
        let id = v["view"]["pending"]["options"][0]["id"].as_str().unwrap().to_string();
        let answer = c.choose(&id, Some(v["version"].as_u64().unwrap()));
        assert_eq!(answer["type"], "accepted", "{answer}");
        version = answer["version"].as_u64().unwrap();
    }
    assert_eq!(version, 5);
    drop(child);
    drop((a, b));

    let (child, addr) = start();
    let mut a = Client::connect(addr, &p1);
    let mut b = Client::connect(addr, &p2);
    let va = a.until("view");
    assert_eq!(va["version"], 5, "every acknowledged decision is back");
    assert!(va["view"]["pending"]["my_commit"].is_string(), "P1's bid in the third round is kept: {va}");
    let vb = b.until("view");
    assert_eq!(vb["view"]["pending"]["committed"], json!([0]));
    let deadline = Duration::from_secs(60);
    std::thread::scope(|s| {
        s.spawn(|| play_seat(&mut a, |_| 0, deadline));
        s.spawn(|| play_seat(&mut b, |_| 0, deadline));
    });
    let (status, transcript) = request(addr, "GET", &format!("{p2}/transcript"), None);
    assert_eq!(status, 200);
    assert!(transcript.lines().filter(|l| l.contains(" chooses ")).count() == 8, "{transcript}");
    replay_ok(&transcript, "sigkill-replay");
    // The server first, then its folder (so too on a panic: `data` was made before `child`).
    drop(child);
    drop(data);
}

/// Many tables of bots at once (run with `cargo test --release --test integration serve_load
/// -- --ignored --nocapture`): all finish without an error; prints decisions a second and the
/// memory the process holds.
#[test]
#[ignore]
fn serve_load_200_tables_of_bots() {
    let tables: usize = std::env::var("SERVE_LOAD_TABLES").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let server = TestServer::start("load");
    let rss = || {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |k: &str| {
            status
                .lines()
                .find(|l| l.starts_with(k))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
                .unwrap_or(0)
        };
        (field("VmRSS:") / 1024, field("VmHWM:") / 1024)
    };
    let before = rss();
    let started = Instant::now();
    let games = [("goofspiel", 3), ("flaschenteufel", 4), ("liars-dice", 2), ("adel-verpflichtet", 3)];
    let spectators: Vec<String> = (0..tables)
        .map(|i| {
            let (game, players) = games[i % games.len()];
            let created = server.create(json!({"game": game, "players": players, "bots": players}));
            created["spectator"].as_str().unwrap().to_string()
        })
        .collect();
    let opened = started.elapsed();
    let mut decisions = 0;
    for s in &spectators {
        loop {
            let (status, body) = server.get(&format!("{s}/view"));
            assert_eq!(status, 200);
            let v: Value = serde_json::from_str(&body).unwrap();
            assert!(v.get("problem").is_none(), "{v}");
            if v["transcript"] == true {
                decisions += v["version"].as_u64().unwrap();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let took = started.elapsed();
    let after = rss();
    eprintln!(
        "{tables} tables of bots ({}) opened in {opened:.2?}, all finished in {took:.2?}: {decisions} decisions, {:.0} decisions/s; \
         memory (RSS) {} MiB before, {} MiB after, peak {} MiB",
        games.iter().map(|(g, p)| format!("{g} x{p}")).collect::<Vec<_>>().join(", "),
        decisions as f64 / took.as_secs_f64(),
        before.0,
        after.0,
        after.1
    );
}
