//! The tinygrad backend: the rules tinygrad code reaches (its Tensor methods, the
//! functions reached through the class, the shared operator and array-method rules)
//! number at least the floor and each has a catalog entry; method calls resolve
//! as tinygrad means them; and in CPython with tinygrad installed the op catalog
//! (tests/tinygrad/check_tinygrad.py, which also fails for a rule without an entry), the
//! lazy loading and the example pass (skipped with a message when the test CPython,
//! tinygrad or the bridge is missing; a failure under CI=true).

use crate::common;

use crate::common::backend::source;

use std::collections::BTreeSet;
use tangent::Tangent;

const TINYGRAD_RULES: &str = include_str!("../backends/tinygrad.py");
const ELEMENTWISE: &str = include_str!("../backends/elementwise.py");

/// The rules of numpy.py, torch.py and arithmetic.py that tinygrad code reaches: the
/// Tensor methods tinygrad shares with NumPy and torch, and the operators.
const SHARED: &[&str] = &[
    "numpy.ndarray.sum",
    "numpy.ndarray.mean",
    "numpy.ndarray.max",
    "numpy.ndarray.min",
    "numpy.ndarray.prod",
    "numpy.ndarray.var",
    "numpy.ndarray.std",
    "numpy.ndarray.cumsum",
    "numpy.ndarray.softmax",
    "numpy.ndarray.log_softmax",
    "numpy.ndarray.reshape",
    "numpy.ndarray.view",
    "numpy.ndarray.permute",
    "numpy.ndarray.transpose",
    "numpy.ndarray.T",
    "numpy.ndarray.flatten",
    "numpy.ndarray.squeeze",
    "numpy.ndarray.unsqueeze",
    "numpy.ndarray.expand",
    "numpy.ndarray.repeat",
    "numpy.ndarray.exp",
    "numpy.ndarray.log",
    "numpy.ndarray.tanh",
    "numpy.ndarray.sigmoid",
    "numpy.ndarray.relu",
    "numpy.ndarray.sqrt",
    "numpy.ndarray.sin",
    "numpy.ndarray.cos",
    "numpy.ndarray.abs",
    "numpy.ndarray.square",
    "numpy.ndarray.neg",
    "numpy.ndarray.pow",
    "numpy.ndarray.add",
    "numpy.ndarray.sub",
    "numpy.ndarray.mul",
    "numpy.ndarray.div",
    "numpy.ndarray.matmul",
    "numpy.ndarray.dot",
    "numpy.ndarray.clip",
    "operator.add",
    "operator.sub",
    "operator.mul",
    "operator.truediv",
    "operator.pow",
    "operator.neg",
    "operator.matmul",
];

/// The rule names of backends/tinygrad.py's templates (not those of tangent's helpers).
fn tinygrad_templates() -> BTreeSet<String> {
    TINYGRAD_RULES
        .lines()
        .filter_map(|l| {
            l.strip_prefix("@adjoint(")
                .or_else(|| l.strip_prefix("@tangent_("))
        })
        .filter_map(|l| l.strip_suffix(')'))
        .filter(|n| !n.starts_with("tangent."))
        .map(str::to_owned)
        .collect()
}

/// The `numpy_="ndarray.<name>"` methods of the elementwise table.
fn elementwise_methods() -> BTreeSet<String> {
    ELEMENTWISE
        .split("=\"ndarray.")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(|n| format!("numpy.ndarray.{n}"))
        .collect()
}

/// Every rule a tinygrad program reaches.
fn reached() -> BTreeSet<String> {
    let mut all = tinygrad_templates();
    all.extend(elementwise_methods());
    all.extend(SHARED.iter().map(|s| (*s).to_owned()));
    all
}

#[test]
fn tinygrad_rules_cover_the_method_api_and_have_catalog_entries() {
    let rules = tangent::rules::RuleSet::builtin();
    let all = reached();
    let reverse = all.iter().filter(|n| rules.adjoint(n).is_some()).count();
    let forward = all.iter().filter(|n| rules.tangent(n).is_some()).count();
    // The floor (tangent-ad 0.4.0 registers 67 and 38).
    assert!(
        reverse >= 80 && forward >= 45,
        "{reverse} reverse, {forward} forward rules reached by tinygrad code"
    );
    let missing: Vec<&String> = all
        .iter()
        .filter(|n| !common::backend::in_tinygrad_catalog(n))
        .collect();
    assert!(
        missing.is_empty(),
        "rules without an entry in tests/tinygrad/check_tinygrad.py: {missing:?}"
    );
    let without: Vec<&String> = all
        .iter()
        .filter(|n| rules.adjoint(n).is_none() || rules.tangent(n).is_none())
        .collect();
    assert!(without.is_empty(), "not a rule both ways: {without:?}");
    // The methods the issue names.
    for m in [
        "tanh",
        "relu",
        "conv2d",
        "max_pool2d",
        "avg_pool2d",
        "layernorm",
        "batchnorm",
        "softmax",
        "log_softmax",
        "sparse_categorical_crossentropy",
        "reshape",
        "permute",
        "expand",
        "pad",
        "shrink",
        "flip",
        "sum",
        "mean",
        "max",
        "pow",
        "exp",
        "log",
        "sqrt",
        "sigmoid",
        "gelu",
        "swish",
        "where",
        "stack",
        "cat",
    ] {
        assert!(
            all.contains(&format!("numpy.ndarray.{m}")),
            "no rule for x.{m}()"
        );
    }
    assert!(all.contains("tinygrad.Tensor.stack") && all.contains("tinygrad.Tensor.cat"));
}

