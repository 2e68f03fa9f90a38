//! The embedded RustPython host: one interpreter per process, owned by a dedicated
//! large-stack thread (debug builds of RustPython overflow the default 8 MB stack).
//! Everything that touches Python objects runs on that thread through [`with_vm`].

mod fast_helper;
mod float_slots;
mod native_fn;
mod runtime_module;
mod seam_values;
mod shims;
pub use shims::COMPAT;

use rustpython_vm::{
    builtins::PyBaseExceptionRef, compiler::Mode, scope::Scope, AsObject, Interpreter, PyResult,
    VirtualMachine,
};
use std::sync::mpsc;
use std::sync::OnceLock;

type Job = Box<dyn FnOnce(&VirtualMachine) + Send>;

/// Stack size of the interpreter thread. Deep recursion in user code and RustPython's
/// debug-build frames both need far more than the default.
const VM_STACK_BYTES: usize = 512 * 1024 * 1024;

static WORKER: OnceLock<mpsc::Sender<Job>> = OnceLock::new();
static ARGV: OnceLock<Vec<String>> = OnceLock::new();

/// Sets `sys.argv` for the interpreter. Must be called before the first [`with_vm`].
pub fn set_argv(argv: Vec<String>) {
    let _ = ARGV.set(argv);
}

fn build_interpreter() -> Interpreter {
    let mut settings = rustpython_vm::Settings::default();
    settings.argv = ARGV.get().cloned().unwrap_or_else(|| vec![String::new()]);
    let builder = Interpreter::builder(settings);
    let ctx = builder.ctx.clone();
    let defs = rustpython_stdlib::stdlib_module_defs(&ctx);
    let builder = builder
        .add_native_modules(&defs)
        .add_native_module(runtime_module::_tangent::module_def(&ctx))
        .add_frozen_modules(rustpython_pylib::FROZEN_STDLIB);
    let builder = crate::numpy::register(builder);
    // The embedded numpy's float scalars compare to Python bools (no `numpy.bool` yet):
    // native code follows the interpreter it stands in for.
    crate::jit::comparisons_give_python_bools();
    // Its float32 tanh, exp, ... are the runtime's copies of NumPy's kernels themselves.
    for name in crate::jit::NUMPY_KERNELS {
        crate::jit::numpy_kernel_agrees_on(name);
    }
    // Its other float32 functions (arctan, sinh, ...) are double results rounded once.
    crate::jit::float32_functions_round_double();
    builder.build()
}

/// Keeps freed array memory in the process. glibc returns the top of a heap to the
/// system once it exceeds a trim threshold and serves blocks from 128 kB up with fresh
/// mappings; array code that allocates and frees such blocks every call then pays page
/// faults on every call (measured: the MLP gradient went from 0.31 to 0.75 ms after an
/// unrelated product shifted the heap). Large thresholds keep those blocks reusable.
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before the interpreter
    // thread allocates anything.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
    }
}

fn worker() -> &'static mpsc::Sender<Job> {
    WORKER.get_or_init(|| {
        tune_allocator();
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("tangent-python".into())
            .stack_size(VM_STACK_BYTES)
            .spawn(move || {
                let interp = build_interpreter();
                interp.enter(|vm| {
                    // Before any Python runs: CPython's float `%`, `//`, `divmod`, `**`.
                    float_slots::install(vm);
                    if let Err(exc) = shims::install(vm) {
                        vm.print_exception(exc);
                        // The shims are part of the binary: failing here is a build defect.
                        eprintln!("tangent: internal error: could not load the Python shims");
                        std::process::exit(70);
                    }
                    for job in rx {
                        job(vm);
                    }
                });
            })
            .expect("spawn interpreter thread");
        tx
    })
}

/// Runs `f` on the interpreter thread. A panic inside `f` is caught there (the
/// interpreter survives) and comes back as `Err` with its message.
pub fn try_with_vm<R: Send + 'static>(
    f: impl FnOnce(&VirtualMachine) -> R + Send + 'static,
) -> Result<R, String> {
    let (tx, rx) = mpsc::sync_channel(1);
    let job: Job = Box::new(move |vm| {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(vm)));
        let r = r.map_err(|p| {
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into())
        });
        let _ = tx.send(r);
    });
    worker()
        .send(job)
        .map_err(|_| "the interpreter thread has stopped".to_string())?;
    rx.recv()
        .map_err(|_| "the interpreter thread has stopped".to_string())?
}

