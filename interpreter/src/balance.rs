//! The balance lab's numbers: two configurations of a game played with the same bots and the
//! same seeds ([`crate::sim`]), each side measured with intervals, and every difference tested.
//!
//! Rates carry 95% Wilson intervals; a difference of rates is tested with the two-proportion
//! z-test (pooled), a difference of means with Welch's t-test, each with its 95% interval.
//! Many measures are tested at once, so each p-value also comes adjusted by Holm's method,
//! which keeps the chance of any false alarm among them under 5%.

use crate::sim::GameRecord;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// A proportion with its 95% Wilson interval.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Rate {
    /// Successes (a shared win counts for each winner).
    pub count: u64,
    /// Trials.
    pub n: u64,
    /// count / n.
    pub rate: f64,
    /// 95% Wilson interval.
    pub interval: [f64; 2],
}

impl Rate {
    /// `count` of `n`.
    pub fn of(count: u64, n: u64) -> Rate {
        let rate = if n == 0 { 0.0 } else { count as f64 / n as f64 };
        Rate { count, n, rate, interval: wilson(count, n) }
    }
}

/// The 95% Wilson score interval of `k` successes in `n` trials.
pub fn wilson(k: u64, n: u64) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let (n, p, z) = (n as f64, k as f64 / n as f64, Z95);
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

/// A number measured once per game: its distribution.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Spread {
    /// Games measured.
    pub n: u64,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub sd: f64,
    /// 95% interval of the mean (Student's t).
    pub interval: [f64; 2],
    /// 10th, 25th, 50th, 75th and 90th percentiles.
    pub quantiles: [f64; 5],
    /// Smallest and largest.
    pub range: [f64; 2],
    /// A histogram: bin edges (`bins + 1` of them) and counts.
    pub histogram: Histogram,
}

/// Counts of values in equal bins.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Histogram {
    /// Bin edges, lowest first (a bin holds `edges[i] <= x < edges[i+1]`, the last one also
    /// its upper edge).
    pub edges: Vec<f64>,
    /// Values in each bin.
    pub counts: Vec<u64>,
}

/// Most bins a histogram has.
const BINS: usize = 12;

impl Spread {
    /// The distribution of `xs`.
    pub fn of(xs: &[f64]) -> Spread {
        let n = xs.len();
        let mean = if n == 0 { 0.0 } else { xs.iter().sum::<f64>() / n as f64 };
        let sd = if n < 2 { 0.0 } else { (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt() };
        let half = if n < 2 { 0.0 } else { t_quantile(n as f64 - 1.0) * sd / (n as f64).sqrt() };
        let mut sorted = xs.to_vec();
        sorted.sort_by(f64::total_cmp);
        let q = |p: f64| quantile(&sorted, p);
        Spread {
            n: n as u64,
            mean,
            sd,
            interval: [mean - half, mean + half],
            quantiles: [q(0.1), q(0.25), q(0.5), q(0.75), q(0.9)],
            range: [sorted.first().copied().unwrap_or(0.0), sorted.last().copied().unwrap_or(0.0)],
            histogram: histogram(&sorted),
        }
    }
}

/// The `p` quantile of sorted values (linear interpolation between closest ranks).
fn quantile(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n => {
            let pos = p * (n - 1) as f64;
            let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
            sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
        }
    }
}

/// Equal bins over the values' range (whole-number bins for whole numbers of small range).
fn histogram(sorted: &[f64]) -> Histogram {
    let (Some(&lo), Some(&hi)) = (sorted.first(), sorted.last()) else {
        return Histogram { edges: Vec::new(), counts: Vec::new() };
    };
    let whole = sorted.iter().all(|x| x.fract() == 0.0);
    let span = hi - lo;
    let (bins, width) = if span == 0.0 {
        (1, 1.0)
    } else if whole && span < BINS as f64 {
        (span as usize + 1, 1.0)
    } else {
        (BINS, span / BINS as f64)
    };
    let edges: Vec<f64> = (0..=bins).map(|i| lo + width * i as f64).collect();
    let mut counts = vec![0u64; bins];
    for x in sorted {
        let i = (((x - lo) / width) as usize).min(bins - 1);
        counts[i] += 1;
    }
    Histogram { edges, counts }
}

/// The two-sided 97.5% quantile of Student's t with `df` degrees of freedom.
fn t_quantile(df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df.max(1.0)).map(|t| t.inverse_cdf(0.975)).unwrap_or(Z95)
}

