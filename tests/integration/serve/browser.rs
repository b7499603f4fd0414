//! The table page in a real browser: headless Chromium driven over WebDriver (Debian's
//! `chromium` and `chromium-driver`; `.ci/run` installs them and sets RULEBOOK_REQUIRE_BROWSER,
//! which makes a missing browser a failure). Elsewhere, without them, the tests say loudly
//! that they were skipped.
//!
//! The WebDriver client is the few W3C commands these tests need, over the tests' HTTP client.

use super::client::{request, TestServer};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The browser binary, if installed.
fn chromium() -> Option<&'static str> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file())
}

fn chromedriver() -> Option<&'static str> {
    ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"].into_iter().find(|p| std::path::Path::new(p).is_file())
}

/// A running chromedriver (killed on drop).
struct Driver {
    child: Child,
    addr: SocketAddr,
    browser: &'static str,
}

impl Driver {
    /// Starts chromedriver, or says loudly why the browser test is skipped.
    fn start(test: &str) -> Option<Driver> {
        let (Some(browser), Some(driver)) = (chromium(), chromedriver()) else {
            // CI installs them (.ci/run) and says so: there a missing browser is a failure.
            assert!(
                std::env::var_os("RULEBOOK_REQUIRE_BROWSER").is_none(),
                "{test}: RULEBOOK_REQUIRE_BROWSER is set but chromium or chromedriver is missing"
            );
            eprintln!(
                "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
                 !! SKIPPED {test}: no headless Chromium here.\n\
                 !! Install it with: apt-get install -y chromium chromium-driver (.ci/run does).\n\
                 !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
            );
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let started = Instant::now();
        while std::net::TcpStream::connect(addr).is_err() {
            assert!(started.elapsed() < Duration::from_secs(20), "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(Driver { child, addr, browser })
    }

    /// A new browser window (its own session).
    fn session(&self, width: u32, height: u32) -> Browser {
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": self.browser,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--hide-scrollbars", format!("--window-size={width},{height}")]
            }
        }}});
        let answer = call(self.addr, "POST", "/session", Some(caps));
        let id = answer["sessionId"].as_str().unwrap_or_else(|| panic!("no WebDriver session: {answer}")).to_string();
        Browser { driver: self.addr, id }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn call(addr: SocketAddr, method: &str, path: &str, body: Option<Value>) -> Value {
    let body = body.map(|b| b.to_string());
    let (status, text) = request(addr, method, path, body.as_deref());
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("WebDriver {method} {path}: {status} {text}"));
    assert!(status == 200, "WebDriver {method} {path}: {status} {text}");
    v["value"].clone()
}

/// One browser session.
struct Browser {
    driver: SocketAddr,
    id: String,
}

impl Browser {
    fn cmd(&self, method: &str, what: &str, body: Option<Value>) -> Value {
        call(self.driver, method, &format!("/session/{}/{what}", self.id), body)
    }

    fn open(&self, url: &str) {
        self.cmd("POST", "url", Some(json!({ "url": url })));
    }

    fn js(&self, script: &str) -> Value {
        self.cmd("POST", "execute/sync", Some(json!({ "script": script, "args": [] })))
    }

