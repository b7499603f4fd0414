//! `rulebook explain`: a readable summary of a loaded game, written from its declarations
//! alone (parameters, components with their counts, zones and who sees them, tracks,
//! variables, decisions, the flow of phases and steps, the end), as Markdown, so that a group
//! can check what it is about to play after choosing variants and options.

use crate::def::{Best, NextLeader, ThenWhen, Ties, Visibility};
use crate::rules::{
    FnRef, IntSpec, OptionSource, PhaseInfo, PlayerSel, PlayersSel, Repeat, Rules, StepInfo, StepKind, TrickInfo,
};
use crate::Game;
use std::collections::BTreeSet;
use std::fmt::Write;

/// The summary of `game` (its variants and options already applied) as Markdown.
pub fn markdown(game: &Game) -> String {
    let r = &game.rules;
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", r.title);
    if !r.description.is_empty() {
        let _ = writeln!(out, "{}\n", r.description);
    }
    let variants = if r.variants.is_empty() { "none (the base game)".to_string() } else { code_list(&r.variants) };
    let _ = writeln!(out, "- Players: {}\n- Variants applied: {variants}\n", players_range(r));
    parameters(&mut out, r);
    components(&mut out, game);
    zones(&mut out, r);
    grids(&mut out, r);
    tracks(&mut out, r);
    vars(&mut out, r);
    data(&mut out, r);
    decisions(&mut out, r);
    tricks(&mut out, r);
    flow(&mut out, r);
    ending(&mut out, r);
    other_variants(&mut out, r);
    out
}

fn grids(out: &mut String, r: &Rules) {
    if r.grids.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "## Grids

| grid | whose | who sees it | size | what it is |
|---|---|---|---|---|"
    );
    for g in &r.grids {
        let span = |b: Option<(i64, i64)>| b.map_or("unbounded".to_string(), |(a, b)| (b - a + 1).to_string());
        let mut size = format!("{} rows × {} columns", span(g.rows), span(g.cols));
        if g.per_cell > 0 {
            let _ = write!(size, "; at most {} per cell", g.per_cell);
        }
        if g.connected {
            size.push_str("; pieces must touch");
        }
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            g.name,
            whose(g.per_player),
            who_sees(g.visible, g.per_player, true),
            size,
            cell(&g.description)
        );
    }
    out.push('\n');
}

/// The longest table text shown whole.
const MAX_TABLE_TEXT: usize = 160;

/// The game's data: its tables (printed charts and boards) and graphs (maps), by name.
fn data(out: &mut String, r: &Rules) {
    if r.tables.is_empty() && r.graphs.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "## Boards and charts
"
    );
    for (name, g) in &r.graphs {
        let _ = writeln!(out, "- Map `{name}`: {} places, {} connections", g.nodes.len(), g.edges.len());
    }
    for (name, t) in &r.tables {
        // A short table is shown whole (the numbers a house rule may edit); a long one by size.
        let text = t.to_string();
        let shown = if text.chars().count() <= MAX_TABLE_TEXT {
            format!("`{text}`")
        } else {
            match t {
                crate::Value::List(l) => format!("a list of {} item{}", l.len(), if l.len() == 1 { "" } else { "s" }),
                crate::Value::Map(m) => format!("{} entr{}", m.len(), if m.len() == 1 { "y" } else { "ies" }),
                other => format!("the value {other}"),
            }
        };
        let _ = writeln!(out, "- Table `{name}`: {shown} (read by the scripts)");
    }
    out.push('\n');
}

fn other_variants(out: &mut String, r: &Rules) {
    let others: Vec<_> = r.available_variants.iter().filter(|v| !r.variants.contains(&v.name)).collect();
    if others.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n## Other variants\n\nChoose with `--variant NAME`.\n");
    for v in others {
        let _ = writeln!(out, "- `{}`: {}", v.name, v.description);
    }
}

/// `1 to 30`, `at least 1`, `at most 5`, or `any`.
pub(crate) fn range_text(min: Option<i64>, max: Option<i64>) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!("{a} to {b}"),
        (Some(a), None) => format!("at least {a}"),
        (None, Some(b)) => format!("at most {b}"),
        (None, None) => "any".to_string(),
    }
}

/// The values a parameter accepts: its choices, else its range.
pub(crate) fn param_allowed(p: &crate::rules::ParamInfo) -> String {
    match &p.choices {
        Some(c) => c.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", "),
        None => range_text(p.min, p.max),
    }
}

