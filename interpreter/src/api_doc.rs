//! The script API reference (`games/SCRIPT_API.md`), generated from the metadata of the
//! functions the engine registers for scripts, so the page cannot drift from the code.

use crate::script::Scripts;
use serde::Deserialize;

#[derive(Deserialize)]
struct Metadata {
    #[serde(default)]
    functions: Vec<Function>,
}

#[derive(Deserialize)]
struct Function {
    name: String,
    #[serde(default)]
    params: Vec<Param>,
    #[serde(default, rename = "returnType")]
    return_type: Option<String>,
    #[serde(default, rename = "docComments")]
    doc_comments: Vec<String>,
}

#[derive(Deserialize)]
struct Param {
    #[serde(default)]
    name: Option<String>,
    #[serde(default, rename = "type")]
    typ: Option<String>,
}

/// One documented function: how it is called, what it returns, what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiEntry {
    /// How a script writes the call, e.g. `game.cards(zone: &str)`.
    pub call: String,
    /// Return type.
    pub returns: String,
    /// Description (empty if undocumented).
    pub doc: String,
}

/// Every function, getter and setter scripts can call, sorted.
pub fn entries() -> Vec<ApiEntry> {
    let json = Scripts::new().metadata_json();
    let meta: Metadata = serde_json::from_str(&json).unwrap_or(Metadata { functions: Vec::new() });
    let mut out: Vec<ApiEntry> = meta
        .functions
        .into_iter()
        .map(|f| {
            let params: Vec<String> = f
                .params
                .iter()
                .map(|p| match (&p.name, &p.typ) {
                    (Some(n), Some(t)) => format!("{n}: {t}"),
                    (Some(n), None) => n.clone(),
                    (None, Some(t)) => t.clone(),
                    (None, None) => "_".into(),
                })
                .collect();
            let receiver = params.first().cloned().unwrap_or_default();
            let rest = params.iter().skip(1).cloned().collect::<Vec<_>>().join(", ");
            let obj = if receiver.starts_with("game") {
                "game"
            } else if receiver.starts_with("list") {
                "list"
            } else {
                "c"
            };
            let call = if let Some(prop) = f.name.strip_prefix("get$") {
                format!("{obj}.{prop}")
            } else if let Some(prop) = f.name.strip_prefix("set$") {
                format!("{obj}.{prop} = {rest}")
            } else if f.name == "index$get$" {
                format!("{obj}.PROPERTY, {obj}[\"property\"]")
            } else if f.name == "==" || f.name == "!=" {
                format!("a {} b", f.name)
            } else if receiver.starts_with("game") || receiver.starts_with("component") || receiver.starts_with("list")
            {
                format!("{obj}.{}({rest})", f.name)
            } else {
                format!("{}({})", f.name, params.join(", "))
            };
            let doc = f.doc_comments.iter().map(|c| c.trim_start_matches("///").trim()).collect::<Vec<_>>().join(" ");
            ApiEntry { call, returns: f.return_type.unwrap_or_else(|| "()".into()), doc }
        })
        .collect();
    out.sort_by(|a, b| a.call.cmp(&b.call));
    out
}

/// The reference page as Markdown.
pub fn markdown() -> String {
    let mut s = String::from(
        "# Script API reference\n\n\
         Generated from the engine's registered functions by `rulebook api > games/SCRIPT_API.md`;\n\
         a test fails when this page and the engine disagree. The authoring guide\n\
         (`games/README.md`) explains how scripts are called and what they may do.\n\n\
         Scripts receive `game`, a handle on the game in progress; components reach scripts as\n\
         `Component` handles. Besides these, scripts have Rhai's standard library (arrays, maps,\n\
         strings, maths) but no files, clock, environment or randomness of their own.\n\n\
         | call | returns | what it does |\n|---|---|---|\n",
    );
    for e in entries() {
        s.push_str(&format!(
            "| `{}` | `{}` | {} |\n",
            e.call.replace('|', "\\|"),
            e.returns,
            e.doc.replace('|', "\\|")
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compiled scripts read a component's properties without calling its getters
    /// (`api::component::read_property`): it answers `id`, `kind` and `label` itself and every
    /// other name as the indexer does. A new getter on components must be taught to it too.
    #[test]
    fn the_component_getters_are_the_ones_compiled_scripts_read_directly() {
        let getters: Vec<String> =
            entries().into_iter().map(|e| e.call).filter(|c| c.starts_with("c.") && !c.contains('(')).collect();
        assert_eq!(getters, ["c.PROPERTY, c[\"property\"]", "c.id", "c.kind", "c.label"]);
    }
}
