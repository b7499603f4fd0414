//! Which parameters of a script function only read their argument, so that a caller may lend
//! it its variable instead of copying it.
//!
//! Rhai passes arguments by value: `space_ok(game, s)` copies the map `s` (and the handle
//! `game`) into the call. A parameter the function never changes, never hands on by moving it
//! and never declares again reads the same value whether it holds a copy or the caller's own:
//! the caller moves its variable into the call and takes it back when the call returns (see
//! `Lower::script_call`), which costs no copy. A call that does not return normally gives the
//! whole compiled run up (Rhai runs the transaction again), so a variable lent to it is never
//! read again.
//!
//! A parameter that is a method's receiver (`game.move(c, "hand")`) may be changed by the
//! method, unless the value is one of the engine's handles (the game, a component): their
//! methods act on the state behind the handle, never on the handle itself. Such a parameter is
//! lent only a handle.

use rhai::{ASTNode, Expr, ImmutableString, Stmt};

/// Methods that never change the value they are called on: a parameter may be their receiver
/// (or a function's first argument, which Rhai hands over by reference) and still be lent.
const READING_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "contains",
    "index_of",
    "keys",
    "values",
    "starts_with",
    "ends_with",
    "sub_string",
    "split",
    "parse_int",
    "to_string",
];

/// What a caller may lend a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lend {
    /// Nothing: the function changes the parameter, moves it away or declares its name again.
    Nothing,
    /// Only one of the engine's handles (methods that may change a value are called on it).
    Handle,
    /// Any value: the function only reads it.
    Any,
}

/// For each parameter of a function with this body: what a caller may lend it (see the module
/// documentation). `is_script_fn(name, n)` says whether a call is to a script function, which
/// takes its arguments by value.
pub(super) fn lendable_params(
    params: &[ImmutableString],
    body: &[Stmt],
    is_script_fn: &dyn Fn(&str, usize) -> bool,
) -> Vec<Lend> {
    let mut lend = vec![Lend::Any; params.len()];
    let mut path = Vec::new();
    for stmt in body {
        stmt.walk(&mut path, &mut |nodes: &[ASTNode]| {
            match nodes {
                [.., parent, ASTNode::Expr(var @ Expr::Variable(v, ..))] => {
                    if let Some(k) = params.iter().position(|p| *p == v.1) {
                        if lend[k] == Lend::Any && !only_reads(parent, var, is_script_fn) {
                            lend[k] = Lend::Handle;
                        }
                    }
                }
                [.., ASTNode::Stmt(Stmt::Assignment(x))] => lend_nothing(&mut lend, params, root_name(&x.1.lhs)),
                [.., ASTNode::Stmt(Stmt::Var(x, ..))] => lend_nothing(&mut lend, params, Some(&x.0.name)),
                [.., ASTNode::Stmt(Stmt::For(x, ..))] => {
                    lend_nothing(&mut lend, params, Some(&x.0.name));
                    lend_nothing(&mut lend, params, x.1.as_ref().map(|c| c.name.as_str()));
                }
                [.., ASTNode::Stmt(Stmt::Share(x))] => {
                    for (v, ..) in x.iter() {
                        lend_nothing(&mut lend, params, Some(&v.name));
                    }
                }
                _ => {}
            }
            true
        });
        path.clear();
    }
    lend
}

/// Marks the parameter named `name`, if it is one, as lent nothing.
fn lend_nothing(lend: &mut [Lend], params: &[ImmutableString], name: Option<&str>) {
    if let Some(k) = name.and_then(|n| params.iter().position(|p| p.as_str() == n)) {
        lend[k] = Lend::Nothing;
    }
}

/// Whether `parent` only reads the variable `var` it holds: anything but a chain with a
/// method that may change it, or a call handing it by reference to such a function.
fn only_reads(parent: &ASTNode, var: &Expr, is_script_fn: &dyn Fn(&str, usize) -> bool) -> bool {
    match parent {
        ASTNode::Expr(Expr::Dot(x, ..) | Expr::Index(x, ..)) if std::ptr::eq(&x.lhs, var) => {
            let mut reading = true;
            x.rhs.walk(&mut Vec::new(), &mut |nodes: &[ASTNode]| {
                if let Some(ASTNode::Expr(Expr::MethodCall(f, ..))) = nodes.last() {
                    reading &= READING_METHODS.contains(&f.name.as_str());
                }
                reading
            });
            reading
        }
        ASTNode::Expr(Expr::FnCall(f, ..)) | ASTNode::Stmt(Stmt::FnCall(f, ..))
            if f.args.first().is_some_and(|a| std::ptr::eq(a, var)) =>
        {
            let operator = f.op_token.as_ref().is_some_and(|op| !matches!(op, rhai::Token::In | rhai::Token::NotIn));
            operator || is_script_fn(&f.name, f.args.len()) || READING_METHODS.contains(&f.name.as_str())
        }
        _ => true,
    }
}

/// The variable at the root of an assignment's target (`x`, `x.a`, `x[i].b`).
fn root_name(e: &Expr) -> Option<&str> {
    match e {
        Expr::Variable(v, ..) => Some(v.1.as_str()),
        Expr::Dot(x, ..) | Expr::Index(x, ..) => root_name(&x.lhs),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::Lend::{Any, Handle, Nothing};
    use super::*;

    /// What a caller may lend each parameter of `f` in `script`.
    fn lendable(script: &str) -> Vec<Lend> {
        let (params, body) = super::super::test_function(script, "f");
        lendable_params(&params, &body, &|name, n| name == "g" && n == 1)
    }

    #[test]
    fn reads_of_every_kind_leave_a_parameter_lendable() {
        let script = "fn g(x) { x }
            fn f(m, a, s) {
                let n = m.x + a[0] + a.len() + s.len();
                if m.contains(\"y\") && \"b\" in m && s.starts_with(\"a\") { n += 1; }
                for e in a { n += e; }
                let t = `${m.x} ${s}`;
                g(m) + g(a) + len(a) + n
            }";
        assert_eq!(lendable(script), [Any, Any, Any]);
    }

    #[test]
    fn a_change_by_assignment_is_not_lent_and_by_a_method_only_to_handles() {
        assert_eq!(lendable("fn f(a, b, c, d) { a = 1; b.x = 2; c[0] += 3; d }"), [Nothing, Nothing, Nothing, Any]);
        assert_eq!(lendable("fn f(a, b, c) { a.push(1); b.x.remove(0); push(c, 1); }"), [Handle, Handle, Handle]);
        assert_eq!(lendable("fn f(a, b, c) { a.sort(); b.x.y.len(); c.push(1); c = 2; }"), [Handle, Any, Nothing]);
        // A method at the end of a chain of indexes and properties changes the part it ends at.
        assert_eq!(lendable("fn f(a, b, c) { a[0].push(1); b.x[1].y.remove(0); c[0].x.len() }"), [Handle, Handle, Any]);
    }

    #[test]
    fn a_name_declared_again_is_not_lent() {
        assert_eq!(
            lendable("fn f(a, b, c) { let a = 1; for b in [1] { print(b); } for (x, c) in [2] { print(c); } }"),
            [Nothing, Nothing, Nothing]
        );
    }
}
