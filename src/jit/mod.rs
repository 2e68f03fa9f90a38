//! `compile='native'`: generated adjoints of scalar code compiled with Cranelift.
//!
//! A `Program` is the generated source's entry function; `specialize` types it for the
//! argument types of a call (float, int, bool), lowers it (codegen.rs) and keeps the
//! machine code per signature. The compiled code runs with a native, typed tape and
//! reports "bail" wherever Python would raise or leave the machine's number types;
//! the caller then runs the interpreted adjoint, so results and errors are Python's.

mod codegen;
mod memory;
pub mod runtime;
pub mod typing;

use crate::syntax::ir::*;
use crate::syntax::SourceModule;
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
pub use typing::{Refusal, Ty};

/// A value crossing into or out of native code.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Float(f64),
    Int(i64),
    Bool(bool),
    None,
}

impl Scalar {
    pub fn ty(self) -> Option<Ty> {
        match self {
            Scalar::Float(_) => Some(Ty::Float),
            Scalar::Int(_) => Some(Ty::Int),
            Scalar::Bool(_) => Some(Ty::Bool),
            Scalar::None => None,
        }
    }
    fn word(self) -> u64 {
        match self {
            Scalar::Float(v) => v.to_bits(),
            Scalar::Int(v) => v as u64,
            Scalar::Bool(v) => u64::from(v),
            Scalar::None => 0,
        }
    }
}

/// The outcome of a native call.
#[derive(Debug, PartialEq)]
pub enum Run {
    /// The returned values (none: the function returned None).
    Done(Vec<Scalar>),
    /// Python would raise or compute differently here: run the interpreted adjoint.
    Bail,
}

/// Machine code for one signature.
pub struct Compiled {
    code: memory::ExecMem,
    outputs: Vec<Ty>,
}

type Entry = unsafe extern "C" fn(*mut runtime::Tape, *const u64, *mut u64) -> i32;

impl Compiled {
    pub fn run(&self, args: &[Scalar]) -> Run {
        let words: Vec<u64> = args.iter().map(|a| a.word()).collect();
        let mut outs = vec![0u64; 2 * self.outputs.len().max(1)];
        let mut tape = runtime::Tape::new();
        // SAFETY: the code was generated for this signature: it reads one word per
        // parameter from `words`, writes two per output into `outs`, and uses `tape`
        // only through the layout of `runtime::Tape`.
        let status = unsafe {
            let f: Entry = std::mem::transmute(self.code.ptr());
            f(&mut tape, words.as_ptr(), outs.as_mut_ptr())
        };
        if status != 0 {
            return Run::Bail;
        }
        Run::Done(
            self.outputs
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    let (w, none) = (outs[2 * k], outs[2 * k + 1] != 0);
                    match (none, t) {
                        (true, _) => Scalar::None,
                        (_, Ty::Float) => Scalar::Float(f64::from_bits(w)),
                        (_, Ty::Bool) => Scalar::Bool(w != 0),
                        _ => Scalar::Int(w as i64),
                    }
                })
                .collect(),
        )
    }

    /// Whether the function returns a tuple (several values) rather than one value.
    pub fn returns_tuple(&self) -> bool {
        self.outputs.len() > 1
    }
}

/// Per argument-type signature: the machine code, or why there is none.
type Specializations = HashMap<Vec<Ty>, Result<Arc<Compiled>, Refusal>>;

/// The generated entry function and its compiled signatures.
pub struct Program {
    def: FuncDef,
    source: String,
    specs: Mutex<Specializations>,
}

