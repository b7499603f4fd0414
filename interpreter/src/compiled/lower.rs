//! Lowering one script function from Rhai's AST to closures. Anything not handled here makes
//! the function Rhai's ([`Lower::function`] returns why).

use super::discard::{discard, put};
use super::lend::Lend;
use super::natives::{invoke, Native, NativeTable};
use super::ops::{self, bail};
use super::{bailed, call_index, call_lending, call_pointer, Code, FunctionIndex, Rt, Stop, R};
use crate::script::GameHandle;
use crate::state::Components;
use rhai::{
    ASTFlags, ASTNode, BinaryExpr, Dynamic, Expr, FnArgsVec, FnCallExpr, FnPtr, ImmutableString, OpAssignment, Stmt,
    Token, INT,
};
use smallvec::SmallVec;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

mod cond;
mod direct;
mod inline;

/// Why a construct is left to Rhai.
type U<T> = Result<T, String>;

/// One step of a chain after its root: `[index]`, `.property` or `.method(...)`.
#[derive(Clone)]
enum Link {
    Index,
    Prop {
        name: ImmutableString,
        /// Where a component's property of this name was found last (see
        /// [`crate::api::component::read_property`]).
        hint: Hint,
        getter: Option<Vec<Native>>,
        setter: Option<Vec<Native>>,
        indexer: Option<Vec<Native>>,
    },
    Method {
        name: ImmutableString,
        args: usize,
        natives: Option<Vec<Native>>,
    },
}

impl Link {
    /// Whether the link reads a property or an element (no method to call on the way).
    fn reads_in_place(&self) -> bool {
        matches!(self, Link::Index | Link::Prop { .. })
    }
}

/// A remembered position (of a property among a component's properties).
#[derive(Default)]
struct Hint(AtomicU32);

impl Clone for Hint {
    fn clone(&self) -> Self {
        Hint(AtomicU32::new(self.0.load(Ordering::Relaxed)))
    }
}

/// What a `for` loop runs over.
enum Items {
    /// A value: an array or a range.
    Value(Code),
    /// `a..b` or `a..=b` (`true`) written in the loop.
    Range(Code, Code, bool),
    /// `game.cards(zone[, owner])`: the components are gone through as indices, the loop's
    /// variable pointed at each in turn (see [`run_components`]).
    Listed(direct::ListingCall),
    /// A local variable the loop's body does not name: its list is gone through where it lies
    /// (see [`run_borrowed`]).
    Borrowed(usize),
}

/// Runs a `for` loop's body for each item (its variable and counter set first); a `break`
/// value is the loop's value.
fn run_loop(
    s: &mut [Dynamic],
    rt: &mut Rt,
    items: impl Iterator<Item = Dynamic>,
    counter_slot: Option<usize>,
    var_slot: usize,
    body: &Code,
) -> R<Dynamic> {
    run_each(s, rt, items, (counter_slot, var_slot), body, put)
}

/// The loop of [`run_loop`] and its kin: `set` puts each item into the loop's variable.
fn run_each<T>(
    s: &mut [Dynamic],
    rt: &mut Rt,
    items: impl Iterator<Item = T>,
    (counter_slot, var_slot): (Option<usize>, usize),
    body: &Code,
    mut set: impl FnMut(&mut Dynamic, T),
) -> R<Dynamic> {
    let mut result = Dynamic::UNIT;
    for (i, item) in items.enumerate() {
        rt.tick()?;
        if let Some(n) = counter_slot {
            put(&mut s[n], Dynamic::from_int(i as INT));
        }
        set(&mut s[var_slot], item);
        match body(s, rt) {
            Ok(v) => discard(v),
            Err(Stop::Continue) => {}
            Err(Stop::Break(v)) => {
                result = v;
                break;
            }
            Err(e) => return Err(e),
        }
    }
    put(&mut s[var_slot], Dynamic::UNIT);
    Ok(result)
}

/// [`run_loop`] over the list in `s[slot]`, a variable the body does not name (so nothing the
/// body runs can read or change it): Rhai loops over a copy; here the list is taken out of its
/// slot, each item copied into the loop's variable in turn (a component into the handle it
/// holds), and put back when the loop ends, however it ends. `None` when `s[slot]` holds no
/// list of its own (the loop then runs over a copy).
fn run_borrowed(
    s: &mut [Dynamic],
    rt: &mut Rt,
    slot: usize,
    counter_slot: Option<usize>,
    var_slot: usize,
    body: &Code,
) -> Option<R<Dynamic>> {
    if !s[slot].is_array() || s[slot].is_shared() {
        return None;
    }
    let list = std::mem::take(&mut s[slot]);
    let result = match list.as_array_ref() {
        Ok(items) => run_each(s, rt, items.iter(), (counter_slot, var_slot), body, crate::api::component::set_copy),
        Err(_) => Err(bailed()),
    };
    s[slot] = list;
    Some(result)
}

/// [`run_loop`] over components listed as indices: the loop's variable holds a handle of
/// each in turn, the one handle it holds pointed at the next component where it can be (a
/// list of handles made first would cost two allocations per component).
fn run_components(
    s: &mut [Dynamic],
    rt: &mut Rt,
    (ids, components): (&[u32], &Arc<Components>),
    counter_slot: Option<usize>,
    var_slot: usize,
    body: &Code,
) -> R<Dynamic> {
    let point = |slot: &mut Dynamic, c: &u32| crate::api::component::set_handle(slot, components, *c);
    run_each(s, rt, ids.iter(), (counter_slot, var_slot), body, point)
}

/// What a chain starts from.
enum Root {
    Slot(usize),
    Value(Code),
    /// A call of a function whose value never changes (see `constant`), followed only by
    /// properties and indexes (`effect_ops()[e.op]`): read where the kept value lies (as
    /// [`peek_chain`] reads), and only the part the chain ends at copied.
    Constant(usize),
}

/// A script function call's arguments: each evaluated, or lent from a variable of the caller
/// (moved into the call and back when it ends, see `lend`).
struct CallArgs {
    /// Per argument: its code, `None` for a lent one.
    codes: Vec<Option<Code>>,
    /// The lent arguments: (argument, the caller's slot).
    lent: Vec<(usize, usize)>,
    /// Per lent argument: whether only one of the engine's handles may be lent.
    handles_only: Vec<bool>,
}

impl CallArgs {
    /// The arguments' values, the lent ones taken once every other one is made (so that
    /// nothing runs in between); `true` when they were moved out of the caller's slots (they
    /// go back when the call ends), `false` when they were copied (see [`must_copy`]).
    fn values(&self, s: &mut [Dynamic], rt: &mut Rt) -> R<(Vec<Dynamic>, bool)> {
        let mut vals = rt.vec();
        for a in &self.codes {
            vals.push(match a {
                Some(a) => a(s, rt)?,
                None => Dynamic::UNIT,
            });
        }
        if self.lent.is_empty() {
            return Ok((vals, false));
        }
        let copied = |(&(_, slot), &handle_only): (&(usize, usize), &bool)| must_copy(&s[slot], handle_only);
        if self.lent.iter().zip(&self.handles_only).any(copied) {
            for &(k, slot) in &self.lent {
                put(&mut vals[k], s[slot].clone());
            }
            return Ok((vals, false));
        }
        for &(k, slot) in &self.lent {
            put(&mut vals[k], std::mem::take(&mut s[slot]));
        }
        Ok((vals, true))
    }
}

/// The parameters a caller may lend its variable (see `lend`), by name.
fn lent_param_names(params: &[ImmutableString], lent: &[Lend]) -> Vec<ImmutableString> {
    params.iter().zip(lent).filter(|(_, l)| **l != Lend::Nothing).map(|(p, _)| p.clone()).collect()
}

/// Whether a variable must be copied into a call rather than lent: a shared or constant value
/// is copied, as Rhai would, and so is any value but a handle where the function may change
/// its parameter (`handle_only`).
fn must_copy(v: &Dynamic, handle_only: bool) -> bool {
    v.is_shared() || v.is_read_only() || (handle_only && !is_handle(v))
}

/// Lowers one function, keeping the names in scope and their slots.
pub(super) struct Lower<'p> {
    index: &'p FunctionIndex,
    natives: &'p NativeTable,
    switch_ok: bool,
    scope: Vec<(ImmutableString, usize)>,
    /// The next free slot.
    slots: usize,
    /// Slots a call needs: the most ever in use at once (an inlined call's slots are free
    /// again once it is lowered, see `inline`).
    peak: usize,
    /// Every script function's parameters and body (to inline small ones).
    bodies: &'p [super::Body],
    /// Per script function: whether its value never changes (kept by its calls: not inlined).
    constant: &'p [bool],
    /// The function being lowered, then the functions being inlined into it, innermost last.
    inlining: Vec<usize>,
    /// The functions whose calls were inlined, once per call site.
    inlined: Vec<usize>,
    callees: Vec<usize>,
    /// Slots whose `push`es skip the size check, because the loop being lowered only ever
    /// pushes onto them and checks them once when it ends (see [`Lower::for_loop`]).
    unchecked_push: Vec<usize>,
    /// Variables whose one read in the expression being lowered is their last: the value is
    /// moved out instead of copied (see [`Lower::expr_last`]).
    last_reads: Vec<ImmutableString>,
    /// For each script function, what a caller may lend each parameter (see `lend`).
    lendable: &'p [Vec<Lend>],
    /// This function's parameters that callers may lend: never moved out of their slots.
    lent_params: Vec<ImmutableString>,
}

impl<'p> Lower<'p> {
    pub(super) fn new(
        index: &'p FunctionIndex,
        natives: &'p NativeTable,
        switch_ok: bool,
        lendable: &'p [Vec<Lend>],
        bodies: &'p [super::Body],
        constant: &'p [bool],
    ) -> Self {
        Lower {
            index,
            natives,
            switch_ok,
            scope: Vec::new(),
            slots: 0,
            peak: 0,
            bodies,
            constant,
            inlining: Vec::new(),
            inlined: Vec::new(),
            callees: Vec::new(),
            unchecked_push: Vec::new(),
            last_reads: Vec::new(),
            lendable,
            lent_params: Vec::new(),
        }
    }

    /// Slots a call of the function needs.
    pub(super) fn slots(&self) -> usize {
        self.peak.max(self.slots)
    }

    /// The script functions the body calls by name.
    pub(super) fn callees(&self) -> Vec<usize> {
        self.callees.clone()
    }

