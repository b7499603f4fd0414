//! A small HTTP/1.1 client and a WebSocket client (tungstenite, blocking) for the server
//! tests, plus a server started in this process on a fresh data folder.

use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};
use tungstenite::{Message, WebSocket};

/// A server running in this test process on loopback, with its own data folder (removed when
/// the server is dropped, after it has stopped).
pub struct TestServer {
    pub running: Option<rulebook::serve::Running>,
    pub addr: SocketAddr,
    /// `None` only while [`TestServer::restart`] hands the folder to the next server.
    pub data: Option<crate::Scratch>,
}

/// A fresh, empty folder under the temp dir, removed when the guard is dropped.
pub fn temp_dir(name: &str) -> crate::Scratch {
    crate::Scratch::new(&format!("serve-{name}"))
}

impl TestServer {
    /// A server whose bots move at once.
    pub fn start(name: &str) -> TestServer {
        TestServer::start_pacing_bots(name, Duration::ZERO)
    }

    /// A server whose bots each move `bot_delay` after the decision before theirs.
    pub fn start_pacing_bots(name: &str, bot_delay: Duration) -> TestServer {
        TestServer::start_on(temp_dir(name), bot_delay, Duration::from_secs(600))
    }

    /// A server whose bots move at once and that lets go of a finished table nobody watches
    /// once it has been over for `keep_finished`.
    pub fn start_keeping_finished(name: &str, keep_finished: Duration) -> TestServer {
        TestServer::start_on(temp_dir(name), Duration::ZERO, keep_finished)
    }

    fn start_on(data: crate::Scratch, bot_delay: Duration, keep_finished: Duration) -> TestServer {
        let config = rulebook::serve::Config {
            games_dir: crate::root().join("games"),
            addr: "127.0.0.1:0".parse().unwrap(),
            data: data.to_path_buf(),
            bot_delay,
            keep_finished,
        };
        let running = rulebook::serve::start(&config).unwrap();
        TestServer { addr: running.addr, running: Some(running), data: Some(data) }
    }

