//! `numpy.linalg` kernels over faer (pure Rust, no system LAPACK). Interpreter-independent:
//! inputs are `ndarray` views, errors are [`NpErr`] (`NpErr::LinAlg` becomes
//! `numpy.linalg.LinAlgError`). Every function accepts stacks of matrices (`(..., M, N)`)
//! like NumPy's gufunc-based linalg.
//!
//! Sign conventions of eigenvectors and singular vectors, and the signs of Q/R columns,
//! follow faer's Householder/Jacobi choices and can differ from LAPACK's: compare
//! products (`Q @ R`, `U @ diag(s) @ Vh`, `A @ v`), not factors.

use super::core::{shape_compact, to_standard, NpErr, NpResult};
use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::{Mat, MatRef, Side};
use ndarray::{Array1, Array2, ArrayD, ArrayView2, ArrayViewD, Axis, IxDyn};

fn linalg_err<T>(msg: impl Into<String>) -> NpResult<T> {
    Err(NpErr::LinAlg(msg.into()))
}

fn to_mat(a: ArrayView2<'_, f64>) -> Mat<f64> {
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[[i, j]])
}

fn from_mat(m: MatRef<'_, f64>) -> Array2<f64> {
    Array2::from_shape_fn((m.nrows(), m.ncols()), |(i, j)| m[(i, j)])
}

/// NumPy's `_assert_stacked_2d`.
fn check_2d(a: &ArrayViewD<'_, f64>) -> NpResult<()> {
    if a.ndim() < 2 {
        return linalg_err(format!(
            "{}-dimensional array given. Array must be at least two-dimensional",
            a.ndim()
        ));
    }
    Ok(())
}

/// NumPy's `_assert_stacked_square`.
fn check_square(a: &ArrayViewD<'_, f64>) -> NpResult<()> {
    check_2d(a)?;
    let n = a.ndim();
    if a.shape()[n - 1] != a.shape()[n - 2] {
        return linalg_err("Last 2 dimensions of the array must be square");
    }
    Ok(())
}

/// Splits `(..., M, N)` into its batch shape and a list of (copied) matrices.
fn batches(a: &ArrayViewD<'_, f64>) -> (Vec<usize>, Vec<Array2<f64>>) {
    let nd = a.ndim();
    let batch = a.shape()[..nd - 2].to_vec();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let nb: usize = batch.iter().product();
    let std = to_standard(a.view())
        .into_shape_with_order((nb, m, n))
        .unwrap();
    let mats = std.outer_iter().map(|x| x.to_owned()).collect();
    (batch, mats)
}

/// Stacks per-matrix results (all the same shape) under `batch`.
fn assemble(batch: &[usize], item_shape: &[usize], parts: Vec<ArrayD<f64>>) -> ArrayD<f64> {
    let mut shape = batch.to_vec();
    shape.extend_from_slice(item_shape);
    let mut data = Vec::with_capacity(shape.iter().product());
    for p in parts {
        data.extend(p.iter().copied());
    }
    ArrayD::from_shape_vec(IxDyn(&shape), data).unwrap()
}

struct Lu {
    lu: faer::linalg::solvers::PartialPivLu<f64>,
    singular: bool,
}

fn lu_of(a: ArrayView2<'_, f64>) -> Lu {
    let lu = to_mat(a).partial_piv_lu();
    let u = lu.U();
    let singular = (0..u.nrows()).any(|i| u[(i, i)] == 0.0);
    Lu { lu, singular }
}

/// Parity of the row permutation: +1 or -1.
fn perm_sign(lu: &Lu) -> f64 {
    let (fwd, _) = lu.lu.P().arrays();
    let n = fwd.len();
    let mut seen = vec![false; n];
    let mut sign = 1.0;
    for i in 0..n {
        if seen[i] {
            continue;
        }
        let mut j = i;
        let mut len = 0;
        while !seen[j] {
            seen[j] = true;
            j = fwd[j];
            len += 1;
        }
        if len % 2 == 0 {
            sign = -sign;
        }
    }
    sign
}