/// Runs `f` on the interpreter thread and returns its result (panics if `f` panicked).
pub fn with_vm<R: Send + 'static>(f: impl FnOnce(&VirtualMachine) -> R + Send + 'static) -> R {
    match try_with_vm(f) {
        Ok(r) => r,
        Err(e) => panic!("interpreter job panicked: {e}"),
    }
}

/// Renders a Python exception as CPython would print it (traceback included).
pub fn format_exception(vm: &VirtualMachine, exc: PyBaseExceptionRef) -> String {
    // Python's own `traceback` module gives the 3.11+ layout (with `~~~^^^` anchors);
    // the VM's writer is the fallback.
    let formatted = vm
        .import("traceback", 0)
        .and_then(|tb| tb.get_attr("format_exception", vm))
        .and_then(|f| f.call((exc.clone(),), vm))
        .and_then(|lines| vm.call_method(vm.ctx.new_str("").as_object(), "join", (lines,)))
        .and_then(|s| <String as rustpython_vm::TryFromObject>::try_from_object(vm, s))
        .ok();
    let out = formatted.unwrap_or_else(|| {
        let mut out = String::new();
        if vm.write_exception(&mut out, &exc).is_err() {
            out.push_str("<exception could not be printed>\n");
        }
        out
    });
    let full = std::env::var("TANGENT_TRACEBACK").is_ok_and(|v| v == "full");
    if full {
        out
    } else {
        hide_shim_frames(&out)
    }
}

/// Tangent's own Python shims are not the user's code: their frames are left out of
/// tracebacks (the message itself names the user's code). `TANGENT_TRACEBACK=full`
/// keeps them, for debugging tangent. The shims have no source lines to show, so each
/// of their frames is exactly one `File "<tangent shim ...>"` line.
fn hide_shim_frames(traceback: &str) -> String {
    traceback
        .split_inclusive('\n')
        .filter(|line| !line.trim_start().starts_with("File \"<tangent shim "))
        .collect()
}

/// Flushes `sys.stdout` and `sys.stderr`; RustPython buffers them.
pub fn flush_stdio(vm: &VirtualMachine) {
    for name in ["stdout", "stderr"] {
        if let Ok(stream) = vm.sys_module.get_attr(name, vm) {
            let _ = vm.call_method(&stream, "flush", ());
        }
    }
}

/// Outcome of running a script.
pub enum ScriptOutcome {
    Ok,
    /// `SystemExit` with this code.
    Exit(u8),
    /// An uncaught exception; its traceback has been printed to stderr.
    Error,
}

/// Runs a Python file as `__main__` (the `tangent run` command). `None` means an
/// internal error (already reported).
pub fn run_script(path: String) -> Option<ScriptOutcome> {
    try_with_vm(move |vm| {
        let scope = match vm.new_scope_with_main() {
            Ok(s) => s,
            Err(e) => {
                vm.print_exception(e);
                return ScriptOutcome::Error;
            }
        };
        let dir = std::path::Path::new(&path)
            .parent()
            .map(|p| p.to_string_lossy().into_owned())
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| ".".to_owned());
        let _ = vm.insert_sys_path(vm.ctx.new_str(dir).into());
        let result = vm.run_script(scope, &path);
        let outcome = match result {
            Ok(()) => ScriptOutcome::Ok,
            Err(exc) => {
                if exc.fast_isinstance(vm.ctx.exceptions.system_exit) {
                    let code = vm.handle_exit_exception(exc);
                    ScriptOutcome::Exit(code.min(255) as u8)
                } else {
                    flush_stdio(vm);
                    eprint!("{}", format_exception(vm, exc));
                    ScriptOutcome::Error
                }
            }
        };
        flush_stdio(vm);
        outcome
    })
    .ok()
}

/// Executes `source` in a fresh module namespace named `name`; returns that scope.
pub fn exec_module(vm: &VirtualMachine, source: &str, filename: &str) -> PyResult<Scope> {
    let scope = vm.new_scope_with_builtins();
    scope
        .globals
        .set_item("__name__", vm.ctx.new_str("__tangent_user__").into(), vm)?;
    scope
        .globals
        .set_item("__file__", vm.ctx.new_str(filename).into(), vm)?;
    let code = vm
        .compile(source, Mode::Exec, filename.to_owned())
        .map_err(|err| vm.new_syntax_error(&err, Some(source)))?;
    vm.run_code_obj(code, scope.clone())?;
    Ok(scope)
}

