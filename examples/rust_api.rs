//! The Rust API: generate a derivative's source and call it, no CPython involved.
//! Run with `cargo run --example rust_api`.
use ndarray::{array, ArrayD};
use tangent::{Tangent, Value};

const SRC: &str = r#"
import numpy as np

def f(x):
    return x * x * x + 2.0 * x

def loss(w, x):
    h = np.tanh(x @ w)
    return np.sum(h * h)
"#;

fn main() -> Result<(), tangent::Error> {
    let df = Tangent::grad(SRC, "f")?;
    println!("{}", df.source());
    // d/dx (x^3 + 2x) = 3x^2 + 2 = 14 at x = 2
    println!("df(2.0) = {:?}", df.call(&[Value::Float(2.0)])?.as_f64());

    let dloss = Tangent::builder(SRC, "loss").wrt(&[0]).build()?;
    let w: ArrayD<f64> = array![[0.5, -0.1], [0.2, 0.3]].into_dyn();
    let x: ArrayD<f64> = array![[0.1, 0.2], [0.3, -0.4]].into_dyn();
    let g = dloss.call(&[Value::Array(w), Value::Array(x)])?;
    println!("dloss/dw = {:?}", g.as_array());
    Ok(())
}
