//! A compiled adjoint as a Python host calls it: argument values in, results or "run the
//! interpreted adjoint" out. The host-specific wrappers (RustPython's `NativeFunction`,
//! the CPython bridge's) only convert values and report refusals.

use super::{Compiled, Program, Run, Scalar, Ty, Value};
use smallvec::SmallVec;
use std::sync::{Arc, Mutex};

pub struct NativeEntry {
    pub program: Arc<Program>,
    /// The signature of the last native call and its code (the common case: every call
    /// has the same argument types).
    last: Mutex<Option<(Vec<Ty>, Arc<Compiled>)>>,
    /// How many calls ran to the end as machine code (`__tangent_native_calls__`: a
    /// bail or a refused signature does not count).
    pub native_calls: std::sync::atomic::AtomicUsize,
}

/// What a call of a `NativeEntry` did.
pub enum Call {
    /// The native results, and whether they form a tuple.
    Done(Vec<Value>, bool),
    /// Run the interpreted adjoint (arguments outside the subset, or a bail: Python
    /// would raise or compute differently).
    Interpret,
    /// The compiler refuses this signature: why, and whether this is the first call with
    /// it (a refusal is reported once).
    Refused { message: String, first: bool },
}

impl NativeEntry {
    pub fn new(program: Program) -> NativeEntry {
        NativeEntry {
            program: Arc::new(program),
            last: Mutex::new(None),
            native_calls: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The generated function `entry` of `source`, compiled for its likely signature
    /// (see `Program::check`), or why it cannot be. `module_file` is the user's module,
    /// which holds the primal functions the adjoint calls.
    pub fn prepare(source: &str, entry: &str, module_file: &str) -> Result<NativeEntry, String> {
        let module = std::fs::read_to_string(module_file).ok();
        let program = Program::new(source, entry, module.as_deref(), crate::rules::in_force())
            .map_err(|r| r.what)?;
        program.check().map_err(|r| program.describe(&r))?;
        Ok(NativeEntry::new(program))
    }

    /// Calls the machine code with positional arguments (`None` in `given`: an argument
    /// that is not a float, int, bool or float64 array of 1 or 2 dimensions).
    ///
    /// `globals` are the live values of `program.globals()`, in that order.
    pub fn call(&self, given: &[Option<Scalar>], globals: &[Option<Scalar>]) -> Call {
        // The arguments, the defaults of the parameters not given, then the module-level
        // values (on the stack: a call allocates nothing it does not return).
        let mut all: SmallVec<[Scalar; 8]> = SmallVec::new();
        let Some(defaults) = self.program.defaults_after(given.len()) else {
            return Call::Interpret;
        };
        if globals.len() != self.program.globals().len() {
            return Call::Interpret;
        }
        for v in given
            .iter()
            .copied()
            .chain(defaults)
            .chain(globals.iter().copied())
        {
            match v {
                Some(v) => all.push(v),
                None => return Call::Interpret,
            }
        }
        // The common case: the types of the last call (compared without collecting them).
        let cached = {
            let last = self.last.lock().unwrap_or_else(|e| e.into_inner());
            last.as_ref()
                .filter(|(t, _)| {
                    t.len() == all.len() && t.iter().zip(&all).all(|(t, s)| s.ty() == Some(*t))
                })
                .map(|(_, c)| c.clone())
        };
        let compiled = match cached {
            Some(c) => c,
            None => {
                let Some(tys) = all.iter().map(|s| s.ty()).collect::<Option<Vec<_>>>() else {
                    return Call::Interpret;
                };
                match self.program.specialize_once(&tys) {
                    (Ok(c), _) => {
                        *self.last.lock().unwrap_or_else(|e| e.into_inner()) =
                            Some((tys, c.clone()));
                        c
                    }
                    (Err(r), first) => {
                        let message = format!(
                            "compile='native': `{}` runs interpreted for arguments ({}): {}",
                            self.program.name(),
                            tys.iter().map(|t| t.name()).collect::<Vec<_>>().join(", "),
                            self.program.describe(&r)
                        );
                        return Call::Refused { message, first };
                    }
                }
            }
        };
        match compiled.run(&all) {
            Run::Bail => Call::Interpret,
            Run::Done(outs) => {
                self.native_calls
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Call::Done(outs, compiled.returns_tuple())
            }
        }
    }
}
