//! `rulebook serve`: a web table for any game. A lobby creates tables; each seat gets a
//! private link (a 128-bit token) and spectators a link of their own; pages show a seat's
//! view and its options and update live over a WebSocket.
//!
//! The parts, one job each: [`catalog`] (the games offered), [`store`] (SQLite: one row per
//! table, one per decision), [`table`] (a game on its own thread: decisions stored before
//! they are acknowledged, bots, one feed of view messages per viewer), [`protocol`] (the JSON
//! messages; a seat's messages hold only its view), [`http`] (routes), [`ws`] (a browser's
//! connection), [`assets`] (the pages, embedded), [`token`] (secrets from the OS).
//!
//! Only sessions and views are used: a page never receives anything from the state.

pub mod assets;
pub mod catalog;
pub mod http;
pub mod protocol;
pub mod store;
pub mod table;
pub mod token;
pub mod ws;

use crate::bot::BotTable;
use catalog::Catalog;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use store::{Store, TableConfig};
use table::Table;

/// How to serve.
#[derive(Clone, Debug)]
pub struct Config {
    /// The folder of the games the lobby offers.
    pub games_dir: PathBuf,
    /// The address to listen on (port 0: any free port).
    pub addr: SocketAddr,
    /// The folder of the database.
    pub data: PathBuf,
    /// The pause before each bot move at a table, so that the people at it can follow the
    /// bots' moves one by one (zero: bots move at once).
    pub bot_delay: Duration,
    /// How long a finished table that nobody watches stays in memory; after that, the server
    /// lets go of it and replays it from the store when someone opens it again.
    pub keep_finished: Duration,
}

/// Most tables playing at once (finished tables do not count).
pub const MAX_TABLES_IN_PLAY: usize = 2_000;

/// The server's tables and what it needs to make more.
pub struct Server {
    catalog: Catalog,
    store: Arc<Store>,
    /// The pause before each bot move ([`Config::bot_delay`]).
    bot_delay: Duration,
    /// How long a finished table nobody watches is kept ([`Config::keep_finished`]).
    keep_finished: Duration,
    /// Token -> the stored table and the seat it acts for (`None`: a spectators' link).
    links: RwLock<HashMap<String, Opens>>,
    /// The tables in memory (a finished one until it is let go of).
    loaded: Mutex<Vec<Arc<Entry>>>,
}

/// What a link opens: a table, and the seat it acts for (`None`: spectators).
pub type Link = (Arc<Table>, Option<usize>);

/// What a token opens: a stored table, and the seat the token acts for (`None`: spectators).
type Opens = (Arc<Entry>, Option<usize>);

/// A table the server knows: how it was set up, and its game while it is in memory.
struct Entry {
    id: String,
    config: TableConfig,
    /// The table, while it is in memory; `None` for a finished table not opened since the
    /// server started or let go of since ([`Config::keep_finished`]).
    table: Mutex<Option<Arc<Table>>>,
}

impl Entry {
    fn loaded(&self) -> Option<Arc<Table>> {
        self.table.lock().ok()?.clone()
    }
}

/// How many tables the server has (`GET /api/status`).
#[derive(Debug, Serialize)]
pub struct Status {
    /// Every table in the store.
    pub tables: usize,
    /// The tables in memory (in play, or finished and still kept).
    pub in_memory: usize,
    /// The tables whose games are going on.
    pub in_play: usize,
}

/// A request to open a table: the game as `rulebook play` takes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRequest {
    /// The game's folder name.
    pub game: String,
    /// Seats.
    pub players: usize,
    /// Variants, in order.
    #[serde(default)]
    pub variants: Vec<String>,
    /// Parameter values (strings, numbers or booleans).
    #[serde(default)]
    pub options: indexmap::IndexMap<String, serde_json::Value>,
    /// The last N seats are bots (as `--bots N`).
    #[serde(default)]
    pub bots: usize,
    /// `--bot` entries: `NAME[:K=V,...]` for every bot seat, `P2=NAME...` for one seat (which
    /// makes it a bot seat).
    #[serde(default)]
    pub bot: Vec<String>,
    /// `--bot-option KEY=VALUE` entries.
    #[serde(default)]
    pub bot_option: Vec<String>,
}

/// The answer to a [`CreateRequest`]: the links to hand out.
#[derive(Debug, Serialize)]
pub struct Created {
    /// Table id.
    pub table: String,
    /// The game's title.
    pub title: String,
    /// Each seat, with its private link (people) or its bot.
    pub seats: Vec<SeatLink>,
    /// The spectators' link (the public view only).
    pub spectator: String,
}

/// One seat of a new table.
#[derive(Debug, Serialize)]
pub struct SeatLink {
    /// Seat name.
    pub name: String,
    /// The private link (a path), for a person's seat.
    pub link: Option<String>,
    /// The bot, for a bot's seat.
    pub bot: Option<String>,
}

