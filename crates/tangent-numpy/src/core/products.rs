//! Matrix products (`matmul`, `dot`) and joining arrays (`concatenate`, `stack`).

use super::*;
use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn};

pub fn mm2<T: MatElem>(
    a: ndarray::ArrayView2<'_, T>,
    b: ndarray::ArrayView2<'_, T>,
) -> ndarray::Array2<T> {
    let (m, k) = a.dim();
    let n = b.ncols();
    let mut out = ndarray::Array2::<T>::from_elem((m, n), T::ZERO);
    if m == 0 || n == 0 || k == 0 {
        return out;
    }
    T::gemm(&mut out, a, b);
    clear_upper_simd_state();
    out
}

/// The element types with a matrix product kernel (faer's f64 and f32 kernels).
pub trait MatElem: Copy + Send + Sync + 'static {
    const ZERO: Self;
    /// `out = a @ b` (shapes checked by the caller, all dimensions non-zero).
    fn gemm(
        out: &mut ndarray::Array2<Self>,
        a: ndarray::ArrayView2<'_, Self>,
        b: ndarray::ArrayView2<'_, Self>,
    );
}

macro_rules! faer_mat_elem {
    ($t:ty) => {
        impl MatElem for $t {
            const ZERO: Self = 0.0;
            fn gemm(
                out: &mut ndarray::Array2<Self>,
                a: ndarray::ArrayView2<'_, Self>,
                b: ndarray::ArrayView2<'_, Self>,
            ) {
                let (m, k) = a.dim();
                let n = b.ncols();
                // SAFETY: the pointers and strides describe the live ndarray views, which
                // outlive the faer views created here; faer only reads `a`/`b` and
                // writes `out`.
                unsafe {
                    let ar = faer::MatRef::<$t>::from_raw_parts(
                        a.as_ptr(),
                        m,
                        k,
                        a.strides()[0],
                        a.strides()[1],
                    );
                    let br = faer::MatRef::<$t>::from_raw_parts(
                        b.as_ptr(),
                        k,
                        n,
                        b.strides()[0],
                        b.strides()[1],
                    );
                    let s0 = out.strides()[0];
                    let s1 = out.strides()[1];
                    let cm = faer::MatMut::<$t>::from_raw_parts_mut(out.as_mut_ptr(), m, n, s0, s1);
                    faer::linalg::matmul::matmul(
                        cm,
                        faer::Accum::Replace,
                        ar,
                        br,
                        1.0,
                        faer::Par::Seq,
                    );
                }
            }
        }
    };
}
faer_mat_elem!(f64);
faer_mat_elem!(f32);

/// int64 products as NumPy computes them: exact, wrapping around on overflow.
impl MatElem for i64 {
    const ZERO: Self = 0;
    fn gemm(
        out: &mut ndarray::Array2<Self>,
        a: ndarray::ArrayView2<'_, Self>,
        b: ndarray::ArrayView2<'_, Self>,
    ) {
        for ((i, j), o) in out.indexed_iter_mut() {
            *o = a
                .row(i)
                .iter()
                .zip(b.column(j))
                .fold(0i64, |acc, (&x, &y)| acc.wrapping_add(x.wrapping_mul(y)));
        }
    }
}

