//! The Python face of `compile='native'`: a callable that runs the Cranelift-compiled
//! adjoint for float, int and bool arguments and float64 (or int64, read only) arrays
//! of 1 or 2 dimensions (read in place, under their read lock) and the interpreted
//! adjoint (its `__wrapped__`) for anything else, for signatures the compiler refuses,
//! and where the native code bails out (Python would raise or leave machine numbers).
//! Every other attribute (`__tangent_source__`, `__name__`, ...) is the interpreted
//! function's, so the readable Python source stays the product.

use crate::jit::arrays::ArrayDesc;
use crate::jit::typing::containers::{DictValues, KeyOrders, SeqValues};
use crate::jit::{ArrayArg, Call, DictArg, NativeEntry, Scalar, Value};
use rustpython_vm::{
    builtins::{PyBool, PyInt, PyStr},
    function::FuncArgs,
    pyclass,
    types::{Callable, GetAttr},
    AsObject, Py, PyObject, PyObjectRef, PyPayload, PyResult, VirtualMachine,
};
use smallvec::SmallVec;
use tangent_numpy::host_api::{
    element_window, f32_array, f64_array, numpy_float, numpy_float_object, ElementWindow, Elements,
    NumpyFloat, PyNdArray,
};

/// One item per argument, on the stack for the usual few: a native call's conversions
/// allocate only what the values need.
type Args<T> = SmallVec<[T; 8]>;

#[pyclass(module = "tangent", name = "NativeFunction")]
#[derive(PyPayload)]
pub struct PyNativeFunction {
    pub entry: NativeEntry,
    pub fallback: PyObjectRef,
    /// `compile='native!'`: a refused signature raises instead of running interpreted.
    pub strict: bool,
    /// Called with a message when a signature is refused (`compile='native'`).
    pub on_refusal: Option<PyObjectRef>,
    /// The key orders of the dict arguments seen last.
    pub key_orders: KeyOrders<PyObjectRef>,
}

impl std::fmt::Debug for PyNativeFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NativeFunction({})", self.entry.program.name())
    }
}

fn scalar_of(obj: &PyObject, vm: &VirtualMachine) -> Option<Scalar> {
    if obj
        .class()
        .is(<PyBool as rustpython_vm::class::StaticType>::static_type())
    {
        return Some(Scalar::Bool(obj.is(&vm.ctx.true_value)));
    }
    match numpy_float(obj, vm) {
        Some(NumpyFloat::Python(v)) => return Some(Scalar::Float(v)),
        Some(NumpyFloat::Float64(v)) => return Some(Scalar::Double(v)),
        Some(NumpyFloat::Float32(v)) => return Some(Scalar::Single(v as f64)),
        None => {}
    }
    if let Some(i) = obj.downcast_ref_if_exact::<PyInt>(vm) {
        return i64::try_from(i.as_bigint()).ok().map(Scalar::Int);
    }
    None
}

fn to_py(v: Value, vm: &VirtualMachine) -> PyObjectRef {
    match v {
        Value::Scalar(Scalar::Float(v)) => vm.ctx.new_float(v).into(),
        Value::Scalar(Scalar::Double(v)) => numpy_float_object(NumpyFloat::Float64(v), vm),
        Value::Scalar(Scalar::Single(v)) => numpy_float_object(NumpyFloat::Float32(v as f32), vm),
        Value::Scalar(Scalar::Int(v)) => vm.ctx.new_int(v).into(),
        Value::Scalar(Scalar::Bool(v)) => vm.ctx.new_bool(v).into(),
        Value::Scalar(Scalar::None | Scalar::Array(_) | Scalar::Dict(_) | Scalar::Seq(..)) => {
            vm.ctx.none()
        }
        Value::Array(a) if a.single => {
            f32_array(a.data, &a.shape, vm).unwrap_or_else(|| vm.ctx.none())
        }
        Value::Array(a) => f64_array(a.data, &a.shape, vm).unwrap_or_else(|| vm.ctx.none()),
    }
}

/// A dict (exactly) whose keys are all strings and values all floats (Python's,
/// `numpy.float64` or `numpy.float32`): its values in key order, read now (no Python code runs during the
/// native call, so none can change them).
fn dict_values(
    obj: &PyObject,
    orders: &KeyOrders<PyObjectRef>,
    vm: &VirtualMachine,
) -> Option<DictValues> {
    let d = obj.downcast_ref_if_exact::<rustpython_vm::builtins::PyDict>(vm)?;
    // A snapshot under one lock (iterating takes it once per entry).
    let items = d.items_vec();
    let mut values: SmallVec<[(f64, u8); 16]> = SmallVec::with_capacity(items.len());
    for (k, v) in &items {
        k.downcast_ref_if_exact::<PyStr>(vm)?;
        values.push(scalar_of(v, vm)?.float_kind()?);
    }
    orders.values(
        &items,
        &values,
        |a, (b, _)| a.is(b),
        // A key that is not valid UTF-8 (a lone surrogate) is no name native code reads.
        |(k, _)| Some(k.downcast_ref::<PyStr>()?.to_str()?.to_owned()),
        |(k, _)| k.clone(),
    )
}