/// What one configuration gave.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Side {
    /// The configuration, as flags (`--variant split-ties`; empty: the game as it comes).
    pub config: String,
    /// Games played.
    pub games: u64,
    /// Win rate of each seat (a shared win counts for every winner).
    pub win_rate_by_seat: Vec<Rate>,
    /// The first seat's win rate minus its fair share (1 / players), with its interval.
    pub first_seat_advantage: f64,
    /// Interval of the first seat's advantage.
    pub first_seat_advantage_interval: [f64; 2],
    /// Games with more than one winner.
    pub shared_wins: Rate,
    /// Game length in decisions.
    pub length: Spread,
    /// Final value of each global track (rounds played and the like), by name.
    pub tracks: Vec<(String, Spread)>,
    /// Winner's score minus the runner-up's (games with a score only).
    pub margin: Option<Spread>,
    /// Final score of each seat (games with a score only).
    pub score_by_seat: Vec<Spread>,
    /// Fairness (CardStock): 1 minus the distance of the win shares from equal shares,
    /// `1 - sum_p |w_p - 1/n| / (2 (1 - 1/n))` where `w_p` is seat p's share of all wins; 1 is
    /// perfectly even, 0 one seat wins everything.
    pub fairness: f64,
    /// Lead changes per decision ([`crate::sim::Shape`]; games with a score only).
    pub lead_changes: Option<Spread>,
    /// Drama: the eventual winner's mean deficit while behind ([`crate::sim::Shape`]).
    pub drama: Option<Spread>,
    /// When the game was decided, as a share of its length ([`crate::sim::Shape`]).
    pub decided_at: Option<Spread>,
}

impl Side {
    /// Measures one configuration's games.
    pub fn measure(config: &str, players: usize, records: &[GameRecord]) -> Side {
        let n = records.len() as u64;
        let wins: Vec<Rate> = (0..players)
            .map(|p| Rate::of(records.iter().filter(|r| r.winners.contains(&p)).count() as u64, n))
            .collect();
        let fair = 1.0 / players as f64;
        let first = wins.first().cloned().unwrap_or_else(|| Rate::of(0, 0));
        let has_scores = records.first().is_some_and(|r| r.scores.len() == players);
        let per_game = |f: &dyn Fn(&GameRecord) -> f64| Spread::of(&records.iter().map(f).collect::<Vec<_>>());
        Side {
            config: config.to_string(),
            games: n,
            first_seat_advantage: first.rate - fair,
            first_seat_advantage_interval: [first.interval[0] - fair, first.interval[1] - fair],
            win_rate_by_seat: wins,
            shared_wins: Rate::of(records.iter().filter(|r| r.winners.len() > 1).count() as u64, n),
            length: per_game(&|r| r.decisions as f64),
            tracks: records
                .first()
                .map(|r0| {
                    (0..r0.tracks.len())
                        .map(|i| (r0.tracks[i].0.clone(), per_game(&|r| r.tracks[i].1 as f64)))
                        .collect()
                })
                .unwrap_or_default(),
            margin: has_scores.then(|| per_game(&margin)),
            fairness: fairness(&wins_counts(records, players)),
            lead_changes: shapes(records, |s| s.lead_changes),
            drama: shapes(records, |s| s.drama),
            decided_at: shapes(records, |s| s.decided_at),
            score_by_seat: if has_scores {
                (0..players).map(|p| per_game(&|r| r.scores[p] as f64)).collect()
            } else {
                Vec::new()
            },
        }
    }
}

/// The measures [`Side::reading`] knows, for help and messages.
pub const SIDE_MEASURES: &str = "wins:P1 (any seat), score:P1, length, margin, shared-wins, \
                                 first-seat-advantage, fairness, lead-changes, drama, decided-at, track:NAME";

/// A measure of a whole configuration, as `sweep --measure` names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideMeasure {
    name: String,
    kind: SideMeasureKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum SideMeasureKind {
    Wins(usize),
    Score(usize),
    Track(String),
    Length,
    Margin,
    SharedWins,
    FirstSeatAdvantage,
    Fairness,
    LeadChanges,
    Drama,
    DecidedAt,
}

