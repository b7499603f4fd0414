//! The tables' store: one SQLite file (`tables.sqlite3` in the data folder) with one row per
//! table (its configuration: game, variants, options, seats, seed, links; and whether its game
//! is over) and one row per decision. A game is its configuration and its decisions: the
//! server rebuilds a table by replaying them, a table in play when it starts, a finished one
//! when someone opens it ([`Store::decisions`]).
//!
//! One writer thread owns the connection. A decision is acknowledged only once the
//! transaction holding it is committed (WAL journal, `synchronous = FULL`); decisions that
//! arrive together are committed together (one sync for many tables). The database is held
//! in exclusive locking mode, so a second server cannot write the same folder.

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::mpsc;

/// How a table was set up: everything needed to start its game again, and its links.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct TableConfig {
    /// The game's name in the games folder.
    pub game: String,
    /// Variants, in order.
    pub variants: Vec<String>,
    /// Parameter values.
    pub options: Vec<(String, String)>,
    /// Seats.
    pub players: usize,
    /// The game's seed (from the OS generator; never sent to a client before the end).
    pub seed: u64,
    /// Per seat: the bot spec (`mcts:iterations=200`), or `None` for a person.
    pub bots: Vec<Option<String>>,
    /// Per seat: the token of its private link (empty for a bot seat).
    pub tokens: Vec<String>,
    /// The token of the spectators' link.
    pub spectator: String,
    /// When the table was created (seconds since 1970).
    pub created: u64,
}

/// One stored table: its id, its configuration and its decisions so far.
#[derive(Clone, Debug)]
pub struct StoredTable {
    /// Table id.
    pub id: String,
    /// Configuration.
    pub config: TableConfig,
    /// Whether its game is over ([`Store::mark_finished`]).
    pub finished: bool,
    /// Decisions in order; left out (empty) for a finished table, which [`Store::decisions`]
    /// reads when it is needed.
    pub decisions: Vec<Decision>,
}

/// One decision as stored: the seat and the option id it chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Seat (0-based).
    pub seat: usize,
    /// Option id.
    pub option: String,
}

/// Where the tables are kept. Cheap to share between threads; every call blocks until the
/// write is committed.
pub struct Store {
    jobs: mpsc::Sender<Job>,
}

/// What the writer thread does for a caller, and whom it answers.
enum Job {
    /// A write, answered once it is durable.
    Write { write: Write, done: mpsc::SyncSender<Result<(), String>> },
    /// The decisions of a table, read after the writes that came before.
    Read { table: String, reply: mpsc::SyncSender<Result<Vec<Decision>, String>> },
}

enum Write {
    Table { id: String, config: String },
    Decisions { table: String, first: usize, decisions: Vec<Decision> },
    Finished { table: String },
}

/// The name of the database file in the data folder.
pub const FILE_NAME: &str = "tables.sqlite3";

/// Most writes committed in one transaction.
const BATCH: usize = 512;