impl Server {
    /// Opens the store in `config.data` and brings back every table in play in it; a
    /// finished table comes back when someone opens one of its links.
    pub fn open(config: &Config) -> Result<Arc<Server>, String> {
        let (store, stored) = Store::open(&config.data)?;
        let server = Arc::new(Server {
            catalog: Catalog::new(config.games_dir.clone()),
            store: Arc::new(store),
            bot_delay: config.bot_delay,
            keep_finished: config.keep_finished,
            links: RwLock::default(),
            loaded: Mutex::default(),
        });
        let (mut restored, mut finished) = (0, 0);
        for t in stored {
            let entry = Arc::new(Entry { id: t.id, config: t.config, table: Mutex::new(None) });
            if t.finished {
                finished += 1;
            } else {
                match server.load(&entry, t.decisions) {
                    Ok(_) => restored += 1,
                    Err(e) => {
                        eprintln!("table {} is not restored: {e}", entry.id);
                        continue;
                    }
                }
            }
            server.register(entry);
        }
        if restored + finished > 0 {
            eprintln!(
                "restored {restored} table(s) in play from {} ({finished} finished: each comes back when opened)",
                config.data.join(store::FILE_NAME).display()
            );
        }
        Ok(server)
    }

    /// An entry's table, started: its game from the catalog, `decisions` replayed. `over`:
    /// the store knows its game is over.
    fn start(&self, entry: &Entry, decisions: Vec<store::Decision>, over: bool) -> Result<Arc<Table>, String> {
        let c = &entry.config;
        let game = self.catalog.load(&c.game, &c.variants, &c.options)?;
        Table::start(entry.id.clone(), c.clone(), game, (decisions, over), self.store.clone(), self.bot_delay)
    }

    /// Starts an entry's table in play and keeps it in memory.
    fn load(&self, entry: &Arc<Entry>, decisions: Vec<store::Decision>) -> Result<Arc<Table>, String> {
        let table = self.start(entry, decisions, false)?;
        *entry.table.lock().map_err(|_| BROKEN)? = Some(table.clone());
        self.loaded.lock().map_err(|_| BROKEN)?.push(entry.clone());
        Ok(table)
    }

    /// An entry's table: the one in memory, else the finished game replayed from the store.
    fn wake(&self, entry: &Arc<Entry>) -> Result<Arc<Table>, String> {
        // One waker at a time per table; the others then find it loaded.
        let mut slot = entry.table.lock().map_err(|_| BROKEN)?;
        if let Some(t) = slot.as_ref() {
            return Ok(t.clone());
        }
        let table = self.start(entry, self.store.decisions(&entry.id)?, true)?;
        *slot = Some(table.clone());
        drop(slot);
        self.loaded.lock().map_err(|_| BROKEN)?.push(entry.clone());
        self.let_go();
        Ok(table)
    }

    /// Lets go of the finished tables kept longer than [`Config::keep_finished`] that nobody
    /// watches (each comes back from the store when someone opens it).
    fn let_go(&self) {
        let Ok(mut loaded) = self.loaded.lock() else { return };
        loaded.retain(|entry| {
            let Ok(mut slot) = entry.table.lock() else { return true };
            match slot.as_ref() {
                Some(t) if t.unloadable(self.keep_finished) => {
                    *slot = None;
                    false
                }
                Some(_) => true,
                None => false,
            }
        });
    }

    /// How many tables there are, in memory and in play.
    pub fn status(&self) -> Status {
        self.let_go();
        let tables = self.links.read().map(|l| l.values().filter(|(_, s)| s.is_none()).count()).unwrap_or(0);
        let loaded = self.loaded.lock().map(|l| l.iter().filter_map(|e| e.loaded()).collect::<Vec<_>>());
        let loaded = loaded.unwrap_or_default();
        Status { tables, in_memory: loaded.len(), in_play: loaded.iter().filter(|t| t.in_play()).count() }
    }