impl SideMeasure {
    /// Reads one of [`SIDE_MEASURES`] for a game of `players` seats.
    pub fn parse(name: &str, players: usize) -> Result<SideMeasure, String> {
        use SideMeasureKind::*;
        let seat = |text: &str| -> Result<usize, String> {
            match text.trim_start_matches(['P', 'p']).parse::<usize>() {
                Ok(n) if n >= 1 && n <= players => Ok(n - 1),
                _ => Err(format!(
                    "measure `{name}`: `{text}` is not a seat of this {players}-player game (P1..P{players})"
                )),
            }
        };
        let kind = match name.split_once(':') {
            Some(("wins", s)) => Wins(seat(s)?),
            Some(("score", s)) => Score(seat(s)?),
            Some(("track", t)) => Track(t.to_string()),
            None => match name {
                "length" => Length,
                "margin" => Margin,
                "shared-wins" => SharedWins,
                "first-seat-advantage" => FirstSeatAdvantage,
                "fairness" => Fairness,
                "lead-changes" => LeadChanges,
                "drama" => Drama,
                "decided-at" => DecidedAt,
                _ => return Err(format!("unknown measure `{name}`: use {SIDE_MEASURES}")),
            },
            _ => return Err(format!("unknown measure `{name}`: use {SIDE_MEASURES}")),
        };
        Ok(SideMeasure { name: name.to_string(), kind })
    }

    /// The name it was written with.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether it is a rate (shown in percent).
    pub fn is_rate(&self) -> bool {
        use SideMeasureKind::*;
        matches!(self.kind, Wins(_) | SharedWins | FirstSeatAdvantage)
    }
}

impl Side {
    /// The value of a measure with its 95% interval (fairness has none: its interval is the
    /// value itself), or why this configuration cannot give it.
    pub fn reading(&self, m: &SideMeasure) -> Result<(f64, [f64; 2]), String> {
        use SideMeasureKind::*;
        let spread = |s: Option<&Spread>, why: &str| {
            s.map(|s| (s.mean, s.interval)).ok_or_else(|| format!("measure `{}`: {why}", m.name))
        };
        let no_score = "the game declares no score (`[game] score`)";
        match &m.kind {
            Wins(p) => {
                let r = &self.win_rate_by_seat[*p];
                Ok((r.rate, r.interval))
            }
            Score(p) => spread(self.score_by_seat.get(*p), no_score),
            Track(t) => spread(
                self.tracks.iter().find(|(n, _)| n == t).map(|(_, s)| s),
                "no global track of that name (global tracks are measured at the end of each game)",
            ),
            Length => spread(Some(&self.length), ""),
            Margin => spread(self.margin.as_ref(), no_score),
            SharedWins => Ok((self.shared_wins.rate, self.shared_wins.interval)),
            FirstSeatAdvantage => Ok((self.first_seat_advantage, self.first_seat_advantage_interval)),
            Fairness => Ok((self.fairness, [self.fairness; 2])),
            LeadChanges => spread(self.lead_changes.as_ref(), no_score),
            Drama => spread(self.drama.as_ref(), no_score),
            DecidedAt => spread(self.decided_at.as_ref(), no_score),
        }
    }
}

/// A reading as text: rates in percent, the rest with two decimals, the 95% interval in
/// parentheses (none for a point).
pub fn show_reading(m: &SideMeasure, (value, [lo, hi]): (f64, [f64; 2])) -> String {
    let (k, unit) = if m.is_rate() { (100.0, "%") } else { (1.0, "") };
    if lo == hi {
        format!("{:.2}{unit}", value * k)
    } else if m.is_rate() {
        format!("{:.1}% ({:.1}–{:.1})", value * k, lo * k, hi * k)
    } else {
        format!("{:.2} ({:.2}–{:.2})", value, lo, hi)
    }
}

/// Wins of each seat (a shared win counts for each winner).
fn wins_counts(records: &[GameRecord], players: usize) -> Vec<u64> {
    (0..players).map(|p| records.iter().filter(|r| r.winners.contains(&p)).count() as u64).collect()
}

/// CardStock's fairness of a win distribution (see [`Side::fairness`]).
pub fn fairness(wins: &[u64]) -> f64 {
    let n = wins.len();
    let total: u64 = wins.iter().sum();
    if n < 2 || total == 0 {
        return 1.0;
    }
    let even = 1.0 / n as f64;
    let off: f64 = wins.iter().map(|w| (*w as f64 / total as f64 - even).abs()).sum();
    1.0 - off / (2.0 * (1.0 - even))
}

