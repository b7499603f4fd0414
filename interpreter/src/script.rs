//! The Rhai host: compiles a game's scripts once, calls script functions with a handle onto
//! the state (never a copy of it), enforces limits, and turns script failures into located
//! errors. The functions scripts can call are registered in [`crate::api`].

use crate::diag::Location;
use crate::log::Event;
use crate::per_thread::PerThread;
use crate::rules::{FnRef, Rules};
use crate::state::{Frame, State};
use crate::value::Value;
use rhai::{CallFnOptions, Dynamic, Engine, EvalAltResult, Scope, AST};
use std::collections::HashSet;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Operation budget of one script call: enough for any sane rule, small enough that an
/// endless loop stops in well under a second.
pub const MAX_OPERATIONS: u64 = 5_000_000;

/// Script limits in force: `(operations, call depth, string size, array size, map size)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Operations per call.
    pub max_operations: u64,
    /// Nested calls.
    pub max_call_depth: u64,
    /// Characters per string.
    pub max_string_size: u64,
    /// Elements per array.
    pub max_array_size: u64,
    /// Entries per map.
    pub max_map_size: u64,
}

/// The defaults.
pub const DEFAULT_LIMITS: Limits = Limits {
    max_operations: MAX_OPERATIONS,
    max_call_depth: 64,
    max_string_size: 1 << 20,
    max_array_size: 100_000,
    max_map_size: 10_000,
};

/// The most a game may ask for.
pub const HARD_CAPS: Limits = Limits {
    max_operations: 100_000_000,
    max_call_depth: 256,
    max_string_size: 1 << 24,
    max_array_size: 1_000_000,
    max_map_size: 1_000_000,
};

/// Memory one script call may keep beyond what it started with (live bytes), when the
/// counting allocator ([`crate::alloc`]) is installed.
pub const MAX_CALL_MEMORY: i64 = 256 << 20;
/// Bytes one script call may allocate in all (copies included): bounds the time spent copying
/// large values, which the operation budget counts as one operation each.
pub const MAX_CALL_ALLOCATED: u64 = 1 << 30;
/// Bytes one script call may hand to the engine (variables, properties, log lines, contexts).
pub const MAX_CALL_HANDED: u64 = 32 << 20;
/// Bytes the scripts of one game may make the engine keep (variables, properties of created
/// components, log lines).
pub const MAX_GAME_KEPT: u64 = 128 << 20;
/// Wall-clock watchdog of one script call: the one limit that is not deterministic. Every
/// other limit counts something that the same files, seed and decisions reproduce exactly
/// (operations, engine work, bytes); this one only ends calls that spend their time inside a
/// Rhai built-in whose cost grows with the size of a value but counts as one operation (a
/// search through a 1 MiB string on every operation, a size check of a value nested thousands
/// deep). No call of a bundled game comes near it (`simulate --profile` shows the slowest).
/// Two seconds, not less: a call that fills its 256 MiB memory budget must meet that budget
/// (deterministic) before the watchdog, and the kernel may spend most of a second finding
/// fresh pages for it on a machine whose memory is full of file cache.
pub const MAX_CALL_TIME: std::time::Duration =
    std::time::Duration::from_millis(if cfg!(debug_assertions) { 10_000 } else { 2_000 });

/// The stack a thread that runs scripts needs. A script can build a value nested thousands of
/// lists deep before its budgets stop it (Rhai does not limit nesting), and dropping such a
/// value recurses once per level: a thread with the platform's default stack (2 MiB for
/// spawned threads) could overflow and abort. The `rulebook` binary runs its work, and
/// `simulate` its workers, on threads of this size (address space, not memory: only the
/// pages touched are used); an embedding program should too.
pub const SCRIPT_STACK_BYTES: usize = 64 << 20;

/// Elements of engine work (a component moved, shuffled or listed) that count as one
/// operation of the budget.
pub const WORK_PER_OPERATION: u64 = 8;

/// The call in progress on this thread: what the progress check compares with.
#[derive(Clone, Copy)]
struct CallStart {
    live: i64,
    allocated: u64,
    work: u64,
    max_operations: u64,
    at: std::time::Duration,
}

/// The time on a monotonic clock, for the sandbox's time limit of a call ([`MAX_CALL_TIME`],
/// two seconds): read at the start of every call the engine makes, so it must be cheap. On
/// Linux, the coarse clock (a few nanoseconds, where `Instant::now` takes about twenty on the
/// virtual machines this runs on; it moves in steps of a few milliseconds, nothing against
/// two seconds); elsewhere, [`std::time::Instant`].
fn call_clock() -> std::time::Duration {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
        if unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) } == 0 {
            return std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32);
        }
    }
    static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    EPOCH.get_or_init(std::time::Instant::now).elapsed()
}