thread_local! {
    /// User modules executed for the Rust API, by source text (one interpreter thread).
    static MODULES: std::cell::RefCell<std::collections::HashMap<String, Scope>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

fn to_python(vm: &VirtualMachine, v: &crate::host::Value) -> PyResult<rustpython_vm::PyObjectRef> {
    use crate::host::Value;
    Ok(match v {
        Value::Float(f) => vm.ctx.new_float(*f).into(),
        Value::Array(a) => {
            let flat: Vec<_> = a.iter().map(|x| vm.ctx.new_float(*x).into()).collect();
            let shape: Vec<_> = a
                .shape()
                .iter()
                .map(|n| vm.ctx.new_int(*n).into())
                .collect();
            let tangent = vm.import("tangent", 0)?;
            let f = tangent.get_attr("_from_flat", vm)?;
            f.call((vm.ctx.new_list(flat), vm.ctx.new_tuple(shape)), vm)?
        }
        Value::Tuple(items) => {
            let items = items
                .iter()
                .map(|x| to_python(vm, x))
                .collect::<PyResult<Vec<_>>>()?;
            vm.ctx.new_tuple(items).into()
        }
    })
}

fn from_python(
    vm: &VirtualMachine,
    obj: rustpython_vm::PyObjectRef,
) -> PyResult<crate::host::Value> {
    use crate::host::Value;
    use rustpython_vm::builtins::{PyFloat, PyInt, PyList, PyTuple};
    if let Some(f) = obj.downcast_ref::<PyFloat>() {
        return Ok(Value::Float(f.to_f64()));
    }
    if obj.downcast_ref::<PyInt>().is_some() {
        let f: f64 = obj.try_float(vm)?.to_f64();
        return Ok(Value::Float(f));
    }
    if let Some(t) = obj.downcast_ref::<PyTuple>() {
        let items = t.as_slice().to_vec();
        return Ok(Value::Tuple(
            items
                .into_iter()
                .map(|x| from_python(vm, x))
                .collect::<PyResult<_>>()?,
        ));
    }
    if let Some(l) = obj.downcast_ref::<PyList>() {
        let items = l.borrow_vec().to_vec();
        return Ok(Value::Tuple(
            items
                .into_iter()
                .map(|x| from_python(vm, x))
                .collect::<PyResult<_>>()?,
        ));
    }
    let tangent = vm.import("tangent", 0)?;
    let pair = tangent.get_attr("_to_flat", vm)?.call((obj,), vm)?;
    let pair: rustpython_vm::builtins::PyTupleRef = pair.try_into_value(vm)?;
    let shape: Vec<usize> = pair.as_slice()[0]
        .clone()
        .try_into_value::<Vec<usize>>(vm)?;
    let flat: Vec<f64> = pair.as_slice()[1].clone().try_into_value::<Vec<f64>>(vm)?;
    let arr = ndarray::ArrayD::from_shape_vec(shape, flat)
        .map_err(|e| vm.new_value_error(e.to_string()))?;
    Ok(Value::Array(arr))
}

/// Executes the user's module (once), compiles the generated source in its globals and
/// calls the entry point on `args`.
pub fn call_generated(
    vm: &VirtualMachine,
    module_source: &str,
    generated: &str,
    entry: &str,
    args: &[crate::host::Value],
) -> Result<crate::host::Value, crate::Error> {
    let run = || -> PyResult<crate::host::Value> {
        let scope = MODULES.with(|m| m.borrow().get(module_source).cloned());
        let scope = match scope {
            Some(s) => s,
            None => {
                let s = exec_module(vm, module_source, "<source>")?;
                MODULES.with(|m| m.borrow_mut().insert(module_source.to_owned(), s.clone()));
                s
            }
        };
        let tangent = vm.import("tangent", 0)?;
        let compile = tangent.get_attr("_compile", vm)?;
        let func = compile.call(
            (
                vm.ctx.new_str(generated),
                vm.ctx.new_str(entry),
                scope.globals.clone(),
            ),
            vm,
        )?;
        let py_args = args
            .iter()
            .map(|a| to_python(vm, a))
            .collect::<PyResult<Vec<_>>>()?;
        let out = func.call(py_args, vm)?;
        from_python(vm, out)
    };
    let r = run().map_err(|e| {
        let kind = e.class().name().to_string();
        crate::Error::Python {
            kind,
            message: format_exception(vm, e),
        }
    });
    flush_stdio(vm);
    r
}