    /// The functions whose calls were inlined, once per call site.
    pub(super) fn inlined(&self) -> Vec<usize> {
        self.inlined.clone()
    }

    /// The whole function (number `idx`): its parameters are slots `0..n`; those `lent` says
    /// may hold a caller's variable, which must be there unchanged when the call ends.
    pub(super) fn function(&mut self, idx: usize, params: &[ImmutableString], lent: &[Lend], body: &[Stmt]) -> U<Code> {
        self.inlining = vec![idx];
        self.lent_params = lent_param_names(params, lent);
        self.scope = params.iter().cloned().zip(0..).collect();
        self.slots = params.len();
        self.block_ending(body, true)
    }

    fn script_fn(&self, name: &str, n: usize) -> Option<usize> {
        self.index.get(name)?.iter().find(|(a, _)| *a == n).map(|(_, i)| *i)
    }

    fn declare(&mut self, name: ImmutableString) -> usize {
        let slot = self.slots;
        self.slots += 1;
        self.peak = self.peak.max(self.slots);
        self.scope.push((name, slot));
        slot
    }

    fn variable(&self, name: &str) -> U<usize> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| n.as_str() == name)
            .map(|(_, s)| *s)
            .ok_or_else(|| format!("variable `{name}` is not a local"))
    }

    fn is_local(&self, name: &str) -> bool {
        self.scope.iter().any(|(n, _)| n.as_str() == name)
    }

    fn block(&mut self, stmts: &[Stmt]) -> U<Code> {
        self.block_ending(stmts, false)
    }

    /// A block; `returns`: its value is the function's (nothing runs after its last statement).
    fn block_ending(&mut self, stmts: &[Stmt], returns: bool) -> U<Code> {
        self.block_as(stmts, if returns { Ending::Returns } else { Ending::Plain })
    }

    /// A block whose statements are lowered as `ending` says.
    fn block_as(&mut self, stmts: &[Stmt], ending: Ending) -> U<Code> {
        let mark = self.scope.len();
        let last = stmts.len().saturating_sub(1);
        let mut codes = stmts
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let moved = moved_iterable(stmts, i);
                if let Some(v) = &moved {
                    self.last_reads.push(v.clone());
                }
                let code = match ending {
                    Ending::Returns if i == last => self.stmt_returning(s),
                    Ending::LoopVar { var, read_later } => {
                        let read_later = read_later || stmts[i + 1..].iter().any(|t| reads(t, var).0 > 0);
                        self.stmt_loop_var(s, var, read_later)
                    }
                    _ => self.stmt(s),
                };
                if moved.is_some() {
                    self.last_reads.pop();
                }
                code
            })
            .collect::<U<Vec<Code>>>()?;
        let declared: Vec<usize> = self.scope[mark..].iter().map(|(_, s)| *s).collect();
        self.scope.truncate(mark);
        Ok(match codes.len() {
            0 => Box::new(|_, _| Ok(Dynamic::UNIT)),
            1 if declared.is_empty() => {
                let c = codes.pop().expect("one");
                Box::new(move |s, rt| {
                    rt.tick()?;
                    c(s, rt)
                })
            }
            // The block's variables are let go when it ends, except at the end of a function
            // (its slots are let go with the call) or of an inlined body (they are out of
            // scope: the next run of the body declares them again before reading them).
            _ if matches!(ending, Ending::Returns) => Box::new(move |s, rt| {
                let mut last = Dynamic::UNIT;
                for c in &codes {
                    rt.tick()?;
                    put(&mut last, c(s, rt)?);
                }
                Ok(last)
            }),
            _ => Box::new(move |s, rt| {
                let mut last = Dynamic::UNIT;
                for c in &codes {
                    rt.tick()?;
                    put(&mut last, c(s, rt)?);
                }
                for &d in &declared {
                    put(&mut s[d], Dynamic::UNIT);
                }
                Ok(last)
            }),
        })
    }

    /// `if`: the condition, then one of the branches, each a block lowered as `ending` says.
    fn if_stmt(&mut self, fc: &rhai::FlowControl, ending: Ending) -> U<Code> {
        let cond = self.cond(&fc.expr)?;
        let body = self.block_as(fc.body.statements(), ending)?;
        let branch = self.block_as(fc.branch.statements(), ending)?;
        Ok(Box::new(move |s, rt| if cond(s, rt)? { body(s, rt) } else { branch(s, rt) }))
    }

    /// A statement whose value the function returns: an expression's last reads move.
    fn stmt_returning(&mut self, stmt: &Stmt) -> U<Code> {
        match stmt {
            Stmt::Expr(e) => self.expr_last(e),
            Stmt::Block(b) => self.block_ending(b.statements(), true),
            Stmt::If(fc, ..) => self.if_stmt(fc, Ending::Returns),
            other => self.stmt(other),
        }
    }

    /// A statement of a loop's body with the loop's variable `var`, read after it in this
    /// iteration if `read_later` (the next iteration gives `var` a new value): where this
    /// statement reads `var` for the last time, once and outside any inner loop, the value is
    /// moved, not copied (`for e in list { if ok(e.id) { out.push(e); } }` pushes `e` itself).
    fn stmt_loop_var(&mut self, stmt: &Stmt, var: &ImmutableString, read_later: bool) -> U<Code> {
        if read_later {
            return self.stmt(stmt);
        }
        let ending = Ending::LoopVar { var, read_later: false };
        match stmt {
            // The condition is read first; each branch is the rest of the iteration.
            Stmt::If(fc, ..) => self.if_stmt(fc, ending),
            Stmt::Block(b) => self.block_as(b.statements(), ending),
            Stmt::For(..) | Stmt::While(..) | Stmt::Do(..) | Stmt::Switch(..) => self.stmt(stmt),
            other => match reads(other, var) {
                (1, false) => {
                    let outer = std::mem::replace(&mut self.last_reads, vec![var.clone()]);
                    let code = self.stmt(other);
                    self.last_reads = outer;
                    code
                }
                _ => self.stmt(other),
            },
        }
    }

    /// An expression after which the function's locals are never read again (`return e`, or
    /// the function's last value): a variable it reads once, outside any loop, is moved out of
    /// its slot instead of copied (a function ending `out` hands its list over).
    fn expr_last(&mut self, e: &Expr) -> U<Code> {
        let mut once = read_once(e);
        once.retain(|v| !self.lent_params.contains(v));
        let outer = std::mem::replace(&mut self.last_reads, once);
        let code = self.expr(e);
        self.last_reads = outer;
        code
    }

    fn stmt(&mut self, stmt: &Stmt) -> U<Code> {
        match stmt {
            Stmt::Noop(..) => Ok(Box::new(|_, _| Ok(Dynamic::UNIT))),
            Stmt::Expr(e) => self.expr(e),
            Stmt::FnCall(f, ..) => self.call(f),
            Stmt::Block(b) => self.block(b.statements()),
            Stmt::Var(x, flags, ..) => {
                if flags.intersects(ASTFlags::CONSTANT | ASTFlags::EXPORTED) {
                    return Err("`const`".into());
                }
                let value = self.expr(&x.1)?;
                let slot = self.declare(x.0.name.clone());
                Ok(Box::new(move |s, rt| {
                    let v = value(s, rt)?;
                    put(&mut s[slot], v);
                    Ok(Dynamic::UNIT)
                }))
            }
            Stmt::Assignment(x) => self.assign(&x.0, &x.1),
            Stmt::If(fc, ..) => self.if_stmt(fc, Ending::Plain),
            Stmt::While(fc, ..) => {
                let forever = matches!(fc.expr, Expr::Unit(..) | Expr::BoolConstant(true, ..));
                let cond = if forever { None } else { Some(self.cond(&fc.expr)?) };
                let body = self.block(fc.body.statements())?;
                Ok(Box::new(move |s, rt| loop {
                    rt.tick()?;
                    if let Some(c) = &cond {
                        if !c(s, rt)? {
                            return Ok(Dynamic::UNIT);
                        }
                    }
                    match body(s, rt) {
                        Ok(v) => discard(v),
                        Err(Stop::Continue) => {}
                        Err(Stop::Break(v)) => return Ok(v),
                        Err(e) => return Err(e),
                    }
                }))
            }
            Stmt::Do(fc, flags, ..) => {
                let until = flags.contains(ASTFlags::NEGATED);
                let cond = self.cond(&fc.expr)?;
                let body = self.block(fc.body.statements())?;
                Ok(Box::new(move |s, rt| loop {
                    rt.tick()?;
                    match body(s, rt) {
                        Ok(v) => discard(v),
                        Err(Stop::Continue) => {}
                        Err(Stop::Break(v)) => return Ok(v),
                        Err(e) => return Err(e),
                    }
                    let go_on = cond(s, rt)?;
                    if go_on == until {
                        return Ok(Dynamic::UNIT);
                    }
                }))
            }
            Stmt::For(x, ..) => self.for_loop(x),
            Stmt::BreakLoop(value, flags, ..) => {
                if !flags.contains(ASTFlags::BREAK) {
                    return Ok(Box::new(|_, _| Err(Stop::Continue)));
                }
                let value = self.value_or_unit(value.as_deref())?;
                Ok(Box::new(move |s, rt| Err(Stop::Break(value(s, rt)?))))
            }
            Stmt::Return(value, flags, ..) => {
                if flags.contains(ASTFlags::BREAK) {
                    // `throw`: always an error, which is Rhai's to report.
                    return Ok(Box::new(|_, _| bail()));
                }
                let value = match value.as_deref() {
                    Some(e) => self.expr_last(e)?,
                    None => self.value_or_unit(None)?,
                };
                Ok(Box::new(move |s, rt| Err(Stop::Return(value(s, rt)?))))
            }
            Stmt::Switch(x, ..) => self.switch(&x.0, &x.1),
            _ => Err("a statement compiled code does not run (try, import, closure capture)".into()),
        }
    }

    /// The value of `break`/`return`: its expression, or `()` when it has none.
    fn value_or_unit(&mut self, e: Option<&Expr>) -> U<Code> {
        match e {
            Some(e) => self.expr(e),
            None => Ok(Box::new(|_, _| Ok(Dynamic::UNIT))),
        }
    }

    fn for_loop(&mut self, x: &(rhai::Ident, Option<rhai::Ident>, rhai::FlowControl)) -> U<Code> {
        let (var, counter, fc) = x;
        let iter = self.loop_items(&fc.expr, fc.body.statements())?;
        // Variables the body only pushes onto: Rhai checks the whole array against the size
        // limits after every push (a loop building a list checks n times over n elements).
        // Such an array only grows during the loop, so it is within the limits after every
        // push exactly when it is within them at the end: one check when the loop ends.
        let grown: Vec<usize> = only_pushed_onto(fc.body.statements())
            .iter()
            .filter(|v| **v != var.name && counter.as_ref().is_none_or(|c| c.name != **v))
            .filter_map(|v| self.lookup(v))
            .filter(|slot| !self.unchecked_push.contains(slot))
            .collect();
        let outer_unchecked = self.unchecked_push.len();
        self.unchecked_push.extend(&grown);
        let mark = self.scope.len();
        let counter_slot = counter.as_ref().map(|c| self.declare(c.name.clone()));
        let var_slot = self.declare(var.name.clone());
        // The loop's variable moves at its last read in an iteration, unless the body declares
        // a variable of the same name (a read might then be of the other one).
        let shadowed = fc.body.statements().iter().any(|t| declares(t, &var.name));
        let ending = if shadowed { Ending::Plain } else { Ending::LoopVar { var: &var.name, read_later: false } };
        let outer_reads = std::mem::take(&mut self.last_reads);
        let body = self.block_as(fc.body.statements(), ending);
        self.last_reads = outer_reads;
        self.scope.truncate(mark);
        self.unchecked_push.truncate(outer_unchecked);
        let body = body?;
        let looped = self.loop_code(iter, counter_slot, var_slot, body);
        if grown.is_empty() {
            return Ok(looped);
        }
        Ok(Box::new(move |s, rt| {
            let r = looped(s, rt);
            if matches!(r, Ok(_) | Err(Stop::Return(_))) && grown.iter().any(|g| ops::too_big(rt, &s[*g])) {
                return bail();
            }
            r
        }))
    }

    /// What a `for` loop runs over: a range written in the loop (`for p in 0..n`) is counted
    /// through without being made into a value.
    fn loop_items(&mut self, e: &Expr, body: &[Stmt]) -> U<Items> {
        if let Some(call) = self.listing_call(e)? {
            return Ok(Items::Listed(call));
        }
        if let Expr::Variable(v, ..) = e {
            // A list the loop may take (see `moved_iterable`) is taken: its items move.
            let borrowable = !self.last_reads.contains(&v.1) && !body.iter().any(|t| reads(t, &v.1).0 > 0);
            if let (true, Some(slot)) = (borrowable, self.lookup(&v.1)) {
                return Ok(Items::Borrowed(slot));
            }
        }
        if let Expr::FnCall(f, ..) = e {
            if let (Some(op @ (Token::ExclusiveRange | Token::InclusiveRange)), [a, b], false) =
                (&f.op_token, f.args.as_slice(), f.capture_parent_scope)
            {
                let inclusive = matches!(op, Token::InclusiveRange);
                return Ok(Items::Range(self.expr(a)?, self.expr(b)?, inclusive));
            }
        }
        Ok(Items::Value(self.expr(e)?))
    }

    /// The loop itself: runs `body` for each item of what `iter` gives.
    fn loop_code(&mut self, iter: Items, counter_slot: Option<usize>, var_slot: usize, body: Code) -> Code {
        Box::new(move |s, rt| {
            let obj = match &iter {
                Items::Value(c) => c(s, rt)?,
                Items::Borrowed(slot) => match run_borrowed(s, rt, *slot, counter_slot, var_slot, &body) {
                    Some(done) => return done,
                    None => s[*slot].clone(),
                },
                Items::Listed(call) => match call.list(s, rt)? {
                    direct::Listing::Value(v) => v,
                    direct::Listing::Components(ids, components) => {
                        return run_components(s, rt, (&ids, &components), counter_slot, var_slot, &body);
                    }
                },
                Items::Range(a, b, inclusive) => {
                    let a = a(s, rt)?;
                    let b = b(s, rt)?;
                    let Some((a, b)) = ops::ints(&a, &b) else {
                        return bail();
                    };
                    let ints = |n: INT| Dynamic::from_int(n);
                    return if *inclusive {
                        run_loop(s, rt, (a..=b).map(ints), counter_slot, var_slot, &body)
                    } else {
                        run_loop(s, rt, (a..b).map(ints), counter_slot, var_slot, &body)
                    };
                }
            };
            if obj.is_array() {
                let items = obj.into_array().map_err(|_| bailed())?;
                run_loop(s, rt, items.into_iter(), counter_slot, var_slot, &body)
            } else if obj.is::<std::ops::Range<INT>>() {
                let range = obj.try_cast::<std::ops::Range<INT>>().ok_or_else(|| bailed())?;
                let items = range.map(Dynamic::from_int);
                run_loop(s, rt, items, counter_slot, var_slot, &body)
            } else if obj.is::<std::ops::RangeInclusive<INT>>() {
                let range = obj.try_cast::<std::ops::RangeInclusive<INT>>().ok_or_else(|| bailed())?;
                let items = range.map(Dynamic::from_int);
                run_loop(s, rt, items, counter_slot, var_slot, &body)
            } else {
                bail()
            }
        })
    }

    /// The slot of a local variable in scope (the innermost of that name).
    fn lookup(&self, name: &str) -> Option<usize> {
        self.scope.iter().rev().find(|(n, _)| n.as_str() == name).map(|(_, s)| *s)
    }

    fn switch(&mut self, value: &Expr, cases: &rhai::SwitchCasesCollection) -> U<Code> {
        if !self.switch_ok || !cases.ranges.is_empty() {
            return Err("`switch` with ranges".into());
        }
        let value = self.expr(value)?;
        type Case = (Option<cond::Cond>, Code);
        // By the hash of the case's value (Rhai's): a short list searched in order costs less than
        // hashing that hash again for a map.
        let mut table: Vec<(u64, Vec<Case>)> = Vec::new();
        for (hash, list) in cases.cases.iter() {
            let mut arms = Vec::new();
            for &i in &list.blocks {
                let arm = &cases.expressions[i];
                let cond = match arm.lhs {
                    Expr::BoolConstant(true, ..) => None,
                    ref c => Some(self.cond(c)?),
                };
                arms.push((cond, self.expr(&arm.rhs)?));
            }
            table.push((*hash, arms));
        }
        let default = cases.def_case.map(|i| self.expr(&cases.expressions[i].rhs)).transpose()?;
        Ok(Box::new(move |s, rt| {
            let v = value(s, rt)?;
            if !(v.is_string() || v.is_int() || v.is_bool() || v.is_char()) {
                return bail();
            }
            let hash = switch_hash(&v);
            discard(v);
            if let Some((_, arms)) = table.iter().find(|(h, _)| *h == hash) {
                for (cond, arm) in arms {
                    let take = match cond {
                        None => true,
                        Some(c) => c(s, rt)?,
                    };
                    if take {
                        return arm(s, rt);
                    }
                }
            }
            match &default {
                Some(d) => d(s, rt),
                None => Ok(Dynamic::UNIT),
            }
        }))
    }

    fn assign(&mut self, op: &OpAssignment, target: &BinaryExpr) -> U<Code> {
        let op = op.get_op_assignment_info().map(|info| info.4.clone());
        let value = self.expr(&target.rhs)?;
        match &target.lhs {
            Expr::Variable(x, ..) => {
                let slot = self.variable(&x.1)?;
                Ok(match op {
                    None => Box::new(move |s, rt| {
                        let v = value(s, rt)?;
                        put(&mut s[slot], v);
                        Ok(Dynamic::UNIT)
                    }),
                    Some(op) => Box::new(move |s, rt| {
                        let v = value(s, rt)?;
                        ops::op_assign(rt, &op, &mut s[slot], v)?;
                        Ok(Dynamic::UNIT)
                    }),
                })
            }
            e @ (Expr::Index(..) | Expr::Dot(..)) => {
                let (root, links, args) = self.chain(e)?;
                let Root::Slot(slot) = root else {
                    return Err("assigning into a value that is not a variable".into());
                };
                if links.iter().any(|l| matches!(l, Link::Method { .. })) {
                    return Err("assigning through a method call".into());
                }
                Ok(Box::new(move |s, rt| {
                    let v = value(s, rt)?;
                    let mut keys: SmallVec<[Dynamic; 4]> = SmallVec::new();
                    for a in &args {
                        keys.push(a(s, rt)?);
                    }
                    // Rhai checks what the assignment changed against the size limits; the
                    // whole variable holds it, so a variable within them is too.
                    let grew = set_path(rt, &mut s[slot], &links, &mut keys.into_iter(), v, op.as_ref())?;
                    if grew && ops::too_big(rt, &s[slot]) {
                        return bail();
                    }
                    Ok(Dynamic::UNIT)
                }))
            }
            _ => Err("an assignment target compiled code does not take".into()),
        }
    }

    fn expr(&mut self, e: &Expr) -> U<Code> {
        match e {
            Expr::DynamicConstant(v, ..) => {
                let v = unshared(v);
                Ok(Box::new(move |_, _| Ok(v.clone())))
            }
            Expr::BoolConstant(b, ..) => {
                let b = *b;
                Ok(Box::new(move |_, _| Ok(Dynamic::from_bool(b))))
            }
            Expr::IntegerConstant(n, ..) => {
                let n = *n;
                Ok(Box::new(move |_, _| Ok(Dynamic::from_int(n))))
            }
            Expr::CharConstant(c, ..) => {
                let c = *c;
                Ok(Box::new(move |_, _| Ok(Dynamic::from_char(c))))
            }
            Expr::StringConstant(text, ..) => {
                let text = unshared_str(text);
                Ok(Box::new(move |_, _| Ok(Dynamic::from(text.clone()))))
            }
            Expr::Unit(..) => Ok(Box::new(|_, _| Ok(Dynamic::UNIT))),
            Expr::InterpolatedString(parts, ..) => {
                let parts = parts.iter().map(|p| self.expr(p)).collect::<U<Vec<_>>>()?;
                Ok(Box::new(move |s, rt| {
                    let mut out = String::new();
                    for p in &parts {
                        let mut v = p(s, rt)?;
                        ops::text(rt, &mut v, &mut out)?;
                        if out.len() > rt.prog.max_string {
                            return bail();
                        }
                    }
                    Ok(Dynamic::from(out))
                }))
            }
            Expr::Array(items, ..) => {
                let items = items.iter().map(|p| self.expr(p)).collect::<U<Vec<_>>>()?;
                Ok(Box::new(move |s, rt| {
                    let mut a = Vec::with_capacity(items.len());
                    for i in &items {
                        a.push(i(s, rt)?);
                    }
                    let v = Dynamic::from_array(a);
                    if ops::too_big(rt, &v) {
                        return bail();
                    }
                    Ok(v)
                }))
            }
            Expr::Map(x, ..) => {
                let template: rhai::Map = x.1.iter().map(|(k, v)| (k.clone(), unshared(v))).collect();
                let entries = x.0.iter().map(|(k, v)| Ok((k.name.clone(), self.expr(v)?))).collect::<U<Vec<_>>>()?;
                Ok(Box::new(move |s, rt| {
                    let mut m = template.clone();
                    for (k, c) in &entries {
                        let v = c(s, rt)?;
                        match m.get_mut(k.as_str()) {
                            Some(slot) => *slot = v,
                            None => return bail(),
                        }
                    }
                    let v = Dynamic::from_map(m);
                    if ops::too_big(rt, &v) {
                        return bail();
                    }
                    Ok(v)
                }))
            }
            Expr::Variable(x, ..) if !self.is_local(&x.1) && self.index.contains_key(x.1.as_str()) => {
                // A script function's name used as a value: Rhai makes it a function pointer.
                let fp = FnPtr::new(unshared_str(&x.1)).map_err(|_| "a bad function name".to_string())?;
                let v = Dynamic::from(fp);
                Ok(Box::new(move |_, _| Ok(v.clone())))
            }
            Expr::Variable(x, ..) if self.last_reads.contains(&x.1) => {
                let slot = self.variable(&x.1)?;
                Ok(Box::new(move |s, _| Ok(std::mem::take(&mut s[slot]))))
            }
            Expr::Variable(x, ..) => {
                let slot = self.variable(&x.1)?;
                Ok(Box::new(move |s, _| Ok(s[slot].clone())))
            }
            Expr::Stmt(block) => self.block(block.statements()),
            Expr::FnCall(f, ..) => self.call(f),
            Expr::Dot(x, flags, ..) if self.is_unchecked_push(x, *flags) => {
                let (Expr::Variable(v, ..), Expr::MethodCall(f, ..)) = (&x.lhs, &x.rhs) else {
                    return Err("a push compiled code does not take".into());
                };
                let slot = self.variable(&v.1)?;
                let item = self.expr(&f.args[0])?;
                Ok(Box::new(move |s, rt| {
                    let item = item(s, rt)?;
                    let target = &mut s[slot];
                    if target.is_read_only() || !target.is_array() {
                        return bail();
                    }
                    target.write_lock::<rhai::Array>().ok_or_else(|| bailed())?.push(item);
                    Ok(Dynamic::UNIT)
                }))
            }
            Expr::Dot(..) | Expr::Index(..) => {
                if let Some(code) = self.part_call(e)? {
                    return Ok(code);
                }
                let (root, mut links, mut args) = self.chain(e)?;
                if let (Root::Value(_), [Link::Method { args: n, .. }]) = (&root, &links[..]) {
                    if *n == args.len() && !matches!(&links[0], Link::Method { name, .. } if name == "call") {
                        if let (Root::Value(code), Some(Link::Method { name, natives, .. })) = (root, links.pop()) {
                            return Ok(direct::method_on_value(code, name, natives, args));
                        }
                        return Err("a method call on a value".into());
                    }
                }
                match (&root, &links[..]) {
                    (Root::Slot(slot), [Link::Method { name, args: n, natives: Some(list) }])
                        if *n == args.len() && name != "call" =>
                    {
                        return Ok(direct::method_on_variable(*slot, name.clone(), list.clone(), args));
                    }
                    (Root::Slot(slot), [Link::Method { name, args: n, natives: None }]) if *n == args.len() => {
                        return Ok(direct::standard_on_variable(*slot, name.clone(), args));
                    }
                    (Root::Slot(slot), [Link::Prop { name, hint, .. }]) if args.is_empty() => {
                        let game = self.natives.game_property(name);
                        let property = (name.clone(), hint.clone());
                        return Ok(direct::property_of_variable(*slot, property, links, game));
                    }
                    _ => {}
                }
                // Most chains have no argument (`t.card.number`) or one (`plays[i].card`):
                // those are held in place, without a vector.
                Ok(match args.len() {
                    0 => Box::new(move |s, rt| chain_value(rt, s, &root, &links, &mut [])),
                    1 => {
                        let arg = args.pop().expect("one argument");
                        Box::new(move |s, rt| {
                            let mut one = [arg(s, rt)?];
                            chain_value(rt, s, &root, &links, &mut one)
                        })
                    }
                    _ => Box::new(move |s, rt| {
                        let mut vals = rt.vec();
                        for a in &args {
                            vals.push(a(s, rt)?);
                        }
                        let r = chain_value(rt, s, &root, &links, &mut vals);
                        rt.give(vals);
                        r
                    }),
                })
            }
            Expr::And(..) | Expr::Or(..) => {
                let c = self.cond(e)?;
                Ok(Box::new(move |s, rt| Ok(Dynamic::from_bool(c(s, rt)?))))
            }
            Expr::Coalesce(list, ..) => {
                let list = list.iter().map(|p| self.expr(p)).collect::<U<Vec<_>>>()?;
                Ok(Box::new(move |s, rt| {
                    let mut v = Dynamic::UNIT;
                    for c in &list {
                        v = c(s, rt)?;
                        if !v.is_unit() {
                            break;
                        }
                    }
                    Ok(v)
                }))
            }
            _ => Err("an expression compiled code does not evaluate (`this`, `?.`, closures)".into()),
        }
    }

    /// Whether `x` is `v.push(item)` on a variable whose size check the enclosing loop makes
    /// when it ends (and `push` is Rhai's own: the game registers none).
    fn is_unchecked_push(&self, x: &BinaryExpr, flags: ASTFlags) -> bool {
        let (Expr::Variable(v, ..), Expr::MethodCall(f, ..)) = (&x.lhs, &x.rhs) else {
            return false;
        };
        !flags.contains(ASTFlags::NEGATED)
            && f.name == "push"
            && f.args.len() == 1
            && !f.capture_parent_scope
            && !self.natives.has("push", 2)
            && self.lookup(&v.1).is_some_and(|slot| self.unchecked_push.contains(&slot))
    }

    /// A chain `root.a[b].c(d)`: its root, its links and the arguments of its links in the
    /// order Rhai evaluates them (all of them, left to right, before the root).
    fn chain(&mut self, e: &Expr) -> U<(Root, Vec<Link>, Vec<Code>)> {
        let (x, flags, dot) = match e {
            Expr::Dot(x, flags, ..) => (x, *flags, true),
            Expr::Index(x, flags, ..) => (x, *flags, false),
            _ => return Err("not a chain".into()),
        };
        let mut links = Vec::new();
        let mut args = Vec::new();
        self.links(dot, flags, &x.rhs, &mut links, &mut args)?;
        let root = match &x.lhs {
            Expr::Variable(v, ..) => Root::Slot(self.variable(&v.1)?),
            Expr::FnCall(f, ..) if links.iter().all(Link::reads_in_place) && self.constant_call(f).is_some() => {
                let idx = self.constant_call(f).expect("checked");
                self.callees.push(idx);
                Root::Constant(idx)
            }
            other => Root::Value(self.expr(other)?),
        };
        Ok((root, links, args))
    }

    /// The function a call names when it is a script function without parameters whose value
    /// never changes (see `constant`).
    fn constant_call(&self, f: &FnCallExpr) -> Option<usize> {
        if !f.args.is_empty() || f.capture_parent_scope || f.op_token.is_some() {
            return None;
        }
        self.script_fn(&f.name, 0).filter(|&idx| self.constant[idx])
    }

    fn links(&mut self, dot: bool, flags: ASTFlags, rhs: &Expr, links: &mut Vec<Link>, args: &mut Vec<Code>) -> U<()> {
        if flags.contains(ASTFlags::NEGATED) {
            return Err("`?.` or `?[`".into());
        }
        match rhs {
            Expr::Dot(x, f, ..) | Expr::Index(x, f, ..) if !flags.contains(ASTFlags::BREAK) => {
                self.link(dot, &x.lhs, links, args)?;
                self.links(matches!(rhs, Expr::Dot(..)), *f, &x.rhs, links, args)
            }
            other => self.link(dot, other, links, args),
        }
    }

    fn link(&mut self, dot: bool, e: &Expr, links: &mut Vec<Link>, args: &mut Vec<Code>) -> U<()> {
        if !dot {
            args.push(self.expr(e)?);
            links.push(Link::Index);
            return Ok(());
        }
        match e {
            Expr::Property(p, ..) => {
                let ((getter, _), (setter, _), name) = &**p;
                links.push(Link::Prop {
                    name: unshared_str(name),
                    hint: Hint::default(),
                    getter: self.natives.list(getter, 1).map(<[Native]>::to_vec),
                    setter: self.natives.list(setter, 2).map(<[Native]>::to_vec),
                    indexer: self.natives.list("index$get$", 2).map(<[Native]>::to_vec),
                });
                Ok(())
            }
            Expr::MethodCall(f, ..) => {
                if f.capture_parent_scope {
                    return Err("a method call that captures the caller's scope".into());
                }
                if self.script_fn(&f.name, f.args.len()).is_some() {
                    return Err(format!("method-style call of the script function `{}`", f.name));
                }
                if !self.natives.has(&f.name, f.args.len() + 1) && !STANDARD.contains(&f.name.as_str()) {
                    return Err(format!("method `{}` is not one compiled code calls", f.name));
                }
                for a in &f.args {
                    args.push(self.expr(a)?);
                }
                let natives = self.natives.list(&f.name, f.args.len() + 1).map(<[Native]>::to_vec);
                links.push(Link::Method { name: f.name.clone(), args: f.args.len(), natives });
                Ok(())
            }
            _ => Err("a chain link compiled code does not follow".into()),
        }
    }

    fn call(&mut self, f: &FnCallExpr) -> U<Code> {
        if f.capture_parent_scope {
            return Err("a call that captures the caller's scope".into());
        }
        let name = f.name.clone();
        let n = f.args.len();
        if let Some(op) = &f.op_token {
            if !matches!(op, Token::In | Token::NotIn) {
                return self.operator(op.clone(), name, &f.args);
            }
        }
        match (name.as_str(), n) {
            ("Fn", 1) => {
                let Expr::StringConstant(target, ..) = &f.args[0] else {
                    return Err("`Fn` of a computed name".into());
                };
                let fp = FnPtr::new(unshared_str(target)).map_err(|_| "`Fn` of a bad name".to_string())?;
                let v = Dynamic::from(fp);
                return Ok(Box::new(move |_, _| Ok(v.clone())));
            }
            ("type_of", 1) => {
                let arg = self.expr(&f.args[0])?;
                // The answers for the script's own types made once and told by the value's
                // kind, not a new string per call; the engine names the others.
                let common: Vec<ImmutableString> = BUILTIN_TYPES.map(ImmutableString::from).to_vec();
                return Ok(Box::new(move |s, rt| {
                    let v = arg(s, rt)?;
                    Ok(match builtin_type(&v) {
                        Some(i) => {
                            discard(v);
                            Dynamic::from(common[i].clone())
                        }
                        None => Dynamic::from(ImmutableString::from(rt.engine.map_type_name(v.type_name()))),
                    })
                }));
            }
            ("is_def_fn", 2) => {
                let name = self.expr(&f.args[0])?;
                let n = self.expr(&f.args[1])?;
                return Ok(Box::new(move |s, rt| {
                    let name = name(s, rt)?;
                    let n = n(s, rt)?;
                    if !name.is_string() || !n.is_int() {
                        return bail();
                    }
                    let name = name.into_immutable_string().map_err(|_| bailed())?;
                    let n = n.as_int().unwrap_or(-1);
                    let defined = usize::try_from(n).is_ok_and(|n| rt.prog.find(&name, n).is_some());
                    Ok(Dynamic::from_bool(defined))
                }));
            }
            (
                "Fn" | "type_of" | "is_def_fn" | "is_def_var" | "eval" | "call" | "curry" | "is_shared" | "print"
                | "debug",
                _,
            ) => {
                return Err(format!("`{name}`"));
            }
            _ => {}
        }
        if let Some(idx) = self.script_fn(&name, n) {
            if let Some(code) = self.inline_call(idx, &f.args) {
                return Ok(code);
            }
            self.callees.push(idx);
            return self.script_call(idx, &f.args);
        }
        let args = f.args.iter().map(|a| self.expr(a)).collect::<U<Vec<_>>>()?;
        if n == 0 || (!self.natives.has(&name, n) && !STANDARD.contains(&name.as_str())) {
            return Err(format!("function `{name}` with {n} arguments is not one compiled code calls"));
        }
        // A native function called with a variable first is handed that variable, as Rhai
        // does (so a function that changes its first argument changes the variable).
        let natives = self.natives.list(&name, n).map(<[Native]>::to_vec);
        let first_slot = match &f.args[0] {
            Expr::Variable(x, ..) => Some(self.variable(&x.1)?),
            _ => None,
        };
        Ok(Box::new(move |s, rt| {
            let mut vals = rt.vec();
            for a in &args[1..] {
                vals.push(a(s, rt)?);
            }
            match first_slot {
                Some(slot) => method(rt, &name, natives.as_deref(), &mut s[slot], vals),
                None => {
                    let mut this = args[0](s, rt)?;
                    method(rt, &name, natives.as_deref(), &mut this, vals)
                }
            }
        }))
    }

    /// A call of script function `idx`. A variable passed where the function only reads its
    /// parameter (and named by no other argument) is lent: moved into the call and back.
    fn script_call(&mut self, idx: usize, arg_exprs: &[Expr]) -> U<Code> {
        let args = self.call_args(idx, arg_exprs)?;
        Ok(Box::new(move |s, rt| match args.values(s, rt)? {
            (vals, true) => call_lending(rt, idx, vals, s, &args.lent),
            (vals, false) => call_index(rt, idx, vals),
        }))
    }

    /// The arguments of a call of script function `idx`, each evaluated or lent.
    fn call_args(&mut self, idx: usize, arg_exprs: &[Expr]) -> U<CallArgs> {
        let mut codes = Vec::with_capacity(arg_exprs.len());
        let mut lent = Vec::new();
        let mut handles_only = Vec::new();
        for (k, a) in arg_exprs.iter().enumerate() {
            match self.lendable_variable(idx, k, arg_exprs) {
                Some((slot, what)) => {
                    lent.push((k, slot));
                    handles_only.push(what == Lend::Handle);
                    codes.push(None);
                }
                None => codes.push(Some(self.expr(a)?)),
            }
        }
        Ok(CallArgs { codes, lent, handles_only })
    }

    /// The slot of argument `k` of a call of `idx` if it may be lent, and what it may be lent:
    /// a local variable, not read for the last time here (it then moves), named by no other
    /// argument, passed where the function does not change its parameter.
    fn lendable_variable(&self, idx: usize, k: usize, args: &[Expr]) -> Option<(usize, Lend)> {
        let Expr::Variable(v, ..) = &args[k] else {
            return None;
        };
        let name = &v.1;
        let what = self.lendable.get(idx).and_then(|l| l.get(k)).copied().unwrap_or(Lend::Nothing);
        let named_elsewhere = args.iter().enumerate().any(|(j, a)| j != k && names(a, name));
        if what == Lend::Nothing || named_elsewhere || self.last_reads.contains(name) {
            return None;
        }
        Some((self.lookup(name)?, what))
    }

    /// `x == "text"` (or `!=`) as a value: see [`Lower::equals_text_cond`].
    fn equals_text(&mut self, op: Token, natives: Option<Vec<Native>>, x: &Expr, text: ImmutableString) -> U<Code> {
        let c = self.equals_text_cond(op, natives, x, text)?;
        Ok(Box::new(move |s, rt| Ok(Dynamic::from_bool(c(s, rt)?))))
    }

    fn operator(&mut self, op: Token, name: ImmutableString, args: &[Expr]) -> U<Code> {
        match args {
            [x] => {
                if matches!(op, Token::Bang) {
                    let x = self.cond(x)?;
                    return Ok(Box::new(move |s, rt| Ok(Dynamic::from_bool(!x(s, rt)?))));
                }
                let x = self.expr(x)?;
                match op {
                    Token::UnaryMinus | Token::Minus => Ok(Box::new(move |s, rt| match x(s, rt)?.as_int() {
                        Ok(n) => n.checked_neg().map(Dynamic::from_int).ok_or_else(|| bailed()),
                        Err(_) => bail(),
                    })),
                    _ => Err(format!("unary operator `{name}`")),
                }
            }
            [x, y] => {
                // The engine's functions of this operator (for its custom types), found once.
                let natives = self.natives.list(&name, 2).map(<[Native]>::to_vec);
                if let (Token::EqualsTo | Token::NotEqualsTo, Expr::StringConstant(text, ..)) = (&op, y) {
                    return self.equals_text(op.clone(), natives, x, unshared_str(text));
                }
                if cond::is_comparison(&op) {
                    let c = self.comparison(op, &name, x, y)?;
                    return Ok(Box::new(move |s, rt| Ok(Dynamic::from_bool(c(s, rt)?))));
                }
                // Operands read in place as for comparisons (see [`Lower::comparison`]).
                match (self.in_place(x), self.in_place(y)) {
                    (Some(a), Some(b)) => {
                        return Ok(Box::new(move |s, rt| {
                            binary_in_place(rt, &op, natives.as_deref(), a.get(s), b.get(s))
                        }));
                    }
                    (None, Some(b)) => {
                        let x = self.expr(x)?;
                        return Ok(Box::new(move |s, rt| {
                            let a = x(s, rt)?;
                            binary_in_place(rt, &op, natives.as_deref(), &a, b.get(s))
                        }));
                    }
                    _ => {}
                }
                let x = self.expr(x)?;
                let y = self.expr(y)?;
                Ok(Box::new(move |s, rt| {
                    let a = x(s, rt)?;
                    let b = y(s, rt)?;
                    ops::binary(rt, &op, natives.as_deref(), a, b)
                }))
            }
            _ => Err(format!("operator `{name}`")),
        }
    }
}

