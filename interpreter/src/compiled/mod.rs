//! Compiled scripts: the game's Rhai functions turned into Rust closures once, when the game
//! is loaded, so that a call runs without Rhai's per-node interpretation (variables live in
//! numbered slots, script and engine functions are found once, operators on plain values run
//! inline).
//!
//! Rhai stays the reference. A function is compiled only if every construct in it is one this
//! module implements exactly as Rhai does; the rest are left to Rhai. At run time, whatever a
//! compiled call meets that it does not handle exactly (an error, a limit, a value of a type
//! it does not know) makes it give up (`Stop::Bail`): the caller then runs the whole
//! transaction again with Rhai alone (see `script::Transaction`), so games, errors and their
//! messages are Rhai's in every case.

mod constant;
mod discard;
mod fields;
mod lend;
mod lower;
mod natives;
mod ops;

pub(crate) use discard::put;
pub use natives::{ComponentList, NativeTable, PartValue, Registry};
/// For tests that count script values as the size checks do.
#[cfg(test)]
pub(crate) use ops::script_sizes;

use rhai::{ASTNode, Dynamic, Engine, ImmutableString, Position, Stmt, AST};
use smallvec::SmallVec;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// Why a compiled run stopped short of its end.
pub(crate) enum Stop {
    /// Not something compiled code does exactly: Rhai must run it.
    Bail,
    /// `break` (with its value).
    Break(Dynamic),
    /// `continue`.
    Continue,
    /// `return` (with its value).
    Return(Dynamic),
}

thread_local! {
    /// Where the last give-up on this thread happened (for `RULEBOOK_SCRIPTS_DEBUG`).
    static LAST_BAIL: std::cell::Cell<Option<&'static std::panic::Location<'static>>> = const { std::cell::Cell::new(None) };
}

/// A give-up, remembering where in this module it happened.
#[track_caller]
pub(crate) fn bailed() -> Stop {
    let at = std::panic::Location::caller();
    LAST_BAIL.with(|l| l.set(Some(at)));
    Stop::Bail
}

/// A compiled run's result.
pub(crate) type R<T> = Result<T, Stop>;

/// A compiled statement or expression: reads and writes the call's slots, yields its value.
pub(crate) type Code = Box<dyn Fn(&mut [Dynamic], &mut Rt) -> R<Dynamic> + Send + Sync>;

/// One script function.
struct Func {
    name: String,
    slots: usize,
    /// `None` when some construct in it is left to Rhai.
    body: Option<Code>,
    /// What kept it from being compiled.
    why: Option<String>,
    /// The script functions it calls by name.
    callees: Vec<usize>,
    /// The script functions whose calls are inlined into it, once per call site.
    inlined: Vec<usize>,
    /// For a function whose value never changes (see `constant`): its value once made.
    constant: Option<std::sync::OnceLock<Dynamic>>,
    /// The positions of the parameters it only reads (see `lend`): a caller may lend it
    /// those arguments and take them back when it returns.
    read_only: Vec<usize>,
    /// Runs that gave up: past [`MAX_BAILS`] the function is left to Rhai (it keeps meeting
    /// something compiled code does not do, and every give-up costs a second run).
    bails: AtomicU32,
    /// Compiled runs started here (for `RULEBOOK_SCRIPTS_DEBUG`).
    runs: AtomicU32,
    /// Calls from other script functions while profiling, and their time in nanoseconds
    /// (callees included).
    nested: (AtomicU64, AtomicU64),
}

/// Give-ups after which a function is no longer run compiled.
const MAX_BAILS: u32 = 16;

/// Script functions by name, then by number of parameters: `(parameters, function)`. Looked
/// up at every call the engine makes and every function pointer called, so hashed with the
/// engine's quick hasher for names.
pub(crate) type FunctionIndex = HashMap<String, Vec<(usize, usize)>, crate::value::NameHasher>;

/// The game's script functions, compiled where they can be.
pub struct Program {
    funcs: Vec<Func>,
    /// Function by name, then by number of parameters.
    index: FunctionIndex,
    natives: Arc<NativeTable>,
    max_string: usize,
    max_array: usize,
    max_map: usize,
    max_depth: usize,
    /// Whether all the data of the game's files (graphs, tables), counted twice over, is
    /// within the size limits: a function recorded as returning only that data then needs no
    /// check of its results (see [`NativeTable::record_from_files`]).
    files_data_small: bool,
}

/// The state of one compiled call: the program, operations counted, call depth.
pub(crate) struct Rt<'a> {
    prog: &'a Program,
    engine: &'a Engine,
    ops: u64,
    depth: usize,
    /// Emptied vectors for slots and arguments, reused instead of allocated per call.
    spare: Vec<Vec<Dynamic>>,
    /// Whether calls between script functions are timed (`simulate --profile`).
    profiling: bool,
}

thread_local! {
    /// The spare vectors of this thread's last compiled run, for the next one.
    static SPARE: std::cell::RefCell<Vec<Vec<Dynamic>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// An empty vector for a call's arguments, from this thread's spare ones (see [`Rt::vec`]):
/// compiled runs give their slot vectors back there, so a call the engine makes allocates
/// none.
pub(crate) fn spare_vec() -> Vec<Dynamic> {
    SPARE.with(|s| s.borrow_mut().pop()).unwrap_or_else(|| Vec::with_capacity(16))
}

impl Rt<'_> {
    /// An empty vector (a reused one when there is one; else one with room for the slots of
    /// most functions, so that a call does not grow it at once).
    #[inline]
    pub(crate) fn vec(&mut self) -> Vec<Dynamic> {
        self.spare.pop().unwrap_or_else(|| Vec::with_capacity(16))
    }

    /// Gives a vector back for reuse (its values are dropped).
    #[inline]
    pub(crate) fn give(&mut self, mut v: Vec<Dynamic>) {
        discard::clear(&mut v);
        if self.spare.len() < 64 {
            self.spare.push(v);
        }
    }

    /// Counts an operation; every 256, asks the sandbox whether the call may go on.
    #[inline]
    pub(crate) fn tick(&mut self) -> R<()> {
        self.ops += 1;
        if self.ops & 0xFF == 0 && crate::script::progress_check(self.ops).is_some() {
            return Err(bailed());
        }
        Ok(())
    }
}

/// The limits compiled calls keep (the sandbox's, as Rhai is given them).
pub struct Limits {
    /// Characters in a string.
    pub max_string: usize,
    /// Elements in an array.
    pub max_array: usize,
    /// Entries in a map.
    pub max_map: usize,
    /// Nested calls.
    pub max_depth: usize,
    /// What all the data of the game's files (graphs, tables) would count against the limits
    /// as script values: array elements, map entries, bytes of strings.
    pub files_data: [usize; 3],
}

