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
    builtins::{
        try_bigint_to_f64, try_f64_to_bigint, PyBaseExceptionRef, PyComplex, PyFloat, PyInt, PyStr,
    },
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
        return Err(
            vm.new_type_error("pow() 3rd argument not allowed unless all arguments are integers")
        );
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
fn round(
    zelf: PyRef<PyFloat>,
    ndigits: OptionalOption<PyObjectRef>,
    vm: &VirtualMachine,
) -> PyResult {
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

// A constant (promoted to a 'static reference): PyMethodDef is not Sync, so no static.
const ROUND: &PyMethodDef = &PyMethodDef::new_const(
    "__round__",
    round,
    PyMethodFlags::from_bits_retain(PyMethodFlags::METHOD.bits() | PyMethodFlags::FASTCALL.bits()),
    Some("Return the Integral closest to x, rounding half toward even.\n\nWhen an argument is passed, work like built-in round(x, ndigits)."),
);

/// CPython's `repr` of a complex number (`complex_repr`): each part as `repr` of a float
/// without a trailing `.0`, the imaginary part signed, no parentheses when the real part
/// is +0. RustPython 0.5 prints integral parts of 1e16 and more in full
/// (`1000000000000000000000000000000j` for `1e+30j`), and complex numbers come out of
/// `float ** float`.
pub fn complex_repr_text(re: f64, im: f64) -> String {
    let part = |v: f64| {
        let s = rustpython_vm::literal::float::to_string(v);
        match s.strip_suffix(".0") {
            Some(t) => t.to_owned(),
            None => s,
        }
    };
    let mut imag = part(im);
    if re == 0.0 && re.is_sign_positive() {
        return format!("{imag}j");
    }
    if !imag.starts_with('-') {
        imag.insert(0, '+');
    }
    format!("({}{imag}j)", part(re))
}

fn complex_repr(obj: &PyObject, vm: &VirtualMachine) -> PyResult<PyRef<PyStr>> {
    let c = obj
        .downcast_ref::<PyComplex>()
        .ok_or_else(|| vm.new_type_error("descriptor '__repr__' requires a 'complex' object"))?
        .to_complex();
    Ok(vm.ctx.new_str(complex_repr_text(c.re, c.im)))
}

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

    let complex = vm.ctx.types.complex_type;
    complex.slots.repr.store(Some(complex_repr));
    complex
        .attributes
        .write()
        .shift_remove(vm.ctx.intern_str("__repr__"));
    rustpython_vm::class::add_operators(complex, &vm.ctx);
    complex.modified();
}

#[cfg(test)]
mod tests {
    #[test]
    fn complex_repr_is_cpythons() {
        use super::complex_repr_text as r;
        // Strings printed by CPython 3.11.
        assert_eq!(
            r(-183697019872102.97, -1e30),
            "(-183697019872102.97-1e+30j)"
        );
        assert_eq!(r(0.0, 1e16), "1e+16j");
        assert_eq!(r(-0.0, 2.0), "(-0+2j)");
        assert_eq!(r(1.0, -0.0), "(1-0j)");
        assert_eq!(r(0.0, 0.0), "0j");
        assert_eq!(r(1.5, f64::NAN), "(1.5+nanj)");
        assert_eq!(r(f64::NEG_INFINITY, f64::INFINITY), "(-inf+infj)");
        assert_eq!(r(1e-5, 123456.0), "(1e-05+123456j)");
    }
}