/// `2–5`, or `2` when the game has one player count.
pub(crate) fn players_range(r: &Rules) -> String {
    if r.min_players == r.max_players {
        r.min_players.to_string()
    } else {
        format!("{}–{}", r.min_players, r.max_players)
    }
}

/// `a`, `b` as inline code, comma-separated.
fn code_list(items: &[String]) -> String {
    items.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ")
}

/// A table cell: no line breaks, no column separators.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// How a summary names a script function.
pub(crate) fn function(f: &FnRef) -> String {
    format!("script `{}`", f.name)
}

fn parameters(out: &mut String, r: &Rules) {
    if r.params.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Parameters\n\nSet with `--option NAME=VALUE` or in a variant file.\n");
    let _ = writeln!(out, "| parameter | value | allowed | what it is |\n|---|---|---|---|");
    for (name, p) in &r.params {
        let allowed = param_allowed(p);
        let _ = writeln!(
            out,
            "| `{name}` | {} | {} | {} |",
            cell(&p.value.to_string()),
            cell(&allowed),
            cell(&p.description)
        );
    }
    out.push('\n');
}

/// How many instances of each component type the game starts with, per player count.
pub(crate) fn component_counts(game: &Game) -> Vec<Vec<(usize, usize)>> {
    let r = &game.rules;
    let mut counts = vec![Vec::new(); r.component_types.len()];
    for players in r.min_players..=r.max_players {
        let Ok(st) = game.initial_state(players, 0) else { continue };
        let mut n = vec![0usize; r.component_types.len()];
        for c in &st.components.list {
            n[c.kind] += 1;
        }
        for (kind, count) in n.into_iter().enumerate() {
            counts[kind].push((players, count));
        }
    }
    counts
}

/// `52`, or `26 (2 players), 39 (3 players)` when the count depends on the players.
pub(crate) fn count_text(counts: &[(usize, usize)]) -> String {
    let distinct: BTreeSet<usize> = counts.iter().map(|c| c.1).collect();
    if distinct.len() <= 1 {
        return distinct.first().map_or("0".to_string(), ToString::to_string);
    }
    if let Some((p, n)) = counts.first().filter(|(p, n)| *p > 0 && n % p == 0) {
        let each = n / p;
        if counts.iter().all(|(q, m)| *m == each * q) {
            return format!("{each} per player");
        }
    }
    counts.iter().map(|(p, n)| format!("{n} ({p} players)")).collect::<Vec<_>>().join(", ")
}

fn components(out: &mut String, game: &Game) {
    let r = &game.rules;
    if r.component_types.is_empty() {
        return;
    }
    let counts = component_counts(game);
    let _ = writeln!(out, "## Components\n\n| component | how many | starts in | what it is |\n|---|---|---|---|");
    for (kind, t) in r.component_types.iter().enumerate() {
        let zones: BTreeSet<String> = r
            .components
            .iter()
            .filter(|d| d.kind == kind)
            .map(|d| {
                d.zone.map_or("out of play until a script places it".to_string(), |z| format!("`{}`", r.zones[z].name))
            })
            .collect();
        let zones = if zones.is_empty() {
            "created by scripts".to_string()
        } else {
            zones.into_iter().collect::<Vec<_>>().join(", ")
        };
        let what = match &t.faces {
            Some(faces) if t.description.is_empty() => format!("a die with faces {}", faces_text(faces)),
            Some(faces) => format!("{} (faces {})", cell(&t.description), faces_text(faces)),
            None => cell(&t.description),
        };
        let _ = writeln!(out, "| `{}` | {} | {} | {} |", t.name, count_text(&counts[kind]), zones, what);
    }
    out.push('\n');
}

/// A die's faces: `1 to 6` for a run of integers, else the list (`star, moon`).
fn faces_text(faces: &[crate::Value]) -> String {
    let ints: Vec<i64> = faces.iter().filter_map(crate::Value::as_int).collect();
    let run = ints.len() == faces.len() && ints.len() > 2 && ints.windows(2).all(|w| w[1] == w[0] + 1);
    if run {
        format!("{} to {}", ints[0], ints[ints.len() - 1])
    } else {
        faces.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    }
}

