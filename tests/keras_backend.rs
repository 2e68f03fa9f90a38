//! The Keras 3 backend (`keras.ops`): the rule counts stay above the floor, the
//! names models use have rules both ways, calls resolve under the usual import styles,
//! and in CPython with keras installed the op catalog (tests/keras/check_keras.py, which
//! also fails for a rule without an entry) passes on the jax and tensorflow backends,
//! and on torch when it is installed; so do the lazy loading and the example (skipped
//! with a message when the test CPython, keras or the bridge is missing; a failure under
//! CI=true).

use crate::common;

use crate::common::backend::source;

use tangent::Tangent;

#[test]
fn keras_rules_cover_the_functions_models_use() {
    common::backend::assert_rules(
        "keras.",
        60,
        45,
        &[
            "keras.ops.tanh",
            "keras.ops.sum",
            "keras.ops.mean",
            "keras.ops.max",
            "keras.ops.matmul",
            "keras.ops.relu",
            "keras.ops.sigmoid",
            "keras.ops.softmax",
            "keras.ops.log_softmax",
            "keras.ops.gelu",
            "keras.ops.categorical_crossentropy",
            "keras.ops.sparse_categorical_crossentropy",
            "keras.ops.binary_crossentropy",
            "keras.ops.reshape",
            "keras.ops.transpose",
            "keras.ops.concatenate",
            "keras.ops.take",
            "keras.ops.where",
            "keras.ops.linalg.inv",
            "keras.ops.linalg.norm",
        ],
    );
}

#[test]
fn keras_calls_resolve_by_their_canonical_names() {
    let cases = [
        ("import keras", "keras.ops.tanh(x)"),
        ("from keras import ops", "ops.relu(x)"),
        ("from keras import ops as kops", "kops.sum(x, axis=0)"),
        ("import keras", "keras.ops.nn.softmax(x)"),
        ("import keras", "keras.ops.numpy.mean(x)"),
        ("from keras import ops", "ops.inv(x)"),
        ("from keras import ops", "ops.linalg.det(x)"),
    ];
    common::backend::assert_differentiates(&cases);
    // The elementwise table's partial is written with keras.ops (on any backend), and
    // masks with keras.ops.where (TensorFlow multiplies no bool by a float).
    let src = "from keras import ops\n\n\ndef f(x):\n    return ops.sin(x)\n";
    assert!(source(src, false).contains("keras.ops.cos(x)"));
    let src = "from keras import ops\n\n\ndef f(x):\n    return ops.relu(x)\n";
    assert!(source(src, false).contains("keras.ops.where(x > 0.0"));
}

#[test]
fn a_keras_function_without_a_rule_names_it_and_the_template() {
    let src = "from keras import ops\n\n\ndef f(x):\n    return ops.erfinv(x)\n";
    let err = Tangent::builder(src, "f").build().err().expect("an error");
    let text = err.to_string();
    assert!(text.contains("keras.ops.erfinv"), "{text}");
    assert!(text.contains("@tangent.adjoint("), "{text}");
    assert!(text.contains(":5:"), "{text}");
}

fn catalog(backend: &str, needs: &[&str]) {
    let Some(python) = common::cpython::python(needs) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!(
        "tangent-keras-catalog-{backend}-{}",
        std::process::id()
    ));
    let stdout = common::cpython::run_ok_with(
        &python,
        "tests/keras/check_keras.py",
        &[&dir.to_string_lossy()],
        &[("KERAS_BACKEND", backend)],
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(stdout.contains(&format!("on {backend}")), "{stdout}");
    assert!(stdout.contains(", 0 failures"), "{stdout}");
}

#[test]
fn keras_catalog_on_jax_matches_jax_autodiff_and_finite_differences() {
    catalog("jax", &["keras", "jax"]);
}

#[test]
fn keras_catalog_on_tensorflow_matches_gradient_tape_and_finite_differences() {
    catalog("tensorflow", &["keras", "tensorflow"]);
}

/// On torch when the test venv has it (CI's does).
#[test]
fn keras_catalog_on_torch_matches_torch_autograd_and_finite_differences() {
    catalog("torch", &["keras", "torch"]);
}

#[test]
fn import_tangent_never_imports_keras() {
    let Some(python) = common::cpython::python(&["keras", "jax", "numpy"]) else {
        return;
    };
    let out = common::cpython::run_ok_with(
        &python,
        "tests/keras/lazy_load.py",
        &[],
        &[("KERAS_BACKEND", "jax")],
    );
    common::cpython::assert_lines(
        &out,
        &[
            "numpy gradient: True",
            "keras imported after numpy use: False",
            "keras runtime loaded after numpy use: False",
            "keras gradient: jaxlib float64 True",
            "keras runtime loaded after keras use: True",
            "backend_status: available (backend: jax)",
        ],
    );
}

#[test]
fn the_keras_example_matches_the_backends_autodiff() {
    for (backend, needs) in [("jax", "jax"), ("tensorflow", "tensorflow")] {
        let Some(python) = common::cpython::python(&["keras", needs]) else {
            return;
        };
        let stdout = common::cpython::run_ok_with(
            &python,
            "examples/keras_ops.py",
            &[],
            &[("KERAS_BACKEND", backend)],
        );
        assert!(
            stdout.contains("gradients match the backend's autodiff: True"),
            "{stdout}"
        );
        assert!(stdout.contains(&format!("backend: {backend}")), "{stdout}");
        assert!(stdout.contains(" float32"), "{stdout}");
    }
}

/// The generated source is the product: a small classifier's gradient and tangent,
/// reviewed as snapshots.
#[test]
fn keras_generated_source_snapshots() {
    let src = "from keras import ops\n\n\n\
               def loss(w, b, x, labels):\n\
               \x20   h = ops.relu(ops.matmul(x, w) + b)\n\
               \x20   ce = ops.sparse_categorical_crossentropy(labels, h, from_logits=True)\n\
               \x20   return ops.mean(ce) + 0.01 * ops.sum(ops.square(w))\n";
    let reverse = Tangent::builder(src, "loss").wrt(&[0, 1]).build().unwrap();
    insta::assert_snapshot!("keras_classifier_reverse", reverse.source());
    let forward = Tangent::builder(src, "loss")
        .wrt(&[0])
        .forward()
        .build()
        .unwrap();
    insta::assert_snapshot!("keras_classifier_forward", forward.source());
}