impl Store {
    /// Opens (creating if needed) the store in `dir` and reads every table back.
    pub fn open(dir: &Path) -> Result<(Store, Vec<StoredTable>), String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create the data folder {}: {e}", dir.display()))?;
        let path = dir.join(FILE_NAME);
        let fail = |e: rusqlite::Error| format!("{}: {e}", path.display());
        let conn = Connection::open(&path).map_err(fail)?;
        conn.execute_batch(
            "PRAGMA locking_mode = EXCLUSIVE;
             PRAGMA journal_mode = WAL;
             PRAGMA synchronous = FULL;
             CREATE TABLE IF NOT EXISTS tables (
                 id TEXT PRIMARY KEY,
                 config TEXT NOT NULL,
                 finished INTEGER NOT NULL DEFAULT 0
             );
             CREATE TABLE IF NOT EXISTS decisions (
                 table_id TEXT NOT NULL,
                 n INTEGER NOT NULL,
                 seat INTEGER NOT NULL,
                 option TEXT NOT NULL,
                 PRIMARY KEY (table_id, n)
             );",
        )
        .map_err(|e| match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => format!(
                "{}: the database is in use (is another `rulebook serve` running on this --data folder?)",
                path.display()
            ),
            _ => fail(e),
        })?;
        add_finished_column(&conn).map_err(fail)?;
        let tables = read_all(&conn).map_err(fail)?;
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("rulebook-store".into())
            .spawn(move || writer(conn, rx))
            .map_err(|e| format!("cannot start the store's writer: {e}"))?;
        Ok((Store { jobs: tx }, tables))
    }

    /// Stores a new table.
    pub fn add_table(&self, id: &str, config: &TableConfig) -> Result<(), String> {
        let config = serde_json::to_string(config).map_err(|e| e.to_string())?;
        self.run(Write::Table { id: id.to_string(), config })
    }

    /// Stores decisions `first`, `first + 1`, ... of a table. Fails (storing none of them)
    /// if any of those numbers is already taken.
    pub fn add_decisions(&self, table: &str, first: usize, decisions: &[Decision]) -> Result<(), String> {
        self.run(Write::Decisions { table: table.to_string(), first, decisions: decisions.to_vec() })
    }

    /// Notes that a table's game is over: the server then brings it back only when someone
    /// opens it.
    pub fn mark_finished(&self, table: &str) -> Result<(), String> {
        self.run(Write::Finished { table: table.to_string() })
    }

    /// Every decision stored for a table, in order.
    pub fn decisions(&self, table: &str) -> Result<Vec<Decision>, String> {
        let (reply, wait) = mpsc::sync_channel(1);
        self.jobs.send(Job::Read { table: table.to_string(), reply }).map_err(|_| STOPPED.to_string())?;
        wait.recv().map_err(|_| STOPPED.to_string())?
    }

    fn run(&self, write: Write) -> Result<(), String> {
        let (done, wait) = mpsc::sync_channel(1);
        self.jobs.send(Job::Write { write, done }).map_err(|_| STOPPED.to_string())?;
        wait.recv().map_err(|_| STOPPED.to_string())?
    }
}

const STOPPED: &str = "the store has stopped";

/// Adds the `finished` column to a store made before it existed (its tables count as in play
/// until their games are replayed once).
fn add_finished_column(conn: &Connection) -> rusqlite::Result<()> {
    let has = conn.prepare("SELECT 1 FROM pragma_table_info('tables') WHERE name = 'finished'")?.exists([])?;
    if !has {
        conn.execute_batch("ALTER TABLE tables ADD COLUMN finished INTEGER NOT NULL DEFAULT 0")?;
    }
    Ok(())
}

fn read_all(conn: &Connection) -> rusqlite::Result<Vec<StoredTable>> {
    let mut tables = Vec::new();
    let mut rows = conn.prepare("SELECT id, config, finished FROM tables ORDER BY rowid")?;
    let mut q = rows.query([])?;
    while let Some(row) = q.next()? {
        let id: String = row.get(0)?;
        let text: String = row.get(1)?;
        let config: TableConfig = serde_json::from_str(&text)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(1, rusqlite::types::Type::Text, Box::new(e)))?;
        let finished: i64 = row.get(2)?;
        tables.push(StoredTable { id, config, finished: finished != 0, decisions: Vec::new() });
    }
    let index: std::collections::HashMap<String, usize> =
        tables.iter().enumerate().map(|(i, t)| (t.id.clone(), i)).collect();
    // The decisions of the tables in play only: a finished table's are read when it is opened.
    let mut rows = conn.prepare(
        "SELECT d.table_id, d.seat, d.option FROM decisions d JOIN tables t ON t.id = d.table_id \
         WHERE t.finished = 0 ORDER BY d.table_id, d.n",
    )?;
    let mut q = rows.query([])?;
    while let Some(row) = q.next()? {
        let id: String = row.get(0)?;
        let seat: i64 = row.get(1)?;
        if let Some(i) = index.get(&id) {
            tables[*i].decisions.push(Decision { seat: seat as usize, option: row.get(2)? });
        }
    }
    Ok(tables)
}