pub fn inv(a: ArrayViewD<'_, f64>) -> NpResult<ArrayD<f64>> {
    check_square(&a)?;
    let (batch, mats) = batches(&a);
    let n = a.shape()[a.ndim() - 1];
    let mut parts = Vec::with_capacity(mats.len());
    for m in mats {
        let lu = lu_of(m.view());
        if lu.singular {
            return linalg_err("Singular matrix");
        }
        parts.push(from_mat(lu.lu.inverse().as_ref()).into_dyn());
    }
    Ok(assemble(&batch, &[n, n], parts))
}

/// (sign, log|det|) per matrix.
fn slogdet_one(m: ArrayView2<'_, f64>) -> (f64, f64) {
    if m.nrows() == 0 {
        return (1.0, 0.0);
    }
    let lu = lu_of(m);
    if lu.singular {
        return (0.0, f64::NEG_INFINITY);
    }
    let u = lu.lu.U();
    let mut sign = perm_sign(&lu);
    let mut logdet = 0.0;
    for i in 0..u.nrows() {
        let d = u[(i, i)];
        if d < 0.0 {
            sign = -sign;
        }
        logdet += d.abs().ln();
    }
    (sign, logdet)
}

pub fn det(a: ArrayViewD<'_, f64>) -> NpResult<ArrayD<f64>> {
    check_square(&a)?;
    let (batch, mats) = batches(&a);
    let vals: Vec<f64> = mats
        .into_iter()
        .map(|m| {
            if m.nrows() == 0 {
                return 1.0;
            }
            let lu = lu_of(m.view());
            if lu.singular {
                return 0.0;
            }
            let u = lu.lu.U();
            let mut d = perm_sign(&lu);
            for i in 0..u.nrows() {
                d *= u[(i, i)];
            }
            d
        })
        .collect();
    Ok(ArrayD::from_shape_vec(IxDyn(&batch), vals).unwrap())
}

pub fn slogdet(a: ArrayViewD<'_, f64>) -> NpResult<(ArrayD<f64>, ArrayD<f64>)> {
    check_square(&a)?;
    let (batch, mats) = batches(&a);
    let (s, l): (Vec<f64>, Vec<f64>) = mats.iter().map(|m| slogdet_one(m.view())).unzip();
    Ok((
        ArrayD::from_shape_vec(IxDyn(&batch), s).unwrap(),
        ArrayD::from_shape_vec(IxDyn(&batch), l).unwrap(),
    ))
}

/// `solve(a, b)`: `b` is a vector when it is 1-D (NumPy 2 rule), else a stack of matrices.
pub fn solve(a: ArrayViewD<'_, f64>, b: ArrayViewD<'_, f64>) -> NpResult<ArrayD<f64>> {
    check_square(&a)?;
    let n = a.shape()[a.ndim() - 1];
    let vector = b.ndim() == 1;
    let b2 = if vector {
        b.clone().insert_axis(Axis(1))
    } else {
        b.clone()
    };
    if b2.ndim() < 2 {
        return linalg_err("0-dimensional array given. Array must be at least one-dimensional");
    }
    let bm = b2.shape()[b2.ndim() - 2];
    if bm != n {
        let sig = if vector {
            ("solve1", "(m,m),(m)->(m)")
        } else {
            ("solve", "(m,m),(m,n)->(m,n)")
        };
        return Err(NpErr::Value(format!(
            "{}: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature {} (size {} is different from {})",
            sig.0, sig.1, bm, n
        )));
    }
    let k = b2.shape()[b2.ndim() - 1];
    // broadcast the batch dimensions
    let ba = &a.shape()[..a.ndim() - 2];
    let bb = &b2.shape()[..b2.ndim() - 2];
    let batch = super::core::broadcast_pair(ba, bb).ok_or_else(|| {
        NpErr::Value(format!(
            "operands could not be broadcast together with shapes {} {} ",
            shape_compact(a.shape()),
            shape_compact(b.shape())
        ))
    })?;
    let mut sa = batch.clone();
    sa.extend([n, n]);
    let mut sb = batch.clone();
    sb.extend([n, k]);
    let av = to_standard(a.broadcast(IxDyn(&sa)).unwrap());
    let bv = to_standard(b2.broadcast(IxDyn(&sb)).unwrap());
    let (_, amats) = batches(&av.view());
    let (_, bmats) = batches(&bv.view());
    let mut parts = Vec::with_capacity(amats.len());
    for (am, bmat) in amats.into_iter().zip(bmats) {
        let lu = lu_of(am.view());
        if lu.singular {
            return linalg_err("Singular matrix");
        }
        let mut rhs = to_mat(bmat.view());
        lu.lu.solve_in_place(rhs.as_mut());
        parts.push(from_mat(rhs.as_ref()).into_dyn());
    }
    let out = assemble(&batch, &[n, k], parts);
    if vector {
        let nd = out.ndim();
        return Ok(out.index_axis_move(Axis(nd - 1), 0));
    }
    Ok(out)
}

