//! What goes over the wire between a table and its browsers, as JSON.
//!
//! A client sends [`ClientMessage`]s; the server sends [`ServerMessage`]s. The one message that
//! carries the game is `view`, built by [`view_message`] from exactly [`Session::view`] of the
//! seat (or [`Session::public_view`] for spectators) and the log as that seat may read it,
//! plus the table's public setup. Nothing else about the state is ever sent: no seed, no
//! other seat's view, no omniscient log line.

use crate::session::Session;
use crate::view::View;
use serde::{Deserialize, Serialize};

/// The longest message a client may send (bytes); longer ones are answered with an error.
pub const MAX_CLIENT_MESSAGE: usize = 4 * 1024;

/// A message from a browser.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Choose an option of the seat's pending decision, by id (or exact label). `version`
    /// is the version of the view the choice was made on: when the seat's options have
    /// changed since, the choice is refused as stale instead of applied to something else.
    Choose {
        /// Option id.
        option: String,
        /// The view's version.
        #[serde(default)]
        version: Option<u64>,
    },
    /// Send the current view again.
    Refresh,
}

/// Why a message was refused (the `code` of an error message).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Not JSON, or not a message this server knows.
    BadMessage,
    /// Longer than [`MAX_CLIENT_MESSAGE`].
    TooLong,
    /// Too many messages too fast.
    TooFast,
    /// Not a legal option for this seat now.
    Illegal,
    /// Made on a view older than the seat's current options.
    Stale,
    /// A spectator's link cannot choose.
    Spectator,
    /// The game is over.
    Over,
    /// The table cannot take more messages now.
    Busy,
    /// The table stopped (its game cannot go on) or could not store the decision.
    Table,
}

/// A message to a browser.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage<'a> {
    /// The seat's view of the table (see [`view_message`]).
    View(Box<ViewMessage<'a>>),
    /// A choice was stored and applied.
    Accepted {
        /// The option id applied.
        option: &'a str,
        /// The version of the table after it.
        version: u64,
    },
    /// A message was refused; the table is unchanged.
    Error {
        /// Why, in a word.
        code: ErrorCode,
        /// Why, for people.
        message: &'a str,
    },
}

/// The public setup of a table: what everyone at it may know.
#[derive(Clone, Debug, Serialize)]
pub struct TableSummary {
    /// Table id.
    pub id: String,
    /// The game's folder name.
    pub game: String,
    /// Variants.
    pub variants: Vec<String>,
    /// Options.
    pub options: Vec<(String, String)>,
    /// Per seat: its name and its bot, if a bot sits there.
    pub seats: Vec<SeatSummary>,
}

/// One seat of a table.
#[derive(Clone, Debug, Serialize)]
pub struct SeatSummary {
    /// Seat name.
    pub name: String,
    /// The bot's spec, for a bot seat.
    pub bot: Option<String>,
}

/// What one viewer receives after every change of the table.
#[derive(Debug, Serialize)]
pub struct ViewMessage<'a> {
    /// Decisions applied so far: a choice names the version it was made on.
    pub version: u64,
    /// The viewer's seat (`None`: spectator).
    pub seat: Option<usize>,
    /// The table's setup.
    pub table: &'a TableSummary,
    /// The view: exactly what the session gives this viewer.
    pub view: View,
    /// The log as this viewer may read it.
    pub log: Vec<String>,
    /// Whether the transcript can be downloaded (the game is over).
    pub transcript: bool,
    /// Why the table cannot go on, if it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<&'a str>,
}

/// The `view` message of `viewer` (`None`: a spectator), as JSON text.
pub fn view_message(
    table: &TableSummary,
    session: &Session<'_>,
    viewer: Option<usize>,
    problem: Option<&str>,
) -> String {
    let (view, log) = match viewer {
        Some(p) => (session.view(p), session.log_for(Some(p))),
        None => (session.public_view(), session.public_log()),
    };
    let message = ViewMessage {
        version: session.history().len() as u64,
        seat: viewer,
        table,
        view,
        log,
        transcript: session.is_over(),
        problem,
    };
    to_json(&ServerMessage::View(Box::new(message)))
}

/// An error message as JSON text.
pub fn error(code: ErrorCode, message: &str) -> String {
    to_json(&ServerMessage::Error { code, message })
}

/// Any server message as JSON text.
pub fn to_json(message: &ServerMessage<'_>) -> String {
    serde_json::to_string(message)
        .unwrap_or_else(|e| format!(r#"{{"type":"error","code":"table","message":"cannot encode a message: {e}"}}"#))
}
