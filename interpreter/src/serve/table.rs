//! One table: a game in progress on its own thread (which owns the [`Session`]), the bots at
//! its bot seats, and one feed per viewer (each seat, then the spectators) holding the latest
//! `view` message for that viewer.
//!
//! Every decision, a person's or a bot's, is applied to the session (a transaction), then
//! stored; only once it is stored is it acknowledged and shown. When the store fails, the
//! session goes back to where it was. Views are built only for viewers someone is watching,
//! and for everyone when the game ends; a finished table's thread then stops, its feeds keep
//! the final views, and the store notes that the game is over (the server may then let go of
//! the table and replay it when someone opens it again).
//!
//! Bots move one at a time, each after a pause (the server's bot delay) that every applied
//! decision starts again, so that the people at the table see each bot's move; commands are
//! taken while a bot waits its turn.

use super::protocol::{self, ErrorCode, ServerMessage, TableSummary};
use super::store::{Decision, Store, TableConfig};
use crate::bot::{make_bot, Bot, BotSpec, SeatObservation};
use crate::error::PlayError;
use crate::scenario::{transcript, Setup};
use crate::session::{OptionInfo, Session};
use crate::Game;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, watch};

/// Commands a table's thread takes, in order.
enum Command {
    /// A seat chooses.
    Choose { seat: usize, option: String, version: Option<u64>, reply: oneshot::Sender<Result<Accepted, Refusal>> },
    /// The current view message of a viewer (`None`: spectators).
    View { viewer: Option<usize>, reply: oneshot::Sender<Arc<str>> },
    /// Answered once every command before it is done (the stored decisions replayed first).
    CaughtUp { reply: oneshot::Sender<()> },
}

/// A choice stored and applied: the option id and the table's version after it.
#[derive(Clone, Debug)]
pub struct Accepted {
    /// The option id.
    pub option: String,
    /// Decisions applied so far.
    pub version: u64,
}

/// Why a command was refused, with the table unchanged.
#[derive(Clone, Debug)]
pub struct Refusal {
    /// In a word.
    pub code: ErrorCode,
    /// For people.
    pub message: String,
}

impl Refusal {
    fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal { code, message: message.into() }
    }
}

/// Commands waiting for a table beyond this are refused as busy.
const QUEUE: usize = 64;

/// While a bot waits its turn, the longest the table's thread sleeps before it looks for
/// commands again (a view asked for meanwhile waits at most this long).
const POLL: Duration = Duration::from_millis(20);

/// What a table's thread shares with the server.
struct Outputs {
    /// One per seat, then the spectators': the latest view message (empty before the first).
    feeds: Vec<watch::Sender<Arc<str>>>,
    /// The transcript, once the game is over.
    transcript: OnceLock<String>,
    /// When the table's thread ended with the game over.
    over: OnceLock<Instant>,
}

/// A table, as the server holds it.
pub struct Table {
    /// Table id.
    pub id: String,
    /// How it was set up (with its tokens: never sent to a client).
    pub config: TableConfig,
    /// What every viewer may know of its setup.
    pub summary: Arc<TableSummary>,
    out: Arc<Outputs>,
    commands: mpsc::Sender<Command>,
}

impl Table {
    /// Starts a table on its own thread: the game from its seed, then `decisions` replayed
    /// (a table coming back), then bots play until a person must decide, each move
    /// `bot_delay` after the decision before it. `stored_over`: the store already knows that
    /// this game is over (it is not told again).
    pub fn start(
        id: String,
        config: TableConfig,
        game: Arc<Game>,
        (decisions, stored_over): (Vec<Decision>, bool),
        store: Arc<Store>,
        bot_delay: Duration,
    ) -> Result<Arc<Table>, String> {
        let summary = Arc::new(TableSummary {
            id: id.clone(),
            game: config.game.clone(),
            variants: config.variants.clone(),
            options: config.options.clone(),
            seats: (0..config.players)
                .map(|p| protocol::SeatSummary {
                    name: game.rules.seat_name(p),
                    bot: config.bots.get(p).cloned().flatten(),
                })
                .collect(),
        });
        let out = Arc::new(Outputs {
            feeds: (0..=config.players).map(|_| watch::channel(Arc::from("")).0).collect(),
            transcript: OnceLock::new(),
            over: OnceLock::new(),
        });
        let (tx, rx) = mpsc::channel(QUEUE);
        let table = Arc::new(Table {
            id: id.clone(),
            config: config.clone(),
            summary: summary.clone(),
            out: out.clone(),
            commands: tx,
        });
        std::thread::Builder::new()
            .name(format!("table-{id}"))
            .stack_size(crate::script::SCRIPT_STACK_BYTES)
            .spawn(move || {
                let outputs = out.clone();
                let run = std::panic::AssertUnwindSafe(|| {
                    let actor = Actor::new(&id, &config, &game, store, summary, out);
                    match actor {
                        Ok(table) => run(table, &decisions, bot_delay, rx, stored_over),
                        Err(e) => eprintln!("table {id}: {e}"),
                    }
                });
                if std::panic::catch_unwind(run).is_err() {
                    let message: Arc<str> = Arc::from(protocol::error(
                        ErrorCode::Table,
                        "the table stopped: an internal error (see the server's log)",
                    ));
                    for f in &outputs.feeds {
                        f.send_replace(message.clone());
                    }
                }
            })
            .map_err(|e| format!("cannot start a table: {e}"))?;
        Ok(table)
    }

