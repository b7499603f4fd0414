//! The HTTP routes:
//!
//! | route | answers |
//! |---|---|
//! | `GET /` | the lobby page |
//! | `GET /assets/FILE` | the pages' scripts and style |
//! | `GET /api/games` | the games offered (JSON) |
//! | `GET /api/bots` | the bots a seat may have, with their options (JSON) |
//! | `POST /api/tables` | opens a table ([`super::CreateRequest`]) and answers its links ([`super::Created`]) |
//! | `GET /api/status` | how many tables there are, in memory and in play ([`super::Status`], JSON) |
//! | `GET /t/TOKEN` | the table page of a seat's (or the spectators') link |
//! | `GET /t/TOKEN/view` | that link's current `view` message (JSON) |
//! | `GET /t/TOKEN/transcript` | the finished game's transcript (`rulebook replay` reads it) |
//! | `GET /ws/TOKEN` | the link's WebSocket ([`super::ws`]) |
//!
//! Request bodies are at most [`MAX_BODY`] bytes; every refusal is a JSON `{"error": ...}`
//! (an HTML page for the table page) with a 4xx status.

use super::{assets, ws, CreateRequest, Server};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use std::sync::Arc;

/// The largest request body accepted (bytes).
pub const MAX_BODY: usize = 64 * 1024;

/// Every route of the server.
pub fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route("/", get(lobby))
        .route("/assets/{file}", get(asset))
        .route("/api/games", get(games))
        .route("/api/bots", get(bots))
        .route("/api/tables", post(create))
        .route("/api/status", get(status))
        .route("/t/{token}", get(table_page))
        .route("/t/{token}/view", get(view))
        .route("/t/{token}/transcript", get(transcript))
        .route("/ws/{token}", get(ws::upgrade))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(server)
}

/// A JSON answer.
pub fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// A JSON refusal: `{"error": message}`.
pub fn refuse(status: StatusCode, message: &str) -> Response {
    json(status, serde_json::json!({ "error": message }).to_string())
}

/// What the pages may load and connect to: this server only. A page's address holds its seat's
/// token, so it is never sent on as a referrer.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; connect-src 'self'; img-src 'self' data:; \
     style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

fn html(status: StatusCode, body: &'static str) -> Response {
    let headers = [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CACHE_CONTROL, "no-store"),
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ];
    (status, headers, body).into_response()
}

async fn lobby() -> Response {
    html(StatusCode::OK, assets::LOBBY_HTML)
}

async fn not_found() -> Response {
    refuse(StatusCode::NOT_FOUND, "no such page")
}

async fn asset(Path(file): Path<String>) -> Response {
    match assets::get(&file) {
        Some((kind, body)) => ([(header::CONTENT_TYPE, kind)], body).into_response(),
        None => refuse(StatusCode::NOT_FOUND, "no such file"),
    }
}

async fn games(State(server): State<Arc<Server>>) -> Response {
    match tokio::task::spawn_blocking(move || server.catalog().list()).await {
        Ok(list) => json(StatusCode::OK, serde_json::to_string(&list).unwrap_or_else(|_| "[]".into())),
        Err(_) => refuse(StatusCode::INTERNAL_SERVER_ERROR, "cannot list the games"),
    }
}

async fn bots() -> Response {
    let list: Vec<serde_json::Value> = crate::bot::BOTS
        .iter()
        .map(|b| serde_json::json!({ "name": b.name, "about": b.about, "options": b.options }))
        .collect();
    json(StatusCode::OK, serde_json::Value::from(list).to_string())
}

async fn create(State(server): State<Arc<Server>>, body: Bytes) -> Response {
    let req: CreateRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, &format!("not a table request: {e}")),
    };
    match tokio::task::spawn_blocking(move || server.create(req)).await {
        Ok(Ok(created)) => json(StatusCode::CREATED, serde_json::to_string(&created).unwrap_or_default()),
        Ok(Err(e)) => refuse(StatusCode::BAD_REQUEST, &e),
        Err(_) => refuse(StatusCode::INTERNAL_SERVER_ERROR, "the table could not be opened"),
    }
}

async fn status(State(server): State<Arc<Server>>) -> Response {
    json(StatusCode::OK, serde_json::to_string(&server.status()).unwrap_or_default())
}

async fn table_page(State(server): State<Arc<Server>>, Path(token): Path<String>) -> Response {
    if server.knows(&token) {
        html(StatusCode::OK, assets::TABLE_HTML)
    } else {
        html(StatusCode::NOT_FOUND, assets::UNKNOWN_HTML)
    }
}

async fn view(State(server): State<Arc<Server>>, Path(token): Path<String>) -> Response {
    match server.link(&token).await {
        Some((table, seat)) => json(StatusCode::OK, table.view(seat).await.to_string()),
        None => refuse(StatusCode::NOT_FOUND, "this link does not open a table here"),
    }
}

async fn transcript(State(server): State<Arc<Server>>, Path(token): Path<String>) -> Response {
    let Some((table, _)) = server.link(&token).await else {
        return refuse(StatusCode::NOT_FOUND, "this link does not open a table here");
    };
    match table.transcript().await {
        Some(text) => {
            let game: String =
                table.config.game.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
            let name = format!("attachment; filename=\"{game}-{}.transcript\"", table.id);
            (
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8".to_string()), (header::CONTENT_DISPOSITION, name)],
                text.to_string(),
            )
                .into_response()
        }
        None => refuse(
            StatusCode::CONFLICT,
            "the game is not over: its transcript would show what the seats cannot see yet",
        ),
    }
}
