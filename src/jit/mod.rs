//! `compile='native'`: generated adjoints of scalar code compiled with Cranelift.
//!
//! A `Program` is the generated source's entry function; `specialize` types it for the
//! argument types of a call (float, int, bool), lowers it (codegen.rs) and keeps the
//! machine code per signature. The compiled code runs with a native, typed tape and
//! reports "bail" wherever Python would raise or leave the machine's number types;
//! the caller then runs the interpreted adjoint, so results and errors are Python's.

mod array_code;
pub mod array_runtime;
pub mod arrays;
mod call_code;
mod codegen;
mod eager_gradients;
mod elementwise;
mod elementwise_code;
mod entry;
mod expr_code;
mod memory;
mod precision;
mod precision_code;
mod prepare;
mod program;
pub mod runtime;
mod tape_elision;
mod tuples;
pub mod typing;

use crate::rules::{NativeScalar, RuleSet};
use crate::syntax::ir::*;
use crate::syntax::SourceModule;
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
pub use entry::{Call, NativeEntry};
pub use precision::{
    check_numpy_kernel, comparisons_give_python_bools, float32_functions_round_double,
    numpy_kernel_agrees_on, numpy_kernel_samples, NUMPY_KERNELS,
};
pub use program::Program;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
pub use typing::{Refusal, Ty};

/// A value crossing into native code (and a scalar out of it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A Python float.
    Float(f64),
    /// A `numpy.float32` (its value, exact in float32) and a `numpy.float64`, arguments
    /// and results of code with float32 values (`precision.rs`).
    Single(f64),
    Double(f64),
    Int(i64),
    Bool(bool),
    None,
    /// A float64 array argument: the address of its descriptor, which the caller keeps
    /// (with the array and, in the embedded host, its read lock) for the whole call.
    Array(ArrayArg),
    /// A dict of floats with string keys: its values in key order (`containers.rs`).
    Dict(DictArg),
    /// A tuple or list of floats: a 1-d descriptor of a copy of its elements, which the
    /// caller keeps for the whole call (`containers.rs`).
    Seq(ArrayArg, u8),
}

/// A dict argument: the address of its values (kept by the caller for the whole call)
/// and its key set's number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DictArg {
    values: usize,
    keys: u32,
    record: bool,
}

impl DictArg {
    pub fn new(d: &typing::containers::DictValues) -> DictArg {
        DictArg {
            record: d.record,
            values: d.values.as_ptr() as usize,
            keys: d.keys,
        }
    }
}

/// An array argument: its descriptor's address and its dimension count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArrayArg {
    desc: usize,
    ndim: u8,
    elem: arrays::Elem,
}

impl ArrayArg {
    /// The argument for a descriptor the caller keeps alive (and unchanged) until the
    /// call returns.
    pub fn new(desc: &arrays::ArrayDesc) -> ArrayArg {
        ArrayArg {
            desc: desc as *const arrays::ArrayDesc as usize,
            ndim: desc.ndim as u8,
            elem: desc.elem,
        }
    }
}

impl Scalar {
    /// An argument as the hosts convert it: an array's descriptor, else a dict's values,
    /// else a sequence's elements, else the number `number` gives (None: the argument
    /// runs interpreted).
    pub fn of_arg(
        desc: Option<&arrays::ArrayDesc>,
        dict: Option<&typing::containers::DictValues>,
        seq: Option<&typing::containers::SeqValues>,
        number: impl FnOnce() -> Option<Scalar>,
    ) -> Option<Scalar> {
        match (desc, dict, seq) {
            (Some(d), _, _) => Some(Scalar::Array(ArrayArg::new(d))),
            (_, Some(d), _) => Some(Scalar::Dict(DictArg::new(d))),
            (_, _, Some(s)) => Some(Scalar::Seq(ArrayArg::new(&s.desc), s.kind)),
            _ => number(),
        }
    }

    /// A float's value and NumPy kind (`typing::containers::PYTHON`, `SINGLE`, `DOUBLE`); None
    /// for anything else.
    pub fn float_kind(self) -> Option<(f64, u8)> {
        match self {
            Scalar::Float(v) => Some((v, typing::containers::PYTHON)),
            Scalar::Single(v) => Some((v, typing::containers::SINGLE)),
            Scalar::Double(v) => Some((v, typing::containers::DOUBLE)),
            _ => None,
        }
    }

    pub fn ty(self) -> Option<Ty> {
        match self {
            Scalar::Float(_) => Some(Ty::Float),
            Scalar::Single(_) => Some(Ty::Single),
            Scalar::Double(_) => Some(Ty::Double),
            Scalar::Int(_) => Some(Ty::Int),
            Scalar::Bool(_) => Some(Ty::Bool),
            Scalar::None => None,
            Scalar::Array(a) => Some(match a.elem {
                arrays::Elem::F64 => Ty::Array(a.ndim),
                arrays::Elem::I64 => Ty::IntArray(a.ndim),
                arrays::Elem::F32 => Ty::Array32(a.ndim),
            }),
            Scalar::Dict(d) if d.record => Some(Ty::Record(d.keys)),
            Scalar::Dict(d) => Some(Ty::Dict(d.keys)),
            Scalar::Seq(_, kind) => Some(Ty::Seq(kind)),
        }
    }
    fn word(self) -> u64 {
        match self {
            Scalar::Float(v) | Scalar::Single(v) | Scalar::Double(v) => v.to_bits(),
            Scalar::Int(v) => v as u64,
            Scalar::Bool(v) => u64::from(v),
            Scalar::None => 0,
            Scalar::Array(a) => a.desc as u64,
            Scalar::Dict(d) => d.values as u64,
            Scalar::Seq(a, _) => a.desc as u64,
        }
    }
}