pub fn cholesky(a: ArrayViewD<'_, f64>, upper: bool) -> NpResult<ArrayD<f64>> {
    check_square(&a)?;
    let (batch, mats) = batches(&a);
    let n = a.shape()[a.ndim() - 1];
    let mut parts = Vec::new();
    for m in mats {
        if n == 0 {
            parts.push(ArrayD::zeros(IxDyn(&[0, 0])));
            continue;
        }
        // NumPy reads only the lower (or, with upper=True, the upper) triangle.
        let src = if upper { m.t() } else { m.view() };
        let llt = match to_mat(src).llt(Side::Lower) {
            Ok(l) => l,
            Err(_) => return linalg_err("Matrix is not positive definite"),
        };
        let l = llt.L();
        let mut out = Array2::from_shape_fn((n, n), |(i, j)| if j <= i { l[(i, j)] } else { 0.0 });
        if upper {
            out = out.t().to_owned();
        }
        parts.push(out.into_dyn());
    }
    Ok(assemble(&batch, &[n, n], parts))
}

/// Symmetric eigendecomposition: eigenvalues ascending, eigenvectors as columns.
pub fn eigh(
    a: ArrayViewD<'_, f64>,
    upper: bool,
    vectors: bool,
) -> NpResult<(ArrayD<f64>, Option<ArrayD<f64>>)> {
    check_square(&a)?;
    let (batch, mats) = batches(&a);
    let n = a.shape()[a.ndim() - 1];
    let mut ws = Vec::new();
    let mut vs = Vec::new();
    for m in mats {
        if n == 0 {
            ws.push(ArrayD::zeros(IxDyn(&[0])));
            vs.push(ArrayD::zeros(IxDyn(&[0, 0])));
            continue;
        }
        // symmetrize from the chosen triangle, as LAPACK's syevd reads only that one
        let full = Array2::from_shape_fn((n, n), |(i, j)| {
            let (r, c) = if (j <= i) != upper { (i, j) } else { (j, i) };
            m[[r, c]]
        });
        let evd = match to_mat(full.view()).self_adjoint_eigen(Side::Lower) {
            Ok(e) => e,
            Err(_) => return linalg_err("Eigenvalues did not converge"),
        };
        let s: Vec<f64> = evd.S().column_vector().iter().copied().collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| s[i].total_cmp(&s[j]));
        ws.push(
            ArrayD::from_shape_vec(IxDyn(&[n]), order.iter().map(|&i| s[i]).collect()).unwrap(),
        );
        if vectors {
            let u = evd.U();
            vs.push(Array2::from_shape_fn((n, n), |(i, j)| u[(i, order[j])]).into_dyn());
        }
    }
    let w = assemble(&batch, &[n], ws);
    let v = if vectors {
        Some(assemble(&batch, &[n, n], vs))
    } else {
        None
    };
    Ok((w, v))
}

