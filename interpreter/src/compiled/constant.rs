//! Script functions whose value never changes: a function without parameters that reads
//! nothing but what it builds itself (literals, function pointers, `is_def_fn`, standard
//! operations on its own values, and other such functions) gives the same value at every call.
//! Its first value is kept and later calls give a copy of it, instead of building it again
//! (a map of function pointers or of data that scripts build at each call can hold dozens of
//! entries).
//!
//! The test is on the function's text, so it is conservative: a call to anything else (an
//! engine function, a function with arguments, a function pointer's `call`, `print`) makes the
//! function an ordinary one. A call that fails is not kept (the next one fails the same way).

use super::natives::NativeTable;
use super::{Body, FunctionIndex};
use rhai::{ASTNode, Expr, FnCallExpr, Stmt};

/// Whether a standard function or method only computes from its arguments (or changes the
/// value it is called on, which in such a function is one of its own): every one compiled code
/// runs itself but `sort` and `call` (which run script functions), and `is_def_fn` and
/// `type_of`.
fn pure_standard(name: &str) -> bool {
    (super::lower::STANDARD.contains(&name) && !matches!(name, "sort" | "call"))
        || matches!(name, "is_def_fn" | "type_of")
}

/// For each function: whether its value never changes (see the module documentation).
pub(super) fn constant_functions(defs: &[Body], index: &FunctionIndex, natives: &NativeTable) -> Vec<bool> {
    let script_fn = |name: &str, n: usize| index.get(name)?.iter().find(|(a, _)| *a == n).map(|(_, i)| *i);
    // Optimistic start (every function without parameters), then functions calling one that
    // is not constant drop out until nothing changes.
    let mut constant: Vec<bool> = defs.iter().map(|(_, params, body)| params.is_empty() && body.is_some()).collect();
    loop {
        let mut changed = false;
        for (i, (_, _, body)) in defs.iter().enumerate() {
            if !constant[i] {
                continue;
            }
            let body = body.as_deref().unwrap_or_default();
            let reads_only_its_own = |f: &FnCallExpr, method: bool| -> bool {
                let n = f.args.len() + usize::from(method);
                if f.op_token.is_some() && !method {
                    return true;
                }
                if !method {
                    if let Some(callee) = script_fn(&f.name, n) {
                        return n == 0 && constant[callee];
                    }
                    if f.name == "Fn" {
                        return matches!(f.args.as_slice(), [Expr::StringConstant(..)]);
                    }
                }
                pure_standard(&f.name) && !natives.has(&f.name, n) && !f.capture_parent_scope
            };
            if !body.iter().all(|s| every_call(s, &reads_only_its_own)) {
                constant[i] = false;
                changed = true;
            }
        }
        if !changed {
            return constant;
        }
    }
}

/// Whether `ok` holds for every function call (`false`) and method call (`true`) in `stmt`.
fn every_call(stmt: &Stmt, ok: &dyn Fn(&FnCallExpr, bool) -> bool) -> bool {
    let mut all = true;
    stmt.walk(&mut Vec::new(), &mut |nodes: &[ASTNode]| {
        all &= match nodes.last() {
            Some(ASTNode::Expr(Expr::FnCall(f, ..))) | Some(ASTNode::Stmt(Stmt::FnCall(f, ..))) => ok(f, false),
            Some(ASTNode::Expr(Expr::MethodCall(f, ..))) => ok(f, true),
            Some(ASTNode::Expr(Expr::ThisPtr(..))) => false,
            _ => true,
        };
        all
    });
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constants(script: &str) -> Vec<(String, bool)> {
        let ast = rhai::Engine::new().compile(script).expect("compiles");
        let defs = super::super::bodies(&ast);
        let mut index: FunctionIndex = FunctionIndex::default();
        for (i, (name, params, _)) in defs.iter().enumerate() {
            index.entry(name.to_string()).or_default().push((params.len(), i));
        }
        let mut natives = NativeTable::default();
        natives.record("engine_fn", || 1 as rhai::INT);
        let flags = constant_functions(&defs, &index, &natives);
        defs.iter().zip(flags).map(|(d, c)| (d.0.to_string(), c)).collect()
    }

    #[test]
    fn only_functions_that_read_nothing_but_their_own_values_are_constant() {
        let found = constants(
            r#"
            fn table() { #{ a: 1, f: Fn("g"), list: [1, "x", ()], n: -2 + 3 } }
            fn merged() { let m = table(); m.mixin(#{ b: 2 }); if is_def_fn("g", 1) { m.c = 3; } m }
            fn g(x) { x }
            fn uses_arg_fn() { g(1) }
            fn engine() { engine_fn() }
            fn prints() { print("x"); 1 }
            fn calls_pointer() { let f = Fn("table"); f.call() }
            fn loops() { let a = []; for i in 0..3 { a.push(i * 2); } a }
            fn via_bad() { engine() }
            "#,
        );
        let expected = [
            ("table", true),
            ("merged", true),
            ("g", false),
            ("uses_arg_fn", false),
            ("engine", false),
            ("prints", false),
            ("calls_pointer", false),
            ("loops", true),
            ("via_bad", false),
        ];
        for (name, want) in expected {
            let got = found.iter().find(|(n, _)| n == name).map(|(_, c)| *c);
            assert_eq!(got, Some(want), "{name}");
        }
    }
}
