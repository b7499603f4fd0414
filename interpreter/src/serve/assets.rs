//! The pages, embedded in the binary: plain HTML, CSS and JavaScript, no build step, nothing
//! fetched from the network. The table page draws any game from its `view` messages alone.

/// The lobby: pick a game, its variants, options, seats and bots; get the links.
pub const LOBBY_HTML: &str = include_str!("assets/lobby.html");
/// The table page (the same for every link: its script reads the token from the address).
pub const TABLE_HTML: &str = include_str!("assets/table.html");
/// The page for a link that opens no table.
pub const UNKNOWN_HTML: &str = include_str!("assets/unknown.html");

/// Files under `/assets/`: name, content type, content.
const FILES: &[(&str, &str, &str)] = &[
    ("style.css", "text/css; charset=utf-8", include_str!("assets/style.css")),
    ("lobby.js", "text/javascript; charset=utf-8", include_str!("assets/lobby.js")),
    ("table.js", "text/javascript; charset=utf-8", include_str!("assets/table.js")),
];

/// An asset by file name: its content type and content.
pub fn get(name: &str) -> Option<(&'static str, &'static str)> {
    FILES.iter().find(|(n, _, _)| *n == name).map(|(_, kind, body)| (*kind, *body))
}
