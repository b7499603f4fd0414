//! Grids: declared 2-D boards of cells. A grid has rows and columns (bounded, or unbounded
//! for tiles laid next to each other), optional data per cell, and pieces in its cells (a
//! component or a marker the grid declares, at most `per_cell` per cell). A placement grid
//! also judges edges: each component type may name the property holding its four edge
//! symbols (N, E, S, W, as printed), a piece may lie turned by quarter turns clockwise, and
//! the grid's [`EdgeRule`] says which touching edges match.
//!
//! This module holds the static declaration ([`GridInfo`]), one copy's contents
//! ([`GridSlot`]) and the checks; the script functions are in `api_grid`.

use crate::def::Visibility;
use crate::value::Value;
use serde::Serialize;
use std::collections::BTreeMap;

/// The most rows or columns a grid may span (declared bounds, or the cells in use of an
/// unbounded grid): what a view and a terminal can draw.
pub const MAX_SPAN: i64 = 100;
/// The largest row or column number (either sign) a piece may stand on.
pub const MAX_COORD: i64 = 1_000_000;
/// The most pieces one cell may hold (`per_cell`).
pub const MAX_PER_CELL: i64 = 16;
/// The four directions, in the order edges are written: north, east, south, west.
pub const DIRS: [&str; 4] = ["N", "E", "S", "W"];

/// How the edges of two touching pieces match: equal symbols match; the `wildcard` matches
/// any symbol except itself and the blank; the `blank` (no symbol) matches only a blank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeRule {
    /// The symbol that stands for any symbol, if the game has one.
    pub wildcard: Option<String>,
    /// The symbol of an edge without a symbol.
    pub blank: String,
}

impl EdgeRule {
    /// Whether edge `a` may touch edge `b`.
    pub fn matches(&self, a: &str, b: &str) -> bool {
        if a == self.blank || b == self.blank {
            return a == self.blank && b == self.blank;
        }
        match self.wildcard.as_deref() {
            Some(w) if a == w && b == w => false,
            Some(w) if a == w || b == w => true,
            _ => a == b,
        }
    }

    /// The symbol a matching pair shows: the symbol itself, the other one for a wildcard,
    /// none for two blanks (and none when the edges do not match).
    pub fn symbol<'a>(&self, a: &'a str, b: &'a str) -> Option<&'a str> {
        if !self.matches(a, b) || a == self.blank {
            return None;
        }
        match self.wildcard.as_deref() {
            Some(w) if a == w => Some(b),
            _ => Some(a),
        }
    }
}

/// A checked `[grids.NAME]` declaration.
#[derive(Clone, Debug, Default)]
pub struct GridInfo {
    /// Name.
    pub name: String,
    /// What it is.
    pub description: String,
    /// One copy per player.
    pub per_player: bool,
    /// Who sees the pieces (public, owner or hidden).
    pub visible: Visibility,
    /// First and last row, or `None` for an unbounded grid.
    pub rows: Option<(i64, i64)>,
    /// First and last column, or `None` for an unbounded grid.
    pub cols: Option<(i64, i64)>,
    /// Rows are drawn highest first (north is the next higher row).
    pub descending: bool,
    /// Per-cell data by (row, column): each a map (with `row` and `col`).
    pub cells: BTreeMap<(i64, i64), Value>,
    /// Template of a cell's label, filled from its data (e.g. `"{symbol?}"`).
    pub cell_label: Option<String>,
    /// Template of a component piece's label, filled from its properties (default: its id).
    pub piece_label: Option<String>,
    /// Marker pieces this grid knows (pieces that are not components), by name: script
    /// strings, so that a script reading where a marker stands gets a shared copy of its name.
    pub markers: Vec<rhai::ImmutableString>,
    /// How many pieces a cell may hold.
    pub per_cell: usize,
    /// The edge rule of a placement grid.
    pub rule: Option<EdgeRule>,
    /// Pieces must be placed next to a piece already there (unless the grid is empty).
    pub connected: bool,
}