/// Whether `v` is a string equal to `text` (`None` when it is not a string).
fn same_text(v: &Dynamic, text: &ImmutableString) -> Option<bool> {
    if !v.is_string() {
        return None;
    }
    v.as_immutable_string_ref().ok().map(|a| a.as_str() == text.as_str())
}

/// Whether `e` is a variable followed by properties only (`c.kind`, `s.board.name`).
fn only_properties(e: &Expr) -> bool {
    fn props(rhs: &Expr) -> bool {
        match rhs {
            Expr::Property(..) => true,
            Expr::Dot(x, f, ..) => {
                !f.intersects(ASTFlags::NEGATED | ASTFlags::BREAK)
                    && matches!(x.lhs, Expr::Property(..))
                    && props(&x.rhs)
            }
            _ => false,
        }
    }
    match e {
        Expr::Dot(x, f, ..) => !f.contains(ASTFlags::NEGATED) && matches!(x.lhs, Expr::Variable(..)) && props(&x.rhs),
        _ => false,
    }
}

/// Hands `f` the value at the end of `links` (properties only) from `cur`, where it lies:
/// entries of maps and properties of components. `None` when a link is anything else or
/// an entry on the way is missing (the chain is then evaluated as usual, which reports it).
fn peek_props<T>(cur: &Dynamic, links: &[Link], f: impl FnOnce(&Dynamic) -> T) -> Option<T> {
    let Some((first, rest)) = links.split_first() else {
        return Some(f(cur));
    };
    let Link::Prop { name, hint, .. } = first else {
        return None;
    };
    if cur.is_map() {
        let m = cur.read_lock::<rhai::Map>()?;
        return match ops::map_get(&m, name) {
            Some(v) => peek_props(v, rest, f),
            None if rest.is_empty() => Some(f(&Dynamic::UNIT)),
            None => None,
        };
    }
    if !rest.is_empty() {
        let v = crate::api::component::read_property(cur, name, &hint.0)?;
        return peek_props(&v, rest, f);
    }
    crate::api::component::with_property(cur, name, &hint.0, f)
}