/// The spread of one shape measure over the games that have a shape.
fn shapes(records: &[GameRecord], f: impl Fn(&crate::sim::Shape) -> f64) -> Option<Spread> {
    let xs: Vec<f64> = records.iter().filter_map(|r| r.shape.as_ref().map(&f)).collect();
    (!xs.is_empty()).then(|| Spread::of(&xs))
}

/// The winner's score minus the runner-up's (0 when the top two tie).
fn margin(r: &GameRecord) -> f64 {
    let mut s = r.scores.clone();
    s.sort_unstable_by(|a, b| b.cmp(a));
    match s.as_slice() {
        [a, b, ..] => (*a - *b) as f64,
        _ => 0.0,
    }
}

/// One measure compared between the sides: B minus A, tested.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Difference {
    /// What is compared (`P1 win rate`, `length (decisions)`).
    pub measure: String,
    /// Side A's value.
    pub a: f64,
    /// Side B's value.
    pub b: f64,
    /// 95% interval of side A's value.
    pub a_interval: [f64; 2],
    /// 95% interval of side B's value.
    pub b_interval: [f64; 2],
    /// B - A.
    pub difference: f64,
    /// 95% interval of the difference.
    pub interval: [f64; 2],
    /// Two-sided p-value of "no difference".
    pub p: f64,
    /// The p-value adjusted for all the measures tested at once (Holm).
    pub p_holm: f64,
    /// The test: `two-proportion z` or `Welch t`.
    pub test: &'static str,
}

/// Two proportions: the difference with its Wald interval and the pooled z-test.
fn rates(measure: String, a: &Rate, b: &Rate) -> Difference {
    let (pa, pb, na, nb) = (a.rate, b.rate, a.n.max(1) as f64, b.n.max(1) as f64);
    let se = (pa * (1.0 - pa) / na + pb * (1.0 - pb) / nb).sqrt();
    let pooled = (a.count + b.count) as f64 / (na + nb);
    let se0 = (pooled * (1.0 - pooled) * (1.0 / na + 1.0 / nb)).sqrt();
    let p = if se0 == 0.0 { 1.0 } else { two_sided_normal((pb - pa) / se0) };
    Difference {
        measure,
        a: pa,
        b: pb,
        a_interval: a.interval,
        b_interval: b.interval,
        difference: pb - pa,
        interval: [pb - pa - Z95 * se, pb - pa + Z95 * se],
        p,
        p_holm: p,
        test: "two-proportion z",
    }
}

/// Two means: Welch's t-test and its interval.
fn means(measure: String, a: &Spread, b: &Spread) -> Difference {
    let (va, vb) = (a.sd.powi(2) / a.n.max(1) as f64, b.sd.powi(2) / b.n.max(1) as f64);
    let se = (va + vb).sqrt();
    let d = b.mean - a.mean;
    let (p, half) = if se == 0.0 {
        (if d == 0.0 { 1.0 } else { 0.0 }, 0.0)
    } else {
        let df =
            (va + vb).powi(2) / (va.powi(2) / (a.n as f64 - 1.0).max(1.0) + vb.powi(2) / (b.n as f64 - 1.0).max(1.0));
        let t = StudentsT::new(0.0, 1.0, df.max(1.0)).expect("df >= 1");
        (2.0 * (1.0 - t.cdf((d / se).abs())), t_quantile(df) * se)
    };
    Difference {
        measure,
        a: a.mean,
        b: b.mean,
        a_interval: a.interval,
        b_interval: b.interval,
        difference: d,
        interval: [d - half, d + half],
        p,
        p_holm: p,
        test: "Welch t",
    }
}

fn two_sided_normal(z: f64) -> f64 {
    let n = Normal::new(0.0, 1.0).expect("a standard normal");
    2.0 * (1.0 - n.cdf(z.abs()))
}

/// Holm's step-down adjustment of the p-values, in place.
fn holm(diffs: &mut [Difference]) {
    let m = diffs.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|a, b| diffs[*a].p.total_cmp(&diffs[*b].p));
    let mut running: f64 = 0.0;
    for (rank, i) in order.into_iter().enumerate() {
        running = running.max(((m - rank) as f64 * diffs[i].p).min(1.0));
        diffs[i].p_holm = running;
    }
}