/// faer's kernels use 256/512-bit registers and can leave their upper halves dirty;
/// until a `vzeroupper`, the SSE code that follows (libm's `tanh`, `exp`, ...) runs
/// several times slower (measured: `np.tanh` on 64x128 went from 75 us to 255 us after
/// a product).
#[inline]
fn clear_upper_simd_state() {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: AVX is available (checked above); vzeroupper only clears the upper
            // halves of the vector registers, which no live value here occupies.
            unsafe { avx_zeroupper() }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn avx_zeroupper() {
    std::arch::x86_64::_mm256_zeroupper();
}

fn as2<'a, T>(v: &'a ArrayViewD<'_, T>) -> ndarray::ArrayView2<'a, T> {
    v.view().into_dimensionality::<ndarray::Ix2>().unwrap()
}

/// `a @ b` with NumPy's matmul rules (1-D promotion, batch broadcasting).
pub fn matmul<T: MatElem>(a: ArrayViewD<'_, T>, b: ArrayViewD<'_, T>) -> NpResult<ArrayD<T>> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return value_err(
            "matmul: Input operand 0 does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)",
        );
    }
    let a1 = a.ndim() == 1;
    let b1 = b.ndim() == 1;
    let a2 = if a1 {
        a.clone().insert_axis(Axis(0))
    } else {
        a.clone()
    };
    let b2 = if b1 {
        b.clone().insert_axis(Axis(1))
    } else {
        b.clone()
    };
    let ka = a2.shape()[a2.ndim() - 1];
    let kb = b2.shape()[b2.ndim() - 2];
    if ka != kb {
        return value_err(format!(
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {kb} is different from {ka})"
        ));
    }
    let m = a2.shape()[a2.ndim() - 2];
    let n = b2.shape()[b2.ndim() - 1];
    let mut out = if a2.ndim() == 2 && b2.ndim() == 2 {
        mm2(as2(&a2), as2(&b2)).into_dyn()
    } else {
        let ba = &a2.shape()[..a2.ndim() - 2];
        let bb = &b2.shape()[..b2.ndim() - 2];
        let batch = broadcast_pair(ba, bb).ok_or_else(|| {
            NpErr::Value(format!(
                "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {} is different from {})",
                kb, ka
            ))
        })?;
        let mut sa = batch.clone();
        sa.extend([m, ka]);
        let mut sb = batch.clone();
        sb.extend([kb, n]);
        let av = a2.broadcast(IxDyn(&sa)).unwrap();
        let bv = b2.broadcast(IxDyn(&sb)).unwrap();
        let nbatch: usize = batch.iter().product();
        let mut data = Vec::with_capacity(nbatch * m * n);
        let av = av
            .into_shape_with_order(IxDyn(&[nbatch, m, ka]))
            .map(|x| x.to_owned())
            .unwrap_or_else(|_| {
                to_standard(a2.broadcast(IxDyn(&sa)).unwrap())
                    .into_shape_with_order(IxDyn(&[nbatch, m, ka]))
                    .unwrap()
            });
        let bv = bv
            .into_shape_with_order(IxDyn(&[nbatch, kb, n]))
            .map(|x| x.to_owned())
            .unwrap_or_else(|_| {
                to_standard(b2.broadcast(IxDyn(&sb)).unwrap())
                    .into_shape_with_order(IxDyn(&[nbatch, kb, n]))
                    .unwrap()
            });
        for i in 0..nbatch {
            let x = av.index_axis(Axis(0), i);
            let y = bv.index_axis(Axis(0), i);
            let r = mm2(
                x.into_dimensionality::<ndarray::Ix2>().unwrap(),
                y.into_dimensionality::<ndarray::Ix2>().unwrap(),
            );
            data.extend(r.iter().copied());
        }
        let mut s = batch.clone();
        s.extend([m, n]);
        ArrayD::from_shape_vec(IxDyn(&s), data).unwrap()
    };
    if b1 {
        let nd = out.ndim();
        out = out.index_axis_move(Axis(nd - 1), 0);
    }
    if a1 {
        let nd = out.ndim();
        out = out.index_axis_move(Axis(nd - 1 - if b1 { 0 } else { 1 }), 0);
    }
    Ok(out)
}