impl Program {
    /// Compiles the functions of these files (later files replace same-named functions of
    /// earlier ones, as merging their Rhai ASTs does).
    pub fn compile(files: &[AST], natives: Arc<NativeTable>, limits: Limits) -> Program {
        let mut defs: Vec<(ImmutableString, Vec<ImmutableString>, Option<Vec<Stmt>>)> = Vec::new();
        let mut index: FunctionIndex = FunctionIndex::default();
        for ast in files {
            for (name, params, body) in bodies(ast) {
                let at = defs.len();
                let arity = params.len();
                let entry = index.entry(name.to_string()).or_default();
                match entry.iter_mut().find(|(n, _)| *n == arity) {
                    Some(e) => {
                        defs[e.1] = (name, params, body);
                    }
                    None => {
                        entry.push((arity, at));
                        defs.push((name, params, body));
                    }
                }
            }
        }
        let switch_hash_ok = lower::switch_hash_matches_rhai();
        let is_script_fn = |name: &str, n: usize| index.get(name).is_some_and(|fs| fs.iter().any(|(a, _)| *a == n));
        let lendable: Vec<Vec<lend::Lend>> = defs
            .iter()
            .map(|(_, params, body)| match body {
                Some(stmts) => lend::lendable_params(params, stmts, &is_script_fn),
                None => vec![lend::Lend::Nothing; params.len()],
            })
            .collect();
        let constant = constant::constant_functions(&defs, &index, &natives);
        let funcs = defs
            .iter()
            .zip(&lendable)
            .enumerate()
            .map(|(idx, ((name, params, body), lent))| {
                let mut l = lower::Lower::new(&index, &natives, switch_hash_ok, &lendable, &defs, &constant);
                let compiled = match body {
                    Some(stmts) => l.function(idx, params, lent, stmts),
                    None => Err("a method for a type (`this`) or an unreadable body".to_string()),
                };
                let (body, why) = match compiled {
                    Ok(code) => (Some(code), None),
                    Err(why) => (None, Some(why)),
                };
                Func {
                    name: name.to_string(),
                    slots: l.slots(),
                    body,
                    why,
                    callees: l.callees(),
                    inlined: l.inlined(),
                    constant: constant[idx].then(std::sync::OnceLock::new),
                    read_only: lent
                        .iter()
                        .enumerate()
                        .filter(|(_, l)| **l == lend::Lend::Any)
                        .map(|(k, _)| k)
                        .collect(),
                    bails: AtomicU32::new(0),
                    runs: AtomicU32::new(0),
                    nested: (AtomicU64::new(0), AtomicU64::new(0)),
                }
            })
            .collect();
        let mut program = Program {
            funcs,
            index,
            natives,
            max_string: limits.max_string,
            max_array: limits.max_array,
            max_map: limits.max_map,
            max_depth: limits.max_depth,
            files_data_small: {
                let [arrays, maps, bytes] = limits.files_data.map(|n| n.saturating_mul(2));
                arrays < limits.max_array && maps < limits.max_map && bytes < limits.max_string
            },
        };
        program.drop_callers_of_uncompiled();
        program
    }

    /// A function calling one that is left to Rhai is left to Rhai too (it would only give
    /// up when it got there).
    fn drop_callers_of_uncompiled(&mut self) {
        loop {
            let mut changed = false;
            for i in 0..self.funcs.len() {
                if self.funcs[i].body.is_none() {
                    continue;
                }
                let bad = self.funcs[i].callees.iter().find(|&&c| self.funcs[c].body.is_none()).copied();
                if let Some(c) = bad {
                    let why = format!("calls `{}`, which is left to Rhai", self.funcs[c].name);
                    let f = &mut self.funcs[i];
                    f.body = None;
                    f.why = Some(why);
                    changed = true;
                }
            }
            if !changed {
                return;
            }
        }
    }

    /// The compiled function for a call with `n` arguments, if it is compiled.
    pub fn entry(&self, name: &str, n: usize) -> Option<usize> {
        let idx = self.find(name, n)?;
        let f = &self.funcs[idx];
        (f.body.is_some() && f.bails.load(Ordering::Relaxed) < MAX_BAILS).then_some(idx)
    }

    fn find(&self, name: &str, n: usize) -> Option<usize> {
        self.index.get(name)?.iter().find(|(a, _)| *a == n).map(|(_, i)| *i)
    }

    /// Runs a compiled function; `None` if it gave up (Rhai must run the transaction). With
    /// `profiling`, the calls it makes to other script functions are counted and timed
    /// ([`Program::nested_profile`]).
    pub fn run(&self, engine: &Engine, idx: usize, args: Vec<Dynamic>, profiling: bool) -> Option<Dynamic> {
        self.run_giving_back(engine, idx, args, profiling, &mut [])
    }

    /// [`Program::run`], and then the arguments the function only reads (see `lend`) back:
    /// `back[k]` is argument `k` as the caller gave it, or `()` when the function may have
    /// changed it or `back` is shorter. The caller may then use them again instead of making
    /// them anew. Nothing comes back from a run that gave up.
    pub fn run_giving_back(
        &self,
        engine: &Engine,
        idx: usize,
        args: Vec<Dynamic>,
        profiling: bool,
        back: &mut [Dynamic],
    ) -> Option<Dynamic> {
        if debugging() {
            self.funcs[idx].runs.fetch_add(1, Ordering::Relaxed);
        }
        let spare = SPARE.with(|s| std::mem::take(&mut *s.borrow_mut()));
        let mut rt = Rt { prog: self, engine, ops: 0, depth: 0, spare, profiling };
        let lent: SmallVec<[(usize, usize); 4]> =
            self.funcs[idx].read_only.iter().filter(|&&k| k < back.len()).map(|&k| (k, k)).collect();
        let r = call_lending(&mut rt, idx, args, back, &lent).ok();
        if r.is_none() {
            back.iter_mut().for_each(|v| *v = Dynamic::UNIT);
        }
        SPARE.with(|s| *s.borrow_mut() = std::mem::take(&mut rt.spare));
        if r.is_none() {
            self.funcs[idx].bails.fetch_add(1, Ordering::Relaxed);
            if debugging() {
                if let Some(at) = LAST_BAIL.with(std::cell::Cell::get) {
                    eprintln!("compiled `{}` gave up at {at}", self.funcs[idx].name);
                }
            }
        }
        r
    }

    /// Calls between script functions counted while profiling: `(name, calls, time)` for
    /// each function called at least once by another (time includes its own callees).
    pub fn nested_profile(&self) -> Vec<(String, u64, std::time::Duration)> {
        self.funcs
            .iter()
            .filter_map(|f| {
                let calls = f.nested.0.load(Ordering::Relaxed);
                let nanos = f.nested.1.load(Ordering::Relaxed);
                (calls > 0).then(|| (f.name.clone(), calls, std::time::Duration::from_nanos(nanos)))
            })
            .collect()
    }