/// A dataclass or namedtuple instance whose fields are all floats (Python's,
/// `numpy.float64` or `numpy.float32`), read the way `p.C` reads them (its class has no
/// `__getattribute__` of its own): its field values, read now (no Python code runs
/// during the native call).
fn record_values(obj: &PyObject, vm: &VirtualMachine) -> Option<DictValues> {
    if vm.is_none(obj) || scalar_of(obj, vm).is_some() {
        return None;
    }
    let cls = obj.class();
    let types = &vm.ctx.types;
    if [
        types.int_type,
        types.bool_type,
        types.tuple_type,
        types.list_type,
    ]
    .iter()
    .any(|t| cls.is(*t))
        || obj.downcast_ref::<PyNdArray>().is_some()
    {
        return None;
    }
    let class_attr = |name: &'static str| cls.as_object().get_attr(name, vm).ok();
    let namedtuple = obj.fast_isinstance(types.tuple_type) && !cls.is(types.tuple_type);
    // The field names, and the class whose attribute lookup a record's must be.
    let (base, names): (_, Vec<PyObjectRef>) = if namedtuple {
        let fields = class_attr("_fields")?;
        let fields = fields.downcast_ref::<rustpython_vm::builtins::PyTuple>()?;
        (types.tuple_type, fields.as_slice().to_vec())
    } else {
        let fields = class_attr("__dataclass_fields__")?;
        let fields = fields.downcast_ref::<rustpython_vm::builtins::PyDict>()?;
        let names = fields.items_vec().into_iter().map(|(k, _)| k).collect();
        (types.object_type, names)
    };
    let own = base.as_object().get_attr("__getattribute__", vm).ok()?;
    let fields: Vec<String> = names
        .iter()
        .map(|f| Some(f.downcast_ref::<PyStr>()?.to_str()?.to_owned()))
        .collect::<Option<_>>()?;
    if fields.is_empty() || !class_attr("__getattribute__")?.is(&own) {
        return None;
    }
    let mut entries = Vec::with_capacity(fields.len());
    for f in fields {
        let v = obj.get_attr(&vm.ctx.new_str(f.as_str()), vm).ok()?;
        entries.push((f, scalar_of(&v, vm)?));
    }
    DictValues::record(entries)
}

/// A tuple or list (exactly) whose elements are all floats (Python's,
/// `numpy.float64` or `numpy.float32`): a copy of them, read now (no Python code runs during the native
/// call).
fn seq_values(obj: &PyObject, vm: &VirtualMachine) -> Option<SeqValues> {
    let items: Vec<PyObjectRef> =
        if let Some(t) = obj.downcast_ref_if_exact::<rustpython_vm::builtins::PyTuple>(vm) {
            t.as_slice().to_vec()
        } else {
            obj.downcast_ref_if_exact::<rustpython_vm::builtins::PyList>(vm)?
                .borrow_vec()
                .to_vec()
        };
    let values = items
        .iter()
        .map(|v| scalar_of(v, vm))
        .collect::<Option<Vec<Scalar>>>()?;
    SeqValues::new(&values)
}

/// What native code reads of one argument, held until the call returns: an array's
/// window keeps the array read-locked while its descriptor points at the window's
/// elements (or at the float32 copy held beside it); a container's values are what its
/// argument points at.
enum Held<'a> {
    Array {
        _window: ElementWindow<'a>,
        _copy: Option<Vec<f64>>,
        desc: ArrayDesc,
    },
    Dict(DictValues),
    Seq(SeqValues),
    /// A number, or None: the argument runs interpreted.
    Number(Option<Scalar>),
}

