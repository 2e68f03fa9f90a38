//! The functions the compiled code calls on arrays: arrays made in the run's arena
//! (`numpy.zeros`, `x.copy()`, gradients shaped like an argument), rows as windows, and
//! the checks and in-place updates native code leaves to a call.

use super::arrays::ArrayDesc;
use super::runtime::Tape;

/// `numpy.zeros(n0)` (`ndim` 1) or `numpy.zeros((n0, n1))` in the run's arena; a null
/// pointer (the code bails: NumPy raises, or the size is past what native code makes)
/// for a negative or huge size.
///
/// # Safety
/// `t` must point to the live `Tape` of the current run.
pub unsafe extern "C" fn new_zeros(t: *mut Tape, n0: i64, n1: i64, ndim: i64) -> *mut ArrayDesc {
    let n1 = if ndim == 2 { n1 } else { 1 };
    let valid = n0 >= 0 && n1 >= 0 && n0.checked_mul(n1).is_some_and(|n| n <= 1 << 31);
    if !valid {
        return std::ptr::null_mut();
    }
    // SAFETY: compiled code passes its run's tape.
    unsafe { (*t).arena.zeros(ndim, [n0, n1]) }
}

/// A C-ordered copy of the array at `src` in the run's arena (`x.copy()`).
///
/// # Safety
/// `t` must point to the live `Tape` of the current run and `src` to a live descriptor.
pub unsafe extern "C" fn copy_of(t: *mut Tape, src: *const ArrayDesc) -> *mut ArrayDesc {
    // SAFETY: compiled code passes its run's tape and a descriptor it holds.
    unsafe { (*t).arena.copy_of(&*src) }
}

/// 1 when the two arrays' shapes differ (`tangent.reshape_as` then leaves it to NumPy).
///
/// # Safety
/// Both must point to live descriptors.
pub unsafe extern "C" fn shapes_differ(a: *const ArrayDesc, b: *const ArrayDesc) -> i64 {
    // SAFETY: compiled code passes descriptors it holds.
    let (a, b) = unsafe { (&*a, &*b) };
    i64::from(!a.same_shape(b))
}

/// Row `i` of the 2-d array at `m` (negative counts from the end) as a 1-d window on
/// its elements; null (the code bails: IndexError) out of range.
///
/// # Safety
/// `t` must point to the live `Tape` of the current run and `m` to a live descriptor.
pub unsafe extern "C" fn row_view(t: *mut Tape, m: *const ArrayDesc, i: i64) -> *mut ArrayDesc {
    // SAFETY: compiled code passes its run's tape and a descriptor it holds.
    let (t, m) = unsafe { (&mut *t, &*m) };
    let i = if i < 0 { i + m.shape[0] } else { i };
    if m.ndim != 2 || !(0..m.shape[0]).contains(&i) {
        return std::ptr::null_mut();
    }
    let view = Box::new(ArrayDesc {
        // SAFETY: row i is inside the array's window.
        data: unsafe { m.data.offset((i * m.strides[0]) as isize) },
        ndim: 1,
        shape: [m.shape[1], 1],
        strides: [m.strides[1], 1],
        elem: m.elem,
    });
    t.arena.keep_view(view)
}

/// `g[i, :] += row` for a 2-d arena array `g` and a 1-d array `row` of its row's
/// length (`tangent.add_grad_at(g, m, i, row)`); 1 (bail) on a shape mismatch or an
/// index out of range.
///
/// # Safety
/// Both must point to live descriptors; `g` must be an arena array.
pub unsafe extern "C" fn add_row(g: *mut ArrayDesc, i: i64, row: *const ArrayDesc) -> i64 {
    // SAFETY: compiled code passes descriptors it holds.
    let (g, r) = unsafe { (&*g, &*row) };
    let i = if i < 0 { i + g.shape[0] } else { i };
    if g.ndim != 2 || r.ndim != 1 || r.shape[0] != g.shape[1] || !(0..g.shape[0]).contains(&i) {
        return 1;
    }
    for j in 0..g.shape[1] {
        // SAFETY: (i, j) is inside g's window, j inside the row's.
        unsafe {
            *g.data
                .offset((i * g.strides[0] + j * g.strides[1]) as isize) +=
                *r.data.offset((j * r.strides[0]) as isize);
        }
    }
    0
}

/// A new array of the arena shaped like `like`, every element `v` (a number's gradient
/// given an array's shape).
///
/// # Safety
/// As `zeros_like`.
pub unsafe extern "C" fn full_like(t: *mut Tape, like: *const ArrayDesc, v: f64) -> *mut ArrayDesc {
    // SAFETY: compiled code passes its run's tape and a descriptor it holds.
    let d = unsafe { (*t).arena.output_like(&*like) };
    // SAFETY: a fresh C-ordered array of the arena.
    unsafe { std::slice::from_raw_parts_mut((*d).data, (*d).len()).fill(v) };
    d
}

/// A zero array of `like`'s shape in the run's arena (compiled code calls this for
/// `tangent.init_grad(x)` and the first `tangent.add_grad_at(None, x, ...)`).
///
/// # Safety
/// `t` must point to the live `Tape` of the current run and `like` to a live descriptor.
pub unsafe extern "C" fn zeros_like(t: *mut Tape, like: *const ArrayDesc) -> *mut ArrayDesc {
    // SAFETY: compiled code passes its run's tape and a descriptor it holds.
    unsafe { (*t).arena.zeros_like(&*like) }
}
