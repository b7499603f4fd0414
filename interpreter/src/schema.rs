//! JSON Schema (draft-07) for game and variant files, generated from the serde types in
//! [`crate::def`] (descriptions come from their doc comments). `schemas/` holds this output;
//! editors with a TOML language server use it through each file's `#:schema` line.

use crate::def::GameFile;
use schemars::generate::SchemaSettings;

/// Which file the schema is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaKind {
    /// `game.toml` and the files it includes.
    Game,
    /// `variants/*.toml` overlays.
    Variant,
}

impl SchemaKind {
    /// The file name under `schemas/`.
    pub fn file_name(self) -> &'static str {
        match self {
            SchemaKind::Game => "game.schema.json",
            SchemaKind::Variant => "variant.schema.json",
        }
    }
}

/// The schema as pretty-printed JSON, ending with a newline.
pub fn schema_json(kind: SchemaKind) -> String {
    let generator = SchemaSettings::draft07().into_generator();
    let mut schema = generator.into_root_schema_for::<GameFile>();
    let (title, description) = match kind {
        SchemaKind::Game => (
            "Rulebook game file",
            "A game.toml (or a file it includes): components, zones, tracks, decisions, phases and flow. Every table is optional in a single file; the loader checks the merged game.",
        ),
        SchemaKind::Variant => (
            "Rulebook variant file",
            "A variants/NAME.toml overlay: patches any value of the game (tables merge key by key, other values are replaced) and may describe itself in [variant].",
        ),
    };
    schema.insert("title".into(), title.into());
    schema.insert("description".into(), description.into());
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}