    /// The feed of a viewer (`None`: spectators): its latest view message, and every later one.
    pub fn subscribe(&self, viewer: Option<usize>) -> watch::Receiver<Arc<str>> {
        self.feed(viewer).subscribe()
    }

    fn feed(&self, viewer: Option<usize>) -> &watch::Sender<Arc<str>> {
        &self.out.feeds[viewer.unwrap_or(self.config.players).min(self.config.players)]
    }

    /// Sends the table's thread a command made with a reply channel and waits for the reply:
    /// `None` once the thread has ended (it takes no more commands). The thread takes commands
    /// in order, after the stored decisions are replayed, so a reply comes from a caught-up
    /// table.
    async fn ask<T>(&self, command: impl FnOnce(oneshot::Sender<T>) -> Command) -> Option<T> {
        let (reply, answer) = oneshot::channel();
        self.commands.send(command(reply)).await.ok()?;
        answer.await.ok()
    }

    /// The current view message of a viewer.
    pub async fn view(&self, viewer: Option<usize>) -> Arc<str> {
        match self.ask(|reply| Command::View { viewer, reply }).await {
            Some(message) => message,
            // The table's thread has ended: its feeds hold the final views.
            None => self.feed(viewer).borrow().clone(),
        }
    }

    /// A seat chooses an option (by id or label) on the view of `version`.
    pub async fn choose(&self, seat: usize, option: String, version: Option<u64>) -> Result<Accepted, Refusal> {
        let (reply, answer) = oneshot::channel();
        let sent = self.commands.try_send(Command::Choose { seat, option, version, reply });
        match sent {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                return Err(Refusal::new(ErrorCode::Busy, "the table is busy: try again in a moment"))
            }
            Err(mpsc::error::TrySendError::Closed(_)) => return Err(self.stopped()),
        }
        answer.await.unwrap_or_else(|_| Err(self.stopped()))
    }

    fn stopped(&self) -> Refusal {
        if self.out.transcript.get().is_some() {
            Refusal::new(ErrorCode::Over, "the game is over")
        } else {
            Refusal::new(ErrorCode::Table, "this table has stopped")
        }
    }

    /// Whether the game is still going on (its thread runs).
    pub fn in_play(&self) -> bool {
        !self.commands.is_closed()
    }

    /// The transcript (the scenario language `rulebook replay` reads), once the game is over.
    /// A table coming back from the store replays its game on its own thread first: until
    /// the transcript is there, this waits for the thread to catch up (it answers, or it has
    /// ended), so a finished game just opened again gives its transcript, not "not over".
    pub async fn transcript(&self) -> Option<&str> {
        if self.out.transcript.get().is_none() {
            let _ = self.ask(|reply| Command::CaughtUp { reply }).await;
        }
        self.out.transcript.get().map(String::as_str)
    }

    /// Whether the server may let go of this table: its game has been over for `after` at
    /// least, and nobody follows its feeds.
    pub fn unloadable(&self, after: Duration) -> bool {
        self.out.over.get().is_some_and(|t| t.elapsed() >= after)
            && self.out.feeds.iter().all(|f| f.receiver_count() == 0)
    }
}

/// A table's thread, from start to the end of its game: the stored `decisions` replayed,
/// then the commands taken in order, and each bot's move made `bot_delay` after the decision
/// before it (at once when the delay is zero). At the end, the store learns that the game is
/// over, unless `stored_over` says it knows.
fn run(
    mut table: Actor<'_>,
    decisions: &[Decision],
    bot_delay: Duration,
    mut commands: mpsc::Receiver<Command>,
    stored_over: bool,
) {
    table.replay(decisions);
    table.changed();
    let mut bot_moves_at = Instant::now() + bot_delay;
    while !table.finished() {
        let command = if table.bot_to_move().is_some() {
            let now = Instant::now();
            if now >= bot_moves_at {
                table.play_bot();
                bot_moves_at = Instant::now() + bot_delay;
                continue;
            }
            // A bot waits its turn: a command that comes meanwhile is taken.
            match commands.try_recv() {
                Ok(command) => command,
                Err(mpsc::error::TryRecvError::Empty) => {
                    std::thread::sleep((bot_moves_at - now).min(POLL));
                    continue;
                }
                Err(mpsc::error::TryRecvError::Disconnected) => return,
            }
        } else {
            let Some(command) = commands.blocking_recv() else { return };
            command
        };
        match command {
            Command::View { viewer, reply } => {
                let _ = reply.send(table.message(viewer));
            }
            Command::CaughtUp { reply } => {
                let _ = reply.send(());
            }
            Command::Choose { seat, option, version, reply } => {
                let result = table.choose(seat, &option, version);
                if result.is_ok() {
                    bot_moves_at = Instant::now() + bot_delay;
                }
                let _ = reply.send(result);
            }
        }
    }
    table.finish(stored_over);
}