fn isa() -> Result<&'static OwnedTargetIsa, String> {
    static ISA: OnceLock<Result<OwnedTargetIsa, String>> = OnceLock::new();
    ISA.get_or_init(|| {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").map_err(|e| e.to_string())?;
        // The IR verifier costs a good share of compile time; the tests run the
        // generated code against the interpreter instead.
        flags
            .set("enable_verifier", "false")
            .map_err(|e| e.to_string())?;
        let builder = cranelift_codegen::isa::lookup(target_lexicon::Triple::host())
            .map_err(|e| format!("no native code generator for this machine: {e}"))?;
        builder
            .finish(settings::Flags::new(flags))
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(Clone::clone)
}

impl Program {
    /// Reads the entry function `entry` of generated source.
    pub fn new(source: &str, entry: &str) -> Result<Program, Refusal> {
        let module = SourceModule::parse("<generated>", source)
            .map_err(|d| Refusal::new(Span::SYNTHETIC, d.to_string()))?;
        let def = module
            .lower_function(entry)
            .map_err(|d| Refusal::new(Span::SYNTHETIC, d.to_string()))?;
        Ok(Program {
            def,
            source: source.to_owned(),
            specs: Mutex::new(HashMap::new()),
        })
    }

    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// The number of parameters.
    pub fn arity(&self) -> usize {
        self.def.params.len()
    }

    /// The arguments of a call with the parameters' literal defaults filled in, or None
    /// if a missing parameter has no literal default.
    pub fn with_defaults(&self, args: &[Scalar]) -> Option<Vec<Scalar>> {
        if args.len() > self.def.params.len() {
            return None;
        }
        let mut all = args.to_vec();
        for p in &self.def.params[args.len()..] {
            let lit = match p.default.as_ref().map(|d| &d.kind) {
                Some(ExprKind::Num(t)) => match t.parse::<i64>() {
                    Ok(i) => Scalar::Int(i),
                    Err(_) => Scalar::Float(t.parse().ok()?),
                },
                Some(ExprKind::Bool(b)) => Scalar::Bool(*b),
                _ => return None,
            };
            all.push(lit);
        }
        Some(all)
    }

    /// The machine code for arguments of types `tys`, compiled on first use.
    pub fn specialize(&self, tys: &[Ty]) -> Result<Arc<Compiled>, Refusal> {
        self.specialize_once(tys).0
    }

    /// `specialize`, and whether this call did the compiling (so that a refusal is
    /// reported once per signature).
    pub fn specialize_once(&self, tys: &[Ty]) -> (Result<Arc<Compiled>, Refusal>, bool) {
        let mut specs = self.specs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = specs.get(tys) {
            return (r.clone(), false);
        }
        let r = self.compile(tys).map(Arc::new);
        specs.insert(tys.to_vec(), r.clone());
        (r, true)
    }

    /// Compiles the likely signature: ints for the parameters a `range(...)` reads,
    /// floats for the others (a seed's float default included). Other signatures are
    /// compiled when a call needs them.
    pub fn check(&self) -> Result<(), Refusal> {
        let mut counters: Vec<String> = Vec::new();
        walk_stmts(&self.def.body, &mut |s| {
            let mut visit = |e: &Expr| {
                e.walk(&mut |x| {
                    if let ExprKind::Call { func, args, .. } = &x.kind {
                        if typing::callee_path(func).as_deref() == Some("range") {
                            for a in args {
                                a.names(&mut counters);
                            }
                        }
                    }
                })
            };
            crate::ad::names::stmt_exprs(s, &mut visit);
        });
        let tys: Vec<Ty> = self
            .def
            .params
            .iter()
            .map(|p| {
                if counters.contains(&p.name) {
                    Ty::Int
                } else {
                    Ty::Float
                }
            })
            .collect();
        self.specialize(&tys).map(|_| ())
    }

    fn compile(&self, tys: &[Ty]) -> Result<Compiled, Refusal> {
        let isa = isa().map_err(|e| Refusal::new(self.def.span, e))?;
        let vars = typing::infer(&self.def, tys)?;
        let lowered = codegen::lower(&self.def, tys, &vars, &**isa)?;
        let mut ctx = cranelift_codegen::Context::for_function(lowered.func);
        let mut ctrl = cranelift_codegen::control::ControlPlane::default();
        let code = ctx.compile(&**isa, &mut ctrl).map_err(|e| {
            Refusal::new(
                self.def.span,
                format!("code generation failed: {:?}", e.inner),
            )
        })?;
        if !code.buffer.relocs().is_empty() {
            return Err(Refusal::new(self.def.span, "code with relocations"));
        }
        let mem = memory::ExecMem::new(code.code_buffer())
            .map_err(|e| Refusal::new(self.def.span, format!("executable memory: {e}")))?;
        Ok(Compiled {
            code: mem,
            outputs: lowered.outputs,
        })
    }

    /// "line N: `code`: what" for a refusal, N and code from the generated source.
    pub fn describe(&self, r: &Refusal) -> String {
        if r.span.is_synthetic() {
            return r.what.clone();
        }
        let start = r.span.start as usize;
        let line = self.source[..start.min(self.source.len())]
            .matches('\n')
            .count()
            + 1;
        let text = self.source.lines().nth(line - 1).unwrap_or("").trim();
        format!("{} (line {line} of the generated code: `{text}`)", r.what)
    }
}
