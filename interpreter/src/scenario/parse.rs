//! Parsing scenario and transcript files (grammar: `scenario.pest`) into [`ScenarioFile`]s.
//! The parser never panics: any input gives a file or a located, worded error.

use crate::value::Value;
use pest::iterators::Pair;
use pest::Parser;
use pest_derive::Parser;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[grammar = "scenario/scenario.pest"]
struct ScenarioParser;

/// A parsed file: its header and its scenarios.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScenarioFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// Game, variants, options, players and seed for every scenario.
    pub header: Header,
    /// The scenarios, in order.
    pub scenarios: Vec<Scenario>,
}

/// Which game and how to set it up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    /// Game folder or bundled name.
    pub game: Option<String>,
    /// Variants.
    pub variants: Vec<String>,
    /// Parameter values.
    pub options: Vec<(String, String)>,
    /// Seats.
    pub players: Option<usize>,
    /// Seed.
    pub seed: Option<u64>,
    /// Names for the seats in order (`seats Jeroen Molly ...`), usable wherever a seat is named.
    pub seats: Vec<String>,
}

impl Header {
    /// This header with another's settings layered on top.
    pub fn with(&self, over: &Header) -> Header {
        let mut h = self.clone();
        if over.game.is_some() {
            h.game = over.game.clone();
        }
        h.variants.extend(over.variants.iter().cloned());
        h.options.extend(over.options.iter().cloned());
        h.players = over.players.or(h.players);
        h.seed = over.seed.or(h.seed);
        if !over.seats.is_empty() {
            h.seats = over.seats.clone();
        }
        h
    }
}

/// One scenario.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scenario {
    /// Its name.
    pub name: String,
    /// What it checks, and where in the rulebook it comes from.
    pub description: Option<String>,
    /// Line of the `scenario` keyword.
    pub line: usize,
    /// Settings that override the file header.
    pub header: Header,
    /// Setup, decisions and expectations, in order.
    pub steps: Vec<Step>,
}

/// A statement with its line.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// 1-based line.
    pub line: usize,
    /// What it says.
    pub kind: StepKind,
}

/// A statement of a scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum StepKind {
    /// `zone NAME [SEAT] = ID...`
    SetZone { zone: String, seat: Option<String>, ids: Vec<String> },
    /// `grid NAME [SEAT] = [ID@ROW:COL[:TURNS], ...]`
    SetGrid { grid: String, seat: Option<String>, pieces: Vec<String> },
    /// `track NAME [SEAT] = N`
    SetTrack { track: String, seat: Option<String>, value: i64 },
    /// `var NAME [SEAT] = VALUE`
    SetVar { var: String, seat: Option<String>, value: Value },
    /// `prop ID KEY = VALUE`
    SetProp { id: String, key: String, value: Value },
    /// `draws N...`
    SetDraws(Vec<i64>),
    /// `current SEAT`
    SetCurrent(String),
    /// `turn_order SEAT...`
    SetTurnOrder(Vec<String>),
    /// `phase NAME`
    SetPhase(String),
    /// `SEAT chooses OPTION`
    Choose { seat: String, option: String },
    /// `expect ...`
    Expect(Expectation),
}

/// What an `expect` line checks.
#[derive(Clone, Debug, PartialEq)]
pub enum Expectation {
    /// A track's value.
    Track { track: String, seat: Option<String>, value: i64 },
    /// A variable's value.
    Var { var: String, seat: Option<String>, value: Value },
    /// A zone's exact contents (ids, bottom to top).
    ZoneEquals { zone: String, seat: Option<String>, ids: Vec<String> },
    /// A zone holds these components.
    ZoneContains { zone: String, seat: Option<String>, ids: Vec<String> },
    /// A zone holds none of these components.
    ZoneExcludes { zone: String, seat: Option<String>, ids: Vec<String> },
    /// A grid's exact pieces (`ID@ROW:COL[:TURNS]`, in any order).
    Grid { grid: String, seat: Option<String>, pieces: Vec<String> },
    /// A grid as a seat's view draws it (see `grid_text`) shows (or does not show) a text.
    GridView { seat: String, grid: String, owner: Option<String>, shows: bool, text: String },
    /// A zone's size.
    Count { zone: String, seat: Option<String>, value: i64 },
    /// The pending decision (and who must still answer).
    Pending { decision: String, seats: Vec<String> },
    /// A seat's options, exactly.
    OptionsEqual { seat: String, ids: Vec<String> },
    /// A seat's options include these.
    OptionsInclude { seat: String, ids: Vec<String> },
    /// A seat's options exclude these.
    OptionsExclude { seat: String, ids: Vec<String> },
    /// Choosing this is refused as illegal.
    Illegal { seat: String, option: String },
    /// Choosing this fails with an error containing the text.
    Error { seat: String, option: String, message: String },
    /// The game is over.
    Over,
    /// The game is not over.
    NotOver,
    /// The winners (empty = nobody).
    Winners(Vec<String>),
    /// A seat's view shows (or hides) a text, e.g. a component id.
    View { seat: String, shows: bool, text: String },
    /// The log (as a seat reads it, or the full log) has a line containing the text, or
    /// (`lacks`) has none.
    Log { seat: Option<String>, text: String, present: bool },
    /// The state's hash.
    Hash(String),
    /// The current player.
    Current(String),
}

