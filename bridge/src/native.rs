//! `compile='native'` in CPython: the callable that runs the Cranelift-compiled adjoint
//! for float, int and bool arguments and float64 NumPy arrays of 1 or 2 dimensions (read
//! in place; the GIL is held for the whole call) and the interpreted adjoint
//! (`__wrapped__`) otherwise; every other attribute is the interpreted function's. The
//! logic is the engine's (`tangent::jit::NativeEntry`); this file converts values.

use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyTuple};
use tangent::jit::arrays::{ArrayDesc, NativeArray};
use tangent::jit::typing::containers::{DictValues, KeyOrders, SeqValues};
use tangent::jit::{Call, NativeEntry, Scalar, Value};

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
    // NumPy's float scalars, which promote differently (`jit::precision`).
    let py = obj.py();
    let np = numpy_types(py)?;
    let t = obj.get_type();
    if t.is(np.float64_scalar.bind(py)) {
        return obj.extract::<f64>().ok().map(Scalar::Double);
    }
    if t.is(np.float32_scalar.bind(py)) {
        return obj.extract::<f64>().ok().map(Scalar::Single);
    }
    None
}

/// NumPy's array type, its native float64 and int64 dtypes, `numpy.empty` and the
/// `numpy.float64` scalar type, once NumPy is imported (before that no argument can be
/// an array or a NumPy scalar).
struct NumPyTypes {
    ndarray: Py<PyAny>,
    empty: Py<PyAny>,
    /// `numpy.float64` and `numpy.float32`, the scalar types.
    float64_scalar: Py<PyAny>,
    float32_scalar: Py<PyAny>,
    float64: Py<PyAny>,
    int64: Py<PyAny>,
    float32: Py<PyAny>,
}

static NUMPY: pyo3::sync::PyOnceLock<NumPyTypes> = pyo3::sync::PyOnceLock::new();

fn numpy_types(py: Python<'_>) -> Option<&'static NumPyTypes> {
    if let Some(t) = NUMPY.get(py) {
        return Some(t);
    }
    // Looked up without raising: a call of a program without NumPy comes here for every
    // argument.
    let modules = py
        .import(intern!(py, "sys"))
        .ok()?
        .getattr(intern!(py, "modules"))
        .ok()?;
    let np = modules
        .cast::<PyDict>()
        .ok()?
        .get_item(intern!(py, "numpy"))
        .ok()??;
    let dtype = np.getattr(intern!(py, "dtype")).ok()?;
    let types = NumPyTypes {
        ndarray: np.getattr(intern!(py, "ndarray")).ok()?.unbind(),
        empty: np.getattr(intern!(py, "empty")).ok()?.unbind(),
        float64_scalar: np.getattr(intern!(py, "float64")).ok()?.unbind(),
        float32_scalar: np.getattr(intern!(py, "float32")).ok()?.unbind(),
        float64: dtype.call1((intern!(py, "float64"),)).ok()?.unbind(),
        int64: dtype.call1((intern!(py, "int64"),)).ok()?.unbind(),
        float32: dtype.call1((intern!(py, "float32"),)).ok()?.unbind(),
    };
    let _ = NUMPY.set(py, types);
    check_float32_kernels(&np);
    NUMPY.get(py)
}

/// Runs this NumPy's float32 `tanh`, `exp`, ... on the engine's samples and tells the
/// engine which compute as its copies do (NumPy's own kernels, on x86-64 with AVX2 and FMA
/// or AVX-512); native code leaves the others' float32 calls to the interpreter. Once per
/// process, when NumPy is first seen.
fn check_float32_kernels(np: &Bound<'_, PyAny>) {
    let py = np.py();
    let bytes: Vec<u8> = tangent::jit::numpy_kernel_samples()
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let run = || -> PyResult<()> {
        let samples = np.call_method1(
            intern!(py, "frombuffer"),
            (PyBytes::new(py, &bytes), intern!(py, "<f4")),
        )?;
        let quiet = PyDict::new(py);
        quiet.set_item("all", "ignore")?;
        let errstate = np.call_method(intern!(py, "errstate"), (), Some(&quiet))?;
        errstate.call_method0(intern!(py, "__enter__"))?;
        for name in tangent::jit::NUMPY_KERNELS {
            let out = np.getattr(name)?.call1((&samples,))?;
            let out = out.call_method1(intern!(py, "astype"), (intern!(py, "<f4"),))?;
            let raw = out.call_method0(intern!(py, "tobytes"))?;
            let values: Vec<f32> = raw
                .cast::<PyBytes>()?
                .as_bytes()
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            tangent::jit::check_numpy_kernel(name, &values);
        }
        errstate.call_method1(intern!(py, "__exit__"), (py.None(), py.None(), py.None()))?;
        Ok(())
    };
    // A NumPy this fails on declares nothing: its float32 calls run interpreted.
    let _ = run();
}

/// The leading fields of NumPy's array object (`PyArrayObject_fields` of its C API,
/// unchanged from NumPy 1.7 through 2.x).
#[repr(C)]
struct ArrayFields {
    ob_base: pyo3::ffi::PyObject,
    data: *mut u8,
    nd: std::os::raw::c_int,
    dimensions: *const isize,
    strides: *const isize,
    base: *mut pyo3::ffi::PyObject,
    descr: *mut pyo3::ffi::PyObject,
}

/// The fields of `obj` when it is exactly a `numpy.ndarray`, and NumPy's types.
fn fields<'a>(obj: &'a Bound<'_, PyAny>) -> Option<(&'a ArrayFields, &'static NumPyTypes)> {
    let py = obj.py();
    let np = numpy_types(py)?;
    if !obj.get_type().is(np.ndarray.bind(py)) {
        return None;
    }
    // SAFETY: `obj` is exactly a `numpy.ndarray`, laid out as `ArrayFields`; the GIL,
    // held for the whole native call, keeps it and its fields as they are.
    Some((unsafe { &*(obj.as_ptr() as *const ArrayFields) }, np))
}

