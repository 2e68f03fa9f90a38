//! Hosts execute user scripts and generated derivative source. The transformer never
//! depends on them: it turns source into source.
#[cfg(feature = "embedded")]
pub mod cpython;
/// CPython's float operators (crates/tangent-pyfloat), shared by the embedded `float` type,
/// the native code and the native numpy.
pub use tangent_pyfloat as float_ops;
#[cfg(feature = "embedded")]
pub mod rustpython;
mod value;
pub use value::Value;

/// The Python half of `tangent`, shared by both hosts: the `tangent` package's modules
/// (module name, source), in the order they are executed (a module after those it
/// imports); the package's `__init__` (named `tangent`) is last. Both hosts create the
/// package module first (`__path__` empty: its submodules are these), put each
/// submodule in `sys.modules` and on the package before executing it.
pub const SHIMS: &[(&str, &str)] = &[
    (
        "tangent._backends",
        include_str!("../../stdlib-shims/tangent/_backends.py"),
    ),
    (
        "tangent._registry",
        include_str!("../../stdlib-shims/tangent/_registry.py"),
    ),
    (
        "tangent._errors",
        include_str!("../../stdlib-shims/tangent/_errors.py"),
    ),
    (
        "tangent._runtime",
        include_str!("../../stdlib-shims/tangent/_runtime.py"),
    ),
    (
        "tangent._grads_common",
        include_str!("../../stdlib-shims/tangent/_grads_common.py"),
    ),
    (
        "tangent._grads_shape",
        include_str!("../../stdlib-shims/tangent/_grads_shape.py"),
    ),
    (
        "tangent._grads_reductions",
        include_str!("../../stdlib-shims/tangent/_grads_reductions.py"),
    ),
    (
        "tangent._grads_matrix",
        include_str!("../../stdlib-shims/tangent/_grads_matrix.py"),
    ),
    (
        "tangent._grads_select",
        include_str!("../../stdlib-shims/tangent/_grads_select.py"),
    ),
    (
        "tangent._grads_linalg",
        include_str!("../../stdlib-shims/tangent/_grads_linalg.py"),
    ),
    (
        "tangent._grads_second_order",
        include_str!("../../stdlib-shims/tangent/_grads_second_order.py"),
    ),
    (
        "tangent._grads_special",
        include_str!("../../stdlib-shims/tangent/_grads_special.py"),
    ),
    (
        "tangent._grads_complex",
        include_str!("../../stdlib-shims/tangent/_grads_complex.py"),
    ),
    (
        "tangent._numpy",
        include_str!("../../stdlib-shims/tangent/_numpy.py"),
    ),
    // Inert until `tangent` meets a JAX value: it imports jax only then.
    (
        "tangent._library_helpers",
        include_str!("../../stdlib-shims/tangent/_library_helpers.py"),
    ),
    (
        "tangent._jax",
        include_str!("../../stdlib-shims/tangent/_jax.py"),
    ),
    (
        "tangent._torch",
        include_str!("../../stdlib-shims/tangent/_torch.py"),
    ),
    (
        "tangent._tensorflow",
        include_str!("../../stdlib-shims/tangent/_tensorflow.py"),
    ),
    (
        "tangent._keras",
        include_str!("../../stdlib-shims/tangent/_keras.py"),
    ),
    (
        "tangent._tinygrad",
        include_str!("../../stdlib-shims/tangent/_tinygrad.py"),
    ),
    (
        "tangent._custom",
        include_str!("../../stdlib-shims/tangent/_custom.py"),
    ),
    (
        "tangent._live",
        include_str!("../../stdlib-shims/tangent/_live.py"),
    ),
    (
        "tangent._build",
        include_str!("../../stdlib-shims/tangent/_build.py"),
    ),
    (
        "tangent._methods",
        include_str!("../../stdlib-shims/tangent/_methods.py"),
    ),
    (
        "tangent._rules",
        include_str!("../../stdlib-shims/tangent/_rules.py"),
    ),
    (
        "tangent._api",
        include_str!("../../stdlib-shims/tangent/_api.py"),
    ),
    (
        "tangent",
        include_str!("../../stdlib-shims/tangent/__init__.py"),
    ),
];
