//! `_tangent` for CPython: the transformer (source in, source out) behind the same
//! functions the embedded host's `_tangent` offers (src/host/rustpython/runtime_module.rs).

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

pub fn module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let m = PyModule::new(py, "_tangent")?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(ask, &m)?)?;
    m.add_function(wrap_pyfunction!(free_names, &m)?)?;
    m.add_function(wrap_pyfunction!(rule_names, &m)?)?;
    m.add_function(wrap_pyfunction!(array_attribute_names, &m)?)?;
    m.add_function(wrap_pyfunction!(cache_info, &m)?)?;
    m.add_function(wrap_pyfunction!(cache_clear, &m)?)?;
    // Named `push`/`pop` in their messages: users called `tangent.push`.
    m.add("push_checked", wrap_pyfunction!(push_checked, &m)?)?;
    m.add("pop_checked", wrap_pyfunction!(pop_checked, &m)?)?;
    crate::tape::add(&m)?;
    m.add_function(wrap_pyfunction!(crate::fast_helper::fast_helper, &m)?)?;
    m.add_function(wrap_pyfunction!(crate::native::jit, &m)?)?;
    Ok(m)
}

/// ask(request) -> answer: the `tangent` package's requests (a derivative, an explanation,
/// a rule to register) and their answers, dicts whose fields `tangent::seam` defines and
/// checks.
#[pyfunction]
fn ask<'py>(py: Python<'py>, request: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let request = crate::seam_values::to_json(&request)?;
    let answer = py.detach(|| tangent::seam::ask(request));
    crate::seam_values::from_json(py, &answer)
}

/// rule_names() -> the canonical names the rule set in force knows.
#[pyfunction]
fn rule_names() -> Vec<String> {
    tangent::engine::rule_names()
}

/// array_attribute_names() -> the array attributes the rules declare (`T`, `shape`).
#[pyfunction]
fn array_attribute_names() -> Vec<String> {
    tangent::engine::array_attribute_names()
}

/// free_names(source) -> the global names generated source reads.
#[pyfunction]
fn free_names(source: String) -> PyResult<Vec<String>> {
    tangent::engine::free_names(&source).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// cache_info() -> (directory or None, entries, bytes)
#[pyfunction]
fn cache_info() -> (Option<String>, usize, u64) {
    let dir = tangent::cache::dir().map(|d| d.to_string_lossy().into_owned());
    let (n, bytes) = tangent::cache::size();
    (dir, n, bytes)
}

/// cache_clear() -> the number of derivative entries removed from the disk cache
#[pyfunction]
fn cache_clear() -> PyResult<usize> {
    tangent::cache::clear().map_err(pyo3::exceptions::PyOSError::new_err)
}

/// The tape's push (the tape is a `tangent.Stack`, a list), for the calls `tape.rs`'s
/// `push` passes on.
#[pyfunction]
#[pyo3(name = "push", signature = (stack, value, op_id=None))]
fn push_checked(
    stack: &Bound<'_, PyList>,
    value: Bound<'_, PyAny>,
    op_id: Option<Bound<'_, PyAny>>,
) -> PyResult<()> {
    // Google Tangent's `push(stack, x, op_id)`, which saves a copy of a list or array
    if op_id.is_some() {
        if let Ok(list) = value.cast::<PyList>() {
            return stack.append(PyList::new(value.py(), list.iter())?);
        }
        if value.get_type().name()? == "ndarray" {
            return stack.append(value.call_method0("copy")?);
        }
    }
    stack.append(value)
}

/// The tape's pop, for the calls `tape.rs`'s `pop` passes on.
#[pyfunction]
#[pyo3(name = "pop", signature = (stack, _op_id=None))]
fn pop_checked<'py>(
    stack: &Bound<'py, PyList>,
    _op_id: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let n = stack.len();
    if n == 0 {
        return Err(PyIndexError::new_err(
            "tangent: pop from an empty tape: the backward pass read more values than the forward pass saved (this is a bug in tangent, please report it)",
        ));
    }
    let v = stack.get_item(n - 1)?;
    stack.del_item(n - 1)?;
    Ok(v)
}