    /// The games offered.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    fn register(&self, entry: Arc<Entry>) {
        let Ok(mut links) = self.links.write() else { return };
        for (seat, token) in entry.config.tokens.iter().enumerate().filter(|(_, t)| !t.is_empty()) {
            links.insert(token.clone(), (entry.clone(), Some(seat)));
        }
        links.insert(entry.config.spectator.clone(), (entry.clone(), None));
    }

    fn entry(&self, token: &str) -> Option<Opens> {
        if !token::looks_like_token(token) {
            return None;
        }
        self.links.read().ok()?.get(token).cloned()
    }

    /// Whether a token opens a table here (without bringing the table back into memory).
    pub fn knows(&self, token: &str) -> bool {
        self.entry(token).is_some()
    }

    /// The table a token opens, and the seat it acts for. A finished table that is not in
    /// memory is replayed from the store first (off the async threads); one that can no longer
    /// be replayed (its game's files are gone) opens nothing, and the log says why.
    pub async fn link(self: &Arc<Self>, token: &str) -> Option<Link> {
        let (entry, seat) = self.entry(token)?;
        if let Some(table) = entry.loaded() {
            return Some((table, seat));
        }
        let server = self.clone();
        let woken = tokio::task::spawn_blocking(move || {
            server.wake(&entry).map_err(|e| eprintln!("table {} is not restored: {e}", entry.id)).ok()
        });
        Some((woken.await.ok()??, seat))
    }

    /// Opens a table (blocking: loads the game, stores the table). The error says what is
    /// wrong with the request.
    pub fn create(&self, req: CreateRequest) -> Result<Created, String> {
        let options: Vec<(String, String)> = req
            .options
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => Ok((k.clone(), s.clone())),
                serde_json::Value::Number(n) => Ok((k.clone(), n.to_string())),
                serde_json::Value::Bool(b) => Ok((k.clone(), b.to_string())),
                _ => Err(format!("option `{k}`: give a string, a number or a boolean")),
            })
            .collect::<Result<_, _>>()?;
        let game = self.catalog.load(&req.game, &req.variants, &options)?;
        let bots = BotTable::parse(&req.bot, &req.bot_option)?;
        if req.bots > req.players {
            return Err(format!("bots {} is more than players {}", req.bots, req.players));
        }
        bots.check(&game, req.players)?;
        // The game must start with these seats (player counts, the game's own checks).
        crate::Session::new(&game, req.players, 0, false).map_err(|e| e.to_string())?;
        self.let_go();
        let in_play =
            self.loaded.lock().map_err(|_| BROKEN)?.iter().filter(|e| e.loaded().is_some_and(|t| t.in_play())).count();
        if in_play >= MAX_TABLES_IN_PLAY {
            return Err(format!("{in_play} tables are playing: this server takes no more until some finish"));
        }
        let is_bot = |p: usize| p >= req.players - req.bots || bots.seats.iter().any(|(s, _)| *s == p);
        let bot_specs: Vec<Option<String>> =
            (0..req.players).map(|p| is_bot(p).then(|| bots.spec(p).to_string())).collect();
        let tokens = (0..req.players)
            .map(|p| if is_bot(p) { Ok(String::new()) } else { token::new_token() })
            .collect::<Result<Vec<_>, _>>()?;
        let config = TableConfig {
            game: req.game.clone(),
            variants: req.variants.clone(),
            options,
            players: req.players,
            seed: token::new_seed()?,
            bots: bot_specs.clone(),
            tokens: tokens.clone(),
            spectator: token::new_token()?,
            created: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
        };
        let id = token::new_table_id()?;
        self.store.add_table(&id, &config)?;
        let spectator = format!("/t/{}", config.spectator);
        let entry = Arc::new(Entry { id: id.clone(), config, table: Mutex::new(None) });
        self.load(&entry, Vec::new())?;
        self.register(entry);
        Ok(Created {
            table: id,
            title: game.rules.title.clone(),
            seats: (0..req.players)
                .map(|p| SeatLink {
                    name: game.rules.seat_name(p),
                    link: (!tokens[p].is_empty()).then(|| format!("/t/{}", tokens[p])),
                    bot: bot_specs[p].clone(),
                })
                .collect(),
            spectator,
        })
    }
}

const BROKEN: &str = "the server is broken (a thread stopped while holding its tables)";

/// A server running in the background (tests, embedding): its address. Dropping it stops
/// the listener.
pub struct Running {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    // Scripts may run on these threads (a game checked as a table opens): give them the
    // stack scripts need.
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(crate::script::SCRIPT_STACK_BYTES)
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))
}

/// Starts serving in the background and returns once the address is bound.
pub fn start(config: &Config) -> Result<Running, String> {
    let server = Server::open(config)?;
    let rt = runtime()?;
    let listener = rt
        .block_on(tokio::net::TcpListener::bind(config.addr))
        .map_err(|e| format!("cannot listen on {}: {e}", config.addr))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("rulebook-serve".into())
        .spawn(move || {
            let app = http::router(server);
            let _ = rt.block_on(async move {
                axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await
            });
            rt.shutdown_background();
        })
        .map_err(|e| format!("cannot start the server: {e}"))?;
    Ok(Running { addr, stop: Some(stop), thread: Some(thread) })
}

/// Serves until the process is stopped; `ready` is called with the bound address.
pub fn run(config: &Config, ready: impl FnOnce(SocketAddr)) -> Result<(), String> {
    let server = Server::open(config)?;
    let rt = runtime()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", config.addr))?;
        ready(listener.local_addr().map_err(|e| e.to_string())?);
        axum::serve(listener, http::router(server)).await.map_err(|e| format!("the server stopped: {e}"))
    })
}
