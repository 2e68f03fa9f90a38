//! The Rust API against analytic derivatives and finite differences.
use ndarray::{array, ArrayD};
use tangent::{Tangent, Value};

const SRC: &str = r#"
import math
import numpy as np

def f(x):
    return x * x * x + 2.0 * math.sin(x)

def g(x, y):
    return x * y * y

def loss(w, x):
    h = np.tanh(x @ w)
    return np.sum(h * h)
"#;

#[test]
fn scalar_gradient_matches_analytic() {
    let df = Tangent::grad(SRC, "f").unwrap();
    assert!(
        df.source().starts_with("def dfdx(x, bresult=1.0):"),
        "{}",
        df.source()
    );
    for x in [-1.5, 0.0, 0.7, 2.0] {
        let got = df.call(&[Value::Float(x)]).unwrap().as_f64().unwrap();
        let want = 3.0 * x * x + 2.0 * f64::cos(x);
        assert!((got - want).abs() < 1e-12, "x={x}: {got} vs {want}");
    }
}

#[test]
fn several_wrt_and_preserve_result() {
    let dg = Tangent::builder(SRC, "g")
        .wrt(&[0, 1])
        .preserve_result(true)
        .build()
        .unwrap();
    let out = dg.call(&[Value::Float(3.0), Value::Float(2.0)]).unwrap();
    // (y^2, 2xy, x*y^2)
    assert_eq!(
        out,
        Value::Tuple(vec![
            Value::Float(4.0),
            Value::Float(12.0),
            Value::Float(12.0)
        ])
    );
}

fn loss(w: &ArrayD<f64>, x: &ArrayD<f64>) -> f64 {
    let w2 = w.view().into_dimensionality::<ndarray::Ix2>().unwrap();
    let x2 = x.view().into_dimensionality::<ndarray::Ix2>().unwrap();
    x2.dot(&w2).mapv(f64::tanh).mapv(|h| h * h).sum()
}

#[test]
fn array_gradient_matches_finite_differences() {
    let dloss = Tangent::grad(SRC, "loss").unwrap();
    let w: ArrayD<f64> = array![[0.5, -0.1, 0.3], [0.2, 0.3, -0.7]].into_dyn();
    let x: ArrayD<f64> = array![[0.1, 0.2], [0.3, -0.4], [1.0, 0.5]].into_dyn();
    let got = dloss
        .call(&[Value::Array(w.clone()), Value::Array(x.clone())])
        .unwrap();
    let got = got.as_array().expect("array gradient").clone();
    assert_eq!(got.shape(), w.shape());
    let eps = 1e-6;
    for (idx, g) in got.indexed_iter() {
        let mut hi = w.clone();
        hi[&idx] += eps;
        let mut lo = w.clone();
        lo[&idx] -= eps;
        let fd = (loss(&hi, &x) - loss(&lo, &x)) / (2.0 * eps);
        assert!((g - fd).abs() < 1e-7, "{idx:?}: {g} vs {fd}");
    }
}

#[test]
fn python_errors_come_back_with_their_type_and_traceback() {
    let df = Tangent::grad(SRC, "f").unwrap();
    let err = df
        .call(&[Value::Float(1.0), Value::Float(1.0), Value::Float(1.0)])
        .unwrap_err();
    match &err {
        tangent::Error::Python { kind, message } => {
            assert_eq!(kind, "TypeError");
            assert!(message.contains("TypeError: dfdx() takes"), "{message}");
        }
        other => panic!("expected a Python error, got {other:?}"),
    }
}

#[test]
fn source_generation_needs_no_interpreter() {
    // Errors are diagnostics, not panics.
    let err = Tangent::grad("def f(x):\n    with x:\n        pass\n", "f")
        .err()
        .unwrap();
    assert!(matches!(err, tangent::Error::Diagnostic(_)), "{err:?}");
    let err = err.to_string();
    assert!(
        err.starts_with("<source>:2:10: a `with` block over `x` cannot be differentiated"),
        "{err}"
    );
}