/// Who sees what of a zone, track or var.
pub(crate) fn who_sees(v: Visibility, per_player: bool, zone: bool) -> &'static str {
    match (v, per_player, zone) {
        (Visibility::Public, _, _) => "everyone",
        (Visibility::Owner, true, true) => "its owner; the others see how many",
        (Visibility::Owner, true, false) => "its owner",
        (Visibility::Owner, false, _) => "everyone (a shared zone has no owner)",
        (Visibility::Count, _, _) => "nobody; everyone sees how many",
        (Visibility::Top, _, _) => "everyone sees the top one and how many",
        (Visibility::Hidden, _, _) => "nobody",
    }
}

/// `shared` or `each player`.
pub(crate) fn whose(per_player: bool) -> &'static str {
    if per_player {
        "each player"
    } else {
        "shared"
    }
}

/// An integer as declared: a number, a parameter's name, or the number of players.
pub(crate) fn int_spec(i: &IntSpec) -> String {
    match i {
        IntSpec::Int(n) => n.to_string(),
        IntSpec::Param(p) => format!("`{p}`"),
        IntSpec::Players => "the number of players".to_string(),
    }
}

fn zones(out: &mut String, r: &Rules) {
    if r.zones.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Zones\n\n| zone | whose | who sees it | holds | what it is |\n|---|---|---|---|---|");
    for z in &r.zones {
        let mut holds = if z.ordered { "a pile, in order".to_string() } else { "a set, in no order".to_string() };
        if let Some(c) = &z.capacity {
            let _ = write!(holds, "; at most {}", int_spec(c));
            if let Some(to) = z.overflow_to {
                let _ = write!(holds, " (the oldest goes to `{}`)", r.zones[to].name);
            }
        }
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            z.name,
            whose(z.per_player),
            who_sees(z.visible, z.per_player, true),
            holds,
            cell(&z.description)
        );
    }
    out.push('\n');
}

fn tracks(out: &mut String, r: &Rules) {
    if r.tracks.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "## Tracks\n\n| track | whose | starts at | range | who sees it | what it is |\n|---|---|---|---|---|---|"
    );
    for t in &r.tracks {
        let range = range_text(t.min, t.max);
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} |",
            t.name,
            whose(t.per_player),
            int_spec(&t.start),
            range,
            who_sees(t.visible, t.per_player, false),
            cell(&t.description)
        );
    }
    out.push('\n');
}

fn vars(out: &mut String, r: &Rules) {
    if r.vars.is_empty() {
        return;
    }
    let _ =
        writeln!(out, "## Variables\n\n| variable | whose | value | who sees it | what it is |\n|---|---|---|---|---|");
    for v in &r.vars {
        let value = match &v.derived {
            Some(f) => format!("computed by {}", function(f)),
            None => match &v.default {
                crate::Value::Str(t) if t.is_empty() => "starts empty".to_string(),
                crate::Value::Unit => "starts unset".to_string(),
                other => format!("starts as {}", cell(&other.to_string())),
            },
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            v.name,
            whose(v.per_player),
            value,
            who_sees(v.visible, v.per_player, false),
            cell(&v.description)
        );
    }
    out.push('\n');
}

fn decisions(out: &mut String, r: &Rules) {
    if r.decisions.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Decisions\n");
    for d in &r.decisions {
        let _ = writeln!(out, "### `{}`: {}\n", d.name, d.prompt);
        let options = match (&d.source, &d.subset) {
            (OptionSource::Zone { zone, .. }, Some(s)) => {
                let size = match (s.min, s.max) {
                    (a, b) if a == b => a.to_string(),
                    (a, usize::MAX) => format!("at least {a}"),
                    (a, b) => format!("{a} to {b}"),
                };
                format!("a set of {size} components from `{}`", r.zones[*zone].name)
            }
            (OptionSource::Zone { zone, .. }, None) => format!("a component from `{}`", r.zones[*zone].name),
            (OptionSource::Script(f), _) => format!("the options {} lists", function(f)),
        };
        let _ = writeln!(out, "- Choose: {options}");
        if let OptionSource::Zone { filter: Some(f), .. } = &d.source {
            let _ = writeln!(out, "- Only those {} allows", function(f));
        }
        if let Some(f) = &d.follow {
            let _ =
                writeln!(out, "- Follow: a component with the same `{}` as the one led, if the player has one", f.by);
        }
        if let Some(to) = d.to {
            let whose = if r.zones[to].per_player { "the seat's own " } else { "" };
            let _ = writeln!(out, "- Goes to: {whose}`{}`, once answered", r.zones[to].name);
        }
        if let Some(c) = &d.contest {
            let best = match c.best {
                Best::Highest => "highest",
                Best::Lowest => "lowest",
            };
            let ties = match c.ties {
                Ties::Nobody => "a tie for best wins nothing",
                Ties::All => "every tied player wins",
                _ => "a tie goes to the first tied player in turn order",
            };
            let _ = write!(out, "- Contest: the {best} `{}` wins; {ties}", c.by);
            if let (Some(stake), Some(to)) = (c.stake, c.stake_to) {
                let _ = write!(out, "; the winner takes `{}` into `{}`", r.zones[stake].name, r.zones[to].name);
            }
            if let Some(t) = c.score {
                let _ = write!(out, " and scores it on `{}`", r.tracks[t].name);
            }
            out.push('\n');
        }
        if d.secret {
            let _ = writeln!(out, "- Secret: the choice is never revealed publicly");
        }
        let hooks = [
            ("Labelled by", &d.label_by),
            ("Then", &d.then),
            ("On reveal", &d.reveal),
            ("Answered by the rules", &d.auto),
        ];
        for (what, f) in hooks {
            if let Some(f) = f {
                let _ = writeln!(out, "- {what}: {}", function(f));
            }
        }
        if d.skip_if_no_options {
            let _ = writeln!(out, "- A player with no option is not asked");
        }
        out.push('\n');
    }
}