/// Where a call's rules and work sit while the script runs, shared with the `game` handles of
/// the call. The rules live in the slot, not in each handle: a handle is cloned for every
/// script function the call reaches, and the slot is this thread's own, while the rules' `Arc`
/// is shared by every thread of a run (cloning it per handle made `simulate --jobs 2` threads
/// contend for its reference count). A reused slot keeps the rules of its last call, so that
/// the calls of one game on a thread do not count references to them at all.
type WorkSlot = Arc<Mutex<CallSlot>>;

/// A work slot kept for the next call, with the `game` value a compiled script gave back
/// (a handle onto the slot: a script's value of a type of the engine's own is two
/// allocations, so a series of calls makes it once).
type KeptSlot = (WorkSlot, Option<Dynamic>);

/// What a [`WorkSlot`] holds: the rules of the call (kept after it for the next call) and its
/// work (only during the call).
#[derive(Default)]
pub(crate) struct CallSlot {
    rules: Option<Arc<Rules>>,
    work: Option<Work>,
}

thread_local! {
    static CALL: std::cell::Cell<Option<CallStart>> = const { std::cell::Cell::new(None) };
    /// Empty work slots of finished calls, reused by the next calls on this thread, each with
    /// the `game` value of its last call when the script gave it back (see [`KeptSlot`]).
    static SLOTS: std::cell::RefCell<Vec<KeptSlot>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Rhai's progress callback: every 256 operations, ends the call (with the reason as the
/// termination token) if its operations plus its engine work exceed the budget, or it keeps,
/// churns or takes more than its budget.
pub(crate) fn progress_check(ops: u64) -> Option<Dynamic> {
    if ops & 0xFF != 0 {
        return None;
    }
    let start = CALL.with(std::cell::Cell::get)?;
    let work = crate::alloc::work().wrapping_sub(start.work) / WORK_PER_OPERATION;
    let (live, allocated) = crate::alloc::counters();
    let reason = if ops.saturating_add(work) > start.max_operations {
        format!(
            "exceeded the budget of {} operations in one call, {work} of them charged for work the engine did (components moved, shuffled or listed); raise `[limits] max_operations` if the rule really needs it",
            start.max_operations
        )
    } else if live - start.live > MAX_CALL_MEMORY {
        format!(
            "used more than {} of memory in one call (a value that keeps growing?)",
            crate::files::human_bytes(MAX_CALL_MEMORY as u64)
        )
    } else if allocated.wrapping_sub(start.allocated) > MAX_CALL_ALLOCATED {
        format!(
            "copied more than {} of data in one call (large values copied in a loop?)",
            crate::files::human_bytes(MAX_CALL_ALLOCATED)
        )
    } else if call_clock().saturating_sub(start.at) > MAX_CALL_TIME {
        "ran past the sandbox's time limit for one call (built-in functions on very large values, called again and again?)".to_string()
    } else {
        return None;
    };
    Some(Dynamic::from(reason))
}

/// How script calls run on this thread: inside a transaction they may run compiled; after a
/// compiled call gave up, the transaction runs again with Rhai only.
#[derive(Clone, Copy, Default)]
struct Mode {
    in_transaction: bool,
    rhai_only: bool,
    gave_up: bool,
}

thread_local! {
    static MODE: std::cell::Cell<Mode> = const { std::cell::Cell::new(Mode { in_transaction: false, rhai_only: false, gave_up: false }) };
}

fn transaction_runs_compiled() -> bool {
    let m = MODE.with(std::cell::Cell::get);
    m.in_transaction && !m.rhai_only
}

fn gave_up() {
    MODE.with(|m| {
        let mut v = m.get();
        v.gave_up = true;
        m.set(v);
    });
}

/// Puts the thread's mode back when a transaction ends (also by a panic).
struct RestoreMode(Mode);

impl Drop for RestoreMode {
    fn drop(&mut self) {
        MODE.with(|m| m.set(self.0));
    }
}

/// Runs `body`, a transaction: work on a state that its caller keeps only if it succeeds
/// (a copy, or the state itself with a way back: see `session::rollback`), and that `body`
/// makes anew each time it runs. Script calls inside may run
/// compiled; if one of them gave up (something compiled code does not do exactly as Rhai,
/// an error included), `body` runs again with Rhai alone and that run is the result, so a
/// transaction's outcome is always Rhai's. Nested transactions belong to the outer one.
pub fn transaction<T>(mut body: impl FnMut() -> T) -> T {
    let outer = MODE.with(std::cell::Cell::get);
    if outer.in_transaction {
        return body();
    }
    let _restore = RestoreMode(outer);
    MODE.with(|m| m.set(Mode { in_transaction: true, rhai_only: outer.rhai_only, gave_up: false }));
    // One result, replaced by a second run's.
    let mut result = body();
    if MODE.with(std::cell::Cell::get).gave_up {
        drop(result);
        MODE.with(|m| m.set(Mode { in_transaction: true, rhai_only: true, gave_up: false }));
        result = body();
    }
    result
}

/// Runs `f` with every script call on this thread interpreted by Rhai (tests compare the
/// two ways of running scripts with it).
pub fn rhai_only<T>(f: impl FnOnce() -> T) -> T {
    let outer = MODE.with(std::cell::Cell::get);
    let _restore = RestoreMode(outer);
    MODE.with(|m| m.set(Mode { rhai_only: true, ..outer }));
    f()
}

type ProgramCopies = PerThread<Option<crate::compiled::Program>>;

/// Script files already parsed in this process: a game loaded again (`validate` loads each
/// folder once per variant and per parameter bound, each with its own [`Scripts`]) reuses the
/// parse of a file whose path and text it has seen. Every [`Scripts`] engine parses alike (the
/// limits are set after the files are added), and a parsed file's functions are shared by its
/// copies, so a copy costs a few reference counts.
mod parsed {
    use super::SyntaxError;
    use crate::diag::Location;
    use rhai::{Engine, AST};
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    /// Files kept at most; past it the cache starts again (a server that reloads edited
    /// files does not grow without bound).
    const MAX_FILES: usize = 256;

    static PARSED: Mutex<Option<HashMap<(PathBuf, String), AST>>> = Mutex::new(None);

    /// The file parsed, its functions' source set to its path: from the cache, or parsed by
    /// `engine` and kept. The lock is not held while parsing.
    pub(super) fn get_or_parse(engine: &Engine, path: &Path, text: &str) -> Result<AST, SyntaxError> {
        let key = (path.to_path_buf(), text.to_string());
        if let Some(ast) = PARSED.lock().ok().and_then(|m| m.as_ref()?.get(&key).cloned()) {
            return Ok(ast);
        }
        let mut ast = engine.compile(text).map_err(|e| SyntaxError {
            message: e.0.to_string(),
            location: Location {
                file: path.to_path_buf(),
                line: e.1.line().unwrap_or(1),
                column: e.1.position().unwrap_or(1),
            },
        })?;
        ast.set_source(path.display().to_string());
        if let Ok(mut cache) = PARSED.lock() {
            let files = cache.get_or_insert_with(HashMap::new);
            if files.len() >= MAX_FILES {
                files.clear();
            }
            files.insert(key, ast.clone());
        }
        Ok(ast)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_file_seen_before_is_not_parsed_again() {
            let engine = Engine::new();
            let (path, text) = (Path::new("cache-test/a.rhai"), "fn f(x) { x + 1 }");
            let first = get_or_parse(&engine, path, text).expect("parses");
            let again = get_or_parse(&engine, path, text).expect("parses");
            assert!(std::sync::Arc::ptr_eq(first.shared_lib(), again.shared_lib()), "the second is the kept parse");
            assert_eq!(again.source(), Some("cache-test/a.rhai"));
            // Another path or another text is parsed afresh.
            let elsewhere = get_or_parse(&engine, Path::new("cache-test/b.rhai"), text).expect("parses");
            assert!(!std::sync::Arc::ptr_eq(first.shared_lib(), elsewhere.shared_lib()));
            assert_eq!(elsewhere.source(), Some("cache-test/b.rhai"));
            let edited = get_or_parse(&engine, path, "fn f(x) { x + 2 }").expect("parses");
            assert!(!std::sync::Arc::ptr_eq(first.shared_lib(), edited.shared_lib()));
        }

        #[test]
        fn a_syntax_error_is_reported_each_time() {
            let engine = Engine::new();
            let path = Path::new("cache-test/bad.rhai");
            for _ in 0..2 {
                let e = get_or_parse(&engine, path, "fn f( {").expect_err("does not parse");
                assert_eq!(e.location.file, PathBuf::from("cache-test/bad.rhai"));
                assert_eq!(e.location.line, 1);
            }
        }
    }
}

/// A game's compiled scripts.
pub struct Scripts {
    engine: Engine,
    ast: AST,
    /// Each file's own AST, in the order added (compiled scripts are made from them).
    file_asts: Vec<AST>,
    /// The engine's functions, for compiled scripts to call directly.
    natives: Arc<crate::compiled::NativeTable>,
    /// The scripts compiled to closures, one copy per group of threads (see [`crate::per_thread`]),
    /// each made on its first call; `None` inside when compiled scripts are off.
    programs: ProgramCopies,
    /// Whether calls may run compiled (off with `RULEBOOK_SCRIPTS=rhai`).
    compiled: bool,
    /// The file each function (by name) was last defined in.
    files: std::collections::HashMap<String, std::path::PathBuf>,
    /// Limits in force.
    limits: Limits,
    /// What the game files' data counts against the limits (see [`Scripts::set_files_data`]).
    files_data: [usize; 3],
    /// Time spent per script function, when profiling is on (`rulebook simulate --profile`).
    profile: Mutex<Option<std::collections::HashMap<String, (u64, std::time::Duration)>>>,
    /// Whether profiling is on: read on every call without touching the lock, which all
    /// simulation threads share (locking it per call serialised `simulate --jobs N`).
    profiling: std::sync::atomic::AtomicBool,
}

/// A syntax error in a script file.
#[derive(Debug, Clone)]
pub struct SyntaxError {
    /// What is wrong.
    pub message: String,
    /// Where.
    pub location: Location,
}

/// A script that failed while running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError {
    /// The function the engine called.
    pub function: String,
    /// What went wrong.
    pub message: String,
    /// Where in which file, when known.
    pub location: Option<Location>,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(l) => write!(f, "{l}: script `{}` failed: {}", self.function, self.message),
            None => write!(f, "script `{}` failed: {}", self.function, self.message),
        }
    }
}

