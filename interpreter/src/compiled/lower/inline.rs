//! Small script functions inlined where they are called: the callee's body is lowered into the
//! caller, its parameters and variables in slots of the caller's frame, so that a call such as
//! `is_none(x)` or `owner(game, card)` costs no frame of its own (no slot vector taken,
//! sized and given back, no second closure call).
//!
//! An inlined call does what a call does, in the same order: its arguments are made (and lent,
//! see `lend`) as for a call, the depth limit and the operation count are kept, the body sees
//! only its parameters, `return` ends the body and gives its value, and lent variables go back
//! to the caller when it ends. While profiling, it is counted and timed as the function's call.
//!
//! A function whose value never changes is not inlined: its calls give the value kept (see
//! `constant`).
//!
//! The slots of an inlined body are free again once it is lowered: a variable the caller
//! declares later may take them. They are only in use while the body runs, and a variable
//! declared later is not yet in scope there, so nothing the caller can still read is lost.

use super::{must_copy, CallArgs, Lower, U};
use crate::compiled::discard::put;
use crate::compiled::{bailed, ops::bail, Code, Stop};
use rhai::{ASTNode, Stmt};
use std::sync::atomic::Ordering;

/// Functions with more AST nodes than this are called, not inlined.
const MAX_NODES: usize = 40;

/// Inlined calls within inlined calls, at most (a function is never inlined into itself).
const MAX_NESTING: usize = 2;

/// The number of AST nodes in a function body.
fn nodes(body: &[Stmt]) -> usize {
    let mut n = 0;
    let mut path = Vec::new();
    for stmt in body {
        stmt.walk(&mut path, &mut |_: &[ASTNode]| {
            n += 1;
            n <= MAX_NODES
        });
        path.clear();
    }
    n
}

impl Lower<'_> {
    /// The call of script function `idx` with these arguments, inlined; `None` when the
    /// function is not small, calls itself, is already being inlined here, keeps its value
    /// (see `constant`), or has a body this module does not lower (the call is then made as
    /// usual).
    pub(super) fn inline_call(&mut self, idx: usize, arg_exprs: &[rhai::Expr]) -> Option<Code> {
        let (_, params, Some(body)) = &self.bodies[idx] else {
            return None;
        };
        if self.constant[idx]
            || self.inlining.contains(&idx)
            || self.inlining.len() > MAX_NESTING
            || nodes(body) > MAX_NODES
        {
            return None;
        }
        let callees = self.callees.len();
        let peak = self.peak;
        match self.inline_body(idx, params, body, arg_exprs) {
            Ok(code) => {
                self.inlined.push(idx);
                Some(code)
            }
            Err(_) => {
                self.callees.truncate(callees);
                self.peak = peak;
                None
            }
        }
    }

    fn inline_body(
        &mut self,
        idx: usize,
        params: &[rhai::ImmutableString],
        body: &[Stmt],
        arg_exprs: &[rhai::Expr],
    ) -> U<Code> {
        // The parameters' slots first, so that calls inlined into the arguments take others
        // and each argument goes straight to its parameter.
        let base = self.slots;
        let param_slots: Vec<usize> = (base..base + params.len()).collect();
        self.slots += params.len();
        self.peak = self.peak.max(self.slots);
        // The arguments in the caller's scope, then the body in a scope of its own: only its
        // parameters, none of the caller's variables.
        let CallArgs { codes, lent, handles_only } = self.call_args(idx, arg_exprs)?;
        let lent_params = super::lent_param_names(params, self.lendable.get(idx).map_or(&[], Vec::as_slice));
        let scope = std::mem::replace(&mut self.scope, params.iter().cloned().zip(param_slots.clone()).collect());
        let last_reads = std::mem::take(&mut self.last_reads);
        let unchecked_push = std::mem::take(&mut self.unchecked_push);
        let outer_lent = std::mem::replace(&mut self.lent_params, lent_params);
        self.inlining.push(idx);
        let code = self.block_ending(body, true);
        self.inlining.pop();
        self.scope = scope;
        self.last_reads = last_reads;
        self.unchecked_push = unchecked_push;
        self.lent_params = outer_lent;
        self.slots = base;
        let body = code?;
        let evaluated: Vec<(Code, usize)> =
            codes.into_iter().zip(&param_slots).filter_map(|(c, &slot)| c.map(|c| (c, slot))).collect();
        let lent: Vec<(usize, usize)> = lent.into_iter().map(|(k, from)| (from, param_slots[k])).collect();
        Ok(Box::new(move |s, rt| {
            for (code, slot) in &evaluated {
                let v = code(s, rt)?;
                put(&mut s[*slot], v);
            }
            // Lent variables are taken once every other argument is made (nothing runs in
            // between), or copied where [`CallArgs::values`] copies them.
            let copied =
                lent.iter().zip(&handles_only).any(|(&(from, _), &handle_only)| must_copy(&s[from], handle_only));
            for &(from, to) in &lent {
                let v = if copied { s[from].clone() } else { std::mem::take(&mut s[from]) };
                put(&mut s[to], v);
            }
            if rt.depth + 1 >= rt.prog.max_depth {
                return bail();
            }
            rt.tick()?;
            let started = (rt.profiling && rt.depth > 0).then(std::time::Instant::now);
            rt.depth += 1;
            let r = body(s, rt);
            rt.depth -= 1;
            if !copied {
                for &(from, to) in &lent {
                    let v = std::mem::take(&mut s[to]);
                    put(&mut s[from], v);
                }
            }
            if let Some(t) = started {
                let f = &rt.prog.funcs[idx];
                f.nested.0.fetch_add(1, Ordering::Relaxed);
                f.nested.1.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
            }
            match r {
                Ok(v) | Err(Stop::Return(v)) => Ok(v),
                Err(Stop::Bail) => Err(Stop::Bail),
                Err(_) => Err(bailed()),
            }
        }))
    }
}