#[test]
fn tinygrad_methods_resolve_with_tinygrad_keywords() {
    let cases = [
        ("from tinygrad import Tensor", "x.tanh().sum()"),
        (
            "from tinygrad import Tensor",
            "(x @ x).relu().sum(axis=1, keepdim=True)",
        ),
        ("from tinygrad import Tensor", "x.max(axis=0, keepdim=True)"),
        ("from tinygrad import Tensor", "x.softmax(axis=0)"),
        ("from tinygrad import Tensor", "Tensor.stack(x, x, dim=1)"),
        ("from tinygrad import Tensor", "x.cat(x, x, dim=1)"),
        ("from tinygrad import Tensor", "x.pad(((1, 1), (0, 2)))"),
    ];
    common::backend::assert_differentiates(&cases);
    // A keyword-only parameter after `*args` takes no positional argument, and the
    // gradient of `*args` reaches each argument (twice for `y`).
    let src = "from tinygrad import Tensor\n\n\ndef f(x, y):\n    return Tensor.cat(x, y, y)\n";
    let out = Tangent::builder(src, "f")
        .wrt(&[0, 1])
        .build()
        .unwrap()
        .source()
        .to_owned();
    assert!(
        out.contains("tinygrad_cat_grad(bresult, x, (y, y), 0, 1)"),
        "{out}"
    );
    assert!(
        out.contains("by = parts[0]") && out.contains("add_grad(by, parts[1])"),
        "{out}"
    );
    // In forward mode the tangents of `*args` are a tuple.
    let out = source(src, true);
    assert!(
        out.contains("(dy, dy)") || out.contains("(0.0, 0.0)"),
        "{out}"
    );
    // NumPy's own method calls keep their NumPy forms.
    let src = "import numpy as np\n\n\ndef f(x):\n    return x.max(axis=0).sum()\n";
    let out = source(src, false);
    assert!(!out.contains("keepdim"), "{out}");
}

#[test]
fn tinygrad_catalog_matches_tinygrad_and_finite_differences() {
    let Some(python) = common::cpython::python(&["tinygrad"]) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tangent-tinygrad-catalog-{}", std::process::id()));
    let stdout = common::cpython::run_ok(
        &python,
        "tests/tinygrad/check_tinygrad.py",
        &[&dir.to_string_lossy()],
    );
    let _ = std::fs::remove_dir_all(&dir);
    // Says which device it ran on (CPU with clang, PYTHON without).
    let device = stdout
        .lines()
        .find(|l| l.starts_with("tinygrad device: "))
        .unwrap_or("tinygrad device: ?");
    eprintln!("{device}");
    assert!(stdout.contains(", 0 failures"), "{stdout}");
}

#[test]
fn import_tangent_never_imports_tinygrad() {
    let Some(python) = common::cpython::python(&["tinygrad", "numpy"]) else {
        return;
    };
    let out = common::cpython::run_ok(&python, "tests/tinygrad/lazy_load.py", &[]);
    common::cpython::assert_lines(
        &out,
        &[
            "numpy gradient: True",
            "tinygrad imported after numpy use: False",
            "tinygrad runtime loaded after numpy use: False",
            "tinygrad gradient: Tensor double True",
            "tinygrad runtime loaded after tinygrad use: True",
            "backend_status: available",
        ],
    );
}

#[test]
fn the_tinygrad_mlp_example_matches_tinygrad_backward() {
    let Some(python) = common::cpython::python(&["tinygrad"]) else {
        return;
    };
    let stdout = common::cpython::run_ok(&python, "examples/tinygrad_mlp.py", &[]);
    assert!(
        stdout.contains("gradients match tinygrad's backward: True"),
        "{stdout}"
    );
}

/// The generated source is the product: a small convolutional classifier's gradient
/// and tangent, reviewed as snapshots.
#[test]
fn tinygrad_generated_source_snapshots() {
    let src = "from tinygrad import Tensor\n\n\n\
               def loss(w, k, x, labels):\n\
               \x20   h = x.conv2d(k, padding=1).relu().max_pool2d()\n\
               \x20   h = h.flatten(1).layernorm()\n\
               \x20   logits = h @ w\n\
               \x20   return logits.sparse_categorical_crossentropy(labels) + 0.01 * (w * w).sum()\n";
    let reverse = Tangent::builder(src, "loss").wrt(&[0, 1]).build().unwrap();
    insta::assert_snapshot!("tinygrad_classifier_reverse", reverse.source());
    let forward = Tangent::builder(src, "loss")
        .wrt(&[0])
        .forward()
        .build()
        .unwrap();
    insta::assert_snapshot!("tinygrad_classifier_forward", forward.source());
}