/// The dimensions and byte strides of an array of 1 or 2 dimensions (None otherwise).
fn dims_and_strides(f: &ArrayFields) -> Option<(&[isize], &[isize])> {
    let nd = usize::try_from(f.nd).ok()?;
    if !(1..=2).contains(&nd) {
        return None;
    }
    // SAFETY: an array of `nd` dimensions has `nd` dimensions and strides (bytes).
    Some(unsafe {
        (
            std::slice::from_raw_parts(f.dimensions, nd),
            std::slice::from_raw_parts(f.strides, nd),
        )
    })
}

/// The descriptor of a float64 or int64 `numpy.ndarray` (exactly that type) of 1 or 2
/// dimensions; None for anything else. Read from the array object itself when its
/// dtype is NumPy's native float64 or int64 (reading `__array_interface__` builds a dict
/// of strings and tuples, about a microsecond), else from `__array_interface__`.
fn array_desc(obj: &Bound<'_, PyAny>) -> Option<ArrayDesc> {
    if is_double(obj) || obj.is_instance_of::<PyInt>() {
        return None;
    }
    let (f, np) = fields(obj)?;
    let ints = if std::ptr::eq(f.descr, np.float64.as_ptr()) {
        false
    } else if std::ptr::eq(f.descr, np.int64.as_ptr()) {
        true
    } else {
        return interface_desc(obj);
    };
    let (dims, byte_strides) = dims_and_strides(f)?;
    if byte_strides.iter().any(|b| b % 8 != 0) {
        return None;
    }
    let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    let strides: Vec<isize> = byte_strides.iter().map(|b| b / 8).collect();
    if ints {
        ArrayDesc::new_i64(f.data as *const i64, &shape, &strides)
    } else {
        ArrayDesc::new(f.data as *const f64, &shape, &strides)
    }
}

/// A float32 `numpy.ndarray` (exactly that type, NumPy's native float32 dtype) of 1 or 2
/// dimensions: its values as float64 numbers in C order (native code holds float32
/// arrays so: `Ty::Array32`) and its shape; None for anything else (a 2-d one not in C
/// order among them: `ArrayDesc::f32_values`).
fn f32_copy(obj: &Bound<'_, PyAny>) -> Option<(Vec<f64>, Vec<usize>)> {
    if is_double(obj) || obj.is_instance_of::<PyInt>() {
        return None;
    }
    let (f, np) = fields(obj)?;
    if !std::ptr::eq(f.descr, np.float32.as_ptr()) {
        return None;
    }
    let (dims, bytes) = dims_and_strides(f)?;
    if bytes.iter().any(|b| b % 4 != 0) {
        return None;
    }
    let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    let strides: Vec<isize> = bytes.iter().map(|&b| b / 4).collect();
    // SAFETY: the elements are inside the array; the GIL keeps it alive and unchanged.
    let out = unsafe { ArrayDesc::f32_values(f.data as *const f32, &shape, &strides) }?;
    Some((out, shape))
}