/// Everything `rulebook balance` reports.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Report {
    /// Game name.
    pub game: String,
    /// Seats.
    pub players: usize,
    /// Series seed (both sides play the same seeds).
    pub seed: u64,
    /// The bots, as `--bot` names them.
    pub bots: String,
    /// Side A.
    pub a: Side,
    /// Side B.
    pub b: Side,
    /// Every measure compared, B minus A.
    pub differences: Vec<Difference>,
    /// How to read many p-values at once.
    pub note: String,
    /// The sequential test, when one decided how many games to play (`--until-decided`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequential: Option<Sequential>,
}

/// Compares two sides measured over the same seeds.
pub fn compare(game: &str, seed: u64, bots: &str, players: usize, a: Side, b: Side) -> Report {
    let mut diffs = Vec::new();
    for p in 0..players {
        diffs.push(rates(format!("P{} win rate", p + 1), &a.win_rate_by_seat[p], &b.win_rate_by_seat[p]));
    }
    diffs.push(rates("shared wins".into(), &a.shared_wins, &b.shared_wins));
    diffs.push(means("length (decisions)".into(), &a.length, &b.length));
    for ((name, ta), (_, tb)) in a.tracks.iter().zip(&b.tracks) {
        diffs.push(means(format!("final {name}"), ta, tb));
    }
    if let (Some(ma), Some(mb)) = (&a.margin, &b.margin) {
        diffs.push(means("winner's margin".into(), ma, mb));
    }
    for (p, (sa, sb)) in a.score_by_seat.iter().zip(&b.score_by_seat).enumerate() {
        diffs.push(means(format!("P{} score", p + 1), sa, sb));
    }
    for (name, sa, sb) in [
        ("lead changes", &a.lead_changes, &b.lead_changes),
        ("drama", &a.drama, &b.drama),
        ("decided at", &a.decided_at, &b.decided_at),
    ] {
        if let (Some(sa), Some(sb)) = (sa, sb) {
            diffs.push(means(name.into(), sa, sb));
        }
    }
    holm(&mut diffs);
    let note = format!(
        "{} measures are tested at once: by chance alone about one in twenty shows p < 0.05. Trust p_holm \
         (Holm's adjustment), which keeps the chance of any false alarm among them under 5%.",
        diffs.len()
    );
    Report {
        game: game.to_string(),
        players,
        seed,
        bots: bots.to_string(),
        a,
        b,
        differences: diffs,
        note,
        sequential: None,
    }
}

/// A per-game number the sequential test follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// 1 when the seat won (a shared win too), else 0.
    Wins(usize),
    /// The seat's final score.
    Score(usize),
    /// Decisions in the game.
    Length,
    /// The winner's score minus the runner-up's.
    Margin,
}

impl Measure {
    /// Reads `wins:P1`, `score:P2`, `length` or `margin`.
    pub fn parse(text: &str, players: usize) -> Result<Measure, String> {
        let seat = |s: &str| -> Result<usize, String> {
            match s.trim_start_matches(['P', 'p']).parse::<usize>() {
                Ok(n) if n >= 1 && n <= players => Ok(n - 1),
                _ => Err(format!("`{s}` is not a seat of this {players}-player game (P1..P{players})")),
            }
        };
        match text.split_once(':') {
            Some(("wins", s)) => Ok(Measure::Wins(seat(s)?)),
            Some(("score", s)) => Ok(Measure::Score(seat(s)?)),
            None if text == "length" => Ok(Measure::Length),
            None if text == "margin" => Ok(Measure::Margin),
            _ => Err(format!("unknown measure `{text}`: use wins:P1, score:P1, length or margin")),
        }
    }

    /// Its value in one game, or why the game cannot give it.
    pub fn value(self, r: &GameRecord) -> Result<f64, String> {
        let score = |p: usize| {
            r.scores.get(p).map(|s| *s as f64).ok_or("the game declares no score (`[game] score`)".to_string())
        };
        match self {
            Measure::Wins(p) => Ok(if r.winners.contains(&p) { 1.0 } else { 0.0 }),
            Measure::Score(p) => score(p),
            Measure::Length => Ok(r.decisions as f64),
            Measure::Margin => score(0).map(|_| margin(r)),
        }
    }
}

impl std::fmt::Display for Measure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Measure::Wins(p) => write!(f, "wins:P{}", p + 1),
            Measure::Score(p) => write!(f, "score:P{}", p + 1),
            Measure::Length => write!(f, "length"),
            Measure::Margin => write!(f, "margin"),
        }
    }
}

