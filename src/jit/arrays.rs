//! Float64 arrays in native code: how an array crosses into the compiled code (a
//! descriptor: data pointer, shape and strides in elements), and the gradient arrays the
//! code makes during a run (`tangent.init_grad(x)`, `tangent.add_grad_at(None, x, ...)`),
//! which the run's arena owns until the host turns the results into its arrays.
//!
//! The compiled code only reads argument arrays (the host holds them, and in the embedded
//! host their read lock, for the whole call) and writes only arrays of the arena, each
//! held by one variable (typing refuses every other use of a written array), so an
//! in-place `add_grad_at` is what Python's copy-then-add gives.

/// An array as the compiled code sees it (1-d: `shape[1]` and `strides[1]` unused).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ArrayDesc {
    pub data: *mut f64,
    pub ndim: i64,
    pub shape: [i64; 2],
    /// In elements, possibly negative (reversed views).
    pub strides: [i64; 2],
}

/// Byte offsets of the descriptor's fields, for the code generator.
pub const DATA: i32 = 0;
pub const SHAPE: i32 = 16;
pub const STRIDES: i32 = 32;

impl ArrayDesc {
    /// The descriptor of a window of float64 elements (`strides` in elements), or None
    /// for a dimension count the native code does not take (only 1-d and 2-d arrays).
    pub fn new(data: *const f64, shape: &[usize], strides: &[isize]) -> Option<ArrayDesc> {
        if !(1..=2).contains(&shape.len()) || strides.len() != shape.len() {
            return None;
        }
        let mut d = ArrayDesc {
            data: data as *mut f64,
            ndim: shape.len() as i64,
            shape: [0, 1],
            strides: [1, 1],
        };
        for k in 0..shape.len() {
            d.shape[k] = i64::try_from(shape[k]).ok()?;
            d.strides[k] = strides[k] as i64;
        }
        Some(d)
    }

    fn len(&self) -> usize {
        (self.shape[0] * if self.ndim == 2 { self.shape[1] } else { 1 }) as usize
    }

    fn dims(&self) -> Vec<usize> {
        self.shape[..self.ndim as usize]
            .iter()
            .map(|&n| n as usize)
            .collect()
    }
}

/// An array a run made, in C order, for the host to turn into its own array type.
#[derive(Debug, Clone, PartialEq)]
pub struct NativeArray {
    pub data: Vec<f64>,
    pub shape: Vec<usize>,
}

/// The arrays made during one run: each a descriptor (boxed, so its address is stable)
/// and its elements.
#[derive(Default)]
pub struct Arena {
    arrays: Vec<(Box<ArrayDesc>, Vec<f64>)>,
    /// Descriptors of rows (`m[i]`): windows on another array's elements, never
    /// returned (the interpreter returns a view object). Boxed: the compiled code holds
    /// their addresses while the vector grows.
    #[allow(clippy::vec_box)]
    views: Vec<Box<ArrayDesc>>,
}

impl Arena {
    pub fn clear(&mut self) {
        self.arrays.clear();
        self.views.clear();
    }

    /// The elements of the arena's array at `desc`, or None if `desc` is not one of the
    /// arena's (an argument array returned as it is: the interpreter returns the object
    /// itself, which the native code cannot).
    pub fn take(&mut self, desc: u64) -> Option<NativeArray> {
        let k = self
            .arrays
            .iter()
            .position(|(d, _)| std::ptr::eq(&**d, desc as usize as *const ArrayDesc))?;
        let (d, data) = &self.arrays[k];
        // A copy: the same array may be returned twice (`return g, g`).
        Some(NativeArray {
            data: data.clone(),
            shape: d.dims(),
        })
    }

    /// A new C-ordered array of `ndim` dimensions and `shape`, holding `data`.
    fn adopt(&mut self, mut data: Vec<f64>, ndim: i64, shape: [i64; 2]) -> *mut ArrayDesc {
        let strides = if ndim == 2 { [shape[1], 1] } else { [1, 1] };
        let desc = Box::new(ArrayDesc {
            data: data.as_mut_ptr(),
            ndim,
            shape,
            strides,
        });
        self.arrays.push((desc, data));
        let last = self.arrays.last_mut().expect("just pushed");
        &mut *last.0
    }

    fn zeros_like(&mut self, like: &ArrayDesc) -> *mut ArrayDesc {
        self.adopt(vec![0.0; like.len()], like.ndim, like.shape)
    }

