//! The tables' store: one SQLite file (`tables.sqlite3` in the data folder) with one row per
//! table (its configuration: game, variants, options, seats, seed, links) and one row per
//! decision. A game is its configuration and its decisions: the server rebuilds every table
//! by replaying them when it starts.
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
    /// Decisions in order.
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

/// A write and whom to tell when it is durable.
struct Job {
    write: Write,
    done: mpsc::SyncSender<Result<(), String>>,
}

enum Write {
    Table { id: String, config: String },
    Decisions { table: String, first: usize, decisions: Vec<Decision> },
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
                 config TEXT NOT NULL
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

    fn run(&self, write: Write) -> Result<(), String> {
        let (done, wait) = mpsc::sync_channel(1);
        self.jobs.send(Job { write, done }).map_err(|_| "the store has stopped".to_string())?;
        wait.recv().map_err(|_| "the store has stopped".to_string())?
    }
}

fn read_all(conn: &Connection) -> rusqlite::Result<Vec<StoredTable>> {
    let mut tables = Vec::new();
    let mut rows = conn.prepare("SELECT id, config FROM tables ORDER BY rowid")?;
    let mut q = rows.query([])?;
    while let Some(row) = q.next()? {
        let id: String = row.get(0)?;
        let text: String = row.get(1)?;
        let config: TableConfig = serde_json::from_str(&text)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(1, rusqlite::types::Type::Text, Box::new(e)))?;
        tables.push(StoredTable { id, config, decisions: Vec::new() });
    }
    let index: std::collections::HashMap<String, usize> =
        tables.iter().enumerate().map(|(i, t)| (t.id.clone(), i)).collect();
    let mut rows = conn.prepare("SELECT table_id, seat, option FROM decisions ORDER BY table_id, n")?;
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

/// The writer: takes every job waiting, commits them in one transaction and answers each.
/// When the batch fails, each job is tried again alone, so one bad write fails only itself.
fn writer(mut conn: Connection, jobs: mpsc::Receiver<Job>) {
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match jobs.try_recv() {
                Ok(j) => batch.push(j),
                Err(_) => break,
            }
        }
        let writes: Vec<&Write> = batch.iter().map(|j| &j.write).collect();
        if commit(&mut conn, &writes).is_ok() {
            for j in &batch {
                let _ = j.done.send(Ok(()));
            }
            continue;
        }
        for j in &batch {
            let _ = j.done.send(commit(&mut conn, &[&j.write]).map_err(|e| format!("cannot store: {e}")));
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
        let dir = std::env::temp_dir().join(format!("rulebook-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
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
        let options: Vec<&str> = tables[0].decisions.iter().map(|d| d.option.as_str()).collect();
        assert_eq!(options, ["x", "y", "z"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