/// `native(true)`: scalar gradients run as machine code without the interpreter and
/// agree with it and with finite differences; array code says why it is not compiled.
#[test]
fn native_gradient_runs_without_the_interpreter() {
    let src = include_str!("../benches/workloads.py");
    let g = Tangent::builder(src, "recurrence")
        .native(true)
        .build()
        .unwrap();
    assert_eq!(g.native_refusal(1), None);
    let native = g.call(&[Value::Float(0.3)]).unwrap().as_f64().unwrap();
    let plain = Tangent::grad(src, "recurrence").unwrap();
    let interpreted = plain.call(&[Value::Float(0.3)]).unwrap().as_f64().unwrap();
    assert!(
        (native - interpreted).abs() <= 1e-12 * interpreted.abs(),
        "{native} vs {interpreted}"
    );
    // Central differences of the recurrence, written out in Rust.
    let f = |x: f64| {
        let mut s = x;
        for _ in 0..1000 {
            s = if s > 0.5 { s.sin() * x } else { s * s + x };
        }
        s
    };
    let h = 1e-6;
    let fd = (f(0.3 + h) - f(0.3 - h)) / (2.0 * h);
    assert!(
        (native - fd).abs() <= 1e-5 * fd.abs().max(1.0),
        "{native} vs {fd}"
    );
    let arrays = Tangent::builder(src, "mlp_loss")
        .native(true)
        .build()
        .unwrap();
    let why = arrays
        .native_refusal(4)
        .expect("array code is not compiled");
    assert!(why.contains("line"), "{why}");
}

/// `Tangent::grad` runs the transformer on its own large stack: a 6,000-term chain
/// differentiates from a test thread (2 MB stack), a 200,000-term one is a diagnostic.
#[test]
fn deep_expressions_from_a_small_stack() {
    let chain = |n: usize| format!("def f(x):\n    return {}\n", vec!["x"; n].join(" + "));
    let df = Tangent::grad(&chain(6000), "f").unwrap();
    assert!(df.source().starts_with("def dfdx(x, bresult=1.0):"));
    let err = Tangent::grad(&chain(200_000), "f").err().unwrap();
    assert!(matches!(err, tangent::Error::Diagnostic(_)), "{err:?}");
    let err = err.to_string();
    assert!(
        err.starts_with("<source>:2:12: this code is nested too deeply"),
        "{}",
        &err[..200]
    );
}

/// A default read from a global is the value the primal's `def` saw, not the global's
/// value when the derivative runs (issue 13).
#[test]
fn defaults_are_the_primals_own() {
    let src = "K = 2.0\n\ndef f(x, k=K):\n    return x * x * k\n\nK = 3.0\n";
    let df = Tangent::grad(src, "f").unwrap();
    let got = df.call(&[Value::Float(1.5)]).unwrap().as_f64().unwrap();
    assert!((got - 2.0 * 2.0 * 1.5).abs() < 1e-12, "{got}");
}

/// `import numpy as np` inside a module-level `try` is an import (the gradient was
/// silently zero: `np.sum` was taken for an array method on `np`); a name imported as
/// two different modules there is a located error, never a guess.
#[test]
fn imports_in_module_level_blocks() {
    let src = "try:\n    import numpy as np\nexcept ImportError:\n    np = None\n\nif True:\n    import math\n\ndef f(x):\n    return np.sum(x * x) + math.sin(np.sum(x))\n";
    let df = Tangent::grad(src, "f").unwrap();
    let x: ArrayD<f64> = array![1.0, 2.0].into_dyn();
    let got = df.call(&[Value::Array(x.clone())]).unwrap();
    let got = got.as_array().expect("array gradient").clone();
    for (g, xi) in got.iter().zip(x.iter()) {
        let want = 2.0 * xi + f64::cos(3.0);
        assert!((g - want).abs() < 1e-12, "{got:?}");
    }
    let two = "try:\n    import jax.numpy as xp\nexcept ImportError:\n    import numpy as xp\n\ndef f(x):\n    return xp.sum(x * x)\n";
    let err = Tangent::grad(two, "f").err().expect("refused").to_string();
    assert!(
        err.contains("`xp` is bound to different things at module level"),
        "{err}"
    );
}