/// What a script call works on: the state, plus what the call adds to the log and the flow.
pub struct Work {
    /// The state being changed (boxed: a work moves into and out of every script call and
    /// transaction, and a state is several hundred bytes).
    pub state: Box<State>,
    /// Events produced.
    pub events: Vec<Event>,
    /// Steps pushed by the script, in the order pushed.
    pub pushed: Vec<Frame>,
    /// Whether to record events.
    pub logging: bool,
    /// Bytes the call has handed to the engine so far (see [`MAX_CALL_HANDED`]).
    pub handed: u64,
}

thread_local! {
    /// The state of this thread's last stand-in work (see [`Work::placeholder`]): never
    /// changed, only held while a call has the real work.
    static SPARE_STAND_IN: std::cell::Cell<Option<Box<State>>> = const { std::cell::Cell::new(None) };
    /// The state of this thread's last scratch work (see [`Work::scratch_copy`]), refilled in
    /// place by the next one.
    static SCRATCH: std::cell::Cell<Option<Box<State>>> = const { std::cell::Cell::new(None) };
}

/// The `game` value scripts receive: a handle onto the state of the call in progress.
#[derive(Clone)]
pub struct GameHandle {
    pub(crate) work: WorkSlot,
}

impl GameHandle {
    /// Runs `f` on the rules and the work of this call; its `Err` becomes a script error.
    pub(crate) fn with<T>(
        &self,
        f: impl FnOnce(&Arc<Rules>, &mut Work) -> Result<T, String>,
    ) -> Result<T, Box<EvalAltResult>> {
        let mut guard = self.work.lock().map_err(|_| runtime("game state is poisoned"))?;
        let CallSlot { rules: Some(rules), work: Some(work) } = &mut *guard else {
            return Err(runtime("the game handle is no longer valid outside the call it was given to"));
        };
        // While a derived value is computed, each function says what it read (`reads`).
        let recording = crate::reads::function_starts();
        let out = f(rules, work);
        if recording {
            crate::reads::function_done();
        }
        out.map_err(runtime)
    }
}