/// An operand read where it is: a local variable's slot, or an integer written in the script.
enum InPlace {
    Slot(usize),
    Int(Dynamic),
}

impl InPlace {
    fn get<'s>(&'s self, slots: &'s [Dynamic]) -> &'s Dynamic {
        match self {
            InPlace::Slot(i) => &slots[*i],
            InPlace::Int(v) => v,
        }
    }
}

impl Lower<'_> {
    /// `e` as an operand read in place, when it is a local variable or an integer constant.
    fn in_place(&self, e: &Expr) -> Option<InPlace> {
        match e {
            Expr::Variable(v, ..) => self.lookup(&v.1).map(InPlace::Slot),
            Expr::IntegerConstant(n, ..) => Some(InPlace::Int(Dynamic::from_int(*n))),
            _ => None,
        }
    }
}

/// A binary operator on operands read in place: integers and the built-in operators without
/// copying them; anything else (a string joined, the engine's own types) as [`ops::binary`],
/// on copies.
fn binary_in_place(rt: &mut Rt, op: &Token, natives: Option<&[Native]>, a: &Dynamic, b: &Dynamic) -> R<Dynamic> {
    if !a.is_variant() && !b.is_variant() && !matches!(op, Token::Plus) {
        return ops::builtin_binary(op, a, b).unwrap_or_else(bail);
    }
    ops::binary(rt, op, natives, a.clone(), b.clone())
}