    /// Forgets the calls [`Program::nested_profile`] counted (a new profile starts).
    pub fn reset_nested_profile(&self) {
        for f in &self.funcs {
            f.nested.0.store(0, Ordering::Relaxed);
            f.nested.1.store(0, Ordering::Relaxed);
        }
    }

    /// How many functions are compiled, and each one left to Rhai with the reason.
    pub fn coverage(&self) -> (usize, Vec<(String, String)>) {
        let compiled = self.funcs.iter().filter(|f| f.body.is_some()).count();
        let left = self.funcs.iter().filter_map(|f| f.why.as_ref().map(|w| (f.name.clone(), w.clone()))).collect();
        (compiled, left)
    }

    /// The calls inlined: `(caller, callee)` once per call site.
    pub fn inlined(&self) -> Vec<(String, String)> {
        let sites =
            self.funcs.iter().flat_map(|f| f.inlined.iter().map(|&c| (f.name.clone(), self.funcs[c].name.clone())));
        sites.collect()
    }

    /// Each function whose compiled runs gave up (Rhai then ran the transaction again), with
    /// how many did: a test reads it to know that a function ran compiled.
    pub fn give_ups(&self) -> Vec<(String, u32)> {
        let counted = self.funcs.iter().map(|f| (f.name.clone(), f.bails.load(Ordering::Relaxed)));
        counted.filter(|(_, n)| *n > 0).collect()
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        if !debugging() {
            return;
        }
        for f in &self.funcs {
            let (runs, bails) = (f.runs.load(Ordering::Relaxed), f.bails.load(Ordering::Relaxed));
            if runs > 0 {
                eprintln!("  {}: {runs} compiled runs, {bails} gave up", f.name);
            }
        }
    }
}

/// Whether `RULEBOOK_SCRIPTS_DEBUG` asks for reports on compiled scripts (read once).
pub fn debugging() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("RULEBOOK_SCRIPTS_DEBUG").is_some())
}

/// Calls script function `idx` with these arguments.
pub(crate) fn call_index(rt: &mut Rt, idx: usize, args: Vec<Dynamic>) -> R<Dynamic> {
    call_lending(rt, idx, args, &mut [], &[])
}

/// Calls script function `idx` with these arguments, of which those at the positions `lent`
/// names were moved out of the caller's slots (each `(argument, slot)`): they go back there
/// when the call ends (the function only reads them: see `lend`).
pub(crate) fn call_lending(
    rt: &mut Rt,
    idx: usize,
    args: Vec<Dynamic>,
    caller: &mut [Dynamic],
    lent: &[(usize, usize)],
) -> R<Dynamic> {
    let prog = rt.prog;
    let f = &prog.funcs[idx];
    let Some(body) = f.body.as_ref() else {
        return Err(bailed());
    };
    if rt.depth + 1 >= prog.max_depth {
        return Err(bailed());
    }
    rt.tick()?;
    if let Some(v) = f.constant.as_ref().and_then(std::sync::OnceLock::get) {
        if rt.profiling && rt.depth > 0 {
            f.nested.0.fetch_add(1, Ordering::Relaxed);
        }
        return Ok(v.clone());
    }
    let mut slots = args;
    slots.resize_with(f.slots, || Dynamic::UNIT);
    let started = (rt.profiling && rt.depth > 0).then(std::time::Instant::now);
    rt.depth += 1;
    let r = body(&mut slots, rt);
    rt.depth -= 1;
    for &(arg, slot) in lent {
        discard::put(&mut caller[slot], std::mem::take(&mut slots[arg]));
    }
    if let Some(t) = started {
        f.nested.0.fetch_add(1, Ordering::Relaxed);
        f.nested.1.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }
    rt.give(slots);
    match r {
        Ok(v) | Err(Stop::Return(v)) => {
            if let Some(cell) = &f.constant {
                let _ = cell.set(v.clone());
            }
            Ok(v)
        }
        Err(Stop::Bail) => Err(Stop::Bail),
        Err(_) => Err(bailed()),
    }
}

/// The value of function `idx`, whose value never changes (see `constant`), where it is kept:
/// made by a first call if it is not yet. Counted as a call (the operation, the depth limit,
/// the profile), as [`call_lending`] counts one that gives the kept value.
pub(crate) fn constant_value<'p>(rt: &mut Rt<'p>, idx: usize) -> R<&'p Dynamic> {
    let prog = rt.prog;
    let cell = prog.funcs[idx].constant.as_ref().ok_or_else(|| bailed())?;
    match cell.get() {
        Some(kept) => {
            if rt.depth + 1 >= prog.max_depth {
                return Err(bailed());
            }
            rt.tick()?;
            if rt.profiling && rt.depth > 0 {
                prog.funcs[idx].nested.0.fetch_add(1, Ordering::Relaxed);
            }
            Ok(kept)
        }
        None => {
            let args = rt.vec();
            let made = call_index(rt, idx, args)?;
            discard::discard(made);
            cell.get().ok_or_else(|| bailed())
        }
    }
}

/// Calls the script function a function pointer names, its curried arguments first.
pub(crate) fn call_pointer(rt: &mut Rt, fp: &rhai::FnPtr, args: Vec<Dynamic>) -> R<Dynamic> {
    let mut all = rt.vec();
    all.extend(fp.curry().iter().cloned());
    let mut args = args;
    all.append(&mut args);
    rt.give(args);
    let idx = rt.prog.find(fp.fn_name(), all.len()).ok_or_else(|| bailed())?;
    call_index(rt, idx, all)
}

/// For unit tests: the parameters and body of the function `name` in `script`.
#[cfg(test)]
fn test_function(script: &str, name: &str) -> (Vec<ImmutableString>, Vec<Stmt>) {
    let ast = rhai::Engine::new_raw().compile(script).expect("the test script compiles");
    bodies(&ast)
        .into_iter()
        .find(|(n, ..)| n == name)
        .map(|(_, p, b)| (p, b.expect("a body")))
        .unwrap_or_else(|| panic!("`{name}` is defined"))
}

/// The fields of parameter `param` of the script function `name` with `arity` parameters (as
/// the last of `files` to define it has it) that the function reads, when it reads that
/// parameter only through properties (see `fields`); `None` when it may see the whole value,
/// or the function is not found.
pub(crate) fn fields_read(files: &[AST], name: &str, arity: usize, param: usize) -> Option<BTreeSet<String>> {
    fields_read_each(files, &[(name, arity, param)]).pop().flatten()
}