fn tricks(out: &mut String, r: &Rules) {
    if r.tricks.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Tricks\n");
    for t in &r.tricks {
        let _ = writeln!(out, "### Trick `{}`\n", t.name);
        if !t.description.is_empty() {
            let _ = writeln!(out, "{}\n", t.description);
        }
        for line in trick_lines(r, t) {
            let _ = writeln!(out, "- {line}");
        }
        out.push('\n');
    }
}

/// A trick's rules in words, one line each (`explain` lists them, `diff` joins them).
pub(crate) fn trick_lines(r: &Rules, t: &TrickInfo) -> Vec<String> {
    let plays: Vec<String> = t.plays.iter().map(|d| format!("`{}`", r.decisions[*d].name)).collect();
    let mut lines = vec![format!(
        "Play: every player in turn order from the leader (var `{}`) answers {}, one round each; the cards lie in `{}`",
        r.vars[t.leader].name,
        plays.join(", then "),
        r.zones[t.table].name
    )];
    if let (Some(led), Some(suit)) = (t.led, &t.suit) {
        lines.push(format!("The first card's `{suit}` is the suit led (var `{}`)", r.vars[led].name));
    }
    let winner = match (&t.winner, &t.rank) {
        (Some(f), _) => format!("the play {} picks", function(f)),
        (None, Some(rank)) if t.suit.is_some() || t.any_suit => {
            let best = if t.best == Best::Highest { "highest" } else { "lowest" };
            let among = if t.any_suit { "of all cards played, whatever their suit" } else { "of the suit led" };
            let mut trumps = Vec::new();
            if let Some(track) = t.trump_below {
                trumps.push(format!(
                    "a card whose `{rank}` is below track `{}` beats every other, the {best} of them winning",
                    r.tracks[track].name
                ));
            }
            if let (Some(v), Some(suit)) = (t.trump, &t.suit) {
                trumps
                    .push(format!("a card whose `{suit}` is var `{}`, the trumps, beats the suit led", r.vars[v].name));
            }
            let trumps = if trumps.is_empty() { String::new() } else { format!(" ({})", trumps.join("; ")) };
            format!("the {best} `{rank}` {among}{trumps}; the first played wins a tie")
        }
        _ => "not declared".to_string(),
    };
    lines.push(format!("Winner: {winner}"));
    if let Some(f) = &t.then {
        let when = match (t.then_when, t.trump_below, t.trump) {
            (ThenWhen::Below, Some(track), _) => {
                format!(", when the winning card is below track `{}`", r.tracks[track].name)
            }
            (ThenWhen::Trump, _, Some(v)) => format!(", when the winning card is a trump (var `{}`)", r.vars[v].name),
            _ => String::new(),
        };
        lines.push(format!("Then: {}{when}", function(f)));
    }
    if let Some(won) = t.won {
        lines.push(format!("The winner takes the cards left on the table into `{}`", r.zones[won].name));
    }
    let next = match t.next_leader {
        NextLeader::Winner => "the winner",
        NextLeader::Leader => "the same player",
        NextLeader::Next => "the next player after this trick's leader",
    };
    lines.push(format!("Leads the next trick: {next}"));
    lines
}