/// `array_desc` from `__array_interface__`, for a dtype object other than NumPy's
/// native ones (a big-endian one is refused, an equal copy taken).
fn interface_desc(obj: &Bound<'_, PyAny>) -> Option<ArrayDesc> {
    let ai = obj.getattr("__array_interface__").ok()?;
    let ints = match ai
        .get_item("typestr")
        .ok()?
        .extract::<String>()
        .ok()?
        .as_str()
    {
        "<f8" => false,
        "<i8" => true,
        _ => return None,
    };
    let (addr, _readonly): (usize, bool) = ai.get_item("data").ok()?.extract().ok()?;
    let shape: Vec<usize> = ai.get_item("shape").ok()?.extract().ok()?;
    let strides_obj = ai.get_item("strides").ok()?;
    let strides: Vec<isize> = if strides_obj.is_none() {
        // C order
        let mut st = vec![1isize; shape.len()];
        for k in (0..shape.len().saturating_sub(1)).rev() {
            st[k] = st[k + 1] * shape[k + 1] as isize;
        }
        st
    } else {
        let bytes: Vec<isize> = strides_obj.extract().ok()?;
        if bytes.iter().any(|b| b % 8 != 0) {
            return None;
        }
        bytes.iter().map(|b| b / 8).collect()
    };
    if ints {
        ArrayDesc::new_i64(addr as *const i64, &shape, &strides)
    } else {
        ArrayDesc::new(addr as *const f64, &shape, &strides)
    }
}

/// A Python float or a `numpy.float64` (not other float subclasses, whose operators may
/// differ).
fn is_double(v: &Bound<'_, PyAny>) -> bool {
    if v.is_exact_instance_of::<PyFloat>() {
        return true;
    }
    v.is_instance_of::<PyFloat>()
        && numpy_types(v.py()).is_some_and(|t| v.get_type().is(t.float64_scalar.bind(v.py())))
}

/// A dict (exactly) whose keys are all strings and values all floats (Python's,
/// `numpy.float64` or `numpy.float32`): its values in key order, read now (the GIL is
/// held for the whole native call, so nothing changes them).
fn dict_values(obj: &Bound<'_, PyAny>) -> Option<DictValues> {
    let d = obj.cast_exact::<PyDict>().ok()?;
    let mut keys = Vec::with_capacity(d.len());
    let mut values = Vec::with_capacity(d.len());
    for (k, v) in d.iter() {
        if !k.is_exact_instance_of::<pyo3::types::PyString>() {
            return None;
        }
        keys.push(k);
        values.push(scalar_of(&v)?.float_kind()?);
    }
    KEY_ORDERS.values(
        &keys,
        &values,
        |a, b| a.is(b),
        |k| k.extract::<String>().ok(),
        |k| k.clone().unbind(),
    )
}

/// The key orders of the dicts seen last.
static KEY_ORDERS: KeyOrders<Py<PyAny>> = KeyOrders::new();