    /// Clicks the first element matching a CSS selector (a real click, through WebDriver).
    /// The page may draw itself anew between finding the element and clicking it (a view
    /// came in): the element is then stale, and is found again.
    fn click(&self, css: &str) {
        for _ in 0..10 {
            let found = self.cmd("POST", "element", Some(json!({ "using": "css selector", "value": css })));
            let id = found.as_object().and_then(|o| o.values().next()).and_then(Value::as_str).unwrap().to_string();
            let path = format!("/session/{}/element/{id}/click", self.id);
            let (status, text) = request(self.driver, "POST", &path, Some("{}"));
            if status == 200 {
                return;
            }
            assert!(text.contains("stale element reference"), "WebDriver POST {path}: {status} {text}");
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("`{css}` went stale ten times in a row: the page keeps drawing itself anew");
    }

    /// A PNG of the whole page, beyond the window (Chromium's DevTools capture).
    fn screenshot(&self) -> Vec<u8> {
        let shot = self.cmd(
            "POST",
            "goog/cdp/execute",
            Some(json!({ "cmd": "Page.captureScreenshot", "params": { "captureBeyondViewport": true, "format": "png" } })),
        );
        base64(shot["data"].as_str().unwrap())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = request(self.driver, "DELETE", &format!("/session/{}", self.id), None);
    }
}

fn base64(text: &str) -> Vec<u8> {
    let digit = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text.bytes().filter(|c| !b"=\r\n".contains(c)).collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let n = chunk.iter().fold(0u32, |n, c| (n << 6) | u32::from(digit(*c))) << (6 * (4 - chunk.len()));
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    out
}

/// What a table page shows now: read from the page's own DOM.
const PAGE_STATE: &str = r#"
const ids = (css) => [...document.querySelectorAll(css)].map((c) => c.dataset.id);
return {
  over: !!document.querySelector(".turn h2.over"),
  options: [...document.querySelectorAll("button.option:not([disabled])")].map((b) => b.dataset.option),
  me: (document.querySelector(".seat-area.me") || {}).dataset?.seat ?? null,
  myHand: ids(".seat-area.me [data-zone=hand] .card:not(.back)"),
  otherHands: ids(".seat-area:not(.me) [data-zone=hand] .card:not(.back)"),
  otherBacks: document.querySelectorAll(".seat-area:not(.me) [data-zone=hand] .card.back").length,
  waiting: document.querySelector(".waiting-for")?.textContent ?? "",
  transcript: !!document.querySelector("a[href$='/transcript']"),
  live: document.getElementById("link").dataset.state,
};"#;

fn state(b: &Browser) -> Value {
    b.js(PAGE_STATE)
}

#[test]
fn serve_browser_plays_a_goofspiel_by_clicking_two_seats() {
    let Some(driver) = Driver::start("serve_browser_plays_a_goofspiel_by_clicking_two_seats") else { return };
    let server = TestServer::start("browser");
    let created = server.create(json!({"game": "goofspiel", "players": 2, "options": {"cards": 4}}));
    let url = |seat: usize| format!("http://{}{}", server.addr, created["seats"][seat]["link"].as_str().unwrap());
    let pages = [driver.session(1100, 900), driver.session(1100, 900)];
    for (seat, page) in pages.iter().enumerate() {
        page.open(&url(seat));
    }
    let started = Instant::now();
    let mut clicks = [0; 2];
    let mut saw_waiting = false;
    loop {
        assert!(started.elapsed() < Duration::from_secs(120), "the game did not end by clicking");
        let states: Vec<Value> = pages.iter().map(state).collect();
        for (seat, s) in states.iter().enumerate() {
            // A page is live when its socket opens, which may be before its first view
            // arrives (it does not know its seat yet): looked at again next time.
            if s["live"] != "live" || s["me"].is_null() {
                continue;
            }
            let own = format!("p{}-", seat + 1);
            // Each page shows its own hand and never the other's.
            assert!(s["myHand"].as_array().unwrap().iter().all(|id| id.as_str().unwrap().starts_with(&own)), "{s}");
            assert!(s["otherHands"].as_array().unwrap().is_empty(), "seat {} sees another hand: {s}", seat + 1);
            if !s["over"].as_bool().unwrap() {
                assert_eq!(s["me"], seat.to_string(), "{s}");
                let hand = s["myHand"].as_array().unwrap().len();
                // One card fewer a round (the page may not have heard of the last click yet).
                assert!((4..=5).contains(&(hand + clicks[seat])), "the hand shrinks by one card a round: {s}");
            }
            saw_waiting |= s["waiting"].as_str().unwrap().contains("Waiting for 1 player");
        }
        if states.iter().all(|s| s["over"] == true) {
            assert!(states.iter().all(|s| s["transcript"] == true));
            break;
        }
        // One click per look at the pages, so each page is seen waiting for the other.
        // Seat 1 clicks the option buttons, seat 2 the playable card in its hand.
        if let Some(seat) = states.iter().position(|s| !s["options"].as_array().unwrap().is_empty()) {
            pages[seat].click(if seat == 0 { "button.option" } else { ".card.playable" });
            clicks[seat] += 1;
        }
        std::thread::sleep(Duration::from_millis(150));
    }
    assert_eq!(clicks, [4, 4]);
    assert!(saw_waiting, "a page said it was waiting for the other player");
    let dir = crate::root().join("target/serve-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("goofspiel-over.png"), pages[0].screenshot()).unwrap();
}

/// Every bundled game's table page after a few decisions, as P1 sees it (bots at the other
/// seats), saved under target/serve-screenshots/ (and `interpreter/docs/serve/` with
/// RULEBOOK_SCREENSHOTS=update). The page must draw: cards, the seat's area, options or a wait.
#[test]
fn serve_browser_draws_every_bundled_game() {
    let Some(driver) = Driver::start("serve_browser_draws_every_bundled_game") else { return };
    let server = TestServer::start("browser-games");
    let (_, games) = server.get("/api/games");
    let games: Vec<Value> = serde_json::from_str(&games).unwrap();
    let out = crate::root().join("target/serve-screenshots");
    std::fs::create_dir_all(&out).unwrap();
    let docs = crate::root().join("interpreter/docs/serve");
    let update = std::env::var("RULEBOOK_SCREENSHOTS").is_ok_and(|v| v == "update");
    let page = driver.session(1280, 900);
    // The lobby: pick a game, make P2 a bot, open the table, get the links.
    page.open(&format!("http://{}/", server.addr));
    let started = Instant::now();
    while page.js("return document.querySelectorAll('#game option').length").as_u64() != Some(games.len() as u64) {
        assert!(started.elapsed() < Duration::from_secs(20), "the lobby lists no games");
        std::thread::sleep(Duration::from_millis(100));
    }
    // The menu gives each game's seats with its variants' (Flaschenteufel is for 3-4, Lopaka
    // and Casa Luminosa for 2).
    let label = page.js("return document.querySelector('#game option[value=flaschenteufel]').textContent");
    assert_eq!(label, "Flaschenteufel (2–4)", "{label}");
    // Choosing a variant offers its own parameters; a typed value stays while it is offered.
    let offered = page.js(
        "const g = document.getElementById('game'); g.value = 'flaschenteufel'; g.dispatchEvent(new Event('change')); \
         const names = () => [...document.querySelectorAll('#params [data-param]')].map((i) => i.dataset.param); \
         const box = document.querySelector('#variants input[value=lopaka]'); \
         const before = names(); box.click(); const with_it = names(); \
         const seats = document.querySelectorAll('.seat').length; \
         document.querySelector('[data-param=target]').value = '7'; box.click(); box.click(); \
         const kept = document.querySelector('[data-param=target]').value; \
         const dealt = document.querySelector('[data-param=hand_size]').value; box.click(); \
         return { before, with_it, after: names(), kept, dealt, seats };",
    );
    let has = |key: &str| offered[key].as_array().unwrap().iter().any(|p| p == "hand_size");
    assert!(!has("before") && has("with_it") && !has("after"), "{offered}");
    assert_eq!(offered["kept"], "7", "{offered}");
    assert_eq!(offered["dealt"], "11", "{offered}");
    assert_eq!(offered["seats"], 2, "Lopaka is for two: {offered}");
    page.js("document.querySelector('#variants input[value=lopaka]').click();");
    std::fs::write(out.join("lobby-variant.png"), page.screenshot()).unwrap();
    page.js(
        "const g = document.getElementById('game'); g.value = [...g.options].find((o) => o.value.length > 0 && !o.disabled).value; \
         g.dispatchEvent(new Event('change')); \
         const p = document.getElementById('players'); p.value = p.min; p.dispatchEvent(new Event('input')); \
         const s = document.querySelectorAll('.seat select')[1]; s.value = 'random'; s.dispatchEvent(new Event('change'));",
    );
    std::fs::write(out.join("lobby.png"), page.screenshot()).unwrap();
    page.click("#open");
    let started = Instant::now();
    let links = loop {
        let l = page.js("return [...document.querySelectorAll('#links li')].map((li) => li.textContent)");
        if l.as_array().is_some_and(|l| !l.is_empty()) {
            break l;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "the lobby opened no table");
        std::thread::sleep(Duration::from_millis(100));
    };
    let links: Vec<&str> = links.as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert!(links[0].starts_with("P1") && links[0].contains("/t/"), "{links:?}");
    assert!(links.iter().any(|l| l.contains("bot random")), "{links:?}");
    assert!(links.last().unwrap().starts_with("Spectators") && links.last().unwrap().contains("/t/"), "{links:?}");
    std::fs::write(out.join("lobby-links.png"), page.screenshot()).unwrap();
    for g in &games {
        let name = g["name"].as_str().unwrap();
        let players = g["min_players"].as_u64().unwrap().max(3).min(g["max_players"].as_u64().unwrap());
        let created = server.create(json!({"game": name, "players": players, "bots": players - 1}));
        page.open(&format!("http://{}{}", server.addr, created["seats"][0]["link"].as_str().unwrap()));
        // A few decisions in, so the table has something on it.
        let started = Instant::now();
        let mut clicks = 0;
        while clicks < 4 && started.elapsed() < Duration::from_secs(60) {
            let s = state(&page);
            if s["over"] == true {
                break;
            }
            if s["options"].as_array().is_some_and(|o| !o.is_empty()) {
                page.click("button.option");
                clicks += 1;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        std::thread::sleep(Duration::from_millis(300));
        let drawn = page.js(
            "return {cards: document.querySelectorAll('.card').length, areas: document.querySelectorAll('.seat-area').length, \
             turn: document.getElementById('turn').textContent, log: document.querySelectorAll('#log li').length}",
        );
        assert!(drawn["cards"].as_u64().unwrap() > 0, "{name}: no cards drawn: {drawn}");
        assert!(drawn["turn"].as_str().unwrap().len() > 5, "{name}: nothing about whose turn it is: {drawn}");
        let png = page.screenshot();
        assert!(png.starts_with(b"\x89PNG") && png.len() > 20_000, "{name}: the screenshot is not a page");
        std::fs::write(out.join(format!("{name}.png")), &png).unwrap();
        // The first screenful too, at full size, to look at closely.
        let top = base64(page.cmd("GET", "screenshot", None).as_str().unwrap());
        std::fs::write(out.join(format!("{name}-top.png")), &top).unwrap();
        if update {
            std::fs::create_dir_all(&docs).unwrap();
            std::fs::write(docs.join(format!("{name}.png")), &png).unwrap();
        }
    }
}