/// A runtime error for a script.
pub(crate) fn runtime(msg: impl Into<String>) -> Box<EvalAltResult> {
    Box::new(EvalAltResult::ErrorRuntime(Dynamic::from(msg.into()), rhai::Position::NONE))
}

impl Default for Scripts {
    fn default() -> Self {
        Self::new()
    }
}

impl Scripts {
    /// An empty script set with the full game API registered and the sandbox limits set.
    pub fn new() -> Self {
        let mut engine = Engine::new();
        engine.set_max_expr_depths(128, 64);
        engine.disable_symbol("eval");
        engine.on_progress(progress_check);
        // Rhai interns strings behind one lock the whole engine shares: with the `sync`
        // feature every simulation thread took it at run time (property names, map keys), so
        // `simulate --jobs 2` ran no faster than one job. No interning, no shared lock.
        engine.set_max_strings_interned(0);
        engine.on_print(|s| eprintln!("[script] {s}"));
        engine.on_debug(|s, src, pos| eprintln!("[script debug] {}:{pos}: {s}", src.unwrap_or("?")));
        let mut natives = crate::compiled::NativeTable::default();
        crate::api::register(&mut crate::compiled::Registry { engine: &mut engine, natives: &mut natives });
        let mut scripts = Scripts {
            engine,
            ast: AST::empty(),
            file_asts: Vec::new(),
            natives: Arc::new(natives),
            programs: ProgramCopies::default(),
            compiled: std::env::var("RULEBOOK_SCRIPTS").map_or(true, |v| v != "rhai"),
            files: Default::default(),
            limits: DEFAULT_LIMITS,
            files_data: [usize::MAX; 3],
            profile: Mutex::new(None),
            profiling: std::sync::atomic::AtomicBool::new(false),
        };
        scripts.set_limits(DEFAULT_LIMITS);
        scripts
    }