fn read_decisions(conn: &Connection, table: &str) -> rusqlite::Result<Vec<Decision>> {
    let mut rows = conn.prepare_cached("SELECT seat, option FROM decisions WHERE table_id = ?1 ORDER BY n")?;
    let decisions = rows.query_map(params![table], |row| {
        let seat: i64 = row.get(0)?;
        Ok(Decision { seat: seat as usize, option: row.get(1)? })
    })?;
    decisions.collect()
}

/// The writer: takes every job waiting, commits the writes in one transaction and answers
/// each, then answers the reads. When the batch fails, each write is tried again alone, so
/// one bad write fails only itself.
fn writer(mut conn: Connection, jobs: mpsc::Receiver<Job>) {
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match jobs.try_recv() {
                Ok(j) => batch.push(j),
                Err(_) => break,
            }
        }
        let mut writes: Vec<(&Write, &mpsc::SyncSender<Result<(), String>>)> = Vec::new();
        let mut reads = Vec::new();
        for job in &batch {
            match job {
                Job::Write { write, done } => writes.push((write, done)),
                Job::Read { table, reply } => reads.push((table, reply)),
            }
        }
        let all: Vec<&Write> = writes.iter().map(|(w, _)| *w).collect();
        if all.is_empty() || commit(&mut conn, &all).is_ok() {
            for (_, done) in &writes {
                let _ = done.send(Ok(()));
            }
        } else {
            for (write, done) in &writes {
                let _ = done.send(commit(&mut conn, &[write]).map_err(|e| format!("cannot store: {e}")));
            }
        }
        for (table, reply) in reads {
            let _ = reply.send(read_decisions(&conn, table).map_err(|e| format!("cannot read the store: {e}")));
        }
    }
}

