//! The vectorised elementwise kernels (crate `tangent-fastmath`, shared with the native
//! code) and NumPy's pairwise sum over any element type.

pub use tangent_fastmath::*;

/// Sum of a slice by NumPy's pairwise scheme (`tangent_fastmath::pairwise_sum_by`).
pub fn pairwise_sum<T: crate::storage::Element>(v: &[T]) -> f64 {
    pairwise_sum_by(v, |x| x.to_f64())
}
