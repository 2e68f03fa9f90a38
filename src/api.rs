//! The Rust API: `Tangent::grad(src, "f")` gives the derivative's Python source and can
//! call it on f64 and ndarray inputs in the embedded interpreter.

use crate::error::Error;
#[cfg(feature = "embedded")]
use crate::host::rustpython as host;
pub use crate::host::Value;
use crate::pipeline::{self, GradOptions};
use ndarray::ArrayD;

/// Entry point of the Rust API.
pub struct Tangent;

impl Tangent {
    /// Reverse-mode gradient of `func` (defined in `src`) with respect to its first argument.
    pub fn grad(src: &str, func: &str) -> Result<Gradient, Error> {
        GradBuilder::new(src, func).build()
    }

    /// A builder for the other options (`wrt`, `optimized`, `preserve_result`, ...).
    pub fn builder(src: &str, func: &str) -> GradBuilder {
        GradBuilder::new(src, func)
    }
}

pub struct GradBuilder {
    src: String,
    func: String,
    opts: GradOptions,
    native: bool,
}

impl GradBuilder {
    pub fn new(src: &str, func: &str) -> Self {
        GradBuilder {
            src: src.to_owned(),
            func: func.to_owned(),
            opts: GradOptions::default(),
            native: false,
        }
    }
    /// `compile='native'`: calls with float arguments run the adjoint as machine code
    /// (Cranelift), without the interpreter, when it is scalar code the compiler takes;
    /// anything else runs interpreted. `Gradient::native_refusal` says why not.
    pub fn native(mut self, on: bool) -> Self {
        self.native = on;
        self
    }
    /// Forward mode: the derivative takes one tangent per `wrt` argument.
    pub fn forward(mut self) -> Self {
        self.opts.mode = pipeline::Mode::Forward;
        self
    }
    pub fn wrt(mut self, wrt: &[usize]) -> Self {
        self.opts.wrt = wrt.to_vec();
        self
    }
    pub fn optimized(mut self, on: bool) -> Self {
        self.opts.optimized = on;
        self
    }
    pub fn preserve_result(mut self, on: bool) -> Self {
        self.opts.preserve_result = on;
        self
    }
    pub fn check_dims(mut self, on: bool) -> Self {
        self.opts.check_dims = on;
        self
    }
    pub fn build(self) -> Result<Gradient, Error> {
        crate::stack::run(|| self.build_inner())
    }

    fn build_inner(self) -> Result<Gradient, Error> {
        let g = crate::engine::grad_text("<source>", &self.src, &self.func, &self.opts)?;
        let native = if self.native {
            Some(
                crate::jit::Program::new(
                    &g.source,
                    &g.entry,
                    Some(&self.src),
                    crate::rules::in_force(),
                )
                .map(std::sync::Arc::new),
            )
        } else {
            None
        };
        Ok(Gradient {
            module_source: self.src,
            generated: g,
            native,
        })
    }
}

/// A generated derivative.
pub struct Gradient {
    #[cfg_attr(not(feature = "embedded"), allow(dead_code))]
    module_source: String,
    generated: pipeline::Generated,
    native: Option<Result<std::sync::Arc<crate::jit::Program>, crate::jit::Refusal>>,
}

impl Gradient {
    /// The generated Python source (what `__tangent_source__` holds).
    pub fn source(&self) -> &str {
        &self.generated.source
    }

    /// Name of the generated entry function (`dfdx`).
    pub fn name(&self) -> &str {
        &self.generated.entry
    }

    #[cfg(feature = "embedded")]
    /// Runs the derivative in the embedded interpreter. `args` are the primal's arguments
    /// (optionally followed by the seed). A Python exception comes back as
    /// `Error::Python`, with its type and its traceback text.
    pub fn call(&self, args: &[Value]) -> Result<Value, Error> {
        if let Some(v) = self.call_native(args) {
            return Ok(v);
        }
        let module_source = self.module_source.clone();
        let source = self.generated.source.clone();
        let entry = self.generated.entry.clone();
        let args = args.to_vec();
        host::with_vm(move |vm| host::call_generated(vm, &module_source, &source, &entry, &args))
    }
}

impl Gradient {
    /// Runs the machine code for float arguments (None: use the interpreter).
    #[cfg_attr(not(feature = "embedded"), allow(dead_code))]
    fn call_native(&self, args: &[Value]) -> Option<Value> {
        use crate::jit::arrays::ArrayDesc;
        use crate::jit::{ArrayArg, Run, Scalar};
        let program = self.native.as_ref()?.as_ref().ok()?;
        // The descriptors of array arguments, alive (with `args`) until the run returns.
        let descs: Vec<Option<ArrayDesc>> = args
            .iter()
            .map(|a| match a {
                Value::Array(x) => ArrayDesc::new(x.as_ptr(), x.shape(), x.strides()),
                _ => None,
            })
            .collect();
        let given: Vec<Scalar> = args
            .iter()
            .zip(&descs)
            .map(|(a, d)| match (a, d) {
                (Value::Float(v), _) => Some(Scalar::Float(*v)),
                (Value::Array(_), Some(d)) => Some(Scalar::Array(ArrayArg::new(d))),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let all = program.with_defaults(&given)?;
        let tys: Vec<_> = all.iter().map(|s| s.ty()).collect::<Option<_>>()?;
        let compiled = program.specialize(&tys).ok()?;
        let Run::Done(outs) = compiled.run(&all) else {
            return None;
        };
        let value = |v: crate::jit::Value| match v {
            crate::jit::Value::Scalar(Scalar::Float(v)) => Some(Value::Float(v)),
            crate::jit::Value::Scalar(Scalar::Int(v)) => Some(Value::Float(v as f64)),
            crate::jit::Value::Scalar(Scalar::Bool(v)) => {
                Some(Value::Float(f64::from(u8::from(v))))
            }
            crate::jit::Value::Scalar(_) => None,
            crate::jit::Value::Array(a) => ArrayD::from_shape_vec(a.shape, a.data)
                .ok()
                .map(Value::Array),
        };
        if compiled.returns_tuple() {
            Some(Value::Tuple(
                outs.into_iter().map(value).collect::<Option<_>>()?,
            ))
        } else {
            value(outs.into_iter().next()?)
        }
    }

    /// With `native(true)`: None when calls with `n_float_args` float arguments run as
    /// machine code, else why they do not.
    pub fn native_refusal(&self, n_float_args: usize) -> Option<String> {
        use crate::jit::{Scalar, Ty};
        match self.native.as_ref()? {
            Err(r) => Some(r.what.clone()),
            Ok(p) => {
                let all = p.with_defaults(&vec![Scalar::Float(0.0); n_float_args])?;
                let tys: Vec<Ty> = all.iter().filter_map(|s| s.ty()).collect();
                p.specialize(&tys).err().map(|r| p.describe(&r))
            }
        }
    }
}