impl<'a> Held<'a> {
    /// One argument, converted once. Records are looked for only among the arguments
    /// nothing else takes (the look raises and catches an AttributeError on most objects).
    fn of(obj: &'a PyObject, orders: &KeyOrders<PyObjectRef>, vm: &VirtualMachine) -> Held<'a> {
        if let Some(window) = obj
            .downcast_ref::<PyNdArray>()
            .and_then(|a| element_window(a))
        {
            let copy = f32_copy(&window);
            if let Some(desc) = descriptor(&window, copy.as_ref()) {
                return Held::Array {
                    _window: window,
                    _copy: copy,
                    desc,
                };
            }
        }
        if let Some(d) = dict_values(obj, orders, vm).or_else(|| record_values(obj, vm)) {
            return Held::Dict(d);
        }
        if let Some(s) = seq_values(obj, vm) {
            return Held::Seq(s);
        }
        Held::Number(scalar_of(obj, vm))
    }

    /// The argument as the compiled code takes it (pointing into `self`, which must not
    /// move until the call returns).
    fn scalar(&self) -> Option<Scalar> {
        match self {
            Held::Array { desc, .. } => Some(Scalar::Array(ArrayArg::new(desc))),
            Held::Dict(d) => Some(Scalar::Dict(DictArg::new(d))),
            Held::Seq(s) => Some(Scalar::Seq(ArrayArg::new(&s.desc), s.kind)),
            Held::Number(n) => *n,
        }
    }
}

/// A float32 window's values as float64 numbers in C order (native code holds float32
/// arrays so: `Ty::Array32`), None for other windows (and 2-d ones not in C order:
/// `ArrayDesc::f32_values`).
fn f32_copy(w: &ElementWindow<'_>) -> Option<Vec<f64>> {
    let Elements::F32(p) = w.data else {
        return None;
    };
    // SAFETY: the window's elements, which the read lock keeps alive.
    unsafe { ArrayDesc::f32_values(p, &w.shape, &w.strides) }
}

/// The descriptor of a window (None for a dimension count native code does not take);
/// a float32 window's is its copy's.
fn descriptor(w: &ElementWindow<'_>, copy: Option<&Vec<f64>>) -> Option<ArrayDesc> {
    match (w.data, copy) {
        (Elements::F64(p), _) => ArrayDesc::new(p, &w.shape, &w.strides),
        (Elements::I64(p), _) => ArrayDesc::new_i64(p, &w.shape, &w.strides),
        (Elements::F32(_), Some(c)) => ArrayDesc::new_f32_copy(c.as_ptr(), &w.shape),
        (Elements::F32(_), None) => None,
    }
}

impl PyNativeFunction {
    /// The native result, or None when the interpreted adjoint must run.
    fn native(&self, args: &FuncArgs, vm: &VirtualMachine) -> PyResult<Option<PyObjectRef>> {
        if !args.kwargs.is_empty() {
            return Ok(None);
        }
        // The live values of the module-level names the function reads (from the
        // interpreted function's globals, as Python would read them).
        let names = self.entry.program.globals();
        let mut live: Args<PyObjectRef> = SmallVec::new();
        if !names.is_empty() {
            let Ok(globals) = self.fallback.get_attr("__globals__", vm) else {
                return Ok(None);
            };
            for n in names {
                match globals.get_item(n.as_str(), vm) {
                    Ok(v) => live.push(v),
                    Err(_) => return Ok(None), // the interpreter raises the NameError
                }
            }
        }
        // The arguments then those values, converted once and held (arrays locked)
        // until the call returns.
        let held: Args<Held> = args
            .args
            .iter()
            .chain(&live)
            .map(|o| Held::of(o, &self.key_orders, vm))
            .collect();
        let all: Args<Option<Scalar>> = held.iter().map(Held::scalar).collect();
        let (given, globals) = all.split_at(args.args.len());
        match self.entry.call(given, globals) {
            Call::Interpret => Ok(None),
            Call::Refused { message, first } => {
                if self.strict {
                    return Err(vm.new_type_error(message));
                }
                if let (true, Some(cb)) = (first, &self.on_refusal) {
                    cb.call((message,), vm)?;
                }
                Ok(None)
            }
            Call::Done(outs, true) => Ok(Some(
                vm.ctx
                    .new_tuple(outs.into_iter().map(|s| to_py(s, vm)).collect())
                    .into(),
            )),
            Call::Done(outs, false) => Ok(Some(
                outs.into_iter()
                    .next()
                    .map(|s| to_py(s, vm))
                    .unwrap_or_else(|| vm.ctx.none()),
            )),
        }
    }
}

impl Callable for PyNativeFunction {
    type Args = FuncArgs;
    fn call(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        if let Some(r) = zelf.native(&args, vm)? {
            return Ok(r);
        }
        zelf.fallback.call(args, vm)
    }
}

impl GetAttr for PyNativeFunction {
    fn getattro(zelf: &Py<Self>, name: &Py<PyStr>, vm: &VirtualMachine) -> PyResult {
        match name.to_string_lossy().as_ref() {
            "__wrapped__" => Ok(zelf.fallback.clone()),
            "__tangent_native__" => Ok(vm.ctx.new_bool(true).into()),
            "__tangent_native_calls__" => Ok(vm
                .ctx
                .new_int(
                    zelf.entry
                        .native_calls
                        .load(std::sync::atomic::Ordering::Relaxed),
                )
                .into()),
            "__class__" => Ok(zelf.class().to_owned().into()),
            _ => zelf.fallback.get_attr(name, vm),
        }
    }
}

#[pyclass(with(Callable, GetAttr))]
impl PyNativeFunction {}

impl PyNativeFunction {
    /// The Python object (the class is set up on first use).
    pub fn into_object(self, vm: &VirtualMachine) -> PyObjectRef {
        use rustpython_vm::class::PyClassImpl;
        let _ = vm;
        let cls = PyNativeFunction::make_static_type();
        rustpython_vm::PyRef::new_ref(self, cls, None).into()
    }
}