impl GridInfo {
    /// Whether the cell lies on the grid (inside the bounds, or anywhere within
    /// [`MAX_COORD`] for an unbounded grid).
    pub fn on_grid(&self, row: i64, col: i64) -> bool {
        let within = |b: Option<(i64, i64)>, x: i64| match b {
            Some((lo, hi)) => lo <= x && x <= hi,
            None => x.abs() <= MAX_COORD,
        };
        within(self.rows, row) && within(self.cols, col)
    }

    /// The cell next to (row, col) in direction `d` (0 = N, 1 = E, 2 = S, 3 = W). North is
    /// the row drawn above: the next lower row, or the next higher on a descending grid.
    pub fn step(&self, row: i64, col: i64, d: usize) -> (i64, i64) {
        let up = if self.descending { 1 } else { -1 };
        match d % 4 {
            0 => (row + up, col),
            1 => (row, col + 1),
            2 => (row - up, col),
            _ => (row, col - 1),
        }
    }

    /// The declared data of a cell, or `()`.
    pub fn data(&self, row: i64, col: i64) -> Value {
        self.cells.get(&(row, col)).cloned().unwrap_or(Value::Unit)
    }

    /// "rows -2..16, columns 1..3" or "unbounded".
    pub fn bounds_text(&self) -> String {
        match (self.rows, self.cols) {
            (Some((a, b)), Some((c, d))) => format!("rows {a}..{b}, columns {c}..{d}"),
            _ => "unbounded".into(),
        }
    }
}

/// What stands in a cell: a component (by index) or one of the grid's markers (by index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Piece {
    /// A component.
    Component(u32),
    /// A marker the grid declares.
    Marker(u32),
}

/// One piece on a grid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Placed {
    /// Row.
    pub row: i64,
    /// Column.
    pub col: i64,
    /// The piece.
    pub piece: Piece,
    /// Quarter turns clockwise (0..4).
    pub rot: u8,
}

/// The contents of one copy of a grid: its pieces, sorted by row, then column, then the
/// order they arrived in a cell.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GridSlot {
    /// The pieces.
    pub placed: Vec<Placed>,
}

impl GridSlot {
    /// The pieces in a cell, first arrived first.
    pub fn at(&self, row: i64, col: i64) -> &[Placed] {
        &self.placed[self.range(row, col)]
    }

    /// Where a cell's pieces are in `placed`.
    pub fn range(&self, row: i64, col: i64) -> std::ops::Range<usize> {
        let start = self.placed.partition_point(|p| (p.row, p.col) < (row, col));
        let end = self.placed.partition_point(|p| (p.row, p.col) <= (row, col));
        start..end
    }

    /// Where a piece stands (its first cell, in row order), as an index into `placed`.
    pub fn find(&self, piece: Piece) -> Option<usize> {
        crate::alloc::charge(self.placed.len());
        self.placed.iter().position(|p| p.piece == piece)
    }

    /// Adds a piece after those already in its cell.
    pub fn insert(&mut self, p: Placed) {
        let at = self.placed.partition_point(|q| (q.row, q.col) <= (p.row, p.col));
        self.placed.insert(at, p);
    }

    /// The first and last row and column in use, if any piece is placed.
    pub fn span(&self) -> Option<((i64, i64), (i64, i64))> {
        let first = self.placed.first()?;
        let last = self.placed.last()?;
        let (lo, hi) = self.placed.iter().fold((first.col, first.col), |(lo, hi), p| (lo.min(p.col), hi.max(p.col)));
        Some(((first.row, last.row), (lo, hi)))
    }
}

/// A piece's edges after `rot` quarter turns clockwise: what faced north now faces east.
pub fn turn<T: Clone>(edges: &[T; 4], rot: u8) -> [T; 4] {
    let r = usize::from(rot % 4);
    std::array::from_fn(|i| edges[(i + 4 - r) % 4].clone())
}

