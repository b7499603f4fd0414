//! The balance report as one self-contained HTML page (`rulebook balance --html FILE`): the
//! table of measures and the plots (win rate by seat with intervals, length and margin
//! histograms of both sides, score by seat) drawn as inline SVG with plotters. No script, no
//! network: the page opens anywhere.

use crate::balance::{show_reading, Difference, Report, Side, SideMeasure, Spread};
use plotters::prelude::*;

/// Colours of side A and side B.
const A_COLOUR: RGBColor = RGBColor(31, 119, 180);
const B_COLOUR: RGBColor = RGBColor(214, 39, 40);
/// Plot size in pixels.
const SIZE: (u32, u32) = (640, 320);

/// The whole page.
pub fn page(r: &Report, title: &str) -> Result<String, String> {
    let mut plots = vec![(
        "Win rate by seat (95% Wilson intervals)",
        intervals(
            "win rate",
            &r.a.win_rate_by_seat.iter().map(|x| (x.rate, x.interval)).collect::<Vec<_>>(),
            &r.b.win_rate_by_seat.iter().map(|x| (x.rate, x.interval)).collect::<Vec<_>>(),
        )?,
    )];
    plots.push(("Game length (decisions)", histograms("decisions", &r.a.length, &r.b.length)?));
    if let (Some(ma), Some(mb)) = (&r.a.margin, &r.b.margin) {
        plots.push(("Winner's margin (winner's score minus the runner-up's)", histograms("points", ma, mb)?));
    }
    if !r.a.score_by_seat.is_empty() {
        let means = |s: &Side| s.score_by_seat.iter().map(|x| (x.mean, x.interval)).collect::<Vec<_>>();
        plots
            .push(("Final score by seat (95% intervals of the mean)", intervals("score", &means(&r.a), &means(&r.b))?));
    }
    if let (Some(_), Some(_)) = (&r.a.drama, &r.b.drama) {
        let shape = |s: &Side| {
            [&s.lead_changes, &s.drama, &s.decided_at]
                .iter()
                .filter_map(|m| m.as_ref().map(|x| (x.mean, x.interval)))
                .collect::<Vec<_>>()
        };
        plots.push((
            "The shape of a game: lead changes per decision, drama, decided at (share of the game); means with 95% intervals",
            intervals_labelled("share", &["lead changes", "drama", "decided at"], &shape(&r.a), &shape(&r.b))?,
        ));
    }
    let mut out = String::new();
    out.push_str(&format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t} — balance</title>\n<style>{STYLE}</style></head><body>\n",
        t = escape(title)
    ));
    out.push_str(&format!(
        "<h1>{t}: is it the same game?</h1>\n<p>{p} players, {n} games per side, seed {seed}, bots: <code>{bots}</code></p>\n\
         <p><span class=\"a\">A</span> <code>{ca}</code> &nbsp; <span class=\"b\">B</span> <code>{cb}</code></p>\n",
        t = escape(title),
        p = r.players,
        n = r.a.games,
        seed = r.seed,
        bots = escape(&r.bots),
        ca = escape(&r.a.config),
        cb = escape(&r.b.config)
    ));
    if let Some(s) = &r.sequential {
        out.push_str(&format!(
            "<p class=\"verdict\">Sequential test of <code>{}</code> (margin ±{}): <b>{:?}</b> after {} game pairs.</p>\n",
            escape(&s.measure),
            s.margin,
            s.verdict,
            s.pairs
        ));
    }
    out.push_str(&table(&r.differences));
    out.push_str(&format!("<p class=\"note\">Rows in bold: p_holm &lt; 0.05. {}</p>\n", escape(&r.note)));
    for (caption, svg) in plots {
        out.push_str(&format!("<figure>{svg}<figcaption>{}</figcaption></figure>\n", escape(caption)));
    }
    out.push_str("</body></html>\n");
    Ok(out)
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:980px;margin:2em auto;color:#222}\
table{border-collapse:collapse;font-variant-numeric:tabular-nums}td,th{padding:.25em .8em;border-bottom:1px solid #ddd;text-align:right}\
td:first-child,th:first-child{text-align:left}tr.sig td{font-weight:bold}.a{color:#1f77b4;font-weight:bold}.b{color:#d62728;font-weight:bold}\
figure{margin:1.5em 0}figcaption{color:#555}.note{color:#555;font-size:.9em}";

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The differences as an HTML table.
fn table(diffs: &[Difference]) -> String {
    let mut out = String::from(
        "<table><tr><th>measure</th><th class=\"a\">A</th><th class=\"b\">B</th><th>B − A</th><th>95% interval</th><th>p</th><th>p_holm</th><th>test</th></tr>\n",
    );
    for d in diffs {
        let rate = d.test == "two-proportion z";
        let f = |x: f64| if rate { format!("{:.1}%", x * 100.0) } else { format!("{x:.2}") };
        let fd = |x: f64| if rate { format!("{:+.1} pts", x * 100.0) } else { format!("{x:+.2}") };
        out.push_str(&format!(
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} to {}</td><td>{:.4}</td><td>{:.4}</td><td>{}</td></tr>\n",
            if d.p_holm < 0.05 { " class=\"sig\"" } else { "" },
            escape(&d.measure),
            f(d.a),
            f(d.b),
            fd(d.difference),
            fd(d.interval[0]),
            fd(d.interval[1]),
            d.p,
            d.p_holm,
            d.test
        ));
    }
    out.push_str("</table>\n");
    out
}

fn plot_error<E: std::fmt::Debug>(e: E) -> String {
    format!("cannot draw a plot: {e:?}")
}

/// One value per seat for each side, with its interval: points with error bars.
fn intervals(what: &str, a: &[(f64, [f64; 2])], b: &[(f64, [f64; 2])]) -> Result<String, String> {
    let seats: Vec<String> = (1..=a.len()).map(|p| format!("P{p}")).collect();
    let labels: Vec<&str> = seats.iter().map(String::as_str).collect();
    intervals_labelled(what, &labels, a, b)
}

/// One value per label for each side, with its interval: points with error bars.
fn intervals_labelled(
    what: &str,
    labels: &[&str],
    a: &[(f64, [f64; 2])],
    b: &[(f64, [f64; 2])],
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let lo = a.iter().chain(b).map(|x| x.1[0]).fold(f64::INFINITY, f64::min).min(0.0);
        let hi = a.iter().chain(b).map(|x| x.1[1]).fold(f64::NEG_INFINITY, f64::max).max(lo + 1e-9);
        let seats = a.len().max(1);
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(32)
            .y_label_area_size(56)
            .build_cartesian_2d(-0.5f64..seats as f64 - 0.5, lo..hi * 1.05)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_labels(seats)
            .x_label_formatter(&|x| {
                let i = x.round();
                if (i - x).abs() < 1e-6 && i >= 0.0 {
                    labels.get(i as usize).map(|l| l.to_string()).unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_desc(what)
            .disable_x_mesh()
            .draw()
            .map_err(plot_error)?;
        for (side, values, colour, shift) in [("A", a, A_COLOUR, -0.12), ("B", b, B_COLOUR, 0.12)] {
            let points =
                values.iter().enumerate().map(|(i, (v, _))| Circle::new((i as f64 + shift, *v), 5, colour.filled()));
            chart
                .draw_series(points)
                .map_err(plot_error)?
                .label(side)
                .legend(move |(x, y)| Circle::new((x, y), 5, colour.filled()));
            let bars = values.iter().enumerate().map(|(i, (_, iv))| {
                PathElement::new(vec![(i as f64 + shift, iv[0]), (i as f64 + shift, iv[1])], colour.stroke_width(2))
            });
            chart.draw_series(bars).map_err(plot_error)?;
        }
        chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw().map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// The histograms of both sides, as outlined bars on one axis.
fn histograms(what: &str, a: &Spread, b: &Spread) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let lo = a.range[0].min(b.range[0]);
        let hi = a.range[1].max(b.range[1]).max(lo + 1.0) + 1.0;
        let share = |s: &Spread, c: u64| c as f64 / s.n.max(1) as f64;
        let top = [a, b]
            .iter()
            .flat_map(|s| s.histogram.counts.iter().map(move |c| share(s, *c)))
            .fold(0.0, f64::max)
            .max(1e-9);
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(32)
            .y_label_area_size(56)
            .build_cartesian_2d(lo..hi, 0.0..top * 1.1)
            .map_err(plot_error)?;
        chart.configure_mesh().x_desc(what).y_desc("share of games").draw().map_err(plot_error)?;
        for (side, s, colour) in [("A", a, A_COLOUR), ("B", b, B_COLOUR)] {
            let bars = s.histogram.counts.iter().enumerate().map(|(i, c)| {
                let (x0, x1) = (s.histogram.edges[i], s.histogram.edges[i + 1].max(s.histogram.edges[i] + 1.0));
                Rectangle::new([(x0, 0.0), (x1, share(s, *c))], colour.mix(0.35).filled())
            });
            chart
                .draw_series(bars)
                .map_err(plot_error)?
                .label(side)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.mix(0.35).filled()));
        }
        chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw().map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// Colours of the seats in sweep plots.
const SEAT_COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// A named line of values with their 95% intervals.
type Series = (String, Vec<(f64, [f64; 2])>);

/// A sweep (`rulebook sweep --html`): each measure plotted against the parameter's values.
pub fn sweep_page(
    key: &str,
    points: &[(String, Side)],
    measures: &[SideMeasure],
    title: &str,
) -> Result<String, String> {
    let labels: Vec<String> = points.iter().map(|(v, _)| v.clone()).collect();
    let seats = points.first().map(|(_, s)| s.win_rate_by_seat.len()).unwrap_or(0);
    let wins: Vec<Series> = (0..seats)
        .map(|p| {
            let line =
                points.iter().map(|(_, s)| (s.win_rate_by_seat[p].rate, s.win_rate_by_seat[p].interval)).collect();
            (format!("P{}", p + 1), line)
        })
        .collect();
    let mut plots =
        vec![("Win rate by seat (95% Wilson intervals)".to_string(), along(key, "win rate", &labels, &wins)?)];
    for m in measures.iter().filter(|m| !m.name().starts_with("wins:")) {
        let line = points.iter().map(|(_, s)| s.reading(m)).collect::<Result<Vec<_>, _>>()?;
        let name = m.name().to_string();
        plots.push((
            format!("{name} against {key} (95% intervals where the measure has them)"),
            along(key, &name, &labels, &[(name.clone(), line)])?,
        ));
    }
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t} — sweep of {k}</title>\n<style>{STYLE}</style></head><body>\n\
         <h1>{t}: sweep of <code>{k}</code></h1>\n",
        t = escape(title),
        k = escape(key)
    );
    out.push_str("<table><tr><th>value</th><th>games</th>");
    for m in measures {
        out.push_str(&format!("<th>{}</th>", escape(m.name())));
    }
    out.push_str("</tr>\n");
    for (v, s) in points {
        out.push_str(&format!("<tr><td>{}</td><td>{}</td>", escape(v), s.games));
        for m in measures {
            out.push_str(&format!("<td>{}</td>", escape(&show_reading(m, s.reading(m)?))));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    for (caption, svg) in plots {
        out.push_str(&format!("<figure>{svg}<figcaption>{}</figcaption></figure>\n", escape(&caption)));
    }
    out.push_str("</body></html>\n");
    Ok(out)
}

/// Lines of values with intervals along the swept values (one line per series).
fn along(key: &str, what: &str, labels: &[String], series: &[Series]) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let all = series.iter().flat_map(|(_, l)| l.iter());
        let lo = all.clone().map(|x| x.1[0]).fold(f64::INFINITY, f64::min).min(0.0);
        let hi = all.map(|x| x.1[1]).fold(f64::NEG_INFINITY, f64::max).max(lo + 1e-9);
        let n = labels.len().max(1);
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(-0.5f64..n as f64 - 0.5, lo..hi * 1.05)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_labels(n.min(20))
            .x_label_formatter(&|x| {
                let i = x.round();
                if (i - x).abs() < 1e-6 && i >= 0.0 {
                    labels.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .x_desc(key)
            .y_desc(what)
            .disable_x_mesh()
            .draw()
            .map_err(plot_error)?;
        for (k, (name, line)) in series.iter().enumerate() {
            let colour = SEAT_COLOURS[k % SEAT_COLOURS.len()];
            let points: Vec<(f64, f64)> = line.iter().enumerate().map(|(i, (v, _))| (i as f64, *v)).collect();
            chart
                .draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))
                .map_err(plot_error)?
                .label(name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2)));
            let bars = line
                .iter()
                .enumerate()
                .map(|(i, (_, iv))| PathElement::new(vec![(i as f64, iv[0]), (i as f64, iv[1])], colour));
            chart.draw_series(bars).map_err(plot_error)?;
        }
        chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw().map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}
