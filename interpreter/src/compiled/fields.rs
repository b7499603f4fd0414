//! Which fields of a map parameter a script function reads, so that the engine may build only
//! those fields of a map it makes for a call (a trick hook's `trick`, say, without its `plays`
//! when the hook never reads them).
//!
//! A parameter read only through properties (`trick.card`, `trick.card.number`,
//! `trick.plays.len()`, `trick.winner = 2`) shows the function nothing else of the map: a field
//! it does not name is never seen. Any other use (the map passed on, returned, iterated,
//! printed, indexed, a method called on it, a closure capturing it, its name declared again)
//! may see every field: the whole map is needed.

use rhai::{ASTNode, Expr, ImmutableString, Stmt};
use std::collections::BTreeSet;

/// The fields of parameter `param` that `body` reads, when it reads that parameter only through
/// properties; `None` when it may see the whole value (see the module documentation).
pub(crate) fn fields_read(params: &[ImmutableString], body: &[Stmt], param: usize) -> Option<BTreeSet<String>> {
    let name = params.get(param)?;
    let mut fields = BTreeSet::new();
    let mut whole = false;
    let mut path = Vec::new();
    for stmt in body {
        stmt.walk(&mut path, &mut |nodes: &[ASTNode]| {
            match nodes {
                [.., parent, ASTNode::Expr(var @ Expr::Variable(v, ..))] if v.1 == *name => {
                    match property_of(parent, var) {
                        Some(field) => {
                            fields.insert(field.to_string());
                        }
                        None => whole = true,
                    }
                }
                [ASTNode::Expr(Expr::Variable(v, ..))] if v.1 == *name => whole = true,
                [.., ASTNode::Stmt(Stmt::Var(x, ..))] if x.0.name == *name => whole = true,
                [.., ASTNode::Stmt(Stmt::For(x, ..))]
                    if x.0.name == *name || x.1.as_ref().is_some_and(|c| c.name == *name) =>
                {
                    whole = true
                }
                [.., ASTNode::Stmt(Stmt::Share(x))] if x.iter().any(|(v, ..)| v.name == *name) => whole = true,
                _ => {}
            }
            !whole
        });
        path.clear();
        if whole {
            return None;
        }
    }
    Some(fields)
}

/// The property `parent` reads of the variable `var` it holds (`var.p`, `var.p.q`, `var.p[i]`,
/// `var.p.f()`), if that is what it does with it.
fn property_of<'a>(parent: &'a ASTNode, var: &Expr) -> Option<&'a str> {
    let ASTNode::Expr(Expr::Dot(x, ..)) = parent else { return None };
    if !std::ptr::eq(&x.lhs, var) {
        return None;
    }
    let first = match &x.rhs {
        Expr::Dot(y, ..) | Expr::Index(y, ..) => &y.lhs,
        other => other,
    };
    match first {
        Expr::Property(p, ..) => Some(p.2.as_str()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields `f` in `script` reads of each of its parameters.
    fn read(script: &str) -> Vec<Option<Vec<String>>> {
        let (params, body) = super::super::test_function(script, "f");
        (0..params.len()).map(|k| fields_read(&params, &body, k).map(|s| s.into_iter().collect())).collect()
    }

    fn names(list: &[&str]) -> Option<Vec<String>> {
        Some(list.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn properties_read_through_chains_are_the_fields_read() {
        let script = "fn g(x) { x }
            fn f(t, u, v) {
                if t.card.number < 3 { g(t.winner); }
                let n = t.plays.len() + t.plays[0].x + u.a;
                t.seen = n;
                n
            }";
        assert_eq!(read(script), [names(&["card", "plays", "seen", "winner"]), names(&["a"]), names(&[])]);
    }

    #[test]
    fn any_other_use_needs_the_whole_value() {
        let cases = [
            "fn f(t) { g(t.a, t) } fn g(a, b) { b }",
            "fn f(t) { t }",
            "fn f(t) { for x in t { print(x); } }",
            "fn f(t) { `${t}` }",
            "fn f(t) { t.len() }",
            "fn f(t) { t[\"a\"] }",
            "fn f(t) { let t = 1; t }",
            "fn f(t) { for t in [1] { print(t); } }",
            "fn f(t) { let c = || t.a; c.call() }",
            "fn f(t) { let u = t; u.a }",
        ];
        for script in cases {
            assert_eq!(read(script), [None], "{script}");
        }
    }
}