/// Whether a value is one of the engine's handles, whose methods never change the handle itself
/// (see `lend`).
fn is_handle(v: &Dynamic) -> bool {
    v.is::<GameHandle>() || v.is::<crate::api::component::ComponentHandle>()
}

/// Standard-library functions that [`ops::standard`] (or [`method`]) runs itself.
pub(super) const STANDARD: &[&str] = &[
    "len",
    "is_empty",
    "push",
    "remove",
    "contains",
    "index_of",
    "to_string",
    "starts_with",
    "ends_with",
    "keys",
    "values",
    "abs",
    "max",
    "min",
    "sort",
    "call",
    "sub_string",
    "split",
    "parse_int",
    "pad",
    "mixin",
];

/// Calls a method (or a function with its first argument by reference): a function
/// pointer's `call`, the engine's functions, `sort`, then the standard functions.
fn method(
    rt: &mut Rt,
    name: &str,
    natives: Option<&[Native]>,
    this: &mut Dynamic,
    mut args: Vec<Dynamic>,
) -> R<Dynamic> {
    if name == "call" {
        let fp = this.read_lock::<FnPtr>().ok_or_else(|| bailed())?.clone();
        return call_pointer(rt, &fp, args);
    }
    if let Some(list) = natives {
        let found = {
            let mut refs: FnArgsVec<&mut Dynamic> = FnArgsVec::new();
            refs.push(&mut *this);
            refs.extend(args.iter_mut());
            NativeTable::pick_native(list, &refs).map(|f| (invoke(f.func(), &mut refs), f.returns_files_data()))
        };
        if let Some((v, from_files)) = found {
            rt.give(args);
            let v = v.ok_or_else(|| bailed())?;
            // The game files' data, counted whole, may keep such a result within the limits.
            if !(from_files && rt.prog.files_data_small) && ops::too_big(rt, &v) {
                return bail();
            }
            return Ok(v);
        }
    }
    standard_or_sort(rt, name, this, args)
}