/// The thread's side of a table.
struct Actor<'g> {
    id: String,
    session: Session<'g>,
    bots: Vec<Option<Box<dyn Bot>>>,
    store: Arc<Store>,
    summary: Arc<TableSummary>,
    out: Arc<Outputs>,
    /// Per seat: its options when last looked at, and the version from which they hold.
    options: Vec<(Vec<OptionInfo>, u64)>,
    /// Why the game cannot go on (shown to every viewer), if it cannot.
    problem: Option<String>,
}

impl<'g> Actor<'g> {
    fn new(
        id: &str,
        config: &TableConfig,
        game: &'g Game,
        store: Arc<Store>,
        summary: Arc<TableSummary>,
        out: Arc<Outputs>,
    ) -> Result<Actor<'g>, String> {
        let specs: Vec<Option<BotSpec>> = (0..config.players)
            .map(|p| config.bots.get(p).cloned().flatten().map(|s| BotSpec::parse(&s)).transpose())
            .collect::<Result<_, _>>()?;
        let searches = specs.iter().flatten().any(BotSpec::searches);
        let session = if searches {
            Session::new_tracked(game, config.players, config.seed, true)
        } else {
            Session::new(game, config.players, config.seed, true)
        }
        .map_err(|e| e.to_string())?;
        let bots = specs
            .iter()
            .enumerate()
            .map(|(p, s)| s.as_ref().map(|s| make_bot(s, game, config.seed, p)).transpose())
            .collect::<Result<_, _>>()?;
        Ok(Actor {
            id: id.to_string(),
            options: vec![(Vec::new(), 0); session.players()],
            session,
            bots,
            store,
            summary,
            out,
            problem: None,
        })
    }

    /// Applies stored decisions (a table coming back). One that no longer applies (the game's
    /// files changed since) stops the table where it is.
    fn replay(&mut self, decisions: &[Decision]) {
        for (n, d) in decisions.iter().enumerate() {
            if let Err(e) = self.session.apply(d.seat, &d.option) {
                eprintln!(
                    "table {}: stored decision {} (seat {}, `{}`) does not apply: {e}",
                    self.id,
                    n + 1,
                    d.seat + 1,
                    d.option
                );
                self.problem = Some(format!(
                    "this table cannot be restored: its decision {} no longer applies (were the game's files changed?)",
                    n + 1
                ));
                return;
            }
        }
    }

    fn finished(&self) -> bool {
        self.problem.is_some() || self.session.is_over()
    }

    fn version(&self) -> u64 {
        self.session.history().len() as u64
    }

    /// The view message of a viewer now.
    fn message(&self, viewer: Option<usize>) -> Arc<str> {
        Arc::from(protocol::view_message(&self.summary, &self.session, viewer, self.problem.as_deref()))
    }

    /// After every change: notes whose options changed, and sends the new view to every
    /// viewer someone is watching.
    fn changed(&mut self) {
        if self.session.is_over() && self.out.transcript.get().is_none() {
            // Before any view says the game is over, so its transcript is there to fetch.
            let _ = self.out.transcript.set(transcript(&self.setup(), &self.session, &self.title()));
        }
        let version = self.version();
        for (p, seen) in self.options.iter_mut().enumerate() {
            let now = self.session.options(p);
            if now != seen.0 {
                *seen = (now, version);
            }
        }
        for (k, feed) in self.out.feeds.iter().enumerate() {
            if feed.receiver_count() > 0 {
                let viewer = (k < self.session.players()).then_some(k);
                feed.send_replace(self.message(viewer));
            }
        }
    }

    /// A person's choice: checked against the version it was made on, applied, stored.
    fn choose(&mut self, seat: usize, option: &str, version: Option<u64>) -> Result<Accepted, Refusal> {
        if let Some(p) = &self.problem {
            return Err(Refusal::new(ErrorCode::Table, p.clone()));
        }
        if self.session.is_over() {
            return Err(Refusal::new(ErrorCode::Over, "the game is over"));
        }
        if self.bots.get(seat).is_some_and(Option::is_some) {
            return Err(Refusal::new(ErrorCode::Illegal, "a bot plays this seat"));
        }
        let now = self.version();
        if let Some(v) = version {
            let since = self.options.get(seat).map_or(0, |o| o.1);
            if v < since || v > now {
                return Err(Refusal::new(
                    ErrorCode::Stale,
                    format!("that choice was made on an older view (version {v}; your options changed at {since}): choose again"),
                ));
            }
        }
        self.apply(seat, |s| s.apply(seat, option)).map_err(|e| match e {
            Applied::Refused(PlayError::Illegal(m)) => Refusal::new(ErrorCode::Illegal, m),
            Applied::Refused(other) => {
                eprintln!("table {}: seat {} chose `{option}`: {other}", self.id, seat + 1);
                Refusal::new(
                    ErrorCode::Illegal,
                    "the game's rules failed on this choice, so it was not taken (details in the server's log)",
                )
            }
            Applied::NotStored(m) => {
                Refusal::new(ErrorCode::Table, format!("the choice could not be stored, so it was not taken: {m}"))
            }
        })
    }

    /// Applies one decision as a transaction that includes storing it; shows the result.
    fn apply(
        &mut self,
        seat: usize,
        how: impl FnOnce(&mut Session<'g>) -> Result<(), PlayError>,
    ) -> Result<Accepted, Applied> {
        let before = self.session.history().len();
        let snapshot = self.session.snapshot();
        how(&mut self.session).map_err(Applied::Refused)?;
        let new: Vec<Decision> = self.session.history()[before..]
            .iter()
            .map(|m| Decision { seat: m.player, option: m.option.to_string() })
            .collect();
        if let Err(e) = self.store.add_decisions(&self.id, before, &new) {
            eprintln!("table {}: cannot store a decision of seat {}: {e}", self.id, seat + 1);
            let _ = self.session.restore(&snapshot);
            return Err(Applied::NotStored(e));
        }
        self.changed();
        let option = new.last().map(|d| d.option.clone()).unwrap_or_default();
        Ok(Accepted { option, version: self.version() })
    }

    /// The first bot seat that must decide now (in a hidden commit, bots before the people).
    fn bot_to_move(&self) -> Option<usize> {
        if self.finished() {
            return None;
        }
        self.session.to_act().into_iter().find(|p| self.bots[*p].is_some())
    }

    /// One bot's move: the first bot that must decide chooses; its choice is applied, stored
    /// and shown. A bot that cannot play stops the table.
    fn play_bot(&mut self) {
        let Some(p) = self.bot_to_move() else { return };
        let Some(bot) = self.bots[p].as_mut() else { return };
        let choice = bot.choose(&SeatObservation::new(&self.session, p));
        let result = match choice {
            Ok(i) => self.apply(p, |s| s.apply_index(p, i)).map(|_| ()),
            Err(e) => Err(Applied::Refused(PlayError::Rule(e))),
        };
        if let Err(e) = result {
            let detail = match e {
                Applied::Refused(e) => e.to_string(),
                Applied::NotStored(m) => m,
            };
            eprintln!("table {}: the bot at seat {} cannot play: {detail}", self.id, p + 1);
            self.problem = Some(format!(
                "this table stopped: the bot at {} cannot play (details in the server's log)",
                self.session.game().rules.seat_name(p)
            ));
            self.changed();
        }
    }

    fn setup(&self) -> Setup<'_> {
        Setup { game: &self.summary.game, variants: &self.summary.variants, options: &self.summary.options }
    }

    fn title(&self) -> String {
        format!("{} played at table {}", self.session.game().rules.title, self.id)
    }

    /// The end: every viewer's final view left in its feed; a game that is over is noted in
    /// the store (unless `stored_over`: it knows).
    fn finish(&mut self, stored_over: bool) {
        for (k, feed) in self.out.feeds.iter().enumerate() {
            let viewer = (k < self.session.players()).then_some(k);
            feed.send_replace(self.message(viewer));
        }
        if self.problem.is_some() || !self.session.is_over() {
            return;
        }
        if !stored_over {
            if let Err(e) = self.store.mark_finished(&self.id) {
                // The table is replayed at the next start instead, as before it was finished.
                eprintln!("table {}: cannot note that its game is over: {e}", self.id);
            }
        }
        let _ = self.out.over.set(Instant::now());
    }
}

/// Why a decision was not taken.
enum Applied {
    /// The session refused it.
    Refused(PlayError),
    /// The store failed (the session is back where it was).
    NotStored(String),
}

/// The `accepted` message for a choice.
pub fn accepted_message(a: &Accepted) -> String {
    protocol::to_json(&ServerMessage::Accepted { option: &a.option, version: a.version })
}
