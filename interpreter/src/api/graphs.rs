//! The declared graphs, read only: nodes and edges as maps with their properties, the edges at
//! a node, the other end of an edge, and distances.

use super::{reg, reg_files};
use crate::script::GameHandle;
use rhai::Array;

/// Registers `nodes`, `node_ids`, `node`, `edges`, `edge_ids`, `edge`, `edges_at`,
/// `edge_ids_at`, `other_end` and `distance`.
pub(super) fn register(engine: &mut crate::compiled::Registry) {
    // Graphs (static: nodes and edges as maps with their properties).
    reg_files!(
        engine,
        "nodes",
        "A graph's nodes as maps (id and properties), in declaration order.",
        &["game: Game", "graph: &str", "Array"],
        |h: &mut GameHandle, g: &str| { h.with(|r, _| Ok(r.graph(g)?.node_values())) }
    );
    reg_files!(
        engine,
        "node_ids",
        "A graph's node ids, in declaration order (cheaper than `nodes` when the ids are all a script needs).",
        &["game: Game", "graph: &str", "Array"],
        |h: &mut GameHandle, g: &str| { h.with(|r, _| Ok(r.graph(g)?.node_ids())) }
    );
    reg_files!(
        engine,
        "node",
        "One node of a graph.",
        &["game: Game", "graph: &str", "id: &str", "Map"],
        |h: &mut GameHandle, g: &str, id: &str| {
            h.with(|r, _| {
                let graph = r.graph(g)?;
                Ok(graph.node_value(graph.node(id)?))
            })
        }
    );
    reg_files!(
        engine,
        "edges",
        "A graph's edges as maps (id, from, to and properties).",
        &["game: Game", "graph: &str", "Array"],
        |h: &mut GameHandle, g: &str| { h.with(|r, _| Ok(r.graph(g)?.edge_values())) }
    );
    reg_files!(
        engine,
        "edge_ids",
        "A graph's edge ids, in declaration order (cheaper than `edges` when the ids are all a script needs).",
        &["game: Game", "graph: &str", "Array"],
        |h: &mut GameHandle, g: &str| { h.with(|r, _| Ok(r.graph(g)?.edge_ids())) }
    );
    reg_files!(
        engine,
        "edge",
        "One edge of a graph.",
        &["game: Game", "graph: &str", "id: &str", "Map"],
        |h: &mut GameHandle, g: &str, id: &str| {
            h.with(|r, _| {
                let graph = r.graph(g)?;
                Ok(graph.edge_value(graph.edge(id)?))
            })
        }
    );
    reg_files!(
        engine,
        "edges_at",
        "The edges touching a node (leaving it, for a directed graph).",
        &["game: Game", "graph: &str", "node: &str", "Array"],
        |h: &mut GameHandle, g: &str, node: &str| {
            h.with(|r, _| {
                let graph = r.graph(g)?;
                Ok(graph.incident[graph.node(node)?].iter().map(|e| graph.edge_value(*e)).collect::<Array>())
            })
        }
    );
    reg_files!(
        engine,
        "edge_ids_at",
        "The ids of the edges touching a node (leaving it, for a directed graph), in declaration order (cheaper than `edges_at` when the ids are all a script needs).",
        &["game: Game", "graph: &str", "node: &str", "Array"],
        |h: &mut GameHandle, g: &str, node: &str| {
            h.with(|r, _| {
                let graph = r.graph(g)?;
                Ok(graph.edge_ids_at(graph.node(node)?))
            })
        }
    );
    reg!(
        engine,
        "other_end",
        "The node at the other end of an edge from `node`.",
        &["game: Game", "graph: &str", "edge: &str", "node: &str", "String"],
        |h: &mut GameHandle, g: &str, edge: &str, node: &str| {
            h.with(|r, _| {
                let graph = r.graph(g)?;
                let (a, b) = graph.ends[graph.edge(edge)?];
                let n = graph.node(node)?;
                let other = if a == n {
                    b
                } else if b == n {
                    a
                } else {
                    return Err(format!("edge `{edge}` does not touch node `{node}`"));
                };
                Ok(graph.nodes[other].id.clone())
            })
        }
    );
    reg!(
        engine,
        "distance",
        "The fewest edges between two nodes, or -1 if unreachable.",
        &["game: Game", "graph: &str", "from: &str", "to: &str", "i64"],
        |h: &mut GameHandle, g: &str, from: &str, to: &str| {
            h.with(|r, _| {
                let graph = r.graph(g)?;
                Ok(graph.distance(graph.node(from)?, graph.node(to)?).map_or(-1, |d| d as i64))
            })
        }
    );
}