fn commit(conn: &mut Connection, writes: &[&Write]) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    for w in writes {
        match w {
            Write::Table { id, config } => {
                tx.execute("INSERT INTO tables (id, config) VALUES (?1, ?2)", params![id, config])?;
            }
            Write::Decisions { table, first, decisions } => {
                let mut insert =
                    tx.prepare_cached("INSERT INTO decisions (table_id, n, seat, option) VALUES (?1, ?2, ?3, ?4)")?;
                for (k, d) in decisions.iter().enumerate() {
                    insert.execute(params![table, (first + k) as i64, d.seat as i64, d.option])?;
                }
            }
            Write::Finished { table } => {
                tx.execute("UPDATE tables SET finished = 1 WHERE id = ?1", params![table])?;
            }
        }
    }
    tx.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> TableConfig {
        TableConfig {
            game: "g".into(),
            variants: vec!["v".into()],
            options: vec![("k".into(), "3".into())],
            players: 2,
            seed: u64::MAX,
            bots: vec![None, Some("random".into())],
            tokens: vec!["a".into(), String::new()],
            spectator: "s".into(),
            created: 1,
        }
    }

    #[test]
    fn tables_and_decisions_come_back_in_order_and_numbers_are_not_reused() {
        let scratch = scratch("store");
        let dir = scratch.path().join("store");
        {
            let (store, tables) = Store::open(&dir).unwrap();
            assert!(tables.is_empty());
            store.add_table("t1", &config()).unwrap();
            let d = |seat, o: &str| Decision { seat, option: o.to_string() };
            store.add_decisions("t1", 0, &[d(0, "x"), d(1, "y")]).unwrap();
            store.add_decisions("t1", 2, &[d(0, "z")]).unwrap();
            assert!(store.add_decisions("t1", 1, &[d(0, "again")]).is_err());
            assert!(store.add_table("t1", &config()).is_err());
        }
        // The writer thread ends with the store; wait until the lock is released.
        let mut reopened = None;
        for _ in 0..100 {
            match Store::open(&dir) {
                Ok(r) => {
                    reopened = Some(r);
                    break;
                }
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
            }
        }
        let (_store, tables) = reopened.expect("the store reopens");
        assert_eq!(tables.len(), 1);
        assert_eq!(tables[0].config, config());
        assert!(!tables[0].finished);
        let options: Vec<&str> = tables[0].decisions.iter().map(|d| d.option.as_str()).collect();
        assert_eq!(options, ["x", "y", "z"]);
    }

    /// A scratch folder for a test's store, removed when the guard is dropped.
    fn scratch(what: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("rulebook-{what}-")).tempdir().unwrap()
    }

    /// Opens the store in `dir`, waiting until an earlier store of it has let go of its lock.
    fn reopen(dir: &Path) -> (Store, Vec<StoredTable>) {
        for _ in 0..100 {
            if let Ok(r) = Store::open(dir) {
                return r;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        panic!("the store does not reopen");
    }

    #[test]
    fn a_finished_table_comes_back_without_its_decisions_which_are_read_on_demand() {
        let scratch = scratch("store-finished");
        let dir = scratch.path().join("store");
        let d = |seat, o: &str| Decision { seat, option: o.to_string() };
        {
            let (store, _) = Store::open(&dir).unwrap();
            store.add_table("over", &config()).unwrap();
            store.add_table("playing", &config()).unwrap();
            store.add_decisions("over", 0, &[d(0, "a"), d(1, "b")]).unwrap();
            store.add_decisions("playing", 0, &[d(1, "c")]).unwrap();
            store.mark_finished("over").unwrap();
            // A read comes after the writes sent before it.
            store.add_decisions("playing", 1, &[d(0, "e")]).unwrap();
            assert_eq!(store.decisions("playing").unwrap(), [d(1, "c"), d(0, "e")]);
        }
        let (store, tables) = reopen(&dir);
        let by_id = |id: &str| tables.iter().find(|t| t.id == id).unwrap();
        assert!(by_id("over").finished && by_id("over").decisions.is_empty());
        assert!(!by_id("playing").finished);
        assert_eq!(by_id("playing").decisions, [d(1, "c"), d(0, "e")]);
        assert_eq!(store.decisions("over").unwrap(), [d(0, "a"), d(1, "b")]);
        assert!(store.decisions("nobody").unwrap().is_empty());
        drop(store);
    }

    #[test]
    fn a_store_made_before_the_finished_column_gets_it_and_keeps_its_tables() {
        let scratch = scratch("store-old");
        let dir = scratch.path().join("store");
        std::fs::create_dir_all(&dir).unwrap();
        {
            let conn = Connection::open(dir.join(FILE_NAME)).unwrap();
            conn.execute_batch(
                "CREATE TABLE tables (id TEXT PRIMARY KEY, config TEXT NOT NULL);
                 CREATE TABLE decisions (table_id TEXT NOT NULL, n INTEGER NOT NULL, seat INTEGER NOT NULL,
                     option TEXT NOT NULL, PRIMARY KEY (table_id, n));",
            )
            .unwrap();
            let config = serde_json::to_string(&config()).unwrap();
            conn.execute("INSERT INTO tables (id, config) VALUES ('old', ?1)", params![config]).unwrap();
            conn.execute("INSERT INTO decisions VALUES ('old', 0, 1, 'x')", []).unwrap();
        }
        let (store, tables) = reopen(&dir);
        assert_eq!(tables.len(), 1);
        assert!(!tables[0].finished, "an old table is replayed once, as before");
        assert_eq!(tables[0].decisions, [Decision { seat: 1, option: "x".into() }]);
        store.mark_finished("old").unwrap();
        drop(store);
        let (_store, tables) = reopen(&dir);
        assert!(tables[0].finished);
    }
}