/// `np.linalg.eig` (`vectors`) / `eigvals` of real square matrices whose eigenvalues
/// are all real (NumPy then gives real arrays too; eigenvectors of unit length, in
/// faer's order and signs). Complex eigenvalues would need complex128 arrays, which
/// this module does not have: refused.
pub fn eig(a: ArrayViewD<'_, f64>, vectors: bool) -> NpResult<(ArrayD<f64>, Option<ArrayD<f64>>)> {
    check_square(&a)?;
    let (batch, mats) = batches(&a);
    let n = a.shape()[a.ndim() - 1];
    let complex = || {
        Err(NpErr::Unsupported(format!(
            "eig: the matrix has complex eigenvalues; {}",
            crate::core::COMPLEX_UNSUPPORTED
        )))
    };
    let mut ws = Vec::new();
    let mut vs = Vec::new();
    for m in mats {
        if m.iter().any(|x| !x.is_finite()) {
            return linalg_err("Array must not contain infs or NaNs");
        }
        if n == 0 {
            ws.push(ArrayD::zeros(IxDyn(&[0])));
            vs.push(ArrayD::zeros(IxDyn(&[0, 0])));
            continue;
        }
        let mat = to_mat(m.view());
        if !vectors {
            let Ok(vals) = mat.eigenvalues() else {
                return linalg_err("Eigenvalues did not converge");
            };
            if vals.iter().any(|z| z.im != 0.0) {
                return complex();
            }
            ws.push(Array1::from_iter(vals.iter().map(|z| z.re)).into_dyn());
            continue;
        }
        let Ok(evd) = mat.eigen() else {
            return linalg_err("Eigenvalues did not converge");
        };
        let s = evd.S().column_vector();
        let u = evd.U();
        if (0..n).any(|i| s[i].im != 0.0) || (0..n).any(|j| (0..n).any(|i| u[(i, j)].im != 0.0)) {
            return complex();
        }
        ws.push(Array1::from_iter((0..n).map(|i| s[i].re)).into_dyn());
        let mut v = Array2::from_shape_fn((n, n), |(i, j)| u[(i, j)].re);
        for mut col in v.columns_mut() {
            let norm = col.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm > 0.0 {
                col.mapv_inplace(|x| x / norm);
            }
        }
        vs.push(v.into_dyn());
    }
    let w = assemble(&batch, &[n], ws);
    let v = vectors.then(|| assemble(&batch, &[n, n], vs));
    Ok((w, v))
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum QrMode {
    Reduced,
    Complete,
    R,
}

pub fn qr(a: ArrayViewD<'_, f64>, mode: QrMode) -> NpResult<(Option<ArrayD<f64>>, ArrayD<f64>)> {
    check_2d(&a)?;
    let (batch, mats) = batches(&a);
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let k = m.min(n);
    let (qs, rs) = match mode {
        QrMode::Reduced => ([m, k], [k, n]),
        QrMode::Complete => ([m, m], [m, n]),
        QrMode::R => ([m, k], [k, n]),
    };
    let mut qparts = Vec::new();
    let mut rparts = Vec::new();
    for mat in mats {
        if m == 0 || n == 0 {
            let q = if mode == QrMode::Complete {
                Array2::eye(m)
            } else {
                Array2::zeros((m, k))
            };
            qparts.push(q.into_dyn());
            rparts.push(ArrayD::zeros(IxDyn(&rs)));
            continue;
        }
        let f = to_mat(mat.view()).qr();
        let (q, r) = match mode {
            QrMode::Complete => (f.compute_Q(), f.R().to_owned()),
            _ => (f.compute_thin_Q(), f.thin_R().to_owned()),
        };
        // R padded (or cut) to the expected shape: faer's R has min(m, n) rows
        let mut r = Array2::from_shape_fn((rs[0], rs[1]), |(i, j)| {
            if i < r.nrows() && j < r.ncols() {
                r[(i, j)]
            } else {
                0.0
            }
        });
        // R is upper triangular/trapezoidal: clear round-off below the diagonal
        for ((i, j), x) in r.indexed_iter_mut() {
            if i > j {
                *x = 0.0;
            }
        }
        qparts.push(from_mat(q.as_ref()).into_dyn());
        rparts.push(r.into_dyn());
    }
    let r = assemble(&batch, &rs, rparts);
    if mode == QrMode::R {
        return Ok((None, r));
    }
    Ok((Some(assemble(&batch, &qs, qparts)), r))
}

/// SVD: (u, s descending, vh); `u`/`vh` are `None` when `compute_uv` is false.
#[allow(clippy::type_complexity)]
pub fn svd(
    a: ArrayViewD<'_, f64>,
    full_matrices: bool,
    compute_uv: bool,
) -> NpResult<(Option<ArrayD<f64>>, ArrayD<f64>, Option<ArrayD<f64>>)> {
    check_2d(&a)?;
    let (batch, mats) = batches(&a);
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let k = m.min(n);
    let (us, vs) = if full_matrices {
        ([m, m], [n, n])
    } else {
        ([m, k], [k, n])
    };
    let mut uparts = Vec::new();
    let mut sparts = Vec::new();
    let mut vparts = Vec::new();
    for mat in mats {
        if k == 0 {
            uparts.push(
                Array2::<f64>::eye(us[0])
                    .slice_move(ndarray::s![.., ..us[1]])
                    .into_dyn(),
            );
            sparts.push(ArrayD::zeros(IxDyn(&[0])));
            vparts.push(
                Array2::<f64>::eye(vs[1])
                    .slice_move(ndarray::s![..vs[0], ..])
                    .into_dyn(),
            );
            continue;
        }
        let fm = to_mat(mat.view());
        if !compute_uv {
            let s = match fm.singular_values() {
                Ok(s) => s,
                Err(_) => return linalg_err("SVD did not converge"),
            };
            let mut s = s;
            s.sort_by(|x, y| y.total_cmp(x));
            sparts.push(ArrayD::from_shape_vec(IxDyn(&[k]), s).unwrap());
            continue;
        }
        let f = if full_matrices {
            fm.svd()
        } else {
            fm.thin_svd()
        };
        let f = match f {
            Ok(f) => f,
            Err(_) => return linalg_err("SVD did not converge"),
        };
        let s: Vec<f64> = f.S().column_vector().iter().copied().collect();
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&i, &j| s[j].total_cmp(&s[i]));
        let u = f.U();
        let v = f.V();
        // reorder the first k columns by descending singular value; keep the rest
        let col = |j: usize| if j < k { order[j] } else { j };
        uparts.push(Array2::from_shape_fn((us[0], us[1]), |(i, j)| u[(i, col(j))]).into_dyn());
        sparts.push(
            ArrayD::from_shape_vec(IxDyn(&[k]), order.iter().map(|&i| s[i]).collect()).unwrap(),
        );
        vparts.push(Array2::from_shape_fn((vs[0], vs[1]), |(i, j)| v[(j, col(i))]).into_dyn());
    }
    let s = assemble(&batch, &[k], sparts);
    if !compute_uv {
        return Ok((None, s, None));
    }
    Ok((
        Some(assemble(&batch, &us, uparts)),
        s,
        Some(assemble(&batch, &vs, vparts)),
    ))
}

