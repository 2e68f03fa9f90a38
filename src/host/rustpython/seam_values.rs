//! The seam's request and answer (`crate::seam`) as Python values in this host: dicts
//! with string keys, lists and tuples, strings, ints, floats, bools and None, to and
//! from `serde_json::Value`. The fields are checked by the seam, not here.

use rustpython_vm::{
    builtins::{PyDict, PyFloat, PyInt, PyList, PyStr, PyTuple},
    AsObject, PyObject, PyObjectRef, PyResult, VirtualMachine,
};
use serde_json::Value;

pub fn to_json(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Value> {
    if vm.is_none(obj) {
        return Ok(Value::Null);
    }
    // bool before int: a bool is an int in Python.
    if obj.class().is(vm.ctx.types.bool_type) {
        return Ok(Value::Bool(obj.is(&vm.ctx.true_value)));
    }
    if let Some(i) = obj.downcast_ref::<PyInt>() {
        let v: i64 = i
            .try_to_primitive(vm)
            .map_err(|_| vm.new_value_error("tangent: a request's integer is out of range"))?;
        return Ok(Value::from(v));
    }
    if let Some(f) = obj.downcast_ref::<PyFloat>() {
        return serde_json::Number::from_f64(f.to_f64())
            .map(Value::Number)
            .ok_or_else(|| vm.new_value_error("tangent: a request's number is not finite"));
    }
    if let Some(s) = obj.downcast_ref::<PyStr>() {
        let s = s
            .to_str()
            .ok_or_else(|| vm.new_value_error("tangent: a request's string is not UTF-8"))?;
        return Ok(Value::String(s.to_owned()));
    }
    if let Some(l) = obj.downcast_ref::<PyList>() {
        let items = l.borrow_vec().to_vec();
        return items
            .iter()
            .map(|x| to_json(x, vm))
            .collect::<PyResult<_>>()
            .map(Value::Array);
    }
    if let Some(t) = obj.downcast_ref::<PyTuple>() {
        return t
            .iter()
            .map(|x| to_json(x, vm))
            .collect::<PyResult<_>>()
            .map(Value::Array);
    }
    if let Some(d) = obj.downcast_ref::<PyDict>() {
        let mut out = serde_json::Map::new();
        for (k, v) in d {
            let key = k
                .downcast_ref::<PyStr>()
                .and_then(|s| s.to_str())
                .ok_or_else(|| vm.new_type_error("tangent: a request's keys are strings"))?
                .to_owned();
            out.insert(key, to_json(&v, vm)?);
        }
        return Ok(Value::Object(out));
    }
    Err(vm.new_type_error(format!(
        "tangent: a request holds dicts, lists, strings, numbers, bools and None, not `{}`",
        obj.class().name()
    )))
}

pub fn from_json(v: &Value, vm: &VirtualMachine) -> PyObjectRef {
    match v {
        Value::Null => vm.ctx.none(),
        Value::Bool(b) => vm.ctx.new_bool(*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => vm.ctx.new_int(i).into(),
            None => vm.ctx.new_float(n.as_f64().unwrap_or(f64::NAN)).into(),
        },
        Value::String(s) => vm.ctx.new_str(s.as_str()).into(),
        Value::Array(items) => vm
            .ctx
            .new_list(items.iter().map(|x| from_json(x, vm)).collect())
            .into(),
        Value::Object(m) => {
            let d = vm.ctx.new_dict();
            for (k, x) in m {
                d.set_item(k.as_str(), from_json(x, vm), vm)
                    .expect("a fresh dict takes string keys");
            }
            d.into()
        }
    }
}
