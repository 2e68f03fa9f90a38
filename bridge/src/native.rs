//! `compile='native'` in CPython: the callable that runs the Cranelift-compiled adjoint
//! for float, int and bool arguments and the interpreted adjoint (`__wrapped__`)
//! otherwise; every other attribute is the interpreted function's. The logic is the
//! engine's (`tangent::jit::NativeEntry`); this file converts values.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyTuple};
use tangent::jit::{Call, NativeEntry, Scalar};

#[pyclass(module = "tangent", name = "NativeFunction", frozen)]
pub struct NativeFunction {
    entry: NativeEntry,
    fallback: Py<PyAny>,
    /// `compile='native!'`: a refused signature raises instead of running interpreted.
    strict: bool,
    /// Called with a message when a signature is refused (`compile='native'`).
    on_refusal: Option<Py<PyAny>>,
}

fn scalar_of(obj: &Bound<'_, PyAny>) -> Option<Scalar> {
    if obj.is_exact_instance_of::<PyBool>() {
        return obj.extract::<bool>().ok().map(Scalar::Bool);
    }
    if obj.is_exact_instance_of::<PyFloat>() {
        return obj.extract::<f64>().ok().map(Scalar::Float);
    }
    if obj.is_exact_instance_of::<PyInt>() {
        return obj.extract::<i64>().ok().map(Scalar::Int);
    }
    None
}

fn to_py(py: Python<'_>, s: Scalar) -> PyResult<Py<PyAny>> {
    Ok(match s {
        Scalar::Float(v) => v.into_pyobject(py)?.into_any().unbind(),
        Scalar::Int(v) => v.into_pyobject(py)?.into_any().unbind(),
        Scalar::Bool(v) => v.into_pyobject(py)?.to_owned().into_any().unbind(),
        Scalar::None => py.None(),
    })
}

#[pymethods]
impl NativeFunction {
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        if kwargs.is_none_or(|k| k.is_empty()) {
            let given: Vec<Option<Scalar>> = args.iter().map(|a| scalar_of(&a)).collect();
            match self.entry.call(&given) {
                Call::Interpret => {}
                Call::Refused { message, first } => {
                    if self.strict {
                        return Err(PyTypeError::new_err(message));
                    }
                    if let (true, Some(cb)) = (first, &self.on_refusal) {
                        cb.call1(py, (message,))?;
                    }
                }
                Call::Done(outs, true) => {
                    let items = outs
                        .into_iter()
                        .map(|s| to_py(py, s))
                        .collect::<PyResult<Vec<_>>>()?;
                    return Ok(PyTuple::new(py, items)?.into_any().unbind());
                }
                Call::Done(outs, false) => {
                    return outs
                        .into_iter()
                        .next()
                        .map_or(Ok(py.None()), |s| to_py(py, s));
                }
            }
        }
        self.fallback.call(py, args, kwargs)
    }

    /// Attributes not found on the native callable are the interpreted function's.
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        match name {
            "__wrapped__" => Ok(self.fallback.clone_ref(py)),
            "__tangent_native__" => Ok(true.into_pyobject(py)?.to_owned().into_any().unbind()),
            _ => self.fallback.getattr(py, name),
        }
    }

    fn __repr__(&self) -> String {
        format!("<tangent.NativeFunction {}>", self.entry.program.name())
    }
}

/// jit(source, entry, fallback, strict, on_refusal, module_file) -> (native function or
/// None, None or why the generated function is not compiled).
#[pyfunction]
#[allow(clippy::too_many_arguments)] // the Python-facing signature
pub fn jit(
    py: Python<'_>,
    source: String,
    entry: String,
    fallback: Py<PyAny>,
    strict: bool,
    on_refusal: Py<PyAny>,
    module_file: String,
) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
    let prepared = py.detach(|| NativeEntry::prepare(&source, &entry, &module_file));
    match prepared {
        Ok(entry) => {
            let f = NativeFunction {
                entry,
                fallback,
                strict,
                on_refusal: (!on_refusal.is_none(py)).then_some(on_refusal),
            };
            Ok((Py::new(py, f)?.into_any(), py.None()))
        }
        Err(why) => Ok((py.None(), why.into_pyobject(py)?.into_any().unbind())),
    }
}