/// A parse error, located and worded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Where.
    pub location: crate::diag::Location,
    /// What was expected.
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

fn words(rule: &Rule) -> String {
    match rule {
        Rule::EOI => "end of file",
        Rule::game => "`game NAME`",
        Rule::variant => "`variant NAME`",
        Rule::option => "`option KEY = VALUE`",
        Rule::players => "`players N`",
        Rule::seed => "`seed N`",
        Rule::scenario => "`scenario \"NAME\" {`",
        Rule::description => "`description \"...\"`",
        Rule::set_zone => "`zone NAME [SEAT] = IDS`",
        Rule::set_grid => "`grid NAME [SEAT] = [ID@ROW:COL, ...]`",
        Rule::set_track => "`track NAME [SEAT] = N`",
        Rule::set_var => "`var NAME [SEAT] = VALUE`",
        Rule::set_prop => "`prop ID KEY = VALUE`",
        Rule::set_draws => "`draws N...`",
        Rule::set_current => "`current SEAT`",
        Rule::set_turn_order => "`turn_order SEATS`",
        Rule::set_phase => "`phase NAME`",
        Rule::choose => "`SEAT chooses OPTION`",
        Rule::expect => "`expect ...`",
        Rule::exp_track | Rule::exp_var | Rule::exp_zone | Rule::exp_count | Rule::exp_pending => "an expectation",
        Rule::exp_options | Rule::exp_illegal | Rule::exp_error | Rule::exp_over | Rule::exp_not_over => {
            "an expectation"
        }
        Rule::exp_winners | Rule::exp_view | Rule::exp_log | Rule::exp_hash | Rule::exp_current => "an expectation",
        Rule::exp_grid | Rule::exp_grid_view => "an expectation",
        Rule::contains => "`contains IDS`",
        Rule::log_contains | Rule::log_lacks => "`contains` or `lacks`",
        Rule::seats => "`seats NAME...`",
        Rule::includes => "`includes IDS`",
        Rule::excludes => "`excludes IDS`",
        Rule::equals => "`= [...]`",
        Rule::shows | Rule::hides => "`shows` or `hides`",
        Rule::nobody => "`nobody`",
        Rule::ids => "one or more ids",
        Rule::empty => "`[]` (empty)",
        Rule::list => "a list `[a, b]`",
        Rule::value => "a value",
        Rule::seat => "a seat name (like P1)",
        Rule::name => "a name",
        Rule::token => "an id or label",
        Rule::boolean => "true or false",
        Rule::int => "a whole number",
        Rule::uint => "a whole number (0 or more)",
        Rule::string => "a quoted string",
        _ => "something else",
    }
    .to_string()
}

/// Byte offsets where lines start: line numbers in O(log n), where pest's own `line_col`
/// rescans the text from its start on every call (quadratic over a file).
struct Lines(Vec<usize>);

impl Lines {
    fn new(text: &str) -> Lines {
        Lines(std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect())
    }

    /// 1-based line and column (in characters) of a byte offset.
    fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let line = self.0.partition_point(|&start| start <= offset);
        let start = self.0[line - 1];
        (line, text.get(start..offset).map_or(1, |t| t.chars().count() + 1))
    }
}

/// The first character a scenario file may not hold: control characters other than tab and
/// line breaks (a binary file, a stray terminal escape), never echoed back raw.
fn first_control_char(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|(_, c)| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
}