/// Moore-Penrose pseudo-inverse through the SVD (NumPy's `rcond=1e-15` default).
pub fn pinv(a: ArrayViewD<'_, f64>, rcond: f64) -> NpResult<ArrayD<f64>> {
    check_2d(&a)?;
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let (u, s, vh) = svd(a.view(), false, true)?;
    let (u, vh) = (u.unwrap(), vh.unwrap());
    let k = m.min(n);
    let batch = a.shape()[..nd - 2].to_vec();
    let nb: usize = batch.iter().product();
    let u3 = u.into_shape_with_order(IxDyn(&[nb, m, k])).unwrap();
    let s2 = s.into_shape_with_order(IxDyn(&[nb, k])).unwrap();
    let v3 = vh.into_shape_with_order(IxDyn(&[nb, k, n])).unwrap();
    let mut parts = Vec::with_capacity(nb);
    for b in 0..nb {
        let smax = (0..k).map(|i| s2[[b, i]]).fold(0.0, f64::max);
        let cut = rcond * smax;
        let mut out = Array2::<f64>::zeros((n, m));
        for i in 0..k {
            let si = s2[[b, i]];
            if si <= cut {
                continue;
            }
            let inv = 1.0 / si;
            for r in 0..n {
                let vr = v3[[b, i, r]] * inv;
                for c in 0..m {
                    out[[r, c]] += vr * u3[[b, c, i]];
                }
            }
        }
        parts.push(out.into_dyn());
    }
    Ok(assemble(&batch, &[n, m], parts))
}

