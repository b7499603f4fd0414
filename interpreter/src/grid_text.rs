//! A grid of a view drawn as text: rows and columns with their numbers, each cell's pieces
//! and label, and for pieces with edges the four edges around the piece. The terminal shows
//! these lines; scenarios check them (`expect view P1 grid NAME shows "..."`).

use crate::view::{CellView, GridView};

fn width(s: &str) -> usize {
    s.chars().count()
}

fn centre(s: &str, w: usize) -> String {
    let pad = w.saturating_sub(width(s));
    format!("{}{s}{}", " ".repeat(pad / 2), " ".repeat(pad - pad / 2))
}

fn pad_left(s: &str, w: usize) -> String {
    format!("{}{s}", " ".repeat(w.saturating_sub(width(s))))
}

/// What a cell shows on one line: its pieces' labels, then its own label.
fn content(c: &CellView) -> String {
    let mut parts: Vec<&str> = c.pieces.iter().map(|p| p.label.as_str()).collect();
    parts.extend(c.label.as_deref());
    parts.join(" ")
}

/// The grid's title: its name and, for a per-player grid, its owner.
pub fn title(g: &GridView, seats: &[String]) -> String {
    match g.owner.and_then(|o| seats.get(o)) {
        Some(seat) => format!("{} ({seat})", g.name),
        None => g.name.clone(),
    }
}

/// The grid drawn as lines of text (title first), without trailing spaces. A grid whose
/// pieces have edges draws each cell on three lines (north edge; west edge, piece, east edge;
/// south edge); any other grid draws a cell on one line.
pub fn lines(g: &GridView, seats: &[String]) -> Vec<String> {
    let mut out = vec![title(g, seats)];
    if g.rows.is_empty() || g.cols.is_empty() {
        out.push("  (empty)".into());
        return out;
    }
    let tiles = g.cells.iter().any(|c| c.pieces.iter().any(|p| p.edges.is_some()));
    let cell = |row: i64, col: i64| g.cells.iter().find(|c| c.row == row && c.col == col);
    // Each cell's lines, by row then column.
    let drawn: Vec<Vec<Vec<Line>>> = g
        .rows
        .iter()
        .map(|&row| {
            g.cols
                .iter()
                .map(|&col| match cell(row, col) {
                    None if tiles => vec![Line::default(); 3],
                    None => vec![Line::default()],
                    Some(c) if tiles => tile_lines(c),
                    Some(c) => vec![Line::centred(content(c))],
                })
                .collect()
        })
        .collect();
    let col_w: Vec<usize> = (0..g.cols.len())
        .map(|i| {
            let inner = drawn.iter().flat_map(|r| r[i].iter().map(Line::width)).max().unwrap_or(0);
            inner.max(width(&g.cols[i].to_string()))
        })
        .collect();
    let row_w = g.rows.iter().map(|r| width(&r.to_string())).max().unwrap_or(1);
    let rule = {
        let mut s = format!("{} +", " ".repeat(row_w));
        for w in &col_w {
            s.push_str(&"-".repeat(w + 2));
            s.push('+');
        }
        s
    };
    let mut header = format!("{}  ", " ".repeat(row_w));
    for (i, w) in col_w.iter().enumerate() {
        header.push_str(&centre(&g.cols[i].to_string(), w + 2));
        header.push(' ');
    }
    out.push(header);
    out.push(rule.clone());
    let height = if tiles { 3 } else { 1 };
    for (ri, (row, cells)) in g.rows.iter().zip(&drawn).enumerate() {
        for k in 0..height {
            let head = if k == height / 2 { pad_left(&row.to_string(), row_w) } else { " ".repeat(row_w) };
            let mut s = format!("{head} |");
            for (cell, w) in cells.iter().zip(&col_w) {
                s.push_str(&format!(" {} |", cell[k].draw(*w)));
            }
            out.push(s);
        }
        if tiles || ri + 1 == g.rows.len() {
            out.push(rule.clone());
        }
    }
    out.iter().map(|l| l.trim_end().to_string()).collect()
}

/// One line of a cell: a text centred between what stands at the left and right edges.
#[derive(Clone, Default)]
struct Line {
    left: String,
    mid: String,
    right: String,
}

impl Line {
    fn centred(mid: String) -> Line {
        Line { mid, ..Line::default() }
    }

    /// The room it needs (a space between the parts that are there).
    fn width(&self) -> usize {
        let parts = [&self.left, &self.mid, &self.right];
        let used = parts.iter().filter(|p| !p.is_empty()).count();
        parts.iter().map(|p| width(p)).sum::<usize>() + used.saturating_sub(1)
    }

    fn draw(&self, w: usize) -> String {
        let left = if self.left.is_empty() { String::new() } else { format!("{} ", self.left) };
        let right = if self.right.is_empty() { String::new() } else { format!(" {}", self.right) };
        let mid = w.saturating_sub(width(&left) + width(&right));
        format!("{left}{}{right}", centre(&self.mid, mid))
    }
}

/// A cell with a tile: its north edge, its west edge, label and east edge, its south edge.
/// An empty symbol (a blank edge) is drawn as `·`.
fn tile_lines(c: &CellView) -> Vec<Line> {
    let Some(p) = c.pieces.iter().find(|p| p.edges.is_some()) else {
        return vec![Line::default(), Line::centred(content(c)), Line::default()];
    };
    let e = p.edges.as_deref().unwrap_or_default();
    // A blank edge (an empty symbol) is drawn as a dot, so the cell keeps its shape.
    let edge = |i: usize| e.get(i).filter(|s| !s.is_empty()).cloned().unwrap_or_else(|| "·".into());
    vec![Line::centred(edge(0)), Line { left: edge(3), mid: p.label.clone(), right: edge(1) }, Line::centred(edge(2))]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::PieceView;

    fn piece(label: &str, edges: Option<[&str; 4]>) -> PieceView {
        PieceView { id: label.into(), label: label.into(), rot: 0, edges: edges.map(|e| e.map(String::from).to_vec()) }
    }

    #[test]
    fn a_board_draws_one_line_per_row_highest_first() {
        let g = GridView {
            name: "board".into(),
            owner: Some(1),
            description: String::new(),
            rows: vec![3, 2, 1],
            cols: vec![1, 2],
            cells: vec![
                CellView { row: 3, col: 2, label: Some("wine".into()), pieces: vec![] },
                CellView { row: 2, col: 1, label: Some("dog".into()), pieces: vec![piece("G1", None)] },
            ],
        };
        let text = lines(&g, &["P1".into(), "P2".into()]).join("\n");
        assert_eq!(
            text,
            "board (P2)\n      1       2\n  +--------+------+\n3 |        | wine |\n2 | G1 dog |      |\n1 |        |      |\n  +--------+------+"
        );
    }

    #[test]
    fn tiles_show_their_edges_around_them() {
        let g = GridView {
            name: "tiles".into(),
            owner: None,
            description: String::new(),
            rows: vec![0],
            cols: vec![0, 1],
            cells: vec![
                CellView { row: 0, col: 0, label: None, pieces: vec![piece("S1", Some(["dog", "horse", "", "wine"]))] },
                CellView { row: 0, col: 1, label: None, pieces: vec![piece("A1", Some(["?", "", "cards", "horse"]))] },
            ],
        };
        let text = lines(&g, &[]);
        assert_eq!(
            text,
            [
                "tiles",
                "          0             1",
                "  +---------------+------------+",
                "  |      dog      |     ?      |",
                "0 | wine S1 horse | horse A1 · |",
                "  |       ·       |   cards    |",
                "  +---------------+------------+",
            ]
        );
    }
}