/// `np.dot` for up to 2-D operands.
pub fn dot(a: ArrayViewD<'_, f64>, b: ArrayViewD<'_, f64>) -> NpResult<ArrayD<f64>> {
    if a.ndim() <= 2 && b.ndim() <= 2 && a.ndim() >= 1 && b.ndim() >= 1 {
        let ka = a.shape()[a.ndim() - 1];
        let kb = b.shape()[if b.ndim() == 1 { 0 } else { b.ndim() - 2 }];
        if ka != kb {
            return value_err(format!(
                "shapes {} and {} not aligned: {} (dim {}) != {} (dim {})",
                shape_compact(a.shape()),
                shape_compact(b.shape()),
                ka,
                a.ndim() - 1,
                kb,
                if b.ndim() == 1 { 0 } else { b.ndim() - 2 }
            ));
        }
        if a.ndim() == 1 && b.ndim() == 1 {
            // Summed pairwise (as the native code's `np.dot`), in a loop that vectorises.
            let (xo, yo);
            let x = match a.as_slice() {
                Some(x) => x,
                None => {
                    xo = to_standard(a.view());
                    xo.as_slice().expect("C order")
                }
            };
            let y = match b.as_slice() {
                Some(y) => y,
                None => {
                    yo = to_standard(b.view());
                    yo.as_slice().expect("C order")
                }
            };
            let s = crate::fastmath::pairwise_dot(x, y);
            return Ok(ArrayD::from_elem(IxDyn(&[]), s));
        }
        return matmul(a, b);
    }
    if a.ndim() == 0 || b.ndim() == 0 {
        return zip_with(a, b, |x, y| x * y);
    }
    // N-D dot: sum over last axis of a and second-to-last of b (its only axis if 1-D).
    let kb_axis = b.ndim().saturating_sub(2);
    let ka = a.shape()[a.ndim() - 1];
    let kb = b.shape()[kb_axis];
    if ka != kb {
        return value_err(format!(
            "shapes {} and {} not aligned: {} (dim {}) != {} (dim {})",
            shape_tuple(a.shape()),
            shape_tuple(b.shape()),
            ka,
            a.ndim() - 1,
            kb,
            kb_axis
        ));
    }
    let am = reshape(a.view(), &[a.len() / ka.max(1), ka]);
    // b: move axis -2 to front then flatten the rest
    let mut perm: Vec<usize> = vec![kb_axis];
    perm.extend((0..b.ndim()).filter(|&i| i != kb_axis));
    let bp = to_standard(b.view().permuted_axes(IxDyn(&perm)));
    let bm = bp
        .into_shape_with_order(IxDyn(&[kb, b.len() / kb.max(1)]))
        .unwrap();
    let r = mm2(as2(&am.view()), as2(&bm.view()));
    let mut shape: Vec<usize> = a.shape()[..a.ndim() - 1].to_vec();
    shape.extend(perm[1..].iter().map(|&i| b.shape()[i]));
    Ok(r.into_dyn().into_shape_with_order(IxDyn(&shape)).unwrap())
}

pub fn concatenate<T: Clone>(arrs: &[ArrayViewD<'_, T>], axis: isize) -> NpResult<ArrayD<T>> {
    if arrs.is_empty() {
        return value_err("need at least one array to concatenate");
    }
    let nd = arrs[0].ndim();
    if nd == 0 {
        return value_err("zero-dimensional arrays cannot be concatenated");
    }
    let ax = norm_axis(axis, nd)?;
    for (i, a) in arrs.iter().enumerate().skip(1) {
        if a.ndim() != nd {
            return value_err(format!(
                "all the input arrays must have same number of dimensions, but the array at index 0 has {} dimension(s) and the array at index {} has {} dimension(s)",
                nd, i, a.ndim()
            ));
        }
        for d in 0..nd {
            if d != ax && a.shape()[d] != arrs[0].shape()[d] {
                return value_err(format!(
                    "all the input array dimensions except for the concatenation axis must match exactly, but along dimension {}, the array at index 0 has size {} and the array at index {} has size {}",
                    d, arrs[0].shape()[d], i, a.shape()[d]
                ));
            }
        }
    }
    Ok(ndarray::concatenate(Axis(ax), arrs).unwrap())
}

pub fn stack<T: Clone>(arrs: &[ArrayViewD<'_, T>], axis: isize) -> NpResult<ArrayD<T>> {
    if arrs.is_empty() {
        return value_err("need at least one array to stack");
    }
    for a in arrs {
        if a.shape() != arrs[0].shape() {
            return value_err("all input arrays must have the same shape");
        }
    }
    let ax = norm_axis(axis, arrs[0].ndim() + 1)?;
    let expanded: Vec<ArrayViewD<'_, T>> = arrs
        .iter()
        .map(|a| a.clone().insert_axis(Axis(ax)))
        .collect();
    Ok(ndarray::concatenate(Axis(ax), &expanded).unwrap())
}
