//! CPython's float arithmetic for the embedded interpreter: at start-up, `float`'s number
//! slots for `%`, `//`, `divmod` and `**` (left and right: the binary-operator dispatch
//! reads `slots.as_number`) and their wrapper methods in the type's dict (`__mod__`,
//! `__rmod__`, ... are wrappers holding the slot function they were made from) are
//! replaced by functions over `crate::host::float_ops`, and `__round__` by CPython's
//! rounding. RustPython 0.5's own versions differ from CPython (see `float_ops`).
//! Subclasses of `float` defined later inherit the new slots.

use crate::host::float_ops::{self, FloatError, Power};
use num_traits::{Signed, ToPrimitive};
use rustpython_vm::{
    builtins::{try_bigint_to_f64, try_f64_to_bigint, PyBaseExceptionRef, PyFloat, PyInt},
    function::{OptionalOption, PyMethodDef, PyMethodFlags},
    AsObject, PyObject, PyObjectRef, PyRef, PyResult, VirtualMachine,
};

/// The float value of an operand of a float operator: a float (or subclass), an int
/// converted as CPython's `PyLong_AsDouble` does (OverflowError when too large), or None
/// (the operator returns NotImplemented).
fn operand(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Option<f64>> {
    if let Some(f) = obj.downcast_ref::<PyFloat>() {
        Ok(Some(f.to_f64()))
    } else if let Some(i) = obj.downcast_ref::<PyInt>() {
        try_bigint_to_f64(i.as_bigint(), vm).map(Some)
    } else {
        Ok(None)
    }
}

fn operands(a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> PyResult<Option<(f64, f64)>> {
    let x = operand(a, vm)?;
    let y = operand(b, vm)?;
    Ok(x.zip(y))
}

fn raise(e: FloatError, vm: &VirtualMachine) -> PyBaseExceptionRef {
    match e {
        FloatError::ZeroDivision(msg) => vm.new_zero_division_error(msg),
        FloatError::Overflow(msg) => vm.new_overflow_error(msg),
    }
}

fn float_result(r: Result<f64, FloatError>, vm: &VirtualMachine) -> PyResult {
    r.map(|v| vm.ctx.new_float(v).into())
        .map_err(|e| raise(e, vm))
}

// The binary slots get the operands in expression order for both the left (`a.__mod__`)
// and the right (`b.__rmod__`) call, so one function serves both.

fn remainder(a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> PyResult {
    match operands(a, b, vm)? {
        Some((x, y)) => float_result(float_ops::rem(x, y), vm),
        None => Ok(vm.ctx.not_implemented()),
    }
}

fn floor_divide(a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> PyResult {
    match operands(a, b, vm)? {
        Some((x, y)) => float_result(float_ops::floordiv(x, y), vm),
        None => Ok(vm.ctx.not_implemented()),
    }
}

fn divmod(a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> PyResult {
    match operands(a, b, vm)? {
        Some((x, y)) => {
            let (q, m) = float_ops::divmod(x, y).map_err(|e| raise(e, vm))?;
            Ok(vm
                .ctx
                .new_tuple(vec![vm.ctx.new_float(q).into(), vm.ctx.new_float(m).into()])
                .into())
        }
        None => Ok(vm.ctx.not_implemented()),
    }
}

fn power(a: &PyObject, b: &PyObject, c: &PyObject, vm: &VirtualMachine) -> PyResult {
    if !vm.is_none(c) {
        return Err(vm.new_type_error(
            "pow() 3rd argument not allowed unless all arguments are integers",
        ));
    }
    let Some((x, y)) = operands(a, b, vm)? else {
        return Ok(vm.ctx.not_implemented());
    };
    match float_ops::pow(x, y).map_err(|e| raise(e, vm))? {
        Power::Real(v) => Ok(vm.ctx.new_float(v).into()),
        Power::Complex(re, im) => vm
            .ctx
            .types
            .complex_type
            .as_object()
            .call((vm.ctx.new_float(re), vm.ctx.new_float(im)), vm),
    }
}

/// `float.__round__(ndigits=None, /)`.
fn round(zelf: PyRef<PyFloat>, ndigits: OptionalOption<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
    let x = zelf.to_f64();
    match ndigits.flatten() {
        None => {
            let r = float_ops::round_half_even(x);
            if r.is_infinite() {
                return Err(vm.new_overflow_error("cannot convert float infinity to integer"));
            }
            if r.is_nan() {
                return Err(vm.new_value_error("cannot convert float NaN to integer"));
            }
            Ok(vm.ctx.new_int(try_f64_to_bigint(r, vm)?).into())
        }
        Some(n) => {
            // PyNumber_AsSsize_t(ndigits, NULL): __index__, clipped on overflow.
            let n = n.try_index(vm)?;
            let n = n.as_bigint();
            let n = n
                .to_i64()
                .unwrap_or(if n.is_negative() { i64::MIN } else { i64::MAX });
            float_result(float_ops::round_digits(x, n), vm)
        }
    }
}

static ROUND: PyMethodDef = PyMethodDef::new_const(
    "__round__",
    round,
    PyMethodFlags::from_bits_retain(PyMethodFlags::METHOD.bits() | PyMethodFlags::FASTCALL.bits()),
    Some("Return the Integral closest to x, rounding half toward even.\n\nWhen an argument is passed, work like built-in round(x, ndigits)."),
);

/// The wrapper methods made from the replaced slots.
const SLOT_METHODS: &[&str] = &[
    "__mod__",
    "__rmod__",
    "__floordiv__",
    "__rfloordiv__",
    "__divmod__",
    "__rdivmod__",
    "__pow__",
    "__rpow__",
];

/// Gives `float` CPython's `%`, `//`, `divmod`, `**` and `round`. Called once, when the
/// interpreter has been built and before any user code runs.
pub fn install(vm: &VirtualMachine) {
    let float = vm.ctx.types.float_type;
    let slots = &float.slots.as_number;
    slots.remainder.store(Some(remainder));
    slots.right_remainder.store(Some(remainder));
    slots.floor_divide.store(Some(floor_divide));
    slots.right_floor_divide.store(Some(floor_divide));
    slots.divmod.store(Some(divmod));
    slots.right_divmod.store(Some(divmod));
    slots.power.store(Some(power));
    slots.right_power.store(Some(power));
    {
        let mut attributes = float.attributes.write();
        for name in SLOT_METHODS {
            attributes.shift_remove(vm.ctx.intern_str(*name));
        }
    }
    // Makes wrappers (from the slots now in place) for exactly the names just removed:
    // it skips every name the dict already has.
    rustpython_vm::class::add_operators(float, &vm.ctx);
    float.set_attr(
        vm.ctx.intern_str("__round__"),
        ROUND.build_method(&vm.ctx, float).into(),
    );
    // Attribute lookups are cached per type version.
    float.modified();
}