/// The whole numbers of a parsed file that do not fit their type, and header values out of
/// range: located errors instead of silent defaults.
fn check_numbers(root: &Pair<'_, Rule>, lines: &Lines, text: &str, path: &Path) -> Result<(), ParseError> {
    let at = |p: &Pair<'_, Rule>, message: String| {
        let (line, column) = lines.line_col(text, p.as_span().start());
        ParseError { location: crate::diag::Location { file: path.to_path_buf(), line, column }, message }
    };
    for p in root.clone().into_inner().flatten() {
        match p.as_rule() {
            Rule::int if p.as_str().parse::<i64>().is_err() => {
                return Err(at(
                    &p,
                    format!("`{}` is too large: whole numbers go from {} to {}", p.as_str(), i64::MIN, i64::MAX),
                ));
            }
            Rule::uint if p.as_str().parse::<u64>().is_err() => {
                return Err(at(&p, format!("`{}` is too large: the most is {}", p.as_str(), u64::MAX)));
            }
            Rule::players => {
                let n = p.clone().into_inner().next();
                if let Some(n) = n.filter(|n| {
                    !n.as_str().parse::<usize>().is_ok_and(|v| (1..=crate::rules::MAX_PLAYERS).contains(&v))
                }) {
                    return Err(at(
                        &n,
                        format!("`players {}`: a game has 1 to {} seats", n.as_str(), crate::rules::MAX_PLAYERS),
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Parses a scenario or transcript file's text.
pub fn parse(path: &Path, text: &str) -> Result<ScenarioFile, ParseError> {
    let lines = Lines::new(text);
    if let Some((offset, c)) = first_control_char(text) {
        let (line, column) = lines.line_col(text, offset);
        return Err(ParseError {
            location: crate::diag::Location { file: path.to_path_buf(), line, column },
            message: format!(
                "control character U+{:04X} is not allowed in a scenario file (is this a binary file?)",
                c as u32
            ),
        });
    }
    let mut pairs = ScenarioParser::parse(Rule::file, text).map_err(|e| {
        let (line, column) = match e.line_col {
            pest::error::LineColLocation::Pos(p) | pest::error::LineColLocation::Span(p, _) => p,
        };
        let message = match &e.variant {
            pest::error::ErrorVariant::ParsingError { positives, negatives } => {
                let mut p: Vec<String> = positives.iter().map(words).collect();
                p.sort();
                p.dedup();
                let n: Vec<String> = negatives.iter().map(words).collect();
                let found = text.lines().nth(line.saturating_sub(1)).and_then(|l| {
                    l.chars().skip(column - 1).collect::<String>().split_whitespace().next().map(str::to_string)
                });
                let found =
                    found.map(|f| format!(", found `{f}`")).unwrap_or_else(|| ", found the end of the line".into());
                if p.len() > 4 {
                    format!("expected a statement (`SEAT chooses OPTION`, `expect ...`, or a setup line such as `zone NAME = IDS`){found}")
                } else if !p.is_empty() {
                    format!("expected {}{found}", p.join(" or "))
                } else {
                    format!("unexpected {}{found}", n.join(" or "))
                }
            }
            pest::error::ErrorVariant::CustomError { message } => message.clone(),
        };
        // An error on the last line of a file whose last scenario is not closed: say so.
        let last_line = text.trim_end().lines().count().max(1);
        let message = if line >= last_line && !text.trim_end().ends_with('}') && text.contains("scenario") {
            format!("{message}; the file ends here without the closing `}}` of a scenario: is it cut short?")
        } else {
            message
        };
        ParseError { location: crate::diag::Location { file: path.to_path_buf(), line, column }, message }
    })?;
    let mut file = ScenarioFile { path: path.to_path_buf(), ..Default::default() };
    let root = pairs.next().expect("the file rule always yields one pair");
    check_numbers(&root, &lines, text, path)?;
    for pair in root.into_inner() {
        match pair.as_rule() {
            Rule::scenario => file.scenarios.push(scenario(pair, &lines, text)),
            Rule::EOI => {}
            _ => header_line(&mut file.header, pair),
        }
    }
    Ok(file)
}

fn header_line(h: &mut Header, pair: Pair<'_, Rule>) {
    let rule = pair.as_rule();
    let mut inner = pair.into_inner();
    match rule {
        Rule::game => h.game = inner.next().map(text),
        Rule::variant => h.variants.extend(inner.next().map(|p| p.as_str().to_string())),
        Rule::option => {
            let k = inner.next().map(|p| p.as_str().to_string()).unwrap_or_default();
            // A list is written back the way `--option` takes it: comma-separated.
            let v = match inner.next().map(value) {
                Some(Value::List(items)) => items.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(","),
                Some(v) => v.to_string(),
                None => String::new(),
            };
            h.options.push((k, v));
        }
        Rule::players => h.players = inner.next().and_then(|p| p.as_str().parse().ok()),
        Rule::seed => h.seed = inner.next().and_then(|p| p.as_str().parse().ok()),
        Rule::seats => h.seats = inner.map(|p| p.as_str().to_string()).collect(),
        _ => {}
    }
}

fn text(p: Pair<'_, Rule>) -> String {
    match p.as_rule() {
        Rule::string => unescape(p.into_inner().next().map(|i| i.as_str()).unwrap_or("")),
        _ => p.as_str().to_string(),
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Quotes a text for writing back into a file when it is not a plain token.
pub fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || "_-.:/'+".contains(c))
        && !["contains", "lacks", "chooses", "includes", "excludes", "shows", "hides", "for", "nobody"].contains(&s);
    if plain {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n"))
    }
}

fn value(p: Pair<'_, Rule>) -> Value {
    let inner = p.into_inner().next();
    match inner {
        None => Value::Unit,
        Some(i) => match i.as_rule() {
            Rule::int => i.as_str().parse().map(Value::Int).unwrap_or(Value::Unit),
            Rule::boolean => Value::Bool(i.as_str() == "true"),
            Rule::string => Value::Str(text(i)),
            Rule::list => Value::List(
                i.into_inner()
                    .map(|t| {
                        let quoted = t.as_rule() == Rule::string;
                        let s = text(t);
                        match (quoted, s.parse::<i64>(), s.as_str()) {
                            (false, Ok(n), _) => Value::Int(n),
                            (false, _, "true") => Value::Bool(true),
                            (false, _, "false") => Value::Bool(false),
                            _ => Value::Str(s),
                        }
                    })
                    .collect(),
            ),
            _ => Value::Str(i.as_str().to_string()),
        },
    }
}

fn ids(p: Pair<'_, Rule>) -> Vec<String> {
    p.into_inner().map(text).collect()
}

/// Splits `NAME [SEAT] rest...` into the name, the optional seat and the rest.
fn name_seat<'a>(inner: &mut std::iter::Peekable<pest::iterators::Pairs<'a, Rule>>) -> (String, Option<String>) {
    let name = inner.next().map(|p| p.as_str().to_string()).unwrap_or_default();
    let seat = if inner.peek().is_some_and(|p| p.as_rule() == Rule::seat) {
        inner.next().map(|p| p.as_str().to_string())
    } else {
        None
    };
    (name, seat)
}

fn scenario(pair: Pair<'_, Rule>, lines: &Lines, text_all: &str) -> Scenario {
    let line = lines.line_col(text_all, pair.as_span().start()).0;
    let mut inner = pair.into_inner();
    let name = inner.next().map(text).unwrap_or_default();
    let mut s = Scenario { name, line, ..Default::default() };
    for st in inner {
        let line = lines.line_col(text_all, st.as_span().start()).0;
        let rule = st.as_rule();
        let kind = match rule {
            Rule::description => {
                s.description = st.into_inner().next().map(text);
                continue;
            }
            Rule::game | Rule::variant | Rule::option | Rule::players | Rule::seed | Rule::seats => {
                header_line(&mut s.header, st);
                continue;
            }
            Rule::expect => StepKind::Expect(expectation(st.into_inner().next().expect("expect has a body"))),
            _ => statement(st),
        };
        s.steps.push(Step { line, kind });
    }
    s
}

fn statement(st: Pair<'_, Rule>) -> StepKind {
    let rule = st.as_rule();
    let mut inner = st.into_inner().peekable();
    match rule {
        Rule::set_zone => {
            let (zone, seat) = name_seat(&mut inner);
            let list = match inner.next() {
                Some(p) if p.as_rule() == Rule::ids => ids(p),
                _ => Vec::new(),
            };
            StepKind::SetZone { zone, seat, ids: list }
        }
        Rule::set_grid => {
            let (grid, seat) = name_seat(&mut inner);
            StepKind::SetGrid { grid, seat, pieces: inner.next().map(ids).unwrap_or_default() }
        }
        Rule::set_track => {
            let (track, seat) = name_seat(&mut inner);
            StepKind::SetTrack { track, seat, value: inner.next().and_then(|p| p.as_str().parse().ok()).unwrap_or(0) }
        }
        Rule::set_var => {
            let (var, seat) = name_seat(&mut inner);
            StepKind::SetVar { var, seat, value: inner.next().map(value).unwrap_or_default() }
        }
        Rule::set_prop => {
            let id = inner.next().map(|p| p.as_str().to_string()).unwrap_or_default();
            let key = inner.next().map(|p| p.as_str().to_string()).unwrap_or_default();
            StepKind::SetProp { id, key, value: inner.next().map(value).unwrap_or_default() }
        }
        Rule::set_draws => StepKind::SetDraws(inner.filter_map(|p| p.as_str().parse().ok()).collect()),
        Rule::set_current => StepKind::SetCurrent(inner.next().map(|p| p.as_str().to_string()).unwrap_or_default()),
        Rule::set_turn_order => StepKind::SetTurnOrder(inner.map(|p| p.as_str().to_string()).collect()),
        Rule::set_phase => StepKind::SetPhase(inner.next().map(|p| p.as_str().to_string()).unwrap_or_default()),
        _ => {
            let seat = inner.next().map(|p| p.as_str().to_string()).unwrap_or_default();
            StepKind::Choose { seat, option: inner.next().map(text).unwrap_or_default() }
        }
    }
}

fn expectation(e: Pair<'_, Rule>) -> Expectation {
    let rule = e.as_rule();
    let mut inner = e.into_inner().peekable();
    let seat = |p: Option<Pair<'_, Rule>>| p.map(|p| p.as_str().to_string()).unwrap_or_default();
    match rule {
        Rule::exp_track => {
            let (track, seat) = name_seat(&mut inner);
            Expectation::Track { track, seat, value: inner.next().and_then(|p| p.as_str().parse().ok()).unwrap_or(0) }
        }
        Rule::exp_var => {
            let (var, seat) = name_seat(&mut inner);
            Expectation::Var { var, seat, value: inner.next().map(value).unwrap_or_default() }
        }
        Rule::exp_zone => {
            let (zone, seat) = name_seat(&mut inner);
            let body = inner.next().expect("zone expectation body");
            let kind = body.as_rule();
            let list: Vec<String> = body
                .into_inner()
                .flat_map(|p| {
                    if p.as_rule() == Rule::ids || p.as_rule() == Rule::list {
                        p.into_inner().map(text).collect::<Vec<_>>()
                    } else {
                        vec![text(p)]
                    }
                })
                .collect();
            match kind {
                Rule::contains => Expectation::ZoneContains { zone, seat, ids: list },
                Rule::excludes => Expectation::ZoneExcludes { zone, seat, ids: list },
                _ => Expectation::ZoneEquals { zone, seat, ids: list },
            }
        }
        Rule::exp_grid => {
            let (grid, seat) = name_seat(&mut inner);
            Expectation::Grid { grid, seat, pieces: inner.next().map(ids).unwrap_or_default() }
        }
        Rule::exp_grid_view => {
            let s = seat(inner.next());
            let (grid, owner) = name_seat(&mut inner);
            let shows = inner.next().is_some_and(|p| p.as_rule() == Rule::shows);
            Expectation::GridView { seat: s, grid, owner, shows, text: inner.next().map(text).unwrap_or_default() }
        }
        Rule::exp_count => {
            let (zone, seat) = name_seat(&mut inner);
            Expectation::Count { zone, seat, value: inner.next().and_then(|p| p.as_str().parse().ok()).unwrap_or(0) }
        }
        Rule::exp_pending => {
            let decision = inner.next().map(|p| p.as_str().to_string()).unwrap_or_default();
            Expectation::Pending { decision, seats: inner.map(|p| p.as_str().to_string()).collect() }
        }
        Rule::exp_options => {
            let s = seat(inner.next());
            let body = inner.next().expect("options expectation body");
            let kind = body.as_rule();
            let list: Vec<String> =
                body.into_inner().flat_map(|p| p.into_inner().map(text).collect::<Vec<_>>()).collect();
            match kind {
                Rule::includes => Expectation::OptionsInclude { seat: s, ids: list },
                Rule::excludes => Expectation::OptionsExclude { seat: s, ids: list },
                _ => Expectation::OptionsEqual { seat: s, ids: list },
            }
        }
        Rule::exp_illegal => {
            Expectation::Illegal { seat: seat(inner.next()), option: inner.next().map(text).unwrap_or_default() }
        }
        Rule::exp_error => Expectation::Error {
            seat: seat(inner.next()),
            option: inner.next().map(text).unwrap_or_default(),
            message: inner.next().map(text).unwrap_or_default(),
        },
        Rule::exp_over => Expectation::Over,
        Rule::exp_not_over => Expectation::NotOver,
        Rule::exp_winners => {
            Expectation::Winners(inner.filter(|p| p.as_rule() == Rule::seat).map(|p| p.as_str().to_string()).collect())
        }
        Rule::exp_view => {
            let s = seat(inner.next());
            let shows = inner.next().is_some_and(|p| p.as_rule() == Rule::shows);
            Expectation::View { seat: s, shows, text: inner.next().map(text).unwrap_or_default() }
        }
        Rule::exp_log => {
            let s = if inner.peek().is_some_and(|p| p.as_rule() == Rule::seat) {
                inner.next().map(|p| p.as_str().to_string())
            } else {
                None
            };
            let present = inner.next().is_some_and(|p| p.as_rule() == Rule::log_contains);
            Expectation::Log { seat: s, text: inner.next().map(text).unwrap_or_default(), present }
        }
        Rule::exp_hash => Expectation::Hash(inner.next().map(text).unwrap_or_default()),
        _ => Expectation::Current(seat(inner.next())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"# a comment
game demo-game
players 2
seed 7
option cards = 3

scenario "tie" {
    description "rulebook p. 1"
    zone prize = prize-3
    zone hand P1 = p1-1 p1-2
    track score P1 = 4
    P1 chooses p1-2
    P2 chooses "2"   # by label
    expect track score P1 = 4
    expect zone discard = [prize-3]
    expect zone hand P1 contains p1-1
    expect options P2 includes p2-1
    expect illegal P1 p2-1
    expect error P1 chooses p1-1 "already committed"
    expect winners nobody
    expect view P2 hides p1-1
    expect log P1 contains "committed"
    expect not over
}
"#;

    #[test]
    fn parses_a_full_scenario() {
        let f = parse(Path::new("t.scenario"), SAMPLE).unwrap();
        assert_eq!(f.header.game.as_deref(), Some("demo-game"));
        assert_eq!(f.header.options, vec![("cards".to_string(), "3".to_string())]);
        let s = &f.scenarios[0];
        assert_eq!(s.description.as_deref(), Some("rulebook p. 1"));
        assert_eq!(s.line, 7);
        assert_eq!(s.steps.len(), 15);
        assert_eq!(
            s.steps[1].kind,
            StepKind::SetZone { zone: "hand".into(), seat: Some("P1".into()), ids: vec!["p1-1".into(), "p1-2".into()] }
        );
        assert_eq!(s.steps[4].kind, StepKind::Choose { seat: "P2".into(), option: "2".into() });
        assert_eq!(
            s.steps[6].kind,
            StepKind::Expect(Expectation::ZoneEquals {
                zone: "discard".into(),
                seat: None,
                ids: vec!["prize-3".into()]
            })
        );
        assert_eq!(
            s.steps[7].kind,
            StepKind::Expect(Expectation::ZoneContains {
                zone: "hand".into(),
                seat: Some("P1".into()),
                ids: vec!["p1-1".into()]
            })
        );
        assert_eq!(s.steps[11].kind, StepKind::Expect(Expectation::Winners(vec![])));
        assert_eq!(
            s.steps[13].kind,
            StepKind::Expect(Expectation::Log { seat: Some("P1".into()), text: "committed".into(), present: true })
        );
    }

    #[test]
    fn errors_are_located_and_worded() {
        let e = parse(Path::new("t.scenario"), "game g\nscenario \"x\" {\n    expect track = 3\n}\n").unwrap_err();
        assert_eq!((e.location.line, e.location.column), (3, 18));
        assert!(e.message.contains("expected"), "{}", e.message);
        assert!(!e.message.contains("exp_"), "raw rule names leaked: {}", e.message);
    }

    #[test]
    fn quoting_round_trips() {
        for s in ["p1-3", "two words", "quote \" inside", "contains", ""] {
            let text = format!("game g\nscenario \"x\" {{\n    P1 chooses {}\n}}\n", quote(s));
            let f = parse(Path::new("t"), &text).unwrap();
            assert_eq!(f.scenarios[0].steps[0].kind, StepKind::Choose { seat: "P1".into(), option: s.into() });
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_arbitrary_input(text in "\\PC*") {
            let _ = parse(Path::new("fuzz"), &text);
        }

        #[test]
        fn never_panics_on_scenario_like_input(text in "(game|scenario|expect|zone|track|P1|chooses|\\{|\\}|\"|=|\\[|\\]|,|[a-z0-9-]+| |\n){0,40}") {
            let _ = parse(Path::new("fuzz"), &text);
        }
    }
}