fn standard_or_sort(rt: &mut Rt, name: &str, this: &mut Dynamic, mut args: Vec<Dynamic>) -> R<Dynamic> {
    if name == "sort" && this.is_array() && !this.is_read_only() {
        return sort(rt, this, args);
    }
    match ops::standard(rt, name, this, &mut args) {
        Some(r) => {
            rt.give(args);
            r
        }
        None => {
            if super::debugging() {
                let types: Vec<&str> = args.iter().map(|a| a.type_name()).collect();
                eprintln!("no function `{name}` for {} {types:?}", this.type_name());
            }
            bail()
        }
    }
}

/// `sort()` of integers or strings, and `sort(comparer)` as Rhai's `sort` runs its comparer
/// (an integer's sign, or `true` for "before"); a comparer that gives up gives up the sort.
fn sort(rt: &mut Rt, this: &mut Dynamic, args: Vec<Dynamic>) -> R<Dynamic> {
    let mut items: Vec<Dynamic> = this.as_array_ref().map_err(|_| bailed())?.clone();
    if items.len() > 1 {
        match args.as_slice() {
            [] => {
                if items.iter().all(Dynamic::is_int) {
                    items.sort_by_key(|v| v.as_int().unwrap_or(0));
                } else if items.iter().all(Dynamic::is_string) {
                    items.sort_by(|a, b| {
                        let a = a.as_immutable_string_ref().map(|s| s.to_string()).unwrap_or_default();
                        let b = b.as_immutable_string_ref().map(|s| s.to_string()).unwrap_or_default();
                        a.cmp(&b)
                    });
                } else {
                    return bail();
                }
            }
            [f] => {
                let fp = f.read_lock::<FnPtr>().ok_or_else(|| bailed())?.clone();
                let mut failed = false;
                let sorted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    items.sort_by(|x, y| {
                        if failed {
                            return std::cmp::Ordering::Equal;
                        }
                        let r = call_pointer(rt, &fp, vec![x.clone(), y.clone()]);
                        let n = match r {
                            Ok(v) => v.as_int().ok().or_else(|| v.as_bool().ok().map(|b| if b { -1 } else { 1 })),
                            Err(_) => None,
                        };
                        match n {
                            Some(n) => n.cmp(&0),
                            None => {
                                failed = true;
                                std::cmp::Ordering::Equal
                            }
                        }
                    });
                }));
                if sorted.is_err() || failed {
                    return bail();
                }
            }
            _ => return bail(),
        }
    }
    *this.write_lock::<rhai::Array>().ok_or_else(|| bailed())? = items;
    Ok(Dynamic::UNIT)
}

/// The value at the end of a chain, its arguments evaluated (`vals`, in the order Rhai
/// evaluates them: before the root).
fn chain_value(rt: &mut Rt, s: &mut [Dynamic], root: &Root, links: &[Link], vals: &mut [Dynamic]) -> R<Dynamic> {
    let mut at = 0;
    match root {
        Root::Slot(slot) => {
            if links.iter().all(Link::reads_in_place) {
                if let Some(v) = peek_chain(&s[*slot], links, vals) {
                    return v;
                }
            }
            walk(rt, &mut s[*slot], links, vals, &mut at)
        }
        Root::Value(c) => {
            let v = c(s, rt)?;
            walk_owned(rt, v, links, vals, &mut at)
        }
        Root::Constant(idx) => {
            let kept = super::constant_value(rt, *idx)?;
            // What cannot be read in place (a string's character, a missing entry on the
            // way) is read from a copy, as from the call's value.
            match peek_chain(kept, links, vals) {
                Some(v) => v,
                None => walk_owned(rt, kept.clone(), links, vals, &mut at),
            }
        }
    }
}

/// A chain of indexes and properties read from `cur` where the values lie (no lock taken for
/// writing, nothing on the way copied), and the value at its end copied: what [`walk`] gives
/// for such a chain. `None` when a link is not an array's element, a map's entry or a
/// component's property read as [`walk`] reads them (a shared value, a string's character, a
/// key of another type, a missing entry on the way): the caller then walks the chain. `vals`
/// are the chain's evaluated arguments, left in place.
fn peek_chain(cur: &Dynamic, links: &[Link], vals: &[Dynamic]) -> Option<R<Dynamic>> {
    let Some((first, rest)) = links.split_first() else {
        return Some(Ok(cur.clone()));
    };
    match first {
        Link::Index => {
            let (key, vals) = vals.split_first()?;
            if let Ok(a) = cur.as_array_ref() {
                return match ops::array_index(a.len(), key.as_int().ok()?) {
                    Ok(i) => peek_chain(&a[i], rest, vals),
                    Err(stop) => Some(Err(stop)),
                };
            }
            let m = cur.as_map_ref().ok()?;
            peek_entry(&m, key.as_immutable_string_ref().ok()?.as_str(), rest, vals)
        }
        Link::Prop { name, hint, .. } => {
            if let Ok(m) = cur.as_map_ref() {
                return peek_entry(&m, name, rest, vals);
            }
            if rest.is_empty() {
                return crate::api::component::read_property(cur, name, &hint.0).map(Ok);
            }
            peek_chain(&crate::api::component::read_property(cur, name, &hint.0)?, rest, vals)
        }
        Link::Method { .. } => None,
    }
}

/// A map's entry for [`peek_chain`] (`()` when the chain ends at a missing one).
fn peek_entry(m: &rhai::Map, key: &str, rest: &[Link], vals: &[Dynamic]) -> Option<R<Dynamic>> {
    match ops::map_get(m, key) {
        Some(v) => peek_chain(v, rest, vals),
        None if rest.is_empty() => Some(Ok(Dynamic::UNIT)),
        None => None,
    }
}