    /// Stops this server and starts another on its data folder (as a restart would), with
    /// bots that move at once and `keep_finished`. The store's lock is free once the old
    /// server's threads have ended: tried again until then.
    pub fn restart(mut self, keep_finished: Duration) -> TestServer {
        self.running.take();
        let data = self.data.take().expect("a server holds its data folder");
        let config = |data: &crate::Scratch| rulebook::serve::Config {
            games_dir: crate::root().join("games"),
            addr: "127.0.0.1:0".parse().unwrap(),
            data: data.to_path_buf(),
            bot_delay: Duration::ZERO,
            keep_finished,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match rulebook::serve::start(&config(&data)) {
                Ok(running) => return TestServer { addr: running.addr, running: Some(running), data: Some(data) },
                Err(e) if Instant::now() > deadline => panic!("the server does not start again: {e}"),
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    pub fn get(&self, path: &str) -> (u16, String) {
        request(self.addr, "GET", path, None)
    }

    pub fn post(&self, path: &str, body: &str) -> (u16, String) {
        request(self.addr, "POST", path, Some(body))
    }

    /// Opens a table; panics unless the server accepts it.
    pub fn create(&self, request: Value) -> Value {
        let (status, body) = self.post("/api/tables", &request.to_string());
        assert_eq!(status, 201, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    pub fn connect(&self, link: &str) -> Client {
        Client::connect(self.addr, link)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        // The server first, then its folder.
        self.running.take();
        self.data.take();
    }
}

/// One HTTP/1.1 request (`Connection: close`): the status and the body.
pub fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let body = body.unwrap_or("");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    // A server may refuse before reading a large body: a failed write is its answer.
    let _ = s.write_all(body.as_bytes());
    // Read the head, then exactly the body its Content-Length announces (some servers keep
    // the connection open), else up to the end.
    let mut raw = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    let mut body_at = None;
    loop {
        if let Some(at) = body_at {
            let head = String::from_utf8_lossy(&raw[..at]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|n| n.trim().parse::<usize>().ok());
            if length.is_some_and(|n| raw.len() >= at + n) {
                break;
            }
        }
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
        if body_at.is_none() {
            body_at = raw.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
        }
    }
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body =
        if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { unchunk(rest) } else { rest.to_string() };
    (status, body)
}

fn unchunk(mut text: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = text.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        text = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// The token of a link (`/t/TOKEN`).
pub fn token(link: &str) -> &str {
    link.trim_start_matches("/t/")
}

/// A browser's WebSocket, without the browser: every text message received is kept.
pub struct Client {
    pub ws: WebSocket<TcpStream>,
    /// Every message received, as sent.
    pub received: Vec<String>,
    /// Views read while waiting for an answer, to be read again.
    backlog: std::collections::VecDeque<Value>,
}

impl Client {
    pub fn connect(addr: SocketAddr, link: &str) -> Client {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let url = format!("ws://{addr}/ws/{}", token(link));
        let (ws, _) = tungstenite::client::client(url, stream).unwrap();
        Client { ws, received: Vec::new(), backlog: Default::default() }
    }

    pub fn send(&mut self, text: &str) {
        self.ws.send(Message::Text(text.into())).unwrap();
    }

    pub fn send_json(&mut self, v: Value) {
        self.send(&v.to_string());
    }

    /// The next message, or `None` once the connection is closed.
    pub fn next(&mut self) -> Option<Value> {
        if let Some(m) = self.backlog.pop_front() {
            return Some(m);
        }
        self.read()
    }

    fn read(&mut self) -> Option<Value> {
        loop {
            match self.ws.read() {
                Ok(Message::Text(t)) => {
                    self.received.push(t.to_string());
                    return Some(serde_json::from_str(&t).unwrap());
                }
                Ok(Message::Close(_)) => return None,
                Ok(_) => continue,
                Err(tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed) => return None,
                Err(tungstenite::Error::Io(e)) if e.kind() == std::io::ErrorKind::ConnectionReset => return None,
                // A connection the server cut off (a flood) may end without a close frame.
                Err(tungstenite::Error::Protocol(tungstenite::error::ProtocolError::ResetWithoutClosingHandshake)) => {
                    return None
                }
                Err(e) => panic!("websocket: {e}"),
            }
        }
    }

    /// Messages until one of type `kind` (which is returned).
    pub fn until(&mut self, kind: &str) -> Value {
        loop {
            let m = self.next().unwrap_or_else(|| panic!("closed before a `{kind}` message"));
            if m["type"] == kind {
                return m;
            }
        }
    }

    /// Messages until a view of at least `version`.
    pub fn view_at_least(&mut self, version: u64) -> Value {
        loop {
            let m = self.until("view");
            if m["version"].as_u64().unwrap() >= version {
                return m;
            }
        }
    }

    /// Chooses and returns the answer (`accepted` or `error`); views that come first are
    /// kept for [`Client::next`].
    pub fn choose(&mut self, option: &str, version: Option<u64>) -> Value {
        let mut m = serde_json::json!({ "type": "choose", "option": option });
        if let Some(v) = version {
            m["version"] = v.into();
        }
        self.send_json(m);
        loop {
            let m = self.read().expect("an answer");
            if m["type"] != "view" {
                return m;
            }
            self.backlog.push_back(m);
        }
    }
}

/// Plays one seat to the end of the game: at each view offering options (and not yet
/// answered), picks one with `pick` (from the options), until a view says the game is over.
/// Returns the last view message.
pub fn play_seat(client: &mut Client, mut pick: impl FnMut(&[Value]) -> usize, deadline: Duration) -> Value {
    let started = Instant::now();
    // The current view first (whatever was read before).
    client.send_json(serde_json::json!({ "type": "refresh" }));
    // The first version a choice may be made on (after the last one accepted).
    let mut floor = 0;
    let mut last_acted = None;
    loop {
        assert!(started.elapsed() < deadline, "the game did not end within {deadline:?}");
        let m = client.next().expect("the connection stays open until the game ends");
        match m["type"].as_str().unwrap() {
            "view" => {
                if m["transcript"] == true {
                    return m;
                }
                assert!(m.get("problem").is_none(), "the table stopped: {m}");
                let version = m["version"].as_u64().unwrap();
                let options = m["view"]["pending"]["options"].as_array().cloned().unwrap_or_default();
                if options.is_empty() || version < floor || last_acted == Some(version) {
                    continue;
                }
                last_acted = Some(version);
                let i = pick(&options);
                let id = options[i]["id"].as_str().unwrap().to_string();
                let mut answer = client.choose(&id, Some(version));
                // A client that plays faster than the server takes waits and asks again.
                while answer["code"] == "too_fast" {
                    std::thread::sleep(Duration::from_millis(200));
                    answer = client.choose(&id, Some(version));
                }
                match answer["type"].as_str().unwrap() {
                    "accepted" => floor = answer["version"].as_u64().unwrap(),
                    "error" if answer["code"] == "stale" || answer["code"] == "over" => {}
                    _ => panic!("choosing `{id}` at version {version}: {answer}"),
                }
            }
            "error" => panic!("unexpected error: {m}"),
            _ => {}
        }
    }
}