/// What the checks need to know about pieces: a piece's name (for messages) and, for a
/// piece with edges, its edges as printed.
pub trait Pieces {
    /// The id a message names.
    fn name(&self, piece: Piece) -> String;
    /// The four edges (N, E, S, W, unturned), or `None` for a piece without edges.
    fn edges(&self, piece: Piece) -> Result<Option<[&str; 4]>, String>;
}

/// Why a piece may not go to a cell (see [`misfit`]): what a message needs, worked out into
/// text only when one is asked for ([`check_place`]).
pub enum Misfit<'a> {
    /// The cell is off the grid.
    OffGrid,
    /// The cell holds as many pieces as it may (those pieces).
    Taken(Vec<&'a Placed>),
    /// The piece is already on the grid.
    AlreadyThere,
    /// The grid would span more than [`MAX_SPAN`] rows or columns.
    TooWide,
    /// The grid keeps its pieces together and the cell is next to none.
    Alone,
    /// The grid matches edges and the piece has none.
    NoEdges,
    /// An edge of the piece (towards `d`) does not match the edge of the neighbour there.
    Edge { d: usize, mine: &'a str, theirs: &'a str, other: &'a Placed },
    /// A piece's edges could not be read.
    Broken(String),
}

/// Why `piece` may not go to (row, col) turned `rot` times, or `Ok` if it may. `moving` is
/// the index in `slot.placed` of the piece itself when it moves (its old cell is then free).
pub fn check_place(
    info: &GridInfo,
    slot: &GridSlot,
    pieces: &dyn Pieces,
    piece: Piece,
    (row, col, rot): (i64, i64, u8),
    moving: Option<usize>,
) -> Result<(), String> {
    let Err(why) = misfit(info, slot, pieces, piece, (row, col, rot), moving) else { return Ok(()) };
    let here = format!("row {row}, column {col}");
    Err(match why {
        Misfit::OffGrid => format!("{here} is off grid `{}` ({})", info.name, info.bounds_text()),
        Misfit::Taken(in_cell) => {
            let who: Vec<String> = in_cell.iter().map(|p| pieces.name(p.piece)).collect();
            format!("{here} of grid `{}` is taken by {}", info.name, who.join(", "))
        }
        Misfit::AlreadyThere => format!("`{}` is already on grid `{}`", pieces.name(piece), info.name),
        Misfit::TooWide => format!("{here} would make grid `{}` span more than {MAX_SPAN} rows or columns", info.name),
        Misfit::Alone => format!("{here} of grid `{}` is not next to any piece", info.name),
        Misfit::NoEdges => format!("`{}` has no edges to lay on grid `{}`", pieces.name(piece), info.name),
        Misfit::Edge { d, mine, theirs, other } => format!(
            "its {} edge `{mine}` does not match the {} edge `{theirs}` of `{}` at row {}, column {}",
            DIRS[d],
            DIRS[(d + 2) % 4],
            pieces.name(other.piece),
            other.row,
            other.col
        ),
        Misfit::Broken(e) => e,
    })
}

/// [`check_place`] without the message: a placement tried for each cell and turn (a decision's
/// options) makes no text for those that do not fit.
pub fn misfit<'a>(
    info: &GridInfo,
    slot: &'a GridSlot,
    pieces: &'a dyn Pieces,
    piece: Piece,
    (row, col, rot): (i64, i64, u8),
    moving: Option<usize>,
) -> Result<(), Misfit<'a>> {
    if !info.on_grid(row, col) {
        return Err(Misfit::OffGrid);
    }
    // The pieces of a cell, without the one moving.
    let others = |r: i64, c: i64| slot.range(r, c).filter(move |i| Some(*i) != moving).map(|i| &slot.placed[i]);
    if others(row, col).count() >= info.per_cell {
        return Err(Misfit::Taken(others(row, col).collect()));
    }
    if let Piece::Component(_) = piece {
        if moving.is_none() && slot.find(piece).is_some() {
            return Err(Misfit::AlreadyThere);
        }
    }
    if info.rows.is_none() {
        // An unbounded grid still fits in a view: its pieces span at most MAX_SPAN.
        let rest = slot.placed.iter().enumerate().filter(|(i, _)| Some(*i) != moving).map(|(_, p)| p);
        let (mut r0, mut r1, mut c0, mut c1) = (row, row, col, col);
        for p in rest {
            (r0, r1, c0, c1) = (r0.min(p.row), r1.max(p.row), c0.min(p.col), c1.max(p.col));
        }
        if r1 - r0 >= MAX_SPAN || c1 - c0 >= MAX_SPAN {
            return Err(Misfit::TooWide);
        }
    }
    let neighbours = || {
        (0..4).flat_map(move |d| {
            let (r, c) = info.step(row, col, d);
            others(r, c).map(move |p| (d, p))
        })
    };
    let alone = slot.placed.len() == usize::from(moving.is_some());
    if info.connected && neighbours().next().is_none() && !alone {
        return Err(Misfit::Alone);
    }
    let Some(rule) = &info.rule else { return Ok(()) };
    let Some(mine) = pieces.edges(piece).map_err(Misfit::Broken)? else {
        return Err(Misfit::NoEdges);
    };
    let mine = turn(&mine, rot);
    for (d, other) in neighbours() {
        let Some(theirs) = pieces.edges(other.piece).map_err(Misfit::Broken)? else { continue };
        let theirs = turn(&theirs, other.rot);
        let (a, b) = (mine[d], theirs[(d + 2) % 4]);
        if !rule.matches(a, b) {
            return Err(Misfit::Edge { d, mine: a, theirs: b, other });
        }
    }
    Ok(())
}