/// Follows a chain's links from `cur` and returns the value at its end. Elements and map
/// entries are followed in place, so a method at the end changes the variable's own value.
fn walk(rt: &mut Rt, cur: &mut Dynamic, links: &[Link], vals: &mut [Dynamic], at: &mut usize) -> R<Dynamic> {
    let Some((first, rest)) = links.split_first() else {
        return Ok(cur.clone());
    };
    match first {
        Link::Index => {
            let key = next(vals, at)?;
            if cur.is_array() {
                let i = key.as_int().map_err(|_| bailed())?;
                let mut a = cur.write_lock::<rhai::Array>().ok_or_else(|| bailed())?;
                let i = ops::array_index(a.len(), i)?;
                return walk(rt, &mut a[i], rest, vals, at);
            }
            if cur.is_map() {
                let k = key.into_immutable_string().map_err(|_| bailed())?;
                return map_entry(rt, cur, &k, rest, vals, at);
            }
            if cur.is_string() {
                let i = key.as_int().map_err(|_| bailed())?;
                let s = cur.as_immutable_string_ref().map_err(|_| bailed())?.clone();
                let len = s.chars().count();
                let i = ops::array_index(len, i)?;
                let c = Dynamic::from_char(s.chars().nth(i).ok_or_else(|| bailed())?);
                return walk_owned(rt, c, rest, vals, at);
            }
            if cur.is_variant() {
                let mut key = key;
                let f = rt.prog.natives.find("index$get$", &[cur, &mut key]).ok_or_else(|| bailed())?;
                let v = invoke(f, &mut [cur, &mut key]).ok_or_else(|| bailed())?;
                return walk_owned(rt, v, rest, vals, at);
            }
            bail()
        }
        Link::Prop { name, hint, getter, indexer, .. } => {
            if cur.is_map() {
                return map_entry(rt, cur, name, rest, vals, at);
            }
            if let Some(v) = crate::api::component::read_property(cur, name, &hint.0) {
                return walk_owned(rt, v, rest, vals, at);
            }
            if cur.is_variant() {
                let v = if let Some(f) = getter.as_deref().and_then(|l| NativeTable::pick(l, &[&mut *cur])) {
                    invoke(f, &mut [cur]).ok_or_else(|| bailed())?
                } else {
                    let mut key = Dynamic::from(name.clone());
                    let f = indexer
                        .as_deref()
                        .and_then(|l| NativeTable::pick(l, &[&mut *cur, &mut key]))
                        .ok_or_else(|| bailed())?;
                    invoke(f, &mut [cur, &mut key]).ok_or_else(|| bailed())?
                };
                return walk_owned(rt, v, rest, vals, at);
            }
            bail()
        }
        Link::Method { name, args, natives: Some(_) }
            if matches!((name.as_str(), *args), ("table", 1) | ("space", 2))
                && cur.is::<GameHandle>()
                && rest.iter().all(Link::reads_in_place)
                && !rest.is_empty() =>
        {
            // `game.table(t)` or `game.space(t, n)` and then properties and indexes: the part
            // the chain ends at is copied, not the whole table or space first.
            let part_name = next(vals, at)?.into_immutable_string().map_err(|_| bailed())?;
            let position = if name == "space" { Some(next(vals, at)?.as_int().map_err(|_| bailed())?) } else { None };
            let handle = cur.read_lock::<GameHandle>().ok_or_else(|| bailed())?;
            let part = handle.with(|r, _| {
                crate::reads::note_rules_only();
                let walk = |data: &crate::rules::ScriptTable| walk_files_data(rt, data, rest, vals, at);
                Ok(match position {
                    None => r.with_script_table(&part_name, walk),
                    Some(n) => r.track(&part_name).ok().and_then(|t| r.with_script_space(t, n, walk)),
                })
            });
            // An unknown table or track, or a position off the track (`()`, whose properties
            // Rhai refuses): Rhai reports it.
            part.ok().flatten().unwrap_or_else(bail)
        }
        Link::Method { name, args, natives: Some(_) }
            if name == "get_var"
                && matches!(*args, 1 | 2)
                && cur.is::<GameHandle>()
                && rest.iter().all(Link::reads_in_place)
                && !rest.is_empty() =>
        {
            // `game.get_var(v[, owner])` and then properties and indexes: the part the chain
            // ends at is copied from the var's script copy, not the whole var first. The var
            // counts against the size limits as the copy would (one near them is left to Rhai).
            let var = next(vals, at)?.into_immutable_string().map_err(|_| bailed())?;
            let owner = if *args == 2 { Some(next(vals, at)?.as_int().map_err(|_| bailed())?) } else { None };
            let handle = cur.read_lock::<GameHandle>().ok_or_else(|| bailed())?;
            let part = handle.with(|r, w| {
                crate::api::with_var_in_place(r, w, &var, owner, |value, sizes| {
                    if ops::near_limits(rt, sizes) {
                        bail()
                    } else {
                        walk_ref(rt, value, rest, vals, at)
                    }
                })
            });
            // An unknown var, a wrong owner: Rhai reports it.
            part.unwrap_or_else(|_| bail())
        }
        Link::Method { name, args, natives } => {
            let mut margs = rt.vec();
            for _ in 0..*args {
                margs.push(next(vals, at)?);
            }
            let v = method(rt, name, natives.as_deref(), cur, margs)?;
            walk_owned(rt, v, rest, vals, at)
        }
    }
}

/// [`walk_ref`] from a value of the game's files (a data table, a track's space), read in
/// place. Rhai checks the sizes of the copy its call would make: so is the value (once: it
/// never changes), and one near the limits is left to Rhai.
fn walk_files_data(
    rt: &mut Rt,
    data: &crate::rules::ScriptTable,
    rest: &[Link],
    vals: &mut [Dynamic],
    at: &mut usize,
) -> R<Dynamic> {
    if *data.near_limits.get_or_init(|| ops::too_big(rt, &data.value)) {
        bail()
    } else {
        walk_ref(rt, &data.value, rest, vals, at)
    }
}

/// Like [`walk`] from a value read in place (a data table): follows properties and indexes
/// only, and copies the value at the end.
fn walk_ref(rt: &mut Rt, cur: &Dynamic, links: &[Link], vals: &mut [Dynamic], at: &mut usize) -> R<Dynamic> {
    let Some((first, rest)) = links.split_first() else {
        return Ok(cur.clone());
    };
    match first {
        Link::Index if cur.is_array() => {
            let i = next(vals, at)?.as_int().map_err(|_| bailed())?;
            let a = cur.as_array_ref().map_err(|_| bailed())?;
            let i = ops::array_index(a.len(), i)?;
            walk_ref(rt, &a[i], rest, vals, at)
        }
        Link::Index if cur.is_map() => {
            let key = next(vals, at)?.into_immutable_string().map_err(|_| bailed())?;
            map_entry_ref(rt, cur, &key, rest, vals, at)
        }
        Link::Prop { name, .. } if cur.is_map() => map_entry_ref(rt, cur, name, rest, vals, at),
        _ => bail(),
    }
}

/// A map's entry (`()` if it has none), read in place: [`map_entry`] for [`walk_ref`].
fn map_entry_ref(
    rt: &mut Rt,
    cur: &Dynamic,
    key: &str,
    rest: &[Link],
    vals: &mut [Dynamic],
    at: &mut usize,
) -> R<Dynamic> {
    let m = cur.as_map_ref().map_err(|_| bailed())?;
    match m.get(key) {
        Some(v) => walk_ref(rt, v, rest, vals, at),
        None if rest.is_empty() => Ok(Dynamic::UNIT),
        None => bail(),
    }
}

/// Like [`walk`] from a value nobody else holds (what a call or a property getter gave): the
/// value at the end is moved out of it instead of copied, and so are the elements and map
/// entries on the way (`game.cards(z)[0]`, `game.table(t).spaces`).
fn walk_owned(rt: &mut Rt, mut cur: Dynamic, links: &[Link], vals: &mut [Dynamic], at: &mut usize) -> R<Dynamic> {
    let Some((first, rest)) = links.split_first() else {
        return Ok(cur);
    };
    match first {
        Link::Index if cur.is_array() && !cur.is_shared() => {
            let i = vals.get(*at).ok_or_else(|| bailed())?.as_int().map_err(|_| bailed())?;
            *at += 1;
            let mut a = cur.into_array().map_err(|_| bailed())?;
            let i = ops::array_index(a.len(), i)?;
            walk_owned(rt, std::mem::take(&mut a[i]), rest, vals, at)
        }
        Link::Prop { name, .. } if cur.is_map() && !cur.is_shared() => {
            let mut m = cur.try_cast::<rhai::Map>().ok_or_else(|| bailed())?;
            match m.remove(name.as_str()) {
                Some(v) => walk_owned(rt, v, rest, vals, at),
                None if rest.is_empty() => Ok(Dynamic::UNIT),
                None => bail(),
            }
        }
        _ => walk(rt, &mut cur, links, vals, at),
    }
}

/// The next of a chain's evaluated arguments.
#[inline]
fn next(vals: &mut [Dynamic], at: &mut usize) -> R<Dynamic> {
    let v = vals.get_mut(*at).ok_or_else(|| bailed())?;
    *at += 1;
    Ok(std::mem::take(v))
}

/// A map's entry (`()` if it has none), followed in place.
fn map_entry(
    rt: &mut Rt,
    cur: &mut Dynamic,
    key: &str,
    rest: &[Link],
    vals: &mut [Dynamic],
    at: &mut usize,
) -> R<Dynamic> {
    let mut m = cur.write_lock::<rhai::Map>().ok_or_else(|| bailed())?;
    match m.get_mut(key) {
        Some(v) => walk(rt, v, rest, vals, at),
        None => {
            if !rest.is_empty() {
                return bail();
            }
            Ok(Dynamic::UNIT)
        }
    }
}

/// Assigns (or op-assigns) at the end of a chain of indexes and properties from `cur`; `true`
/// when that may have made the variable bigger (a string, an array or a map put in, an `op=`
/// whose result is not an integer), so that the caller checks it against the size limits.
fn set_path(
    rt: &mut Rt,
    cur: &mut Dynamic,
    links: &[Link],
    keys: &mut smallvec::IntoIter<[Dynamic; 4]>,
    v: Dynamic,
    op: Option<&Token>,
) -> R<bool> {
    let sized = v.is_string() || v.is_array() || v.is_map();
    let Some((first, rest)) = links.split_first() else {
        return match op {
            None => {
                put(cur, v);
                Ok(sized)
            }
            Some(op) => {
                // An integer made from integers (`counts[i] += 1`) took no more room.
                ops::op_assign(rt, op, cur, v)?;
                Ok(!cur.is_int())
            }
        };
    };
    if cur.is_read_only() {
        return bail();
    }
    if let (Link::Prop { getter, setter, .. }, true, true) = (first, rest.is_empty(), cur.is_variant()) {
        // A property of an engine type: its setter (after its getter, for `op=`).
        let mut v = v;
        if let Some(op) = op {
            let get = getter.as_deref().and_then(|l| NativeTable::pick(l, &[&mut *cur])).ok_or_else(|| bailed())?;
            let mut now = invoke(get, &mut [&mut *cur]).ok_or_else(|| bailed())?;
            ops::op_assign(rt, op, &mut now, v)?;
            v = now;
        }
        let set = setter.as_deref().and_then(|l| NativeTable::pick(l, &[&mut *cur, &mut v])).ok_or_else(|| bailed())?;
        let _ = invoke(set, &mut [&mut *cur, &mut v]).ok_or_else(|| bailed())?;
        return Ok(sized || op.is_some());
    }
    let key: ImmutableString = match first {
        Link::Index => {
            let key = keys.next().ok_or_else(|| bailed())?;
            if cur.is_array() {
                let i = key.as_int().map_err(|_| bailed())?;
                let mut a = cur.write_lock::<rhai::Array>().ok_or_else(|| bailed())?;
                let at = ops::array_index(a.len(), i)?;
                return set_path(rt, &mut a[at], rest, keys, v, op);
            }
            key.into_immutable_string().map_err(|_| bailed())?
        }
        Link::Prop { name, .. } => name.clone(),
        Link::Method { .. } => return bail(),
    };
    if !cur.is_map() {
        return bail();
    }
    let max_map = rt.prog.max_map;
    let mut m = cur.write_lock::<rhai::Map>().ok_or_else(|| bailed())?;
    if let Some(slot) = m.get_mut(key.as_str()) {
        return set_path(rt, slot, rest, keys, v, op);
    }
    if !rest.is_empty() || op.is_some() || m.len() + 1 > max_map {
        return bail();
    }
    let nested = v.is_array() || v.is_map();
    m.insert(key.as_str().into(), v);
    drop(m);
    if nested && ops::too_big(rt, cur) {
        return bail();
    }
    Ok(sized)
}

