//! `_tangent` for CPython: the transformer (source in, source out) behind the same
//! functions the embedded host's `_tangent` offers (src/host/rustpython/runtime_module.rs).

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use tangent::pipeline::GradOptions;

pub fn module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let m = PyModule::new(py, "_tangent")?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(grad_source, &m)?)?;
    m.add_function(wrap_pyfunction!(grad_generated, &m)?)?;
    m.add_function(wrap_pyfunction!(explain_info, &m)?)?;
    m.add_function(wrap_pyfunction!(register_rule, &m)?)?;
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

/// `outputs` is (output_index or None, output_weights or None[, optimizations]).
fn options(
    wrt: Vec<usize>,
    flags: &[bool],
    mode: &str,
    outputs: Option<&Bound<'_, PyAny>>,
) -> PyResult<GradOptions> {
    let (mut index, mut weights, mut passes) = (None, None, Vec::new());
    if let Some(o) = outputs {
        let items: Vec<Bound<'_, PyAny>> = o.extract()?;
        if let Some(names) = items.get(2) {
            passes = names.extract()?;
        }
        if let [i, w, ..] = items.as_slice() {
            index = i.extract::<Option<i64>>()?;
            weights = w.extract::<Option<Vec<f64>>>()?;
        }
    }
    tangent::engine::grad_options(wrt, flags, mode, index, weights, &passes)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

fn outcome<'py>(
    py: Python<'py>,
    result: Result<tangent::pipeline::Generated, tangent::Error>,
) -> PyResult<Bound<'py, PyTuple>> {
    match result {
        Ok(g) => PyTuple::new(
            py,
            [
                true.into_pyobject(py)?.to_owned().into_any(),
                g.source.into_pyobject(py)?.into_any(),
                g.entry.into_pyobject(py)?.into_any(),
            ],
        ),
        Err(e) => PyTuple::new(
            py,
            [
                false.into_pyobject(py)?.to_owned().into_any(),
                e.to_string().into_pyobject(py)?.into_any(),
                "".into_pyobject(py)?.into_any(),
            ],
        ),
    }
}

/// grad_source(filename, funcname, wrt, flags, mode[, outputs[, (text, live names)]])
///   -> (True, source, entry, from_cache) or (False, message, "")
#[pyfunction]
#[pyo3(signature = (filename, funcname, wrt, flags, mode, outputs=None, live=None))]
#[allow(clippy::too_many_arguments)] // the Python-facing signature
fn grad_source<'py>(
    py: Python<'py>,
    filename: String,
    funcname: String,
    wrt: Vec<usize>,
    flags: Vec<bool>,
    mode: String,
    outputs: Option<Bound<'py, PyAny>>,
    live: Option<(String, String)>,
) -> PyResult<Bound<'py, PyTuple>> {
    let opts = options(wrt, &flags, &mode, outputs.as_ref())?;
    // flags[5]: whether the disk cache may answer (default yes).
    let use_cache = flags.get(5).copied().unwrap_or(true);
    // `live`: (the file's text, what the program binds names to), or None.
    let result = py.detach(|| match &live {
        Some((text, names)) => {
            tangent::engine::grad_live_cached(&filename, text, &funcname, names, &opts, use_cache)
        }
        None => tangent::engine::grad_file_cached(&filename, &funcname, &opts, use_cache),
    });
    match result {
        Ok((g, from_cache)) => (true, g.source, g.entry, from_cache).into_pyobject(py),
        Err(e) => outcome(py, Err(e)),
    }
}

/// grad_generated(source, context_file, funcname, wrt, flags, mode[, outputs]): like
/// grad_source, for a function of generated source; `outputs[3]`, when present and not
/// None, is the first derivative's request (text, live names, its function's name).
#[pyfunction]
#[pyo3(signature = (source, context_file, funcname, wrt, flags, mode, outputs=None))]
#[allow(clippy::too_many_arguments)] // the Python-facing signature
fn grad_generated<'py>(
    py: Python<'py>,
    source: String,
    context_file: String,
    funcname: String,
    wrt: Vec<usize>,
    flags: Vec<bool>,
    mode: String,
    outputs: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let opts = options(wrt, &flags, &mode, outputs.as_ref())?;
    let live: Option<(String, String, String)> = match &outputs {
        Some(o) => match o.get_item(3) {
            Ok(l) if !l.is_none() => Some(l.extract()?),
            _ => None,
        },
        None => None,
    };
    let result = py.detach(|| {
        tangent::engine::grad_generated(&source, &context_file, &funcname, &opts, live.as_ref())
    });
    outcome(py, result)
}

/// The data flow `explain` prints: (variable, the variables it reads).
type Flow = Vec<(String, Vec<String>)>;

/// explain_info(filename, funcname, wrt[, live]) -> (primal source, [(variable, [reads])]);
/// `live` is the derivative's request (text, live names, name) or None.
#[pyfunction]
#[pyo3(signature = (filename, funcname, wrt, live=None))]
fn explain_info(
    filename: String,
    funcname: String,
    wrt: Vec<usize>,
    live: Option<(String, String, String)>,
) -> PyResult<(String, Flow)> {
    let info = tangent::engine::explain_info(&filename, &funcname, &wrt, live.as_ref())
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((info.primal, info.flow))
}

/// register_rule(kind, qualname, filename, funcname) -> None or an error message.
#[pyfunction]
fn register_rule(
    kind: String,
    qualname: String,
    filename: String,
    funcname: String,
) -> Option<String> {
    tangent::engine::register_rule(kind == "tangent", &qualname, &filename, &funcname)
        .err()
        .map(|e| e.to_string())
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