/// What the sequential test has decided.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// B differs from A by the margin or more (in the direction of `difference`).
    Changed,
    /// No change beyond ± the margin.
    NoChange,
    /// Not yet: more games are needed (or the game limit came first).
    Undecided,
}

/// The state of a sequential probability ratio test (Wald's SPRT, with the normal
/// approximation fishtest uses for chess engines) of "B − A = 0" against "B − A = ±margin" on
/// one measure, over games paired by seed. Two one-sided tests run together: "changed" as soon
/// as either finds the shift, "no change" once both reject it. Error rates: 5% each way.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Sequential {
    /// The measure.
    pub measure: String,
    /// The smallest change that matters, in the measure's units.
    pub margin: f64,
    /// Game pairs so far.
    pub pairs: u64,
    /// Mean of B − A over the pairs.
    pub difference: f64,
    /// Log-likelihood ratio of "+margin" against "no change".
    pub llr_up: f64,
    /// Log-likelihood ratio of "−margin" against "no change".
    pub llr_down: f64,
    /// The bounds: at or below the first a test accepts "no change", at or above the second
    /// it accepts the shift.
    pub bounds: [f64; 2],
    /// The decision so far.
    pub verdict: Verdict,
}

/// Type I and type II error rates of the sequential test.
const SPRT_ERROR: f64 = 0.05;