/// A value out of native code: a scalar, or an array the run made.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Scalar(Scalar),
    Array(arrays::NativeArray),
}

/// The outcome of a native call.
#[derive(Debug, PartialEq)]
pub enum Run {
    /// The returned values (none: the function returned None).
    Done(Vec<Value>),
    /// Python would raise or compute differently here: run the interpreted adjoint.
    Bail,
}

/// Machine code for one signature.
pub struct Compiled {
    code: memory::ExecMem,
    outputs: Vec<Ty>,
    /// The elementwise programs the code points to.
    #[allow(clippy::vec_box)] // boxed: the code holds their addresses
    _programs: Vec<Box<elementwise::Program>>,
}

type Entry = unsafe extern "C" fn(*mut runtime::Tape, *const u64, *mut u64) -> i32;

impl Compiled {
    pub fn run(&self, args: &[Scalar]) -> Run {
        /// What a run needs besides its arguments: the tape, and the argument and
        /// result words (kept between runs: a call allocates nothing it does not return).
        #[derive(Default)]
        struct Scratch {
            tape: runtime::Tape,
            words: Vec<u64>,
            outs: Vec<u64>,
        }
        thread_local! {
            // One per thread, reused: compiled code never calls back into Python, so
            // runs do not nest.
            static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
        }
        SCRATCH.with(|s| {
            let Scratch { tape, words, outs } = &mut *s.borrow_mut();
            words.clear();
            words.extend(args.iter().map(|a| a.word()));
            outs.clear();
            outs.resize(2 * self.outputs.len().max(1), 0);
            let status = loop {
                tape.len = 0;
                tape.full = 0;
                tape.arena.clear();
                // SAFETY: the code was generated for this signature: it reads one word
                // per parameter from `words` (array arguments: descriptors the caller
                // keeps alive), writes two per output into `outs`, and uses `tape` only
                // through the layout of `runtime::Tape` and the runtime's functions.
                let status = unsafe {
                    let f: Entry = std::mem::transmute(self.code.ptr());
                    f(tape, words.as_ptr(), outs.as_mut_ptr())
                };
                // A push found the tape full: again, on a larger one (nothing the run
                // did is seen outside it: its arrays are in the arena).
                if status == 0 || tape.full == 0 || !tape.grow() {
                    break status;
                }
            };
            let run = if status != 0 {
                Run::Bail
            } else {
                self.outputs(outs, &mut tape.arena)
            };
            tape.arena.clear();
            run
        })
    }

    /// The returned values; an array output that is not one the run made (an argument
    /// returned as it is) bails, since the interpreter returns the object itself, and so
    /// does any other container.
    fn outputs(&self, outs: &[u64], arena: &mut arrays::Arena) -> Run {
        let mut values = Vec::with_capacity(self.outputs.len());
        for (k, t) in self.outputs.iter().enumerate() {
            // The second word: the None flag, and a float's NumPy type in its second
            // byte (code with float32 values, `precision.rs`).
            let (w, none, kind) = (
                outs[2 * k],
                outs[2 * k + 1] & 0xff != 0,
                (outs[2 * k + 1] >> 8) as i64,
            );
            // Whether a later result may be the same array (a number whose bits are the
            // address only costs a copy).
            let again = outs[2 * k + 2..].chunks(2).any(|o| o[0] == w);
            values.push(match (none, t) {
                (true, _) => Value::Scalar(Scalar::None),
                (_, Ty::Float) => {
                    let v = f64::from_bits(w);
                    Value::Scalar(match kind {
                        precision::SINGLE => Scalar::Single(v),
                        precision::DOUBLE => Scalar::Double(v),
                        _ => Scalar::Float(v),
                    })
                }
                (_, Ty::Array32(_)) => match arena.take(w, again) {
                    Some(a) => Value::Array(arrays::NativeArray { single: true, ..a }),
                    None => return Run::Bail,
                },
                (_, Ty::Bool) => Value::Scalar(Scalar::Bool(w != 0)),
                (_, Ty::Array(_)) => match arena.take(w, again) {
                    Some(a) => Value::Array(a),
                    None => return Run::Bail,
                },
                (_, Ty::Int) => Value::Scalar(Scalar::Int(w as i64)),
                // A dict, tuple or int64 array argument returned as it is: the
                // interpreter returns the object itself.
                _ => return Run::Bail,
            });
        }
        Run::Done(values)
    }

    /// Whether the function returns a tuple (several values) rather than one value.
    pub fn returns_tuple(&self) -> bool {
        self.outputs.len() > 1
    }
}
