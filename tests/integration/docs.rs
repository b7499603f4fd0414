//! The documentation checked against the engine, so that the authoring guide, the diagnostic
//! codes and the scenario reference cannot drift from what the engine does. (The script API
//! page is generated; `cli::script_api_reference_is_generated_and_complete` checks it.)

use std::collections::BTreeSet;
use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(crate::root().join(path)).unwrap()
}

/// The text of a Markdown section: from the heading that starts with `heading` to the next
/// heading of the same or a higher level (lines in fenced code blocks are not headings).
fn section(text: &str, heading: &str) -> String {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let mut out = String::new();
    let (mut inside, mut fenced) = (false, false);
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        let is_heading = !fenced && hashes > 0 && line[hashes..].starts_with(' ');
        if inside && is_heading && hashes <= level {
            break;
        }
        if line.starts_with(heading) && !fenced {
            inside = true;
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    assert!(!out.is_empty(), "no section `{heading}`");
    out
}

/// Every diagnostic code (`E0102`, `W0007`) in a text.
fn codes_in(text: &str) -> BTreeSet<String> {
    let bytes = text.as_bytes();
    let mut out = BTreeSet::new();
    for i in 0..bytes.len().saturating_sub(4) {
        let starts_word = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let ends_word = bytes.get(i + 5).is_none_or(|b| !b.is_ascii_alphanumeric());
        if (bytes[i] == b'E' || bytes[i] == b'W')
            && bytes[i + 1..i + 5].iter().all(u8::is_ascii_digit)
            && starts_word
            && ends_word
        {
            out.insert(text[i..i + 5].to_string());
        }
    }
    out
}

/// The codes the engine can report: every `"E0123"` / `"W0001"` literal in its sources.
fn engine_codes() -> BTreeSet<String> {
    fn walk(dir: &Path, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for code in codes_in(&text) {
                    if text.contains(&format!("\"{code}\"")) {
                        out.insert(code);
                    }
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(&crate::root().join("interpreter/src"), &mut out);
    out
}

#[test]
fn every_code_the_engine_reports_is_in_the_code_table_and_no_doc_names_another() {
    let engine = engine_codes();
    assert!(engine.len() > 50, "{engine:?}");
    let table: BTreeSet<String> = read("games/DIAGNOSTICS.md")
        .lines()
        .filter(|l| l.starts_with("| E") || l.starts_with("| W"))
        .flat_map(|l| codes_in(l.split('|').nth(1).unwrap_or("")))
        .collect();
    let undocumented: Vec<_> = engine.difference(&table).collect();
    assert!(
        undocumented.is_empty(),
        "codes the engine reports but games/DIAGNOSTICS.md does not explain: {undocumented:?}"
    );
    let unknown: Vec<_> = table.difference(&engine).collect();
    assert!(unknown.is_empty(), "codes games/DIAGNOSTICS.md explains but the engine never reports: {unknown:?}");
    for doc in ["games/README.md", "games/SCENARIOS.md", "games/CI.md", "README.md", "interpreter/BOTS.md"] {
        let named = codes_in(&read(doc));
        let stray: Vec<_> = named.difference(&engine).collect();
        assert!(stray.is_empty(), "{doc} names codes the engine does not have: {stray:?}");
    }
}

#[test]
fn the_guide_names_every_script_function_and_only_those() {
    let guide = read("games/README.md");
    let reference = section(&guide, "## 9. Script API reference");
    let names_of = |calls: &mut dyn Iterator<Item = String>| -> BTreeSet<String> {
        calls
            .filter_map(|call| {
                let (owner, rest) = call.split_once('.')?;
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                (!name.is_empty() && ["game", "c", "list"].contains(&owner)).then(|| format!("{owner}.{name}"))
            })
            .collect()
    };
    let engine =
        names_of(&mut rulebook::api_doc::entries().into_iter().map(|e| e.call).filter(|c| !c.contains("PROPERTY")));
    let in_guide = names_of(&mut reference.split('`').map(str::to_string));
    let missing: Vec<_> = engine.difference(&in_guide).collect();
    assert!(missing.is_empty(), "games/README.md section 9 lacks these script functions: {missing:?}");
    // The guide says there is no `game.var` (a reserved word), naming it on purpose.
    let stray: Vec<_> =
        in_guide.iter().filter(|n| n.starts_with("game.") && !engine.contains(*n) && *n != "game.var").collect();
    assert!(stray.is_empty(), "games/README.md section 9 names functions the engine does not have: {stray:?}");
}

#[test]
fn the_toml_reference_covers_every_key_of_the_schema() {
    let guide = read("games/README.md");
    let reference = section(&guide, "## 3. TOML reference");
    let schema: serde_json::Value =
        serde_json::from_str(&rulebook::schema::schema_json(rulebook::schema::SchemaKind::Game)).unwrap();
    let definitions = &schema["definitions"];
    let definition_of = |v: &serde_json::Value| -> Option<String> {
        let r = v["$ref"]
            .as_str()
            .or_else(|| v["additionalProperties"]["$ref"].as_str())
            .or_else(|| v["allOf"][0]["$ref"].as_str())
            .or_else(|| v["anyOf"][0]["$ref"].as_str())?;
        Some(r.trim_start_matches("#/definitions/").to_string())
    };
    let mut missing = Vec::new();
    for (table, value) in schema["properties"].as_object().unwrap() {
        let heading = format!("### `[{table}");
        if !reference.contains(&heading) {
            missing.push(format!("a section `[{table}]`"));
            continue;
        }
        let own = section(&reference, &heading);
        let Some(def) = definition_of(value) else { continue };
        for key in definitions[&def]["properties"].as_object().into_iter().flatten().map(|(k, _)| k) {
            if !own.contains(&format!("`{key}`")) {
                missing.push(format!("`{key}` of `[{table}]`"));
            }
        }
    }
    // Keys of nested tables (a decision's `contest`, a step's `move`) anywhere in section 3.
    for (name, def) in definitions.as_object().unwrap() {
        for key in def["properties"].as_object().into_iter().flatten().map(|(k, _)| k) {
            if !reference.contains(&format!("`{key}`")) && !reference.contains(&format!("{key} =")) {
                missing.push(format!("`{key}` of {name}"));
            }
        }
    }
    assert!(missing.is_empty(), "games/README.md section 3 does not describe: {missing:?}");
}

#[test]
fn the_scenario_reference_shows_every_statement_of_the_grammar() {
    let grammar = read("interpreter/src/scenario/scenario.pest");
    let reference = read("games/SCENARIOS.md");
    // Each setup line (`set_*`) and expectation (`exp_*`): its keyword as the reference writes
    // it, and the seat form (`NAME SEAT` or `NAME [SEAT]`) where the grammar takes a seat.
    let mut missing = Vec::new();
    for line in grammar.lines() {
        let Some((rule, body)) = line.split_once("= {") else { continue };
        let rule = rule.trim();
        let prefix = if rule.starts_with("exp_") {
            "expect "
        } else if rule.starts_with("set_") {
            "`"
        } else {
            continue;
        };
        let Some(keyword) = body.split('"').nth(1) else { continue };
        let plain = format!("{prefix}{keyword}");
        if !reference.contains(&plain) {
            missing.push(plain.clone());
        }
        if body.trim_start().starts_with(&format!("\"{keyword}\" ~ name ~ seat?")) {
            let forms = [format!("{plain} NAME SEAT"), format!("{plain} NAME [SEAT]")];
            if !forms.iter().any(|f| reference.contains(f.as_str())) {
                missing.push(forms[0].clone());
            }
        }
    }
    assert!(missing.len() < 40, "the grammar was not read: {missing:?}");
    assert!(missing.is_empty(), "games/SCENARIOS.md does not show these scenario lines: {missing:?}");
}

#[test]
fn the_limits_table_gives_the_engine_defaults_and_caps() {
    let guide = read("games/README.md");
    let table = section(&guide, "### `[limits]`");
    let (d, c) = (rulebook::script::DEFAULT_LIMITS, rulebook::script::HARD_CAPS);
    for (key, default, cap) in [
        ("max_operations", d.max_operations, c.max_operations),
        ("max_call_depth", d.max_call_depth, c.max_call_depth),
        ("max_string_size", d.max_string_size, c.max_string_size),
        ("max_array_size", d.max_array_size, c.max_array_size),
        ("max_map_size", d.max_map_size, c.max_map_size),
    ] {
        let row =
            table.lines().find(|l| l.starts_with(&format!("| `{key}`"))).unwrap_or_else(|| panic!("no row {key}"));
        let cells: Vec<u64> =
            row.split('|').skip(2).take(2).map(|x| x.trim().replace(',', "").parse().unwrap()).collect();
        assert_eq!(cells, [default, cap], "the [limits] row of `{key}` in games/README.md");
    }
}

#[test]
fn the_guide_shows_what_validate_really_prints() {
    let guide = read("games/README.md");
    let dir = crate::Scratch::new("docs");
    let broken = |edits: &[(&str, &str)]| {
        let _ = std::fs::remove_dir_all(dir.join("broken"));
        std::fs::create_dir_all(dir.join("broken")).unwrap();
        for entry in std::fs::read_dir(crate::root().join("games/goofspiel")).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, dir.join("broken").join(path.file_name().unwrap())).unwrap();
            }
        }
        let file = dir.join("broken/game.toml");
        let mut text = std::fs::read_to_string(&file).unwrap();
        for (from, to) in edits {
            assert!(
                text.contains(from),
                "games/goofspiel/game.toml no longer has `{from}`: update this test and the guide"
            );
            text = text.replacen(from, to, 1);
        }
        std::fs::write(&file, text).unwrap();
    };
    let validate = |args: &[&str]| {
        let o =
            std::process::Command::new(env!("CARGO_BIN_EXE_rulebook")).args(args).current_dir(&dir).output().unwrap();
        assert_eq!(o.status.code(), Some(1));
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)).trim_end().to_string()
    };
    broken(&[("from = \"hand\"", "from = \"hnad\""), ("{ phase = \"turn\" }", "{ phase = \"trun\" }")]);
    let human = format!("$ rulebook validate broken\n{}\n$ echo $?\n1\n", validate(&["validate", "broken"]));
    let json = format!(
        "$ rulebook validate broken --format json\n{}\n",
        validate(&["validate", "broken", "--format", "json"])
    );
    broken(&[("ordered = false", "ordred = false")]);
    let key = format!("$ rulebook validate broken\n{}\n", validate(&["validate", "broken"]));
    drop(dir);
    for (what, block) in [("the misspelt zone and phase", human), ("the JSON lines", json), ("the misspelt key", key)] {
        assert!(
            guide.contains(&block),
            "games/README.md section 11 does not show what validate prints for {what}:\n{block}"
        );
    }
}