/// One piece written as text, as scenarios write it: `ID@ROW:COL`, or `ID@ROW:COL:TURNS` for
/// a piece turned `TURNS` quarter turns clockwise.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// The component id or marker.
    pub id: String,
    /// Row.
    pub row: i64,
    /// Column.
    pub col: i64,
    /// Quarter turns (0..4).
    pub rot: u8,
}

impl Entry {
    /// Reads `ID@ROW:COL[:TURNS]`.
    pub fn parse(text: &str) -> Result<Entry, String> {
        let bad = || format!("`{text}` is not a piece on a grid: write ID@ROW:COL or ID@ROW:COL:TURNS");
        let (id, at) = text.rsplit_once('@').ok_or_else(bad)?;
        let nums: Vec<i64> = at.split(':').map(str::parse).collect::<Result<_, _>>().map_err(|_| bad())?;
        match (id.is_empty(), nums.as_slice()) {
            (false, [row, col]) => Ok(Entry { id: id.into(), row: *row, col: *col, rot: 0 }),
            (false, [row, col, rot]) => Ok(Entry { id: id.into(), row: *row, col: *col, rot: rot.rem_euclid(4) as u8 }),
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{}:{}", self.id, self.row, self.col)?;
        if self.rot != 0 {
            write!(f, ":{}", self.rot)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> EdgeRule {
        EdgeRule { wildcard: Some("?".into()), blank: String::new() }
    }

    /// Pieces 0.. with the given edges (markers have none).
    struct Tiles(Vec<[&'static str; 4]>);

    impl Pieces for Tiles {
        fn name(&self, piece: Piece) -> String {
            match piece {
                Piece::Component(i) => format!("t{i}"),
                Piece::Marker(i) => format!("m{i}"),
            }
        }
        fn edges(&self, piece: Piece) -> Result<Option<[&str; 4]>, String> {
            Ok(match piece {
                Piece::Component(i) => Some(self.0[i as usize]),
                Piece::Marker(_) => None,
            })
        }
    }

    fn placement() -> GridInfo {
        GridInfo { name: "g".into(), per_cell: 1, rule: Some(rule()), connected: true, ..GridInfo::default() }
    }

    fn board() -> GridInfo {
        GridInfo {
            name: "b".into(),
            per_cell: 1,
            rows: Some((-2, 16)),
            cols: Some((1, 3)),
            descending: true,
            markers: vec!["G1".into(), "L1".into()],
            ..GridInfo::default()
        }
    }

    fn put(slot: &mut GridSlot, i: u32, row: i64, col: i64, rot: u8) {
        slot.insert(Placed { row, col, piece: Piece::Component(i), rot });
    }

    #[test]
    fn edge_rule_wildcard_and_blank() {
        let r = rule();
        assert!(r.matches("dog", "dog"));
        assert!(!r.matches("dog", "wine"));
        assert!(r.matches("?", "dog") && r.matches("wine", "?"));
        assert!(!r.matches("?", "?"), "the wildcard does not match itself");
        assert!(!r.matches("?", "") && !r.matches("", "dog"), "a blank matches only a blank");
        assert!(r.matches("", ""));
        assert_eq!(r.symbol("?", "dog"), Some("dog"));
        assert_eq!(r.symbol("horse", "?"), Some("horse"));
        assert_eq!(r.symbol("", ""), None);
        assert_eq!(r.symbol("dog", "wine"), None);
        let declared = EdgeRule { wildcard: Some("*".into()), blank: "-".into() };
        assert!(declared.matches("*", "cat") && !declared.matches("*", "-") && declared.matches("-", "-"));
        assert!(declared.matches("?", "?"), "`?` is an ordinary symbol when the wildcard is `*`");
        let plain = EdgeRule { wildcard: None, blank: String::new() };
        assert!(!plain.matches("?", "dog"));
    }

    #[test]
    fn rotation_turns_clockwise() {
        let e = ["n", "e", "s", "w"].map(String::from);
        assert_eq!(turn(&e, 0), e);
        assert_eq!(turn(&e, 1), ["w", "n", "e", "s"].map(String::from));
        assert_eq!(turn(&e, 2), ["s", "w", "n", "e"].map(String::from));
        assert_eq!(turn(&e, 5), turn(&e, 1));
    }

    #[test]
    fn tiles_fit_by_their_edges() {
        let g = placement();
        let tiles = Tiles(vec![["dog", "horse", "", "wine"], ["", "cards", "dog", "?"], ["?", "?", "?", "?"]]);
        let mut slot = GridSlot::default();
        // The first tile goes anywhere; the grid is empty.
        assert!(check_place(&g, &slot, &tiles, Piece::Component(0), (0, 0, 0), None).is_ok());
        put(&mut slot, 0, 0, 0, 0);
        // North of tile 0: tile 1's south (dog) meets tile 0's north (dog).
        assert!(check_place(&g, &slot, &tiles, Piece::Component(1), (-1, 0, 0), None).is_ok());
        // Turned twice its south is blank: no match against dog.
        let e = check_place(&g, &slot, &tiles, Piece::Component(1), (-1, 0, 2), None).unwrap_err();
        assert!(e.contains("S edge `` does not match the N edge `dog` of `t0`"), "{e}");
        // East of tile 0 (horse): tile 1 turned once shows dog to the west, no match.
        assert!(check_place(&g, &slot, &tiles, Piece::Component(1), (0, 1, 1), None).is_err());
        // Not turned, its W is `?`: matches horse.
        assert!(check_place(&g, &slot, &tiles, Piece::Component(1), (0, 1, 0), None).is_ok());
        // The all-`?` tile fits next to symbols, not next to a blank (tile 0's south).
        assert!(check_place(&g, &slot, &tiles, Piece::Component(2), (0, -1, 0), None).is_ok());
        assert!(check_place(&g, &slot, &tiles, Piece::Component(2), (1, 0, 0), None).is_err());
        // Next to nothing, on a connected grid.
        let e = check_place(&g, &slot, &tiles, Piece::Component(1), (5, 5, 0), None).unwrap_err();
        assert!(e.contains("not next to any piece"), "{e}");
        // Occupied, and already placed.
        let e = check_place(&g, &slot, &tiles, Piece::Component(1), (0, 0, 0), None).unwrap_err();
        assert!(e.contains("is taken by t0"), "{e}");
        let e = check_place(&g, &slot, &tiles, Piece::Component(0), (0, 1, 0), None).unwrap_err();
        assert!(e.contains("already on grid"), "{e}");
        // A `?` next to a `?` does not match.
        put(&mut slot, 2, 0, -1, 0);
        let e = check_place(&g, &slot, &tiles, Piece::Component(1), (-1, -1, 3), None).unwrap_err();
        assert!(e.contains("`?`"), "{e}");
    }

    #[test]
    fn a_bounded_board_keeps_pieces_on_it_and_one_per_cell() {
        let g = board();
        let tiles = Tiles(Vec::new());
        let mut slot = GridSlot::default();
        slot.insert(Placed { row: 9, col: 1, piece: Piece::Marker(0), rot: 0 });
        assert!(check_place(&g, &slot, &tiles, Piece::Marker(1), (8, 1, 0), None).is_ok());
        let e = check_place(&g, &slot, &tiles, Piece::Marker(1), (9, 1, 0), None).unwrap_err();
        assert!(e.contains("row 9, column 1 of grid `b` is taken by m0"), "{e}");
        let e = check_place(&g, &slot, &tiles, Piece::Marker(1), (17, 1, 0), None).unwrap_err();
        assert!(e.contains("off grid `b` (rows -2..16, columns 1..3)"), "{e}");
        assert!(check_place(&g, &slot, &tiles, Piece::Marker(1), (-2, 4, 0), None).is_err());
        // A piece moving within its own cell's neighbourhood: its old cell counts as free.
        assert!(check_place(&g, &slot, &tiles, Piece::Marker(0), (9, 1, 0), Some(0)).is_ok());
        // North is the higher row on a descending board.
        assert_eq!(g.step(9, 1, 0), (10, 1));
        assert_eq!(placement().step(9, 1, 0), (8, 1));
    }

    #[test]
    fn slots_keep_pieces_in_row_order() {
        let mut slot = GridSlot::default();
        put(&mut slot, 0, 1, 0, 0);
        put(&mut slot, 1, -1, 3, 0);
        put(&mut slot, 2, 1, -2, 0);
        let order: Vec<(i64, i64)> = slot.placed.iter().map(|p| (p.row, p.col)).collect();
        assert_eq!(order, [(-1, 3), (1, -2), (1, 0)]);
        assert_eq!(slot.at(1, 0).len(), 1);
        assert!(slot.at(0, 0).is_empty());
        assert_eq!(slot.find(Piece::Component(2)), Some(1));
        assert_eq!(slot.span(), Some(((-1, 1), (-2, 3))));
    }

    #[test]
    fn entries_read_and_write() {
        let e = Entry::parse("sec-a5@-1:0:2").unwrap();
        assert_eq!(e, Entry { id: "sec-a5".into(), row: -1, col: 0, rot: 2 });
        assert_eq!(e.to_string(), "sec-a5@-1:0:2");
        assert_eq!(Entry::parse("G1@9:1").unwrap().to_string(), "G1@9:1");
        assert_eq!(Entry::parse("G1@9:1:4").unwrap().rot, 0);
        for bad in ["G1", "@1:2", "G1@1", "G1@a:b", "G1@1:2:3:4"] {
            assert!(Entry::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn unbounded_grids_stay_drawable() {
        let g = GridInfo { connected: false, rule: None, ..placement() };
        let tiles = Tiles(Vec::new());
        let mut slot = GridSlot::default();
        slot.insert(Placed { row: 0, col: 0, piece: Piece::Marker(0), rot: 0 });
        assert!(check_place(&g, &slot, &tiles, Piece::Marker(0), (0, 99, 0), None).is_ok());
        let e = check_place(&g, &slot, &tiles, Piece::Marker(0), (0, 100, 0), None).unwrap_err();
        assert!(e.contains("span more than 100"), "{e}");
    }
}