/// One step of a phase in words.
pub(crate) fn step_text(r: &Rules, s: &StepInfo) -> String {
    let mut text = match &s.kind {
        StepKind::Run(f) => format!("run {}", function(f)),
        StepKind::Ask(d, who) => {
            let who = match who {
                PlayerSel::Current => "the current player".to_string(),
                PlayerSel::Script(f) => format!("the player {} names", function(f)),
            };
            format!("ask {who}: `{}`", r.decisions[*d].name)
        }
        StepKind::Commit(d, who) => {
            let who = match who {
                PlayersSel::All => "every player".to_string(),
                PlayersSel::Script(f) => format!("the players {} names", function(f)),
            };
            format!("{who} commits in secret: `{}`, then all are revealed", r.decisions[*d].name)
        }
        StepKind::Phase(p) => format!("play phase `{}`", r.phases[*p].name),
        StepKind::Shuffle(z) => format!("shuffle `{}`", r.zones[*z].name),
        StepKind::Roll(z) => format!("roll the dice in `{}`", r.zones[*z].name),
        StepKind::Trick(t) => format!("play a trick: `{}`", r.tricks[*t].name),
        StepKind::Move { from, to, count, deal } => {
            let (from, to) = (&r.zones[*from].name, &r.zones[*to].name);
            if *deal {
                format!("deal {count} from `{from}` to each player's `{to}`")
            } else {
                format!("move {count} from `{from}` to `{to}`")
            }
        }
    };
    if let Some(f) = &s.condition {
        let _ = write!(text, " (only if {} says so)", function(f));
    }
    text
}

fn phase_text(out: &mut String, r: &Rules, p: &PhaseInfo) {
    let _ = writeln!(out, "### Phase `{}`\n", p.name);
    if !p.description.is_empty() {
        let _ = writeln!(out, "{}\n", p.description);
    }
    let repeat = match &p.repeat {
        Repeat::Once => "once".to_string(),
        Repeat::Times(n) => format!("{n} times"),
        Repeat::While(f) => format!("while {} says so", function(f)),
        Repeat::WhileCards(z) => format!("while zone `{}` holds a component", r.zones[*z].name),
    };
    let turns = if p.for_each_player { ", for each player in turn order" } else { "" };
    let _ = writeln!(out, "Played {repeat}{turns}:\n");
    for (i, s) in p.steps.iter().enumerate() {
        let _ = writeln!(out, "{}. {}", i + 1, step_text(r, s));
    }
    out.push('\n');
}

/// The phases in the order a reader meets them: the start phase, then each phase a step enters,
/// depth first; phases only scripts enter come last, in declaration order.
fn phase_order(r: &Rules) -> Vec<usize> {
    let mut order = Vec::new();
    let mut todo = vec![r.start];
    while let Some(p) = todo.pop() {
        if p >= r.phases.len() || order.contains(&p) {
            continue;
        }
        order.push(p);
        let entered = r.phases[p].steps.iter().filter_map(|s| match s.kind {
            StepKind::Phase(q) => Some(q),
            _ => None,
        });
        let mut entered: Vec<usize> = entered.collect();
        entered.reverse();
        todo.extend(entered);
    }
    order.extend((0..r.phases.len()).filter(|p| !order.contains(p)).collect::<Vec<_>>());
    order
}

fn flow(out: &mut String, r: &Rules) {
    let _ = writeln!(out, "## How a game goes\n");
    if let Some(f) = &r.setup {
        let _ = writeln!(out, "Setup: {}.\n", function(f));
    }
    if let Some(start) = r.phases.get(r.start) {
        let _ = writeln!(out, "The game plays phase `{}`.\n", start.name);
    }
    for p in phase_order(r) {
        phase_text(out, r, &r.phases[p]);
    }
}

fn ending(out: &mut String, r: &Rules) {
    let _ = writeln!(out, "## The end\n");
    let score = r.score.map(|t| format!("Scores: track `{}`.", r.tracks[t].name));
    let winners = match &r.winners {
        Some(f) => format!("Winners: decided by {}.", function(f)),
        None if r.score.is_some() => "Winners: the highest score (shared on a tie).".to_string(),
        None => "Winners: none declared.".to_string(),
    };
    let _ = writeln!(out, "{}{winners}", score.map(|s| format!("{s} ")).unwrap_or_default());
}