    fn copy_of(&mut self, src: &ArrayDesc) -> *mut ArrayDesc {
        let mut data = Vec::with_capacity(src.len());
        let rows = if src.ndim == 2 { src.shape[0] } else { 1 };
        let cols = if src.ndim == 2 {
            src.shape[1]
        } else {
            src.shape[0]
        };
        let (row_step, col_step) = if src.ndim == 2 {
            (src.strides[0], src.strides[1])
        } else {
            (0, src.strides[0])
        };
        for r in 0..rows {
            for c in 0..cols {
                // SAFETY: (r, c) is inside the window the descriptor describes.
                data.push(unsafe { *src.data.offset((r * row_step + c * col_step) as isize) });
            }
        }
        self.adopt(data, src.ndim, src.shape)
    }
}

/// `numpy.zeros(n0)` (`ndim` 1) or `numpy.zeros((n0, n1))` in the run's arena; a null
/// pointer (the code bails: NumPy raises, or the size is past what native code makes)
/// for a negative or huge size.
///
/// # Safety
/// `t` must point to the live `Tape` of the current run.
pub unsafe extern "C" fn new_zeros(
    t: *mut super::runtime::Tape,
    n0: i64,
    n1: i64,
    ndim: i64,
) -> *mut ArrayDesc {
    let n1 = if ndim == 2 { n1 } else { 1 };
    let Some(len) = (n0 >= 0 && n1 >= 0)
        .then(|| n0.checked_mul(n1))
        .flatten()
        .filter(|&n| n <= 1 << 31)
    else {
        return std::ptr::null_mut();
    };
    // SAFETY: compiled code passes its run's tape.
    unsafe { (*t).arena.adopt(vec![0.0; len as usize], ndim, [n0, n1]) }
}

/// A C-ordered copy of the array at `src` in the run's arena (`x.copy()`).
///
/// # Safety
/// `t` must point to the live `Tape` of the current run and `src` to a live descriptor.
pub unsafe extern "C" fn copy_of(
    t: *mut super::runtime::Tape,
    src: *const ArrayDesc,
) -> *mut ArrayDesc {
    // SAFETY: compiled code passes its run's tape and a descriptor it holds.
    unsafe { (*t).arena.copy_of(&*src) }
}

/// `dst += src` elementwise for arrays of one shape (1: the shapes differ, and the code
/// bails: NumPy would broadcast, which the interpreter does).
///
/// # Safety
/// `dst` and `src` must point to live descriptors; `dst` must be an arena array.
pub unsafe extern "C" fn add_into(dst: *mut ArrayDesc, src: *const ArrayDesc) -> i64 {
    // SAFETY: compiled code passes descriptors it holds.
    let (d, s) = unsafe { (&*dst, &*src) };
    if d.ndim != s.ndim || d.dims() != s.dims() {
        return 1;
    }
    let rows = if d.ndim == 2 { d.shape[0] } else { 1 };
    let cols = if d.ndim == 2 { d.shape[1] } else { d.shape[0] };
    let step = |a: &ArrayDesc| {
        if a.ndim == 2 {
            (a.strides[0], a.strides[1])
        } else {
            (0, a.strides[0])
        }
    };
    let ((dr, dc), (sr, sc)) = (step(d), step(s));
    for r in 0..rows {
        for c in 0..cols {
            // SAFETY: (r, c) is inside both windows (same shape).
            unsafe {
                *d.data.offset((r * dr + c * dc) as isize) +=
                    *s.data.offset((r * sr + c * sc) as isize);
            }
        }
    }
    0
}

/// 1 when the two arrays' shapes differ (`tangent.reshape_as` then leaves it to NumPy).
///
/// # Safety
/// Both must point to live descriptors.
pub unsafe extern "C" fn shapes_differ(a: *const ArrayDesc, b: *const ArrayDesc) -> i64 {
    // SAFETY: compiled code passes descriptors it holds.
    let (a, b) = unsafe { (&*a, &*b) };
    i64::from(a.ndim != b.ndim || a.dims() != b.dims())
}

/// Row `i` of the 2-d array at `m` (negative counts from the end) as a 1-d window on
/// its elements; null (the code bails: IndexError) out of range.
///
/// # Safety
/// `t` must point to the live `Tape` of the current run and `m` to a live descriptor.
pub unsafe extern "C" fn row_view(
    t: *mut super::runtime::Tape,
    m: *const ArrayDesc,
    i: i64,
) -> *mut ArrayDesc {
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
    });
    t.arena.views.push(view);
    let last = t.arena.views.last_mut().expect("just pushed");
    &mut **last
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

/// A zero array of `like`'s shape in the run's arena (compiled code calls this for
/// `tangent.init_grad(x)` and the first `tangent.add_grad_at(None, x, ...)`).
///
/// # Safety
/// `t` must point to the live `Tape` of the current run and `like` to a live descriptor.
pub unsafe extern "C" fn zeros_like(
    t: *mut super::runtime::Tape,
    like: *const ArrayDesc,
) -> *mut ArrayDesc {
    // SAFETY: compiled code passes its run's tape and a descriptor it holds.
    unsafe { (*t).arena.zeros_like(&*like) }
}