/// The logical lines of a Markdown text's fenced code blocks (a line ending in `\` goes on in
/// the next).
fn code_lines(text: &str) -> Vec<String> {
    let (mut out, mut fenced, mut pending) = (Vec::new(), false, String::new());
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            continue;
        }
        match line.trim_end().strip_suffix('\\') {
            Some(head) => pending.push_str(head),
            None => out.push(std::mem::take(&mut pending) + line),
        }
    }
    out
}

/// Every `rulebook COMMAND ...` in the code blocks of a text: the command and its `--flags`
/// (up to a pipe or another command).
fn rulebook_calls(text: &str) -> Vec<(String, Vec<String>)> {
    let mut calls = Vec::new();
    for line in code_lines(text) {
        let words: Vec<String> =
            line.split_whitespace().map(|w| w.trim_matches(['\'', '"', '[', ']', ',']).to_string()).collect();
        for (i, w) in words.iter().enumerate() {
            let Some(command) = words.get(i + 1).filter(|_| w == "rulebook" || w.ends_with("/rulebook")) else {
                continue;
            };
            let flags = words[i + 2..]
                .iter()
                .take_while(|w| !["|", "&&", ";", "rulebook"].contains(&w.as_str()))
                .filter(|w| w.starts_with("--"))
                .map(|w| w.split('=').next().unwrap_or_default().to_string())
                .collect();
            calls.push((command.clone(), flags));
        }
    }
    calls
}

