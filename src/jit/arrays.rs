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
}

impl Arena {
    pub fn clear(&mut self) {
        self.arrays.clear();
    }

    /// The elements of the arena's array at `desc`, or None if `desc` is not one of the
    /// arena's (an argument array returned as it is: the interpreter returns the object
    /// itself, which the native code cannot).
    pub fn take(&mut self, desc: u64) -> Option<NativeArray> {
        let k = self
            .arrays
            .iter()
            .position(|(d, _)| std::ptr::eq(&**d, desc as usize as *const ArrayDesc))?;
        let (d, data) = &mut self.arrays[k];
        Some(NativeArray {
            data: std::mem::take(data),
            shape: d.dims(),
        })
    }

    fn zeros_like(&mut self, like: &ArrayDesc) -> *mut ArrayDesc {
        let mut data = vec![0.0; like.len()];
        let strides = if like.ndim == 2 {
            [like.shape[1], 1]
        } else {
            [1, 1]
        };
        let desc = Box::new(ArrayDesc {
            data: data.as_mut_ptr(),
            ndim: like.ndim,
            shape: like.shape,
            strides,
        });
        self.arrays.push((desc, data));
        let last = self.arrays.last_mut().expect("just pushed");
        &mut *last.0
    }
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