/// A dataclass or namedtuple instance whose fields are all floats (Python's,
/// `numpy.float64` or `numpy.float32`), read the way `p.C` reads them (its class has no
/// `__getattribute__` of its own): its field values, read now (the GIL is held for the
/// whole native call).
fn record_values(obj: &Bound<'_, PyAny>) -> Option<DictValues> {
    if obj.is_none()
        || is_double(obj)
        || obj.is_instance_of::<PyInt>()
        || obj.is_exact_instance_of::<PyTuple>()
        || obj.is_exact_instance_of::<pyo3::types::PyList>()
    {
        return None;
    }
    let py = obj.py();
    let ty = obj.get_type();
    let namedtuple = obj.is_instance_of::<PyTuple>() && !obj.is_exact_instance_of::<PyTuple>();
    let (own, fields): (_, Vec<String>) = if namedtuple {
        (
            py.get_type::<PyTuple>().getattr("__getattribute__").ok()?,
            ty.getattr("_fields").ok()?.extract().ok()?,
        )
    } else {
        let fields = ty.getattr("__dataclass_fields__").ok()?;
        let keys = fields.cast::<PyDict>().ok()?.keys();
        (
            py.get_type::<pyo3::types::PyAny>()
                .getattr("__getattribute__")
                .ok()?,
            keys.iter()
                .map(|k| k.extract::<String>())
                .collect::<PyResult<_>>()
                .ok()?,
        )
    };
    if fields.is_empty() || !ty.getattr("__getattribute__").ok()?.is(&own) {
        return None;
    }
    let mut entries = Vec::with_capacity(fields.len());
    for f in fields {
        let v = obj.getattr(f.as_str()).ok()?;
        entries.push((f, scalar_of(&v)?));
    }
    DictValues::record(entries)
}

/// A tuple or list (exactly) whose elements are all floats (Python's, `numpy.float64`
/// or `numpy.float32`): a copy of them, read now (the GIL is held for the whole native
/// call).
fn seq_values(obj: &Bound<'_, PyAny>) -> Option<SeqValues> {
    let items: Vec<Bound<'_, PyAny>> = if let Ok(t) = obj.cast_exact::<PyTuple>() {
        t.iter().collect()
    } else {
        obj.cast_exact::<pyo3::types::PyList>()
            .ok()?
            .iter()
            .collect()
    };
    let values = items
        .iter()
        .map(scalar_of)
        .collect::<Option<Vec<Scalar>>>()?;
    SeqValues::new(&values)
}

/// A float64 NumPy array holding a native result: a new C-ordered `numpy.empty` of its
/// shape, filled through its data pointer.
fn array_to_py(py: Python<'_>, a: NativeArray) -> PyResult<Py<PyAny>> {
    if a.single {
        // A float32 result: its values (exact in float32) into a new float32 array.
        let np = py.import(intern!(py, "numpy"))?;
        let bytes: Vec<u8> = a
            .data
            .iter()
            .flat_map(|&v| (v as f32).to_ne_bytes())
            .collect();
        let flat = np.call_method1(
            "frombuffer",
            (PyByteArray::new(py, &bytes), np.getattr("float32")?),
        )?;
        return Ok(flat.call_method1("reshape", (a.shape,))?.unbind());
    }
    if let Some(types) = numpy_types(py) {
        let out = types.empty.bind(py).call1((a.shape.clone(),))?;
        if out.get_type().is(types.ndarray.bind(py)) {
            // SAFETY: `out` is exactly a `numpy.ndarray` (laid out as `ArrayFields`).
            let f = unsafe { &*(out.as_ptr() as *const ArrayFields) };
            // SAFETY: an array of `nd` dimensions has `nd` dimensions.
            let dims = unsafe { std::slice::from_raw_parts(f.dimensions, f.nd.max(0) as usize) };
            let same_shape = dims.len() == a.shape.len()
                && dims.iter().zip(&a.shape).all(|(&d, &n)| d as usize == n);
            if same_shape && std::ptr::eq(f.descr, types.float64.as_ptr()) {
                // SAFETY: a new C-ordered float64 array of the result's shape: its
                // buffer holds the result's elements.
                unsafe {
                    std::ptr::copy_nonoverlapping(a.data.as_ptr(), f.data as *mut f64, a.data.len())
                };
                return Ok(out.unbind());
            }
        }
    }
    let np = py.import(intern!(py, "numpy"))?;
    let bytes: Vec<u8> = a.data.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let flat = np.call_method1(
        "frombuffer",
        (PyByteArray::new(py, &bytes), np.getattr("float64")?),
    )?;
    Ok(flat.call_method1("reshape", (a.shape,))?.unbind())
}