#[test]
fn the_command_lines_in_the_readme_and_the_distributed_recipes_use_only_flags_the_commands_take() {
    let mut helps = std::collections::HashMap::new();
    let mut checked = 0;
    for doc in ["README.md", "interpreter/docs/DISTRIBUTED.md"] {
        for (command, flags) in rulebook_calls(&read(doc)) {
            let help = helps.entry(command.clone()).or_insert_with(|| {
                let o = std::process::Command::new(env!("CARGO_BIN_EXE_rulebook"))
                    .args([command.as_str(), "--help"])
                    .output()
                    .unwrap();
                String::from_utf8_lossy(&o.stdout).into_owned()
            });
            for flag in flags {
                let known = [" ", "\n", ","].iter().any(|end| help.contains(&format!("{flag}{end}")));
                assert!(known, "{doc}: `rulebook {command}` has no flag {flag}");
                checked += 1;
            }
        }
    }
    assert!(checked > 60, "only {checked} flags found: is the parsing right?");
    let recipes = read("interpreter/docs/DISTRIBUTED.md");
    let calls = rulebook_calls(&recipes);
    for command in ["simulate", "balance", "sweep", "merge"] {
        assert!(
            calls.iter().any(|(c, _)| c == command),
            "interpreter/docs/DISTRIBUTED.md shows no `rulebook {command}`"
        );
    }
    for variable in ["$SLURM_ARRAY_TASK_ID", "$JOB_COMPLETION_INDEX", "parallel"] {
        assert!(recipes.contains(variable), "interpreter/docs/DISTRIBUTED.md has no recipe with {variable}");
    }
    assert!(
        read("README.md").contains("(interpreter/docs/DISTRIBUTED.md)"),
        "the README links interpreter/docs/DISTRIBUTED.md"
    );
    let heading = "## One machine: GNU parallel";
    assert!(recipes.contains(heading) && read(".ci/run").contains(heading), "CI runs the GNU parallel recipe");
}
