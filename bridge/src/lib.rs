//! The CPython bridge: the `tangent` extension module for CPython (abi3, never linked
//! against libpython) and the entry point `tangent run` calls to run a script in CPython.
//!
//! The Python API is the embedded host's: the same Python half (`tangent::host::SHIMS`,
//! executed into this module at import) over the same engine; `engine.rs` is the native
//! half (`_tangent`), `tape.rs` its tape push and pop and `fast_helper.rs` the number
//! paths of the runtime's helpers (both as C functions, `c_functions.rs`), `native.rs`
//! the callable of `compile='native'`, `run.rs` the script runner.

mod c_functions;
mod engine;
mod fast_helper;
mod native;
mod run;
mod seam_values;
mod tape;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// `import tangent`: installs `_tangent`, then executes the shared Python shims, the last
/// of which (`tangent`) into this module.
#[pymodule]
#[pyo3(name = "tangent")]
fn tangent_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Parsing the built-in rule files (tens of ms) overlaps loading the shims and the
    // rest of the script's start-up on another thread (as the embedded host does); the
    // first request waits for it if it comes sooner.
    std::thread::spawn(|| {
        tangent::rules::in_force();
    });
    let py = m.py();
    let modules = py.import("sys")?.getattr("modules")?;
    let native = engine::module(py)?;
    modules.set_item("_tangent", &native)?;
    // This module is the `tangent` package: its submodules (`tangent._runtime`, ...) are
    // the shims before its `__init__`, found in `sys.modules` by the imports between
    // them, so the package is there (as CPython itself puts it once this returns).
    m.setattr("__path__", pyo3::types::PyList::empty(py))?;
    modules.set_item("tangent", m)?;
    let builtins = py.import("builtins")?;
    for (name, source) in tangent::host::SHIMS {
        let dict: Bound<'_, PyDict> = if *name == "tangent" {
            m.dict()
        } else {
            let module = PyModule::new(py, name)?;
            if let Some((parent, child)) = name.rsplit_once('.') {
                module.setattr("__package__", parent)?;
                modules.get_item(parent)?.setattr(child, &module)?;
            }
            modules.set_item(*name, &module)?;
            module.dict()
        };
        let code = shim_code(py, &builtins, name, source)?;
        builtins.call_method1("exec", (code, dict))?;
    }
    Ok(())
}

/// The code object of a shim. Compiling the ~3000 lines of shims costs CPython ~30 ms
/// per process, so the bytecode is kept in the disk cache like a .pyc
/// (`tangent::cache::Kind::Bytecode`: named by CPython's bytecode magic, this library and
/// the source; authenticated like every entry).
fn shim_code<'py>(
    py: Python<'py>,
    builtins: &Bound<'py, PyModule>,
    name: &str,
    source: &str,
) -> PyResult<Bound<'py, PyAny>> {
    use tangent::cache::Kind;
    let compile = || {
        builtins.call_method1(
            "compile",
            (source, format!("<tangent shim {name}>"), "exec"),
        )
    };
    if !tangent::cache::enabled() {
        return compile();
    }
    let magic: Vec<u8> = py
        .import("importlib.util")?
        .getattr("MAGIC_NUMBER")?
        .extract()?;
    let entry = tangent::cache::bytecode_name(&magic, name, source);
    let marshal = py.import("marshal")?;
    if let Some(body) = tangent::cache::read(Kind::Bytecode, &entry) {
        if let Ok(code) = marshal.call_method1("loads", (PyBytes::new(py, &body),)) {
            return Ok(code);
        }
    }
    let code = compile()?;
    if let Ok(body) = marshal.call_method1("dumps", (&code,)) {
        tangent::cache::write(Kind::Bytecode, &entry, &body.extract::<Vec<u8>>()?);
    }
    Ok(code)
}
