//! One browser's WebSocket: it receives its link's view message on connecting and after every
//! change, and sends [`ClientMessage`]s. Every message it sends gets an answer (`accepted`, a
//! fresh `view`, or an `error`); nothing it sends can act for another seat, since the seat
//! comes from the link's token, never from the message.
//!
//! Bounded: a message longer than [`MAX_CLIENT_MESSAGE`] is refused (one longer than
//! [`MAX_FRAME`] closes the connection), and a client sending faster than [`RATE`] messages a
//! second (with bursts of [`BURST`]) is refused, then disconnected if it keeps on. A choice the
//! table accepts costs nothing (a game bounds those), so only other messages are limited.

use super::protocol::{self, ClientMessage, ErrorCode, MAX_CLIENT_MESSAGE};
use super::table::{accepted_message, Table};
use super::Server;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use std::sync::Arc;
use std::time::Instant;

/// The largest frame or message the connection reads at all (bytes).
pub const MAX_FRAME: usize = 64 * 1024;
/// Messages a second a client may send, on average.
pub const RATE: f64 = 20.0;
/// Messages a client may send at once.
pub const BURST: f64 = 60.0;
/// Refused messages in a row after which the connection is closed.
const MAX_REFUSED_IN_A_ROW: u32 = 100;

/// `GET /ws/TOKEN`: upgrades to a WebSocket for the link's seat.
pub async fn upgrade(State(server): State<Arc<Server>>, Path(token): Path<String>, ws: WebSocketUpgrade) -> Response {
    match server.link(&token).await {
        Some((table, seat)) => ws
            .max_message_size(MAX_FRAME)
            .max_frame_size(MAX_FRAME)
            .on_upgrade(move |socket| connection(socket, table, seat)),
        None => super::http::refuse(StatusCode::NOT_FOUND, "this link does not open a table here"),
    }
}

/// A token bucket: [`RATE`] a second, up to [`BURST`].
struct Limiter {
    tokens: f64,
    at: Instant,
    refused: u32,
}

impl Limiter {
    /// Gives back the cost of a message (an accepted choice).
    fn refund(&mut self) {
        self.tokens = (self.tokens + 1.0).min(BURST);
    }

    fn allow(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.at).as_secs_f64() * RATE).min(BURST);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            self.refused = 0;
            true
        } else {
            self.refused += 1;
            false
        }
    }
}

async fn send(socket: &mut WebSocket, text: &str) -> bool {
    socket.send(Message::Text(text.into())).await.is_ok()
}

async fn connection(mut socket: WebSocket, table: Arc<Table>, seat: Option<usize>) {
    let mut feed = table.subscribe(seat);
    let first = table.view(seat).await;
    if !first.is_empty() && !send(&mut socket, &first).await {
        return;
    }
    let mut limiter = Limiter { tokens: BURST, at: Instant::now(), refused: 0 };
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Binary(_))) => {
                        if !send(&mut socket, &protocol::error(ErrorCode::BadMessage, "send text (JSON), not binary")).await {
                            return;
                        }
                        continue;
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    // Closed, or broken (a frame too long): the connection ends.
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return,
                };
                if !limiter.allow() {
                    if limiter.refused > MAX_REFUSED_IN_A_ROW {
                        let close = CloseFrame { code: 1008, reason: "too many messages".into() };
                        let _ = socket.send(Message::Close(Some(close))).await;
                        return;
                    }
                    let refusal = format!("too many messages: at most {RATE} a second; this one was ignored");
                    if !send(&mut socket, &protocol::error(ErrorCode::TooFast, &refusal)).await {
                        return;
                    }
                    continue;
                }
                let (answers, accepted) = answer(&table, seat, text.as_str()).await;
                if accepted {
                    limiter.refund();
                }
                for a in answers {
                    if !send(&mut socket, &a).await {
                        return;
                    }
                }
            }
            changed = feed.changed() => {
                if changed.is_err() {
                    return;
                }
                let message = feed.borrow_and_update().clone();
                if !message.is_empty() && !send(&mut socket, &message).await {
                    return;
                }
            }
        }
    }
}

/// The answers to one message from a client, and whether it was a choice the table took.
async fn answer(table: &Table, seat: Option<usize>, text: &str) -> (Vec<String>, bool) {
    if text.len() > MAX_CLIENT_MESSAGE {
        let why = format!("message too long ({} bytes; at most {MAX_CLIENT_MESSAGE})", text.len());
        return (vec![protocol::error(ErrorCode::TooLong, &why)], false);
    }
    let message: ClientMessage = match serde_json::from_str(text) {
        Ok(m) => m,
        Err(e) => {
            let why = format!(
                "not a message this table reads ({e}); send {{\"type\":\"choose\",\"option\":ID,\"version\":N}} or {{\"type\":\"refresh\"}}"
            );
            return (vec![protocol::error(ErrorCode::BadMessage, &why)], false);
        }
    };
    let answers = match (message, seat) {
        (ClientMessage::Refresh, _) => vec![table.view(seat).await.to_string()],
        (ClientMessage::Choose { .. }, None) => {
            vec![protocol::error(ErrorCode::Spectator, "a spectator's link cannot choose")]
        }
        (ClientMessage::Choose { option, version }, Some(s)) => match table.choose(s, option, version).await {
            Ok(accepted) => return (vec![accepted_message(&accepted)], true),
            // A stale choice: the view it was made on is followed by the current one.
            Err(r) if r.code == ErrorCode::Stale => {
                vec![protocol::error(r.code, &r.message), table.view(seat).await.to_string()]
            }
            Err(r) => vec![protocol::error(r.code, &r.message)],
        },
    };
    (answers, false)
}
