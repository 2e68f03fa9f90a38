//! Hosts execute user scripts and generated derivative source. The transformer never
//! depends on them: it turns source into source.
#[cfg(feature = "embedded")]
pub mod cpython;
pub mod float_ops;
#[cfg(feature = "embedded")]
pub mod rustpython;

/// The Python half of `tangent`, shared by both hosts: (module name, source), in the
/// order they are executed (a module after those it imports). `tangent` itself is last.
pub const SHIMS: &[(&str, &str)] = &[
    (
        "tangent_numpy_grads",
        include_str!("../../stdlib-shims/tangent_numpy_grads.py"),
    ),
    // Inert until `tangent` meets a JAX value: it imports jax only then.
    (
        "tangent_jax_grads",
        include_str!("../../stdlib-shims/tangent_jax_grads.py"),
    ),
    (
        "tangent",
        include_str!("../../stdlib-shims/tangent/__init__.py"),
    ),
];