/// [`fields_read`] for several `(name, arity, param)` at once: each file's functions are
/// found once for all of them (a game asks for every trick hook and reveal script).
pub(crate) fn fields_read_each(files: &[AST], wanted: &[(&str, usize, usize)]) -> Vec<Option<BTreeSet<String>>> {
    let mut out = vec![None; wanted.len()];
    let mut found = vec![false; wanted.len()];
    for ast in files.iter().rev() {
        if found.iter().all(|f| *f) {
            break;
        }
        let bodies = bodies(ast);
        for (k, (name, arity, param)) in wanted.iter().enumerate() {
            let def = bodies.iter().find(|(n, p, _)| n == name && p.len() == *arity);
            if let (false, Some((_, params, body))) = (found[k], def) {
                found[k] = true;
                out[k] = body.as_ref().and_then(|b| fields::fields_read(params, b, *param));
            }
        }
    }
    out
}

/// Every script function of one file: name, parameters and top-level statements (`None` for
/// one compiled code cannot take). Rhai's AST does not hand out a function's body directly:
/// its statements come from walking the AST (main statements first, then each function's in
/// turn) and are matched to functions by where they lie in the file.
type Body = (ImmutableString, Vec<ImmutableString>, Option<Vec<Stmt>>);

fn bodies(ast: &AST) -> Vec<Body> {
    let defs: Vec<_> = ast.iter_fn_def().cloned().collect();
    let mut tops: Vec<Stmt> = Vec::new();
    ast.walk(&mut |path: &[ASTNode]| {
        if let [ASTNode::Stmt(s)] = path {
            tops.push((*s).clone());
        }
        true
    });
    let tops = tops.split_off(ast.statements().len().min(tops.len()));
    // A closure written as an expression has no end position: its one statement is at its start.
    let spans: Vec<(Position, Position)> = defs
        .iter()
        .map(|d| {
            let (a, b) = (d.body.start_position(), d.body.end_position());
            (a, if b.is_none() { a } else { b })
        })
        .collect();
    let mut assigned: Vec<Vec<Stmt>> = vec![Vec::new(); defs.len()];
    let mut k = 0;
    let mut lost = false;
    for s in tops {
        let p = s.position();
        loop {
            if k >= defs.len() {
                lost = true;
                break;
            }
            let here = p.is_none() || within(p, spans[k]);
            let inner_next = k + 1 < defs.len() && within(p, spans[k + 1]) && inside(spans[k + 1], spans[k]);
            if here && !inner_next {
                assigned[k].push(s);
                break;
            }
            k += 1;
        }
        if lost {
            break;
        }
    }
    defs.iter()
        .zip(assigned)
        .map(|(d, stmts)| {
            let ok = !lost && d.this_type.is_none();
            (d.name.clone(), d.params.iter().cloned().collect(), ok.then_some(stmts))
        })
        .collect()
}

fn key(p: Position) -> (usize, usize) {
    (p.line().unwrap_or(0), p.position().unwrap_or(0))
}

fn within(p: Position, (a, b): (Position, Position)) -> bool {
    key(a) <= key(p) && key(p) <= key(b)
}