fn to_py(py: Python<'_>, v: Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::Scalar(Scalar::Float(v)) => v.into_pyobject(py)?.into_any().unbind(),
        Value::Scalar(Scalar::Double(v)) => match numpy_types(py) {
            Some(t) => t.float64_scalar.bind(py).call1((v,))?.unbind(),
            None => v.into_pyobject(py)?.into_any().unbind(),
        },
        Value::Scalar(Scalar::Single(v)) => match numpy_types(py) {
            Some(t) => t.float32_scalar.bind(py).call1((v,))?.unbind(),
            None => v.into_pyobject(py)?.into_any().unbind(),
        },
        Value::Scalar(Scalar::Int(v)) => v.into_pyobject(py)?.into_any().unbind(),
        Value::Scalar(Scalar::Bool(v)) => v.into_pyobject(py)?.to_owned().into_any().unbind(),
        Value::Scalar(Scalar::None | Scalar::Array(_) | Scalar::Dict(_) | Scalar::Seq(..)) => {
            py.None()
        }
        Value::Array(a) => array_to_py(py, a)?,
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
            // The arguments, then the live values of the module-level names the function
            // reads (from the interpreted function's globals, as Python would read them).
            let mut objs: Vec<Bound<'_, PyAny>> = args.iter().collect();
            let mut missing = false;
            let names = self.entry.program.globals();
            if !names.is_empty() {
                match self.fallback.bind(py).getattr(intern!(py, "__globals__")) {
                    Ok(globals) => {
                        for n in names {
                            match globals.get_item(n.as_str()) {
                                Ok(v) => objs.push(v),
                                Err(_) => missing = true, // the interpreter raises
                            }
                        }
                    }
                    Err(_) => missing = true,
                }
            }
            // The arrays' descriptors live until the call returns; the GIL, held
            // throughout, keeps their elements unchanged.
            let copies: Vec<Option<(Vec<f64>, Vec<usize>)>> = objs.iter().map(f32_copy).collect();
            let descs: Vec<Option<ArrayDesc>> = objs
                .iter()
                .zip(&copies)
                .map(|(a, c)| match c {
                    Some((data, shape)) => ArrayDesc::new_f32_copy(data.as_ptr(), shape),
                    None => array_desc(a),
                })
                .collect();
            // Records are looked for only among the arguments nothing else takes (the
            // look raises and catches an AttributeError on most objects).
            let dicts: Vec<Option<DictValues>> = objs
                .iter()
                .zip(&descs)
                .map(|(a, d)| match d {
                    Some(_) => None,
                    None => dict_values(a).or_else(|| record_values(a)),
                })
                .collect();
            let seqs: Vec<Option<SeqValues>> = objs.iter().map(seq_values).collect();
            let all: Vec<Option<Scalar>> = objs
                .iter()
                .zip(descs.iter().zip(dicts.iter().zip(&seqs)))
                .map(|(a, (desc, (dict, seq)))| {
                    Scalar::of_arg(desc.as_ref(), dict.as_ref(), seq.as_ref(), || {
                        (!missing).then(|| scalar_of(a)).flatten()
                    })
                })
                .collect();
            let (given, globals) = all.split_at(args.len());
            match self.entry.call(given, globals) {
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
            "__tangent_native_calls__" => Ok(self
                .entry
                .native_calls
                .load(std::sync::atomic::Ordering::Relaxed)
                .into_pyobject(py)?
                .into_any()
                .unbind()),
            _ => self.fallback.getattr(py, name),
        }
    }

    fn __repr__(&self) -> String {
        format!("<tangent.NativeFunction {}>", self.entry.program.name())
    }
}

/// jit(request, fallback, on_refusal) -> (native function or None, None or why the
/// generated function is not compiled); `request`'s fields are `tangent::seam::JitRequest`'s.
#[pyfunction]
pub fn jit(
    py: Python<'_>,
    request: Bound<'_, PyAny>,
    fallback: Py<PyAny>,
    on_refusal: Py<PyAny>,
) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
    let request = crate::seam_values::to_json(&request)?;
    let r = tangent::seam::jit_request(request)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    let prepared = py.detach(|| NativeEntry::prepare(&r.source, &r.entry, &r.module_file));
    match prepared {
        Ok(entry) => {
            let f = NativeFunction {
                entry,
                fallback,
                strict: r.strict,
                on_refusal: (!on_refusal.is_none(py)).then_some(on_refusal),
            };
            Ok((Py::new(py, f)?.into_any(), py.None()))
        }
        Err(why) => Ok((py.None(), why.into_pyobject(py)?.into_any().unbind())),
    }
}
