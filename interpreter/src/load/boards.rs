//! Boards: graphs (nodes and edges with properties) and grids (bounds, declared cells,
//! markers, the edge-matching rule).

use super::Loader;
use crate::def::{self, GameFile};
use crate::grid::GridInfo;
use crate::rules::{GraphInfo, GraphItem, Rules};
use crate::value::Value;

impl Loader {
    /// Checks `[graphs]`.
    pub(super) fn graphs(&mut self, r: &mut Rules, f: &GameFile) {
        for (name, g) in &f.graphs {
            if let Some(info) = self.graph(name, g) {
                r.graphs.insert(name.clone(), info);
            }
        }
    }

    /// Checks `[grids]`.
    pub(super) fn grids(&mut self, r: &mut Rules, f: &GameFile) {
        for (name, g) in &f.grids {
            let info = self.grid(name, g);
            r.index.grids.insert(name.clone(), r.grids.len());
            r.grids.push(info);
        }
    }

    /// Checks a `[graphs.NAME]` table: unique ids, edges between declared nodes.
    fn graph(&mut self, name: &str, g: &def::GraphDef) -> Option<GraphInfo> {
        let loc = self.key("graphs", name);
        let mut info = GraphInfo { name: name.to_string(), directed: g.directed, ..GraphInfo::default() };
        let mut ok = true;
        for n in &g.nodes {
            let Some(id) = n.get("id").and_then(toml::Value::as_str) else {
                self.error_at("E0316", format!("graph `{name}`: every node needs a string `id`"), loc.clone());
                ok = false;
                continue;
            };
            if info.node_index.insert(id.to_string(), info.nodes.len()).is_some() {
                self.error_at("E0316", format!("graph `{name}`: node `{id}` is declared twice"), loc.clone());
                ok = false;
            }
            let props = Value::from_toml(&toml::Value::Table(n.clone())).unwrap_or_default();
            info.nodes.push(GraphItem { id: id.to_string(), props });
        }
        info.incident = vec![Vec::new(); info.nodes.len()];
        for e in &g.edges {
            let field = |k: &str| e.get(k).and_then(toml::Value::as_str).map(str::to_string);
            let (Some(id), Some(from), Some(to)) = (field("id"), field("from"), field("to")) else {
                self.error_at(
                    "E0316",
                    format!("graph `{name}`: every edge needs string `id`, `from` and `to`"),
                    loc.clone(),
                );
                ok = false;
                continue;
            };
            let (a, b) = match (info.node(&from), info.node(&to)) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(m), _) | (_, Err(m)) => {
                    self.error_at("E0316", format!("edge `{id}`: {m}"), loc.clone());
                    ok = false;
                    continue;
                }
            };
            let index = info.edges.len();
            if info.edge_index.insert(id.clone(), index).is_some() {
                self.error_at("E0316", format!("graph `{name}`: edge `{id}` is declared twice"), loc.clone());
                ok = false;
            }
            info.incident[a].push(index);
            if !g.directed && a != b {
                info.incident[b].push(index);
            }
            info.ends.push((a, b));
            let props = Value::from_toml(&toml::Value::Table(e.clone())).unwrap_or_default();
            info.edges.push(GraphItem { id, props });
        }
        ok.then_some(info)
    }

    /// Checks a `[grids.NAME]` table: bounds, cells on the grid, markers, the edge rule.
    fn grid(&mut self, name: &str, g: &def::GridDef) -> GridInfo {
        use crate::grid::{EdgeRule, MAX_PER_CELL, MAX_SPAN};
        let loc = self.key("grids", name);
        let err = |l: &mut Loader, m: String| {
            l.error_at("E0317", format!("grid `{name}`: {m}"), loc.clone());
        };
        let bounds = |v: &Option<toml::Value>| -> Result<Option<(i64, i64)>, String> {
            match v {
                None => Ok(None),
                Some(toml::Value::Integer(n)) if (1..=MAX_SPAN).contains(n) => Ok(Some((1, *n))),
                Some(toml::Value::Array(a)) => match a.as_slice() {
                    [toml::Value::Integer(lo), toml::Value::Integer(hi)]
                        if lo <= hi
                            && hi - lo < MAX_SPAN
                            && lo.abs() <= crate::grid::MAX_COORD
                            && hi.abs() <= crate::grid::MAX_COORD =>
                    {
                        Ok(Some((*lo, *hi)))
                    }
                    _ => Err(format!("`[first, last]` must be two integers, first <= last, at most {MAX_SPAN} apart")),
                },
                Some(other) => Err(format!("must be a count from 1 to {MAX_SPAN} or `[first, last]`, not `{other}`")),
            }
        };
        let rows = bounds(&g.rows).unwrap_or_else(|m| {
            err(self, format!("`rows` {m}"));
            None
        });
        let cols = bounds(&g.cols).unwrap_or_else(|m| {
            err(self, format!("`cols` {m}"));
            None
        });
        let (rows, cols) = match (rows, cols) {
            (Some(r), Some(c)) => (Some(r), Some(c)),
            (None, None) => (None, None),
            _ => {
                if g.rows.is_some() != g.cols.is_some() {
                    err(self, "declare both `rows` and `cols` (a bounded grid), or neither (an unbounded one)".into());
                }
                (None, None)
            }
        };
        if matches!(g.visible, def::Visibility::Top | def::Visibility::Count) {
            err(self, "visibility must be public, owner or hidden".into());
        }
        let descending = match g.row_order.as_deref() {
            None | Some("ascending") => false,
            Some("descending") => true,
            Some(other) => {
                err(self, format!("`row_order` must be \"ascending\" or \"descending\", not `{other}`"));
                false
            }
        };
        let per_cell = match g.per_cell {
            None => 1,
            Some(n) if (1..=MAX_PER_CELL).contains(&n) => n as usize,
            Some(n) => {
                err(self, format!("`per_cell` must be from 1 to {MAX_PER_CELL}, not {n}"));
                1
            }
        };
        let mut info = GridInfo {
            name: name.to_string(),
            description: g.description.clone().unwrap_or_default(),
            per_player: g.per_player,
            visible: g.visible,
            rows,
            cols,
            descending,
            cell_label: g.cell_label.clone(),
            piece_label: g.piece_label.clone(),
            per_cell,
            connected: g.connected,
            ..GridInfo::default()
        };
        for cell in &g.cells {
            let at =
                (cell.get("row").and_then(toml::Value::as_integer), cell.get("col").and_then(toml::Value::as_integer));
            let (Some(row), Some(col)) = at else {
                err(self, "every entry of `cells` needs integer `row` and `col`".into());
                continue;
            };
            if !info.on_grid(row, col) {
                err(self, format!("cell row {row}, column {col} is off the grid ({})", info.bounds_text()));
                continue;
            }
            match Value::from_toml(&toml::Value::Table(cell.clone())) {
                Ok(v) => {
                    if info.cells.insert((row, col), v).is_some() {
                        err(self, format!("cell row {row}, column {col} is declared twice"));
                    }
                }
                Err(e) => err(self, format!("cell row {row}, column {col}: {e}")),
            }
        }
        for (i, m) in g.markers.iter().enumerate() {
            if m.is_empty() || g.markers[..i].contains(m) {
                err(self, format!("marker `{m}` is empty or declared twice"));
            }
        }
        info.markers = g.markers.iter().map(|m| m.as_str().into()).collect();
        if let Some(m) = &g.match_ {
            if per_cell != 1 {
                err(self, "a grid with `match` holds one piece per cell (`per_cell = 1`)".into());
            }
            let blank = m.blank.clone().unwrap_or_default();
            if m.wildcard.as_ref() == Some(&blank) {
                err(self, "the wildcard and the blank must differ".into());
            }
            info.rule = Some(EdgeRule { wildcard: m.wildcard.clone(), blank });
        }
        info
    }
}