    /// Applies limits (the caller keeps them within [`HARD_CAPS`]).
    pub fn set_limits(&mut self, l: Limits) {
        self.engine.set_max_operations(l.max_operations);
        self.engine.set_max_call_levels(l.max_call_depth as usize);
        self.engine.set_max_string_size(l.max_string_size as usize);
        self.engine.set_max_array_size(l.max_array_size as usize);
        self.engine.set_max_map_size(l.max_map_size as usize);
        self.limits = l;
        self.programs = ProgramCopies::default();
    }

    /// Compiles one file and adds its functions, replacing same-named ones already added.
    pub fn add(&mut self, path: &Path, text: &str) -> Result<(), SyntaxError> {
        let ast = parsed::get_or_parse(&self.engine, path, text)?;
        for f in ast.iter_functions() {
            self.files.insert(f.name.to_string(), path.to_path_buf());
        }
        self.ast = self.ast.merge(&ast);
        self.file_asts.push(ast);
        self.programs = ProgramCopies::default();
        Ok(())
    }

    /// Starts measuring the time spent in each script function (measuring does not change
    /// any game: it only reads the clock around calls).
    pub fn start_profile(&self) {
        if let Ok(mut p) = self.profile.lock() {
            *p = Some(Default::default());
        }
        for program in self.programs.iter().filter_map(|p| p.get().and_then(Option::as_ref)) {
            program.reset_nested_profile();
        }
        self.profiling.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Calls of script functions by other script functions since [`Scripts::start_profile`]
    /// (in compiled runs: a transaction Rhai runs again is not counted), most time first; the
    /// time of a call includes its callees'.
    pub fn nested_profile(&self) -> Vec<(String, u64, std::time::Duration)> {
        let mut all: std::collections::HashMap<String, (u64, std::time::Duration)> = Default::default();
        for program in self.programs.iter().filter_map(|p| p.get().and_then(Option::as_ref)) {
            for (name, calls, time) in program.nested_profile() {
                let e = all.entry(name).or_default();
                e.0 += calls;
                e.1 += time;
            }
        }
        let mut out: Vec<_> = all.into_iter().map(|(k, (n, t))| (k, n, t)).collect();
        out.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// Calls and time per script function since [`Scripts::start_profile`], most time first.
    pub fn profile(&self) -> Vec<(String, u64, std::time::Duration)> {
        let mut out: Vec<(String, u64, std::time::Duration)> = self
            .profile
            .lock()
            .ok()
            .and_then(|p| p.as_ref().map(|m| m.iter().map(|(k, (n, t))| (k.clone(), *n, *t)).collect()))
            .unwrap_or_default();
        out.sort_by_key(|e| std::cmp::Reverse(e.2));
        out
    }

    /// The registered API's metadata as JSON (Rhai's format), without the standard library.
    pub fn metadata_json(&self) -> String {
        self.engine.gen_fn_metadata_to_json(false).unwrap_or_default()
    }

    /// The file a script function was (last) defined in.
    pub fn function_file(&self, name: &str) -> Option<&Path> {
        self.files.get(name).map(std::path::PathBuf::as_path)
    }

    /// Where a script function is defined: its `fn` line in the file it was (last) defined in.
    pub fn function_location(&self, name: &str) -> Option<Location> {
        let path = self.function_file(name)?;
        let text = crate::files::read_text(path, crate::files::MAX_GAME_FILE_BYTES).ok()?;
        let offset = text.find(&format!("fn {name}("))?;
        Some(crate::diag::locate_in(path, &text, offset))
    }

    /// The fields of parameter `param` (counting `game`, the first) of the script function `f`
    /// called with `args` arguments after `game`, that it reads when it reads that parameter
    /// only through properties (`trick.card.number`): a map the engine makes for the call then
    /// needs no other field. `None` when the function may see the whole value.
    pub fn fields_read(&self, f: &FnRef, args: usize, param: usize) -> Option<std::collections::BTreeSet<String>> {
        let arity = 1 + args + usize::from(f.with_ctx);
        crate::compiled::fields_read(&self.file_asts, &f.name, arity, param)
    }

    /// [`Scripts::fields_read`] for several `(function, args, param)` at once (each file's
    /// functions are found once for all of them).
    pub fn fields_read_each(
        &self,
        wanted: &[(&FnRef, usize, usize)],
    ) -> Vec<Option<std::collections::BTreeSet<String>>> {
        let wanted: Vec<(&str, usize, usize)> = wanted
            .iter()
            .map(|(f, args, param)| (f.name.as_str(), 1 + args + usize::from(f.with_ctx), *param))
            .collect();
        crate::compiled::fields_read_each(&self.file_asts, &wanted)
    }

    /// Every script function as `(name, number of parameters)`.
    pub fn function_arities(&self) -> HashSet<(String, usize)> {
        self.ast.iter_functions().map(|f| (f.name.to_string(), f.params.len())).collect()
    }

    /// Tells the compiled scripts what all the data of the game's files (graphs, tables)
    /// counts against the size limits as script values: `[array elements, map entries, bytes
    /// of strings]`. Until told, results made of that data are checked like any other.
    pub fn set_files_data(&mut self, sizes: [usize; 3]) {
        self.files_data = sizes;
    }

    /// Turns compiled scripts on or off for this game (they are on unless the environment
    /// says `RULEBOOK_SCRIPTS=rhai`); off, every call is interpreted by Rhai.
    pub fn set_compiled(&mut self, on: bool) {
        self.compiled = on;
    }

    /// The compiled program (compiled on first use).
    pub fn program(&self) -> Option<&crate::compiled::Program> {
        crate::per_thread::this_thread(&self.programs)
            .get_or_init(|| {
                self.compiled.then(|| {
                    let limits = crate::compiled::Limits {
                        max_string: self.limits.max_string_size as usize,
                        max_array: self.limits.max_array_size as usize,
                        max_map: self.limits.max_map_size as usize,
                        max_depth: self.limits.max_call_depth as usize,
                        files_data: self.files_data,
                    };
                    let p = crate::compiled::Program::compile(&self.file_asts, self.natives.clone(), limits);
                    if crate::compiled::debugging() {
                        let (n, left) = p.coverage();
                        let inlined = p.inlined().len();
                        eprintln!(
                            "compiled scripts: {n} functions compiled, {} left to Rhai, {inlined} calls inlined",
                            left.len()
                        );
                        for (f, why) in left {
                            eprintln!("  {f}: {why}");
                        }
                    }
                    p
                })
            })
            .as_ref()
    }

    /// Calls a script function with `game` first, then `args`, then `ctx` if the function
    /// takes it. Returns the work (changed or not) and the result.
    pub fn call(
        &self,
        rules: &Arc<Rules>,
        work: Work,
        f: &FnRef,
        args: Vec<Dynamic>,
        ctx: &Value,
    ) -> (Work, Result<Dynamic, Box<ScriptError>>) {
        self.call_giving_back(rules, work, f, args, ctx, &mut [])
    }

    /// [`Scripts::call`], with `back[k]` receiving `args[k]` again when the compiled function
    /// only read it (see [`crate::compiled::Program::run_giving_back`]); it stays `()`
    /// otherwise.
    pub fn call_giving_back(
        &self,
        rules: &Arc<Rules>,
        work: Work,
        f: &FnRef,
        args: Vec<Dynamic>,
        ctx: &Value,
        back: &mut [Dynamic],
    ) -> (Work, Result<Dynamic, Box<ScriptError>>) {
        // The budget of bytes handed to the engine is per call, as documented: a transaction
        // of many calls (a long stretch of flow) does not add them up.
        let mut work = work;
        work.handed = 0;
        let (slot, kept_handle) = SLOTS.with(|s| s.borrow_mut().pop()).unwrap_or_default();
        if let Ok(mut g) = slot.lock() {
            if !g.rules.as_ref().is_some_and(|r| Arc::ptr_eq(r, rules)) {
                g.rules = Some(rules.clone());
            }
            g.work = Some(work);
        }
        let mut all = crate::compiled::spare_vec();
        all.push(kept_handle.unwrap_or_else(|| Dynamic::from(GameHandle { work: slot.clone() })));
        all.extend(args);
        if f.with_ctx {
            all.push(ctx.to_dynamic());
        }
        let options = CallFnOptions::new().eval_ast(false).rewind_scope(false);
        let profiling = self.profiling.load(std::sync::atomic::Ordering::Relaxed);
        let started = profiling.then(std::time::Instant::now);
        let (live, allocated) = crate::alloc::counters();
        let call = CallStart {
            live,
            allocated,
            work: crate::alloc::work(),
            max_operations: self.limits.max_operations,
            at: call_clock(),
        };
        let outer = CALL.with(|c| c.replace(Some(call)));
        let compiled = if transaction_runs_compiled() {
            self.program().and_then(|p| p.entry(&f.name, all.len()).map(|i| (p, i)))
        } else {
            None
        };
        // The `game` value the compiled script gives back, when it only read it.
        let mut given_back = Dynamic::UNIT;
        let result = match compiled {
            Some((program, idx)) => if back.is_empty() {
                // Position 0 of `all` is the game handle (an array: nothing to drop after).
                let mut lent = [Dynamic::UNIT];
                let r = program.run_giving_back(&self.engine, idx, all, profiling, &mut lent);
                [given_back] = lent;
                r
            } else {
                let mut lent: smallvec::SmallVec<[Dynamic; 4]> = smallvec::smallvec![Dynamic::UNIT; back.len() + 1];
                let r = program.run_giving_back(&self.engine, idx, all, profiling, &mut lent);
                let mut lent = lent.into_iter();
                given_back = lent.next().unwrap_or(Dynamic::UNIT);
                for (b, v) in back.iter_mut().zip(lent) {
                    *b = v;
                }
                r
            }
            .ok_or_else(|| {
                gave_up();
                Box::new(EvalAltResult::ErrorRuntime(
                    Dynamic::from("a compiled script gave up; Rhai runs the transaction again".to_string()),
                    rhai::Position::NONE,
                ))
            }),
            None => self.engine.call_fn_with_options::<Dynamic>(options, &mut Scope::new(), &self.ast, &f.name, all),
        };
        CALL.with(|c| c.set(outer));
        if let Some(t) = started {
            if let Ok(mut p) = self.profile.lock() {
                if let Some(m) = p.as_mut() {
                    let e = m.entry(f.name.clone()).or_default();
                    e.0 += 1;
                    e.1 += t.elapsed();
                }
            }
        }
        let work = slot.lock().ok().and_then(|mut g| g.work.take()).expect("script work is returned after the call");
        // Nothing else holds the slot once the call is over (a script cannot keep `game`): the
        // next call on this thread takes it again instead of allocating one, and with it the
        // `game` value given back (which holds the slot too).
        let kept = (!given_back.is_unit()).then_some(given_back);
        if Arc::strong_count(&slot) == 1 + usize::from(kept.is_some()) {
            SLOTS.with(|s| s.borrow_mut().push((slot, kept)));
        }
        (work, result.map_err(|e| Box::new(describe(&f.name, &e, &self.files, &self.limits))))
    }
}

/// Turns a Rhai error into a located script error: the innermost failing position, in the file
/// of the innermost function it happened in.
fn describe(
    function: &str,
    err: &EvalAltResult,
    files: &std::collections::HashMap<String, std::path::PathBuf>,
    limits: &Limits,
) -> ScriptError {
    let mut source: Option<String> = files.get(function).map(|p| p.display().to_string());
    let mut e = err;
    let mut trail = vec![function.to_string()];
    while let EvalAltResult::ErrorInFunctionCall(name, src, inner, _) = e {
        if let Some(p) = files.get(name.as_str()) {
            source = Some(p.display().to_string());
        } else if !src.is_empty() {
            source = Some(src.clone());
        }
        if trail.last() != Some(name) {
            trail.push(name.clone());
        }
        e = inner;
    }
    let pos = e.position();
    let mut message = match e {
        EvalAltResult::ErrorRuntime(d, _) => d.to_string(),
        EvalAltResult::ErrorStackOverflow(_) => format!(
            "runaway recursion: more than {} nested calls (raise `[limits] max_call_depth` if the rule really needs them)",
            limits.max_call_depth
        ),
        EvalAltResult::ErrorTerminated(reason, _) => {
            format!("{reason}; the script sandbox ends such calls (see `[limits]` in the authoring guide)")
        }
        EvalAltResult::ErrorDataTooLarge(what, _) => format!(
            "{what} exceeds the sandbox's limit (strings {} characters, arrays {} elements, maps {} entries; see `[limits]`)",
            limits.max_string_size, limits.max_array_size, limits.max_map_size
        ),
        EvalAltResult::ErrorTooManyOperations(_) => {
            format!(
                "exceeded the budget of {} operations in one call (an endless loop? raise `[limits] max_operations` if not)",
                limits.max_operations
            )
        }
        other => {
            let text = other.to_string();
            match text.rfind(" (line ") {
                Some(i) => text[..i].to_string(),
                None => text,
            }
        }
    };
    if trail.len() > 1 {
        message.push_str(&format!(" (in {})", trail.join(" -> ")));
    }
    let location = match (source, pos.line()) {
        (Some(src), Some(line)) => Some(Location { file: src.into(), line, column: pos.position().unwrap_or(1) }),
        // Some errors (the operation budget) carry no position: point at the function.
        (Some(src), None) => {
            let name = trail.last().map(String::as_str).unwrap_or(function);
            let text = crate::files::read_text(Path::new(&src), crate::files::MAX_GAME_FILE_BYTES).unwrap_or_default();
            let offset = text.find(&format!("fn {name}(")).unwrap_or(0);
            Some(crate::diag::locate_in(Path::new(&src), &text, offset))
        }
        _ => None,
    };
    ScriptError { function: function.to_string(), message, location }
}

impl Work {
    /// Work on a state, recording events if `logging`.
    pub fn new(state: impl Into<Box<State>>, logging: bool) -> Work {
        Work { state: state.into(), events: Vec::new(), pushed: Vec::new(), logging, handed: 0 }
    }

    /// Converts a value a script hands to the engine, charging it to the call's budget
    /// ([`MAX_CALL_HANDED`]); depth and size are checked before anything is copied.
    pub fn take_value(&mut self, d: &Dynamic) -> Result<Value, String> {
        self.measure_handed(d)?;
        crate::convert::convert_dynamic(d)
    }

    /// Measures a value a script hands to the engine (depth, size, whether it is plain data:
    /// see [`crate::convert::measure`]) and charges it to the call's budget
    /// ([`MAX_CALL_HANDED`]), before anything is copied.
    pub(crate) fn measure_handed(&mut self, d: &Dynamic) -> Result<crate::convert::Measured, String> {
        let measured = crate::convert::measure(d, crate::value::MAX_VALUE_BYTES)?;
        self.hand(measured.bytes)?;
        Ok(measured)
    }

    /// Charges `bytes` handed to the engine outside [`Work::take_value`] (a log line) to the
    /// call's budget ([`MAX_CALL_HANDED`]).
    pub fn hand(&mut self, bytes: u64) -> Result<(), String> {
        if self.handed + bytes > MAX_CALL_HANDED {
            return Err(format!(
                "one call may hand the engine at most {} (variables, properties, contexts, log lines); this one has handed {} bytes and would add {bytes} more",
                crate::files::human_bytes(MAX_CALL_HANDED),
                self.handed
            ));
        }
        self.handed += bytes;
        Ok(())
    }

    /// Charges `bytes` the engine will keep for the rest of the game (a variable's value, a
    /// created component, a log line) to the game's budget ([`MAX_GAME_KEPT`]) before they are
    /// stored; `freed` bytes (the value a variable held) are given back.
    pub fn keep(&mut self, bytes: u64, freed: u64) -> Result<(), String> {
        let kept = self.state.script_bytes.saturating_sub(freed) + bytes;
        if kept > MAX_GAME_KEPT {
            return Err(format!(
                "the scripts of one game may make the engine keep at most {} (variables, components, log lines)",
                crate::files::human_bytes(MAX_GAME_KEPT)
            ));
        }
        self.state.script_bytes = kept;
        Ok(())
    }

    /// A stand-in while the real work is lent to a script (the state of the last one given
    /// back on this thread: making one allocates a state).
    pub(crate) fn placeholder() -> Work {
        let state = SPARE_STAND_IN.with(std::cell::Cell::take).unwrap_or_else(|| Box::new(State::empty()));
        Work::new(state, false)
    }

    /// Gives back a stand-in made by [`Work::placeholder`], for the next call on this thread.
    pub(crate) fn give_back_placeholder(self) {
        SPARE_STAND_IN.with(|c| c.set(Some(self.state)));
    }

    /// Work on a copy of `st` whose changes will be dropped (a label, a derived value, an
    /// evaluation), without a log and without the pending decision ([`State::copy_for_script`]).
    /// The copy is made into the buffers of the last one this thread gave back
    /// ([`Work::give_back_scratch`]), so it allocates little.
    pub(crate) fn scratch_copy(st: &State) -> Work {
        let mut state = SCRATCH.with(std::cell::Cell::take).unwrap_or_else(|| Box::new(State::empty()));
        state.copy_for_script(st);
        Work::new(state, false)
    }

    /// Gives back the copy of [`Work::scratch_copy`], for the next one on this thread.
    pub(crate) fn give_back_scratch(self) {
        SCRATCH.with(|c| c.set(Some(self.state)));
    }
}