/// The sequential test of `measure` over the pairs `a[i]`, `b[i]` (the same seed each).
pub fn sequential(measure: Measure, margin: f64, a: &[GameRecord], b: &[GameRecord]) -> Result<Sequential, String> {
    let d: Vec<f64> =
        a.iter().zip(b).map(|(x, y)| Ok(measure.value(y)? - measure.value(x)?)).collect::<Result<_, String>>()?;
    let n = d.len() as f64;
    let sum: f64 = d.iter().sum();
    let mean = if d.is_empty() { 0.0 } else { sum / n };
    let var = if d.len() < 2 { 0.0 } else { d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) };
    // A variance of zero (every pair alike) would make the ratio infinite: floor it at a
    // hundredth of the margin, squared.
    let var = var.max((margin / 100.0).powi(2));
    let llr = |shift: f64| shift / var * (sum - n * shift / 2.0);
    let (up, down) = (llr(margin), llr(-margin));
    let lower = (SPRT_ERROR / (1.0 - SPRT_ERROR)).ln();
    let upper = ((1.0 - SPRT_ERROR) / SPRT_ERROR).ln();
    let verdict = if d.len() < 2 {
        Verdict::Undecided
    } else if up >= upper || down >= upper {
        Verdict::Changed
    } else if up <= lower && down <= lower {
        Verdict::NoChange
    } else {
        Verdict::Undecided
    };
    Ok(Sequential {
        measure: measure.to_string(),
        margin,
        pairs: d.len() as u64,
        difference: mean,
        llr_up: up,
        llr_down: down,
        bounds: [lower, upper],
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_the_textbook() {
        // Wilson (1927) / Newcombe (1998) example: 81 of 263 -> 0.2553 .. 0.3662.
        let [lo, hi] = wilson(81, 263);
        assert!((lo - 0.2553).abs() < 5e-4 && (hi - 0.3662).abs() < 5e-4, "{lo} {hi}");
        assert_eq!(wilson(0, 0), [0.0, 1.0]);
        let [lo, hi] = wilson(10, 10);
        assert!(lo > 0.69 && (hi - 1.0).abs() < 1e-9, "{lo} {hi}");
    }

    #[test]
    fn welch_and_two_proportions_find_real_differences_only() {
        let a = Spread::of(&(0..200).map(|i| (i % 10) as f64).collect::<Vec<_>>());
        let same = Spread::of(&(0..200).map(|i| ((i + 3) % 10) as f64).collect::<Vec<_>>());
        let shifted = Spread::of(&(0..200).map(|i| (i % 10) as f64 + 2.0).collect::<Vec<_>>());
        assert!(means("x".into(), &a, &same).p > 0.9);
        let d = means("x".into(), &a, &shifted);
        assert!(d.p < 1e-6 && d.interval[0] < 2.0 && d.interval[1] > 2.0, "{d:?}");
        let r = rates("w".into(), &Rate::of(50, 100), &Rate::of(70, 100));
        assert!((r.p - 0.0039).abs() < 5e-4, "{r:?}");
        assert!(rates("w".into(), &Rate::of(50, 100), &Rate::of(50, 100)).p > 0.99);
    }

    #[test]
    fn holm_adjusts_in_step_down_order() {
        let mut d: Vec<Difference> = [0.01, 0.04, 0.03]
            .iter()
            .map(|p| Difference {
                measure: String::new(),
                a: 0.0,
                b: 0.0,
                a_interval: [0.0, 0.0],
                b_interval: [0.0, 0.0],
                difference: 0.0,
                interval: [0.0, 0.0],
                p: *p,
                p_holm: *p,
                test: "",
            })
            .collect();
        holm(&mut d);
        let adjusted: Vec<f64> = d.iter().map(|x| (x.p_holm * 1000.0).round() / 1000.0).collect();
        assert_eq!(adjusted, [0.03, 0.06, 0.06]);
    }

    fn record(winner: usize, decisions: u64) -> GameRecord {
        GameRecord {
            index: 0,
            seed: 0,
            winners: vec![winner],
            scores: vec![],
            decisions,
            tracks: vec![],
            moves: vec![],
            shape: None,
        }
    }

    #[test]
    fn the_sequential_test_finds_a_shift_and_accepts_no_change() {
        // B always one decision longer: a shift of 1 against a margin of 0.5.
        let a: Vec<_> = (0..40).map(|i| record(0, 20 + i % 5)).collect();
        let longer: Vec<_> = (0..40).map(|i| record(0, 21 + i % 5)).collect();
        let s = sequential(Measure::Length, 0.5, &a, &longer).unwrap();
        assert_eq!(s.verdict, Verdict::Changed);
        assert!(s.difference == 1.0 && s.llr_up >= s.bounds[1]);
        // The same games on both sides: no change beyond the margin.
        assert_eq!(sequential(Measure::Length, 0.5, &a, &a).unwrap().verdict, Verdict::NoChange);
        // Noisy wins, no real change, few games: not decided yet.
        let w: Vec<_> = (0..6).map(|i| record(i % 2, 10)).collect();
        let v: Vec<_> = (0..6).map(|i| record((i / 2) % 2, 10)).collect();
        assert_eq!(sequential(Measure::Wins(0), 0.05, &w, &v).unwrap().verdict, Verdict::Undecided);
        assert!(sequential(Measure::Score(0), 1.0, &w, &v).unwrap_err().contains("no score"));
        assert_eq!(Measure::parse("wins:P2", 2).unwrap(), Measure::Wins(1));
        assert!(Measure::parse("wins:P3", 2).is_err() && Measure::parse("fun", 2).is_err());
    }

    #[test]
    fn a_side_reads_each_measure_by_name_and_says_what_it_lacks() {
        let games: Vec<_> = (0..10).map(|i| record(i % 2, 10 + i as u64)).collect();
        let side = Side::measure("", 2, &games);
        let read = |name: &str| side.reading(&SideMeasure::parse(name, 2).unwrap());
        assert_eq!(read("wins:P2").unwrap().0, 0.5);
        assert_eq!(read("length").unwrap().0, 14.5);
        assert_eq!(read("fairness").unwrap(), (1.0, [1.0, 1.0]));
        assert_eq!(read("first-seat-advantage").unwrap().0, 0.0);
        assert!(read("margin").unwrap_err().contains("no score"));
        assert!(read("track:round").unwrap_err().contains("no global track"));
        assert!(SideMeasure::parse("wins:P3", 2).unwrap_err().contains("P1..P2"));
        assert!(SideMeasure::parse("speed", 2).unwrap_err().contains("unknown measure `speed`"));
        assert_eq!(show_reading(&SideMeasure::parse("wins:P1", 2).unwrap(), (0.5, [0.4, 0.6])), "50.0% (40.0–60.0)");
    }

    #[test]
    fn fairness_is_one_for_even_wins_and_zero_for_one_winner() {
        assert_eq!(fairness(&[10, 10, 10]), 1.0);
        assert!(fairness(&[30, 0, 0]).abs() < 1e-12);
        assert!((fairness(&[15, 5]) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn spreads_have_quantiles_and_whole_number_bins() {
        let s = Spread::of(&[1.0, 2.0, 2.0, 3.0, 4.0]);
        assert_eq!(s.quantiles[2], 2.0);
        assert_eq!(s.histogram.counts, [1, 2, 1, 1]);
        assert_eq!(s.range, [1.0, 4.0]);
    }
}
