//! The CPython bridge: the `tangent` extension module for CPython (abi3, never linked
//! against libpython) and the entry point `tangent run` calls to run a script in CPython.
//!
//! The Python API is the embedded host's: the same Python half (`tangent::host::SHIMS`,
//! executed into this module at import) over the same engine; `engine.rs` is the native
//! half (`_tangent`), `native.rs` the callable of `compile='native'`, `run.rs` the script
//! runner.

mod engine;
mod native;
mod run;

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `import tangent`: installs `_tangent`, then executes the shared Python shims, the last
/// of which (`tangent`) into this module.
#[pymodule]
#[pyo3(name = "tangent")]
fn tangent_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let modules = py.import("sys")?.getattr("modules")?;
    let native = engine::module(py)?;
    modules.set_item("_tangent", &native)?;
    let builtins = py.import("builtins")?;
    for (name, source) in tangent::host::SHIMS {
        let dict: Bound<'_, PyDict> = if *name == "tangent" {
            m.dict()
        } else {
            let module = PyModule::new(py, name)?;
            modules.set_item(*name, &module)?;
            module.dict()
        };
        let code = builtins.call_method1(
            "compile",
            (*source, format!("<tangent shim {name}>"), "exec"),
        )?;
        builtins.call_method1("exec", (code, dict))?;
    }
    Ok(())
}
