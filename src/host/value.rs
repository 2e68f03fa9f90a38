//! What Rust callers exchange with generated code: the arguments and results of a
//! gradient called through the Rust API (`tangent::Value`).

use ndarray::ArrayD;

/// A value passed to or returned from generated code.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Float(f64),
    Array(ArrayD<f64>),
    Tuple(Vec<Value>),
}

impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}

impl From<ArrayD<f64>> for Value {
    fn from(v: ArrayD<f64>) -> Self {
        Value::Array(v)
    }
}

impl Value {
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(v) => Some(*v),
            Value::Array(a) if a.len() == 1 => a.iter().next().copied(),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&ArrayD<f64>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
}