fn inside(inner: (Position, Position), outer: (Position, Position)) -> bool {
    key(outer.0) < key(inner.0) && key(inner.1) <= key(outer.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compiles `script` both ways and calls `f()` (no arguments) through each: compiled
    /// scripts must give Rhai's value, or give up.
    fn both(script: &str) -> (Option<String>, Result<String, String>) {
        both_with(&Engine::new(), NativeTable::default(), script)
    }

    /// Like [`both`], with these engine functions (registered in `engine` and in `natives`).
    fn both_with(engine: &Engine, natives: NativeTable, script: &str) -> (Option<String>, Result<String, String>) {
        let ast = engine.compile(script).expect("the test script compiles");
        let limits = Limits { max_string: 10_000, max_array: 1_000, max_map: 1_000, max_depth: 32, files_data: [0; 3] };
        let program = Program::compile(std::slice::from_ref(&ast), Arc::new(natives), limits);
        let idx = program.entry("f", 0).expect("`f` is compiled");
        let compiled = program.run(engine, idx, Vec::new(), false).map(|v| format!("{v:?}"));
        let rhai = engine.call_fn::<Dynamic>(&mut rhai::Scope::new(), &ast, "f", ()).map(|v| format!("{v:?}"));
        (compiled, rhai.map_err(|e| e.to_string()))
    }

    /// Runs a snippet as the body of `f` and checks compiled scripts agree with Rhai.
    fn same(body: &str) {
        let (compiled, rhai) =
            both(&format!("fn helper(a, b) {{ a * 10 + b }}\nfn cmp(a, b) {{ b - a }}\nfn f() {{\n{body}\n}}"));
        match compiled {
            Some(v) => assert_eq!(Ok(v), rhai, "compiled scripts disagree with Rhai on:\n{body}"),
            None => panic!("compiled scripts gave up on:\n{body}\n(Rhai: {rhai:?})"),
        }
    }

    /// A snippet compiled scripts must give up on (Rhai reports an error or does it itself).
    fn gives_up(body: &str) {
        let (compiled, _) = both(&format!("fn f() {{\n{body}\n}}"));
        assert_eq!(compiled, None, "compiled scripts should give up on:\n{body}");
    }

    #[test]
    fn results_made_of_the_files_data_are_checked_unless_that_data_is_small() {
        // `data(n)` stands for a function recorded as returning only the game files' data.
        let mut engine = Engine::new();
        let mut natives = NativeTable::default();
        let big = |n: rhai::INT| (0..n).map(Dynamic::from_int).collect::<rhai::Array>();
        natives.record_from_files("data", big);
        engine.register_fn("data", big);
        let ast = engine.compile("fn f() { let d = data(1500); d.len() }").unwrap();
        let natives = Arc::new(natives);
        let run = |files_data| {
            let limits = Limits { max_string: 10_000, max_array: 1_000, max_map: 1_000, max_depth: 32, files_data };
            let program = Program::compile(std::slice::from_ref(&ast), natives.clone(), limits);
            program.run(&engine, program.entry("f", 0).unwrap(), Vec::new(), false).map(|v| v.as_int().unwrap())
        };
        // The files' data within the limits counted twice over: results are not walked again.
        assert_eq!(run([499, 0, 0]), Some(1500));
        // Not within them (or not known): the result is checked, and over the limit it gives up.
        assert_eq!(run([500, 0, 0]), None);
        assert_eq!(run([0, 0, 5_000]), None);
        assert_eq!(run([usize::MAX; 3]), None);
        assert!(engine.call_fn::<Dynamic>(&mut rhai::Scope::new(), &ast, "f", ()).is_ok(), "Rhai without limits");
    }

    #[test]
    fn integers_and_their_operators() {
        same("let x = 7; let y = -3; [x + y, x - y, x * y, x / y, x % y, -x, x > y, x <= y, x == 7, x != 7]");
        same("let x = 5; x += 2; x -= 1; x *= 3; x /= 4; x %= 3; x");
        same("let n = 0; for i in 0..10 { n += i; } for i in 1..=3 { n += i * 100; } n");
        same("[abs(-4), max(2, 9), min(2, 9), (-4).abs()]");
        same("[true > false, false < true, true >= true, false <= false, true == false, 'a' < 'b', \"b\" >= \"a\"]");
        // Operands read in place: variables and integer constants, on either side.
        same("let a = 3; let b = 4; [a < b, a == 3, 5 > a, a + b, a - 1, a * b, b / 2, b % 3, a <= 3, a >= 4, a != b, 2 - a]");
        same(r#"let s = "ab"; let t = "c"; let u = (); [s + t, s == t, s < t, u == s, s != u]"#);
        same("let a = [1, 2]; let b = 2; let t = true; [a.len() == b, a.len() + b, t == true, t != false]");
        same("let b = [5, 6]; let n = b.remove(0) + b.len(); [n, b]");
        gives_up("let a = 1; let b = 0; a / b");
        gives_up("let a = 1; let b = \"x\"; a - b");
    }

    #[test]
    fn strings_chars_and_interpolation() {
        same(
            r#"let s = "abc"; s += "def"; s += 'g'; [s, s.len(), s.contains("cd"), s.contains('z'), `${s}-${42}-${true}-${'c'}`]"#,
        );
        same(
            r#"let s = "hello world"; [s.sub_string(2, 3), s.sub_string(-5, 2), s.sub_string(6), s.index_of("o"), s.index_of('w'), s.split(" "), s.starts_with("he"), s.ends_with("x")]"#,
        );
        same(
            r#"let s = "abc"; let u = (); let n = 1; [s == "abc", s != "abc", s == "abd", u == "x", u != "x", n == "1", n != "1", [s][0] == "abc"]"#,
        );
        same(r#"let s = "ab"; s.pad(5, '-'); [s, " 17 ".parse_int(), "a" < "b", "a" == (), () != "a", 1 == "1"]"#);
        // Properties compared with a text where they lie.
        same(
            r#"let c = #{ kind: "a", n: 1, sub: #{ name: "b" } }; [c.kind == "a", c.kind != "a", c.sub.name == "b", c.missing == "x", c.kind == "b", c.sub.missing != "y", c.n == "1", c.sub == "b"]"#,
        );
        gives_up(r#"let c = #{ sub: #{} }; c.sub.missing.deeper == "x""#);
    }

    #[test]
    fn chains_on_values_nobody_holds_move_out_of_them() {
        // A call's or a literal's value: its elements and entries are moved, not copied.
        let script = r#"fn list() { [[1, 2], #{ a: "x", b: [3] }, "str"] }
            fn f() { [list()[0][1], list()[1].a, list()[1].b[0], list()[1].missing, list()[-1], list()[2][1], list()[0].len()] }"#;
        let (compiled, rhai) = both(script);
        assert_eq!(compiled.map(Ok), Some(rhai));
        same(r#"[[1, 2][1], #{ a: 1 }.a, #{ a: 1 }.b, "abc"[2], [#{ k: [5] }][0].k[0]]"#);
        gives_up(r#"let x = #{ a: 1 }.b.c; x"#);
        gives_up(r#"let x = [1][5]; x"#);
    }

    #[test]
    fn arrays_maps_and_chains() {
        same("let a = [1, 2, 3]; a.push(4); a += 5; a += [6, 7]; [a, a.len(), a[-1], a[0], a.contains(3), 3 in a, 9 in a, a.index_of(2), a.remove(1), a.remove(99), a]");
        same("let a = [[1, 2], [3]]; a[0].push(9); a[1][0] = 4; a[0][1] += 10; a");
        same(
            r#"let m = #{ x: 1, y: #{ z: 2 } }; m.x += 1; m.y.z = 5; m["w"] = 3; m.v = [1]; m.v.push(2); [m.x, m.y.z, m.w, m.missing, m["x"], "x" in m, m.keys(), m.values().len(), m.remove("w"), m.len()]"#,
        );
        same("let m = #{ a: 1 }; m.mixin(#{ b: 2, a: 5 }); m");
        same("let a = [3, 1, 2]; a.sort(); let b = [5, 9, 7]; b.sort(|x, y| y - x); let c = [4, 8, 6]; c.sort(cmp); [a, b, c, [1, 2].is_empty(), [].is_empty()]");
        same("let a = []; a.pad(3, 0); a");
        // Chains of indexes and properties on a variable, read where the values lie.
        same(
            r#"let a = [#{ x: [1, 2], s: "abc" }, #{ y: #{ z: 3 } }, [4, [5]]]; [a[0].x[1], a[-3].x[-1], a[1].y.z, a[1].missing, a[2][1][0], a[0]["x"][0], a[0].s[1], a[1]["y"].z]"#,
        );
        gives_up("let a = [[1]]; a[0][3]");
        gives_up("let a = [#{ x: 1 }]; a[0].y.z");
        gives_up("let m = #{ x: 1 }; m[1]");
    }

    #[test]
    fn control_flow_and_functions() {
        same("let n = 0; while true { n += 1; if n > 4 { break; } } let k = 0; loop { k += 2; if k >= 6 { break; } } [n, k]");
        same("let n = 0; for (x, i) in [10, 20, 30] { if i == 1 { continue; } n += x + i; } n");
        // Ranges written in the loop (counted through) and ranges held in a variable.
        same("let n = []; for (x, i) in 5..8 { n.push(x * 10 + i); } for x in 3..=1 { n.push(x); } let r = 2..=3; for x in r { n.push(x); } let b = for x in 0..9 { if x == 4 { break x * 2; } }; [n, b]");
        gives_up(r#"for x in "a"..3 { } 1"#);
        same("let n = 0; do { n += 1; } while n < 3; let m = 0; do { m += 1; } until m >= 2; [n, m]");
        same(
            r#"let out = []; for v in ["a", 7, true, "z"] { out.push(switch v { "a" => 1, 7 => 2, true => 3, _ => 0 }); } out"#,
        );
        same("let p = Fn(\"helper\"); [helper(1, 2), p.call(3, 4), type_of(p), type_of(()), type_of([]), if 1 < 2 { \"yes\" } else { \"no\" }]");
        same("let x = (); let y = x ?? 5; let z = 3 ?? 4; [y, z, true && false, false || true, !true]");
        same("fn_inner()\n}\nfn fn_inner() { return 17; 18");
        same(r#"[is_def_fn("helper", 2), is_def_fn("helper", 1), is_def_fn("nothing", 0), is_def_fn("cmp", -1)]"#);
    }

    /// Conditions are tested as Rust `bool`s: the same branches as Rhai for every comparison,
    /// operand kind and operator, and a condition that is not a `bool` is Rhai's error.
    #[test]
    fn conditions_take_rhais_branches() {
        same(
            r#"let a = 3; let b = 4; let out = [];
            for c in [a < b, a > b, a <= 3, a >= 4, a == 3, a != 3, 5 > a, 2 - a < 0, a + 1 == b, helper(a, 0) >= 30] {
                if c { out.push(1); } else { out.push(0); }
            }
            if a < b && b < 5 || a == 9 { out.push(2); }
            if !(a < b) || !(b == 4) { out.push(3); } else { out.push(4); }
            out"#,
        );
        same(
            r#"let s = "x"; let u = (); let m = #{ k: "v", n: 1 }; let out = [];
            if s == "x" { out.push(1); } if s != "x" { out.push(2); } if u == "x" { out.push(3); }
            if m.k == "v" && m.n == 1 { out.push(4); } if m.n == "1" { out.push(5); } if 1 == "1" { out.push(6); }
            if "a" < "b" && s != u { out.push(7); }
            let n = 0; while n < 3 && true { n += 1; } do { n += 10; } until n > 25;
            let k = switch n { 33 if n > 40 => 1, 33 if !(n > 40) => 2, _ => 3 };
            [out, n, k, !false, true && !true, false || a_true()]
            }
            fn a_true() { true"#,
        );
        // Operands of different types are unequal and unordered in Rhai.
        same("let x = \"s\"; let out = []; if x < 1 { out.push(1); } if x == 1 { out.push(2); } if x != 1 { out.push(3); } out");
        gives_up("let x = 1; if x { 2 } else { 3 }");
        gives_up("let x = 1; if !x { 2 } else { 3 }");
        gives_up("let x = 1; while x && false { } 0");
        gives_up("let x = (); if true && x { 1 } else { 0 }");
    }

    #[test]
    fn what_compiled_scripts_leave_to_rhai() {
        gives_up("let a = [1]; a[3]");
        gives_up("1 / 0");
        gives_up("9223372036854775807 + 1");
        gives_up("let s = \"x\"; s + 1");
        gives_up("throw \"no\";");
        gives_up("let x = 1; if x { 2 } else { 3 }");
    }

    /// A function's last reads hand values over instead of copying them; every other read
    /// still copies.
    #[test]
    fn last_reads_move_and_others_copy() {
        same("let a = [1, 2]; let b = a; b.push(3); a");
        same("let a = [1, 2]; if a.len() > 1 { a } else { [] }");
        same("let a = [1, 2]; return [a, a.len()];");
        same("let m = #{ x: [1] }; let y = m; return #{ first: y, second: m };");
        same("let a = [1, 2]; for i in 0..2 { if i == 1 { return a; } } []");
        same("let a = [5]; { let b = a; b.push(6); [b, a] }");
        same("let a = [5]; helper2(a, a)\n}\nfn helper2(x, y) { x.push(1); [x, y]");
        // A loop's variable moves at its last read in an iteration.
        same("let out = []; for e in [[1], [2], [3]] { if e[0] > 1 { out.push(e); } } out");
        same("let out = []; for e in [[1], [2]] { let x = e; x.push(9); out.push(e); out.push(x); } out");
        same("let out = []; for e in [[1], [2]] { out.push(e); out.push(e); e.push(7); out.push(e); } out");
        same(
            "let out = []; for e in [[1], [2]] { if e.len() > 5 { continue; } else { out.push(e); } out.push(e); } out",
        );
        same("let out = []; for e in [[1], [2]] { for i in 0..2 { out.push(e); } } out");
        same("let out = []; for e in [[1], [2]] { { let e = [5]; out.push(e); } out.push(e); } out");
        same("let out = []; let m = #{ a: [1] }; for e in [m, m] { e.b = 2; out.push(e); } [out, m]");
    }

    /// A loop over a variable of its own block that nothing reads again takes the list itself;
    /// any later read, in the loop or after it or in another pass of an outer loop, still
    /// finds the variable as it was.
    #[test]
    fn loops_take_lists_nothing_reads_again() {
        same("let a = [1, 2, 3]; let t = 0; for x in a { t += x; } t");
        same("let a = [[1], [2]]; let out = []; for x in a { x.push(0); out.push(x); } out");
        same("let a = [1, 2, 3]; let t = 0; for x in a { t += a.len(); } t");
        same("let a = [1, 2]; for x in a { } a.len()");
        same("let a = [1, 2]; for x in a { } let b = a; b");
        same("let a = [1, 2]; for x in a { } a = [7]; a");
        same("let t = 0; for i in 0..3 { let a = [i, i]; for x in a { t += x; } } t");
        same("let a = [1, 2]; let t = 0; for i in 0..2 { for x in a { t += x; } } t");
        same("let a = [1, 2]; let t = 0; if true { for x in a { t += x; } } [t, a]");
        same("let a = [1, 2]; let t = 0; for a in a { t += a; } t");
    }

    /// Small functions are inlined where they are called, and do there what a call does:
    /// `return`, their own variables and scope, arguments lent or copied, nesting, and a
    /// variable the caller declares after them; a function calling itself calls itself.
    #[test]
    fn inlined_calls_do_what_calls_do() {
        let script = r#"
            fn absent(x) { type_of(x) == "()" }
            fn first(a) { if a.len() == 0 { return (); } a[0] }
            fn grow(a) { a.push(9); a.len() }
            fn twice(n) { n * 2 }
            fn quad(n) { twice(twice(n)) }
            fn local(n) { let t = n + 1; t * 10 }
            fn rec(n) { if n <= 0 { 0 } else { n + rec(n - 1) } }
            fn above(a) { for x in a { if x > 2 { return x; } } -1 }
            fn reads(m, k) { if m.contains(k) { m[k] } else { m.len() } }
            fn n_local() { let n = 7; n }
            fn f() {
                let a = [1, 2, 3]; let m = #{ k: 5 }; let n = 1;
                let out = [absent(()), absent(a), first([]), first(a), grow(a), a, twice(3), quad(2), local(4)];
                out += [rec(4), above(a), above([]), reads(m, "k"), reads(m, "z"), m, n_local(), n];
                let t = local(1);
                let u = twice(t) + twice(local(2));
                out.push(t); out.push(u);
                for i in 0..3 { out.push(twice(i) + local(i)); let w = i; out.push(w); }
                out.push(twice(twice(1)));
                out
            }"#;
        let (compiled, rhai) = both(script);
        assert_eq!(compiled.map(Ok), Some(rhai));
        let engine = Engine::new();
        let ast = engine.compile(script).expect("the test script compiles");
        let limits = Limits { max_string: 10_000, max_array: 1_000, max_map: 1_000, max_depth: 32, files_data: [0; 3] };
        let program = Program::compile(std::slice::from_ref(&ast), Arc::new(NativeTable::default()), limits);
        let inlined = program.inlined();
        let site = |caller: &str, callee: &str| inlined.iter().any(|(a, b)| a == caller && b == callee);
        assert!(site("f", "absent") && site("f", "quad") && site("quad", "twice") && site("f", "reads"), "{inlined:?}");
        assert!(!site("rec", "rec"), "a function is never inlined into itself: {inlined:?}");
        // The body sees no variable of its caller (in Rhai it is not found): not compiled.
        let ast = engine.compile("fn leak() { n + 1 }\nfn f() { let n = 1; leak() }").expect("compiles");
        let limits = Limits { max_string: 10_000, max_array: 1_000, max_map: 1_000, max_depth: 32, files_data: [0; 3] };
        let program = Program::compile(std::slice::from_ref(&ast), Arc::new(NativeTable::default()), limits);
        assert!(program.entry("f", 0).is_none() && program.inlined().is_empty());
    }

    /// `x.f(...)` on a variable calls the engine's function with the variable itself (a
    /// function that changes its first argument changes the variable, as in Rhai); for a value
    /// the engine has no such function for, the standard one runs.
    #[test]
    fn engine_methods_on_variables_act_on_the_variable() {
        let mut engine = Engine::new();
        let mut natives = NativeTable::default();
        let bump = |x: &mut rhai::INT, n: rhai::INT| {
            *x += n;
            *x
        };
        natives.record("bump", bump);
        engine.register_fn("bump", bump);
        let len = |x: &mut rhai::INT| *x * 100;
        natives.record("len", len);
        engine.register_fn("len", len);
        let script = "fn f() { let a = 1; let b = a.bump(2); let c = a.bump(b); let l = [7, 8]; [a, b, c, a.len(), l.len(), \"xyz\".len()] }";
        let (compiled, rhai) = both_with(&engine, natives, script);
        assert_eq!(compiled, Some(rhai.unwrap()));
    }

    /// A call of a function with a part reader on anything but the game handle, or with a name
    /// that is not a string or an owner that is not an integer, goes the general way: the
    /// function registered for those types runs, as in Rhai (the reader is not called).
    #[test]
    fn part_reads_on_other_values_go_the_general_way() {
        let mut engine = Engine::new();
        let mut natives = NativeTable::default();
        let by_name = |x: &mut rhai::INT, name: &str| *x + name.len() as rhai::INT;
        let by_name_owner =
            |x: &mut rhai::INT, name: &str, owner: bool| if owner { *x } else { -(name.len() as rhai::INT) };
        let by_number = |x: &mut rhai::INT, n: rhai::INT| *x * n;
        natives.record("count", by_name);
        natives.record("count", by_name_owner);
        natives.record("count", by_number);
        engine.register_fn("count", by_name).register_fn("count", by_name_owner).register_fn("count", by_number);
        natives.record_part_reader("count", |_, _, _, _| Err("the reader is for the game handle only".into()));
        // A writer and a placer, likewise.
        let set = |x: &mut rhai::INT, name: &str, v: rhai::INT| {
            *x += v;
            *x + name.len() as rhai::INT
        };
        let put = |x: &mut rhai::INT, c: Dynamic, zone: &str, owner: rhai::INT| {
            *x * 1000 + c.as_int().unwrap_or(-1) * 100 + zone.len() as rhai::INT * 10 + owner
        };
        natives.record("set", set);
        natives.record("put", put);
        engine.register_fn("set", set).register_fn("put", put);
        natives.record_part_writer("set", |_, _, _, _, _| Err("for the game handle only".into()));
        natives.record_part_placer("put", |_, _, _, _, _| Err("for the game handle only".into()));
        let shift =
            |x: &mut rhai::INT, from: &str, n: rhai::INT, to: &str| *x + n * (from.len() * to.len()) as rhai::INT;
        natives.record("shift", shift);
        engine.register_fn("shift", shift);
        natives.record_part_transfer("shift", |_, _, _, _, _, _| Err("for the game handle only".into()));
        let script = "fn f() { let a = 10; let z = \"abc\"; let n = 4; [a.count(\"xy\"), a.count(z), a.count(n), a.count(z, false), a.count(\"q\", true), a.set(z, 5), a, a.put(7, \"zz\", 3), a.shift(z, 2, \"yy\")] }";
        let (compiled, rhai) = both_with(&engine, natives, script);
        assert_eq!(compiled, Some(rhai.unwrap()));
        assert_eq!(compiled.as_deref(), Some("[12, 13, 40, -3, 10, 18, 15, 15723, 27]"));
    }

    /// `type_of(x) == "name"` asks the value's kind, for every kind (a function pointer and a
    /// name no type has included), as a condition and as a value.
    #[test]
    fn type_of_comparisons_agree_with_rhai() {
        same(
            r#"let x = (); let m = #{ a: 1 }; let p = Fn("helper");
            let seen = [type_of(x) == "()", type_of(1) == "i64", type_of("s") != "string", type_of(m) == "map",
                type_of([]) == "array", type_of('c') == "char", type_of(true) == "bool", type_of(p) == "Fn",
                type_of(x) == "nope", type_of(m.a) != "()", type_of(m.b) == "()"];
            if type_of(m.b) == "()" { seen.push(type_of(p)); }
            seen"#,
        );
    }

    /// Rhai's own methods called on a variable or on a value made for them give what Rhai gives.
    #[test]
    fn standard_methods_on_variables_and_values_agree_with_rhai() {
        same(
            r#"let s = "abc"; let a = [1, 2]; let m = #{ x: 1 };
            [s.len(), a.len(), m.len(), "ABCDEF".index_of("C"), "ABCDEF".index_of('E'), [3, 4, 5].contains(4),
             s.index_of('b'), a.is_empty(), #{ y: 2 }.len(), helper(1, 2).to_string(), s.contains("bc"), a.index_of(2)]"#,
        );
    }

    /// A loop over a variable its body does not name goes through the list where it lies: the
    /// variable is the same after the loop however it ends (`break`, `return` from a function
    /// that was lent it, the end), and a body that names it still loops over a copy.
    #[test]
    fn loops_over_a_variable_the_body_does_not_name() {
        let script = r#"
            fn total(list) { let t = 0; for x in list { t += x; } t * 100 + list.len() }
            fn first_big(list) { for (x, i) in list { if x > 1 { return [x, i]; } } -1 }
            fn f() {
                let a = [1, 2, 3];
                let t = 0;
                for x in a { t += x; }
                a.push(t);
                let found = for x in a { if x == 2 { break x * 10; } };
                let l = [1, 5, 3];
                let big = first_big(l);
                let changed = [];
                for x in l { l.push(x); changed.push(l.len()); if changed.len() > 2 { break; } }
                let pairs = 0;
                for x in a { for y in a { if x < y { pairs += 1; } } }
                let m = [#{ k: [1] }, "s", ()];
                let seen = [];
                for v in m { seen.push(v); }
                seen[0].k.push(2);
                let b = [4, 5];
                for b in b { }
                [a, total(a), found, big, l, changed, pairs, m, seen, b]
            }"#;
        let (compiled, rhai) = both(script);
        assert_eq!(compiled.map(Ok), Some(rhai));
    }

    /// A function whose value never changes gives its kept value at later calls: a copy, so
    /// changing what one call gave changes nothing another gives.
    #[test]
    fn kept_values_are_copies() {
        let script = r#"
            fn table() { let m = #{ a: [1], f: Fn("g") }; m.mixin(#{ b: "x" }); m }
            fn g(x) { x + 1 }
            fn f() {
                let x = table(); x.a.push(2); x.b += "y";
                let y = table();
                let out = [x, y, table().a.len(), table().f.call(4)];
                for i in 0..3 { let t = table(); t.a.push(i); out.push(t.a); }
                out
            }"#;
        let (compiled, rhai) = both(script);
        assert_eq!(compiled.map(Ok), Some(rhai));
    }

    /// A variable passed where the function only reads its parameter is lent (moved in and
    /// back): the caller finds it unchanged, and a function that changes its parameter still
    /// gets a copy.
    #[test]
    fn lent_arguments_come_back_unchanged() {
        let with = |helpers: &str, body: &str| same(&format!("{body}\n}}\n{helpers}\nfn unused() {{"));
        let reads = "fn reads(m, k) { if m.contains(k) { m[k] } else { m.len() } }";
        with(reads, "let m = #{ a: [1] }; let x = reads(m, \"a\"); m.b = 2; [x, m, reads(m, \"z\")]");
        with(reads, "let out = []; for e in [#{ a: 1 }, #{ b: 2 }] { out.push(reads(e, \"a\")); out.push(e); } out");
        // The parameter as the function's value is copied out, not moved (the caller keeps it).
        let id = "fn id(x) { x }";
        with(id, "let a = [1]; let b = id(a); a.push(2); [a, b]");
        // The same variable twice, and nested calls lending it on.
        let both = "fn pair(x, y) { [x.len(), y.len()] } fn outer(x) { [pair(x, [x]), reads(x, 0)] }";
        with(&format!("{both} {reads}"), "let a = [1, 2]; [pair(a, a), outer(a), a]");
        // Changed by a method, an assignment or an element: a copy, whatever the caller holds.
        let changes = "fn grows(a) { a.push(9); a.len() } fn sets(m) { m.x = 5; m } fn swaps(a) { a = 1; a }";
        with(changes, "let a = [1]; let m = #{ x: 1 }; [grows(a), a, sets(m), m, swaps(a), a]");
        let inner = "fn inner(a) { a[0].push(9); a[0].len() }";
        with(inner, "let a = [[1]]; [inner(a), a]");
        // Recursion lends the same list down every level.
        let sum = "fn sum(a, i) { if i >= a.len() { 0 } else { a[i] + sum(a, i + 1) } }";
        with(sum, "let a = [1, 2, 3, 4]; [sum(a, 0), a]");
    }

    /// The test limits: arrays of 1,000 elements, strings of 10,000 bytes (all the strings
    /// inside a value added up, as Rhai counts them).
    #[test]
    fn size_limits_are_kept_however_the_value_grows() {
        // A loop that only pushes is checked once, when it ends: within the limits, the same
        // list as Rhai's; past them (at the end, or only before a `return` or `break`), Rhai's
        // error.
        same("let out = []; for i in 0..900 { if i % 2 == 0 { out.push(#{ id: i }); } } out.len()");
        same("let out = []; for i in 0..3 { for j in 0..3 { out.push([i, j]); } } out");
        gives_up("let out = []; for i in 0..1200 { out.push(i); } out.len()");
        gives_up("let out = []; for i in 0..600 { out.push([i, i]); } out.len()");
        gives_up("let out = []; for i in 0..1200 { out.push(i); if i == 1100 { return 0; } } 1");
        gives_up("let out = []; for i in 0..1200 { out.push(i); if i == 1100 { break; } } 1");
        // Read inside the loop: every push is checked, as before.
        gives_up("let out = []; for i in 0..1200 { out.push(i); if out.len() > 1100 { return 0; } } 1");
        // The bytes of all strings count, not the longest.
        gives_up("let out = []; for i in 0..300 { out.push(\"0123456789012345678901234567890123456789\"); } 0");
        gives_up("let out = []; let s = \"0123456789012345678901234567890123456789\"; for i in 0..300 { out += s; } 0");
        gives_up(
            "let m = #{}; let s = \"0123456789012345678901234567890123456789\"; for i in 0..300 { m[`k${i}`] = s; } 0",
        );
        // An element counted up stays an integer: nothing to check. One that grows is checked.
        same("let counts = [0, 0, 0]; for i in 0..900 { counts[i % 3] += 1; } counts");
        same("let m = #{ n: 1 }; m.n += 5; m.n -= 2; m");
        gives_up("let s = [\"x\"]; for i in 0..20000 { s[0] += \"y\"; } 0");
        gives_up("let a = [[]]; for i in 0..1200 { a[0] += i; } 0");
    }

    #[test]
    fn switch_and_string_search_agree_with_rhai() {
        for body in [
            "let out = []; for a in [\"red\", \"blue\", \"other\", 7] { out.push(switch a { \"red\" => 1, \"blue\" if out.len() > 0 => 2, \"blue\" => 3, 7 => 4, _ => 0 }); } out",
            "[\"ABCDEF\".index_of(\"C\"), \"ABCDEF\".index_of(\"Z\"), \"äbc\".index_of(\"c\"), \"abcabc\".index_of(\"ca\"), \"\".index_of(\"a\"), \"abc\".index_of(\"\")]",
            "[\"ABCDEF\".contains(\"D\"), \"ABCDEF\".contains(\"DE\"), \"ABCDEF\".contains(\"x\"), \"abc\".contains(\"\")]",
        ] {
            same(body);
        }
    }

    /// A var's kept copy reports the sizes Rhai counts in it (compiled reads check the limits
    /// with them instead of walking the copy).
    #[test]
    fn a_var_copy_knows_the_sizes_rhai_counts() {
        use crate::value::{Value, ValueMap};
        let mut inner = ValueMap::default();
        inner.insert("k".into(), Value::List(vec![Value::Int(1), Value::Str("xy".into())]));
        let value =
            Value::List(vec![Value::Str("abc".into()), Value::Map(Box::new(inner)), Value::Int(3), Value::Unit]);
        let slot = crate::state::VarSlot::new(value);
        let (copy, sizes) = slot.script_value_sized();
        assert_eq!(sizes, script_sizes(&copy));
        assert_eq!(sizes, [6, 1, 5], "4 + 2 elements, 1 entry, 3 + 2 bytes");
        // A second read gives the same copy and sizes.
        assert_eq!(slot.script_value_sized().1, sizes);
        assert_eq!(slot.script_value().to_string(), copy.to_string());
    }

    #[test]
    fn the_switch_hash_is_rhais() {
        assert!(lower::switch_hash_matches_rhai());
    }
}