/// How [`Lower::block_as`] lowers a block's statements.
#[derive(Clone, Copy)]
enum Ending<'a> {
    /// As they are.
    Plain,
    /// The last one's value is the function's (see [`Lower::stmt_returning`]).
    Returns,
    /// A loop's body (or part of it) with its variable (see [`Lower::stmt_loop_var`]).
    LoopVar { var: &'a ImmutableString, read_later: bool },
}

/// How many times `stmt` names the variable `var`, and whether any of them is inside a loop.
fn reads(stmt: &Stmt, var: &str) -> (usize, bool) {
    let (mut count, mut in_loop) = (0, false);
    stmt.walk(&mut Vec::new(), &mut |nodes: &[ASTNode]| {
        if let Some(ASTNode::Expr(Expr::Variable(v, ..))) = nodes.last() {
            if v.1.as_str() == var {
                count += 1;
                in_loop |= nodes[..nodes.len() - 1]
                    .iter()
                    .any(|n| matches!(n, ASTNode::Stmt(Stmt::For(..) | Stmt::While(..) | Stmt::Do(..))));
            }
        }
        true
    });
    (count, in_loop)
}

/// The list a `for` loop (statement `i` of a block) may take instead of a copy of it: a
/// variable declared by an earlier statement of the same block and read neither in the loop
/// nor after it (`let hand = game.cards(..); ..; for c in hand { .. }`). Rhai loops over a
/// copy; nothing reads the original again, so the loop may have the value itself (a list of
/// components copied is two allocations per component).
fn moved_iterable(stmts: &[Stmt], i: usize) -> Option<ImmutableString> {
    let Stmt::For(x, ..) = &stmts[i] else {
        return None;
    };
    let (var, counter, fc) = &**x;
    let Expr::Variable(v, ..) = &fc.expr else {
        return None;
    };
    let name = &v.1;
    let declared_here = stmts[..i].iter().any(|t| matches!(t, Stmt::Var(d, ..) if d.0.name == *name));
    let named_by_loop = var.name == *name || counter.as_ref().is_some_and(|c| c.name == *name);
    let read_in_loop = fc.body.statements().iter().any(|t| reads(t, name).0 > 0);
    let read_after = stmts[i + 1..].iter().any(|t| reads(t, name).0 > 0);
    (declared_here && !named_by_loop && !read_in_loop && !read_after).then(|| name.clone())
}

/// What `type_of` says of the script's own types, by [`builtin_type`].
pub(super) const BUILTIN_TYPES: [&str; 7] = ["()", "bool", "i64", "string", "array", "map", "char"];

/// Which of [`BUILTIN_TYPES`] `v` is, told by its kind; `None` for another type or a value
/// shared with a closure (the engine then names it).
#[inline]
pub(super) fn builtin_type(v: &Dynamic) -> Option<usize> {
    if v.is_shared() {
        return None;
    }
    Some(if v.is_unit() {
        0
    } else if v.is_bool() {
        1
    } else if v.is_int() {
        2
    } else if v.is_string() {
        3
    } else if v.is_array() {
        4
    } else if v.is_map() {
        5
    } else if v.is_char() {
        6
    } else {
        return None;
    })
}

/// `type_of(x)` (no script may define a function of that name), as its argument.
pub(super) fn type_of_argument(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::FnCall(f, ..) if f.name == "type_of" && f.op_token.is_none() && !f.capture_parent_scope => {
            match f.args.as_slice() {
                [x] => Some(x),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `e` reads the variable `var` anywhere.
fn names(e: &Expr, var: &str) -> bool {
    let mut found = false;
    e.walk(&mut Vec::new(), &mut |nodes: &[ASTNode]| {
        found |= matches!(nodes.last(), Some(ASTNode::Expr(Expr::Variable(v, ..))) if v.1 == var);
        !found
    });
    found
}

/// Whether `stmt` declares a variable named `var` (with `let`, or as a loop's variable).
fn declares(stmt: &Stmt, var: &str) -> bool {
    let mut found = false;
    stmt.walk(&mut Vec::new(), &mut |nodes: &[ASTNode]| {
        match nodes.last() {
            Some(ASTNode::Stmt(Stmt::Var(x, ..))) => found |= x.0.name == var,
            Some(ASTNode::Stmt(Stmt::For(x, ..))) => {
                found |= x.0.name == var || x.1.as_ref().is_some_and(|c| c.name == var);
            }
            _ => {}
        }
        !found
    });
    found
}

/// The variables `e` reads exactly once and declares nowhere, if `e` holds no loop (a read
/// inside a loop may run many times); after `e` the function ends, so that read is the last.
fn read_once(e: &Expr) -> Vec<ImmutableString> {
    let mut reads: Vec<ImmutableString> = Vec::new();
    let mut declared: Vec<ImmutableString> = Vec::new();
    let mut looped = false;
    e.walk(&mut Vec::new(), &mut |nodes: &[ASTNode]| {
        match nodes.last() {
            Some(ASTNode::Expr(Expr::Variable(v, ..))) => reads.push(v.1.clone()),
            Some(ASTNode::Stmt(Stmt::Var(x, ..))) => declared.push(x.0.name.clone()),
            Some(ASTNode::Stmt(Stmt::For(..) | Stmt::While(..) | Stmt::Do(..))) => looped = true,
            _ => {}
        }
        !looped
    });
    if looped {
        return Vec::new();
    }
    let once: Vec<ImmutableString> = reads
        .iter()
        .filter(|v| reads.iter().filter(|w| w == v).count() == 1 && !declared.contains(v))
        .cloned()
        .collect();
    once
}

/// The variables that `stmts` use only as `v.push(item)` (with `v` not in `item`), never
/// declare again, read, assign or pass anywhere: within these statements they only grow.
fn only_pushed_onto(stmts: &[Stmt]) -> Vec<ImmutableString> {
    let mut pushed: Vec<ImmutableString> = Vec::new();
    let mut other: Vec<ImmutableString> = Vec::new();
    let mut path = Vec::new();
    for stmt in stmts {
        stmt.walk(&mut path, &mut |nodes: &[ASTNode]| {
            match nodes {
                [.., ASTNode::Expr(Expr::Dot(x, flags, ..)), ASTNode::Expr(me @ Expr::Variable(v, ..))]
                    if std::ptr::eq(&x.lhs, *me)
                        && !flags.contains(ASTFlags::NEGATED)
                        && matches!(&x.rhs, Expr::MethodCall(f, ..) if f.name == "push" && f.args.len() == 1) =>
                {
                    pushed.push(v.1.clone())
                }
                [.., ASTNode::Expr(Expr::Variable(v, ..))] => other.push(v.1.clone()),
                [.., ASTNode::Stmt(Stmt::Var(x, ..))] => other.push(x.0.name.clone()),
                [.., ASTNode::Stmt(Stmt::For(x, ..))] => {
                    other.push(x.0.name.clone());
                    other.extend(x.1.as_ref().map(|c| c.name.clone()));
                }
                _ => {}
            }
            true
        });
        path.clear();
    }
    pushed.sort();
    pushed.dedup();
    pushed.retain(|v| !other.contains(v));
    pushed
}

/// A copy of a string of the AST that shares no reference count with it. The AST is shared by
/// every thread of a run, while each thread has its own compiled program (see
/// `crate::script`): constants the closures clone at run time must be the program's own, or
/// threads contend for the AST's counts.
fn unshared_str(s: &ImmutableString) -> ImmutableString {
    ImmutableString::from(s.as_str())
}

/// A constant of the AST rebuilt so that it shares no reference count with it (see
/// [`unshared_str`]): strings, arrays and maps are copied; other values hold no shared count.
fn unshared(v: &Dynamic) -> Dynamic {
    let copy = if let Ok(s) = v.as_immutable_string_ref() {
        Dynamic::from(unshared_str(&s))
    } else if let Ok(a) = v.as_array_ref() {
        Dynamic::from_array(a.iter().map(unshared).collect())
    } else if let Ok(m) = v.as_map_ref() {
        Dynamic::from_map(m.iter().map(|(k, x)| (k.clone(), unshared(x))).collect())
    } else {
        return v.clone();
    };
    if v.is_read_only() {
        copy.into_read_only()
    } else {
        copy
    }
}

/// The hash Rhai files a `switch` case under (its default hasher over the value).
fn switch_hash(v: &Dynamic) -> u64 {
    let mut h = ahash::AHasher::default();
    v.hash(&mut h);
    h.finish()
}

/// Whether [`switch_hash`] is the hash Rhai uses: checked on a small script, so that a
/// change in Rhai leaves `switch` to Rhai instead of taking wrong branches.
pub(super) fn switch_hash_matches_rhai() -> bool {
    let engine = rhai::Engine::new_raw();
    let Ok(ast) = engine.compile("fn f(x) { switch x { \"probe\" => 1, 7 => 2, _ => 0 } }") else {
        return false;
    };
    let mut hashes: Vec<u64> = Vec::new();
    ast.walk(&mut |path: &[rhai::ASTNode]| {
        if let Some(rhai::ASTNode::Stmt(Stmt::Switch(x, ..))) = path.last() {
            hashes.extend(x.1.cases.keys().copied());
        }
        true
    });
    let want = [switch_hash(&Dynamic::from("probe")), switch_hash(&Dynamic::from_int(7))];
    hashes.len() == 2 && want.iter().all(|h| hashes.contains(h))
}
