//! The event log: everything that happened, each event tagged with who may read it, so a
//! log can be redacted for any viewer.

use serde::Serialize;

/// Who may read an event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Audience {
    /// Everyone.
    All,
    /// Only these players.
    Only(Vec<usize>),
}

/// What kind of thing happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// A player's choice.
    Decision,
    /// A hidden commit (its content is private until the reveal).
    Commit,
    /// Commits revealed together.
    Reveal,
    /// A shuffle or random draw.
    Chance,
    /// A message written by a script.
    Message,
    /// The end of the game.
    End,
}

/// One entry of the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Event {
    /// Kind.
    pub kind: EventKind,
    /// Full text.
    pub text: String,
    /// Who may read `text`.
    pub audience: Audience,
    /// What everyone else reads instead (nothing, when absent).
    pub redacted: Option<String>,
}

impl Event {
    /// A public event.
    pub fn public(kind: EventKind, text: impl Into<String>) -> Self {
        Event { kind, text: text.into(), audience: Audience::All, redacted: None }
    }

    /// A private event with an optional public stand-in.
    pub fn private(kind: EventKind, to: Vec<usize>, text: impl Into<String>, redacted: Option<String>) -> Self {
        Event { kind, text: text.into(), audience: Audience::Only(to), redacted }
    }

    /// The text a viewer may read (`None` = omniscient), or nothing.
    pub fn for_viewer(&self, viewer: Option<usize>) -> Option<&str> {
        match (&self.audience, viewer) {
            (Audience::All, _) | (_, None) => Some(&self.text),
            (Audience::Only(to), Some(p)) if to.contains(&p) => Some(&self.text),
            _ => self.redacted.as_deref(),
        }
    }
}

impl Event {
    /// The text a spectator may read: public events, and the public stand-in of private ones.
    pub fn public_text(&self) -> Option<&str> {
        match self.audience {
            Audience::All => Some(&self.text),
            Audience::Only(_) => self.redacted.as_deref(),
        }
    }
}

/// The log as a viewer may read it, one line per event.
pub fn redacted_lines(events: &[Event], viewer: Option<usize>) -> Vec<String> {
    events.iter().filter_map(|e| e.for_viewer(viewer).map(str::to_string)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_events_are_redacted_for_others() {
        let e = Event::private(EventKind::Commit, vec![1], "P2 committed 7", Some("P2 committed".into()));
        assert_eq!(e.for_viewer(Some(1)), Some("P2 committed 7"));
        assert_eq!(e.for_viewer(Some(0)), Some("P2 committed"));
        assert_eq!(e.for_viewer(None), Some("P2 committed 7"));
        assert_eq!(e.public_text(), Some("P2 committed"));
        let quiet = Event::private(EventKind::Message, vec![1], "secret", None);
        assert_eq!(quiet.for_viewer(Some(0)), None);
        assert_eq!(quiet.public_text(), None);
    }
}