/// Number of singular values above `tol` (default `S.max() * max(M, N) * eps`).
pub fn matrix_rank(a: ArrayViewD<'_, f64>, tol: Option<f64>) -> NpResult<ArrayD<f64>> {
    if a.ndim() < 2 {
        let nz = a.iter().any(|&x| x != 0.0);
        return Ok(ArrayD::from_elem(IxDyn(&[]), nz as u8 as f64));
    }
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let (_, s, _) = svd(a.view(), false, false)?;
    let k = m.min(n);
    let batch = a.shape()[..nd - 2].to_vec();
    let nb: usize = batch.iter().product();
    let s2 = s.into_shape_with_order(IxDyn(&[nb, k])).unwrap();
    let vals: Vec<f64> = (0..nb)
        .map(|b| {
            let smax = (0..k).map(|i| s2[[b, i]]).fold(0.0, f64::max);
            let t = tol.unwrap_or(smax * m.max(n) as f64 * f64::EPSILON);
            (0..k).filter(|&i| s2[[b, i]] > t).count() as f64
        })
        .collect();
    Ok(ArrayD::from_shape_vec(IxDyn(&batch), vals).unwrap())
}

/// `matrix_power(a, n)` by repeated squaring (`n < 0` inverts first).
pub fn matrix_power(a: ArrayViewD<'_, f64>, p: i64) -> NpResult<ArrayD<f64>> {
    check_square(&a)?;
    let nd = a.ndim();
    let n = a.shape()[nd - 1];
    let mut base = if p < 0 {
        inv(a.view())?
    } else {
        to_standard(a.view())
    };
    let mut e = p.unsigned_abs();
    let mut result: Option<ArrayD<f64>> = None;
    if e == 0 {
        let eye = Array2::<f64>::eye(n).into_dyn();
        return Ok(eye.broadcast(a.raw_dim()).unwrap().to_owned());
    }
    while e > 0 {
        if e & 1 == 1 {
            result = Some(match result {
                None => base.clone(),
                Some(r) => super::core::matmul(r.view(), base.view())?,
            });
        }
        e >>= 1;
        if e > 0 {
            base = super::core::matmul(base.view(), base.view())?;
        }
    }
    Ok(result.unwrap())
}

/// Least squares via the pseudo-inverse: (x, residuals, rank, s).
#[allow(clippy::type_complexity)]
pub fn lstsq(
    a: ArrayViewD<'_, f64>,
    b: ArrayViewD<'_, f64>,
    rcond: Option<f64>,
) -> NpResult<(ArrayD<f64>, ArrayD<f64>, usize, ArrayD<f64>)> {
    if a.ndim() != 2 {
        return linalg_err(format!(
            "{}-dimensional array given. Array must be two-dimensional",
            a.ndim()
        ));
    }
    let (m, n) = (a.shape()[0], a.shape()[1]);
    if b.shape()[0] != m {
        return linalg_err("Incompatible dimensions");
    }
    let rc = rcond.unwrap_or(f64::EPSILON * m.max(n) as f64);
    let p = pinv(a.view(), rc)?;
    let x = super::core::matmul(p.view(), b.view())?;
    let (_, s, _) = svd(a.view(), false, false)?;
    let smax = s.iter().copied().fold(0.0, f64::max);
    let rank = s.iter().filter(|&&v| v > rc * smax).count();
    let resid = if rank == n && m > n {
        let ax = super::core::matmul(a.view(), x.view())?;
        let r = &ax - &b;
        let r2 = r.mapv(|v| v * v);
        if b.ndim() == 1 {
            ArrayD::from_elem(IxDyn(&[1]), r2.sum())
        } else {
            r2.sum_axis(Axis(0))
        }
    } else {
        ArrayD::zeros(IxDyn(&[0]))
    };
    Ok((x, resid, rank, s))
}
