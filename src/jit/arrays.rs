//! Arrays in native code: how an array crosses into the compiled code (a descriptor:
//! data pointer, shape and strides in elements, and the element type: float64, or int64
//! for arrays the code only reads), and the gradient arrays the
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
    /// The first element (an `i64` for `Elem::I64`: both are 8 bytes).
    pub data: *mut f64,
    pub ndim: i64,
    pub shape: [i64; 2],
    /// In elements, possibly negative (reversed views).
    pub strides: [i64; 2],
    pub elem: Elem,
}

/// The element type of an array native code takes. Arrays the code makes are float64;
/// int64 arrays (arguments and module-level values) are only read, by element.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    F64,
    I64,
    /// A float32 array, held as float64 numbers (the host's copy of an argument; the
    /// run's gradient arrays, stored rounded to float32): `Ty::Array32`.
    F32,
}

/// Byte offsets of the descriptor's fields, for the code generator.
pub const DATA: i32 = 0;
pub const SHAPE: i32 = 16;
pub const STRIDES: i32 = 32;

impl ArrayDesc {
    /// A placeholder (no elements).
    pub const EMPTY: ArrayDesc = ArrayDesc {
        data: std::ptr::null_mut(),
        ndim: 1,
        shape: [0, 1],
        strides: [1, 1],
        elem: Elem::F64,
    };

    /// The descriptor of a window of float64 elements (`strides` in elements), or None
    /// for a dimension count the native code does not take (only 1-d and 2-d arrays).
    pub fn new(data: *const f64, shape: &[usize], strides: &[isize]) -> Option<ArrayDesc> {
        Self::window(data, Elem::F64, shape, strides)
    }

    /// The descriptor of float32 values held as float64 numbers (a C-ordered copy of a
    /// float32 array), as `new`.
    pub fn new_f32_copy(data: *const f64, shape: &[usize]) -> Option<ArrayDesc> {
        let strides: Vec<isize> = if shape.len() == 2 {
            vec![shape[1] as isize, 1]
        } else {
            vec![1; shape.len()]
        };
        Self::window(data, Elem::F32, shape, &strides)
    }

    /// A float32 array's values (`shape`, `strides` in elements from `data`) as float64
    /// numbers in C order, for `new_f32_copy`; None for other than 1 or 2 dimensions and
    /// for a 2-d array laid out other than in C order: NumPy sums float32 values in
    /// memory order, and the copy keeps only C's.
    ///
    /// # Safety
    /// Every element of the shape is readable at its offset from `data`.
    pub unsafe fn f32_values(
        data: *const f32,
        shape: &[usize],
        strides: &[isize],
    ) -> Option<Vec<f64>> {
        if !(1..=2).contains(&shape.len()) || strides.len() != shape.len() {
            return None;
        }
        let (rows, cols) = (shape[0], shape.get(1).copied().unwrap_or(1));
        let (s0, s1) = (strides[0], strides.get(1).copied().unwrap_or(0));
        if rows > 1 && cols > 1 && !(s1 == 1 && s0 == cols as isize) {
            return None;
        }
        let mut out = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            for j in 0..cols {
                // SAFETY: (i, j) is inside the shape, as the caller promises.
                out.push(unsafe { *data.offset(i as isize * s0 + j as isize * s1) } as f64);
            }
        }
        Some(out)
    }

    /// The descriptor of a window of int64 elements, as `new`.
    pub fn new_i64(data: *const i64, shape: &[usize], strides: &[isize]) -> Option<ArrayDesc> {
        Self::window(data as *const f64, Elem::I64, shape, strides)
    }

    fn window(
        data: *const f64,
        elem: Elem,
        shape: &[usize],
        strides: &[isize],
    ) -> Option<ArrayDesc> {
        if !(1..=2).contains(&shape.len()) || strides.len() != shape.len() {
            return None;
        }
        let mut d = ArrayDesc {
            data: data as *mut f64,
            ndim: shape.len() as i64,
            shape: [0, 1],
            strides: [1, 1],
            elem,
        };
        for k in 0..shape.len() {
            d.shape[k] = i64::try_from(shape[k]).ok()?;
            d.strides[k] = strides[k] as i64;
        }
        Some(d)
    }

    pub(super) fn len(&self) -> usize {
        (self.shape[0] * if self.ndim == 2 { self.shape[1] } else { 1 }) as usize
    }

    fn dims(&self) -> Vec<usize> {
        self.shape[..self.ndim as usize]
            .iter()
            .map(|&n| n as usize)
            .collect()
    }
}

impl ArrayDesc {
    /// The elements as one slice when they are contiguous in C order.
    pub(super) fn contiguous(&self) -> Option<&[f64]> {
        let c = if self.ndim == 2 {
            self.strides[1] == 1 && (self.strides[0] == self.shape[1] || self.shape[0] <= 1)
        } else {
            self.strides[0] == 1
        };
        // SAFETY: a contiguous descriptor covers `len()` elements from `data`.
        c.then(|| unsafe { std::slice::from_raw_parts(self.data, self.len()) })
    }

    /// Copies elements `start..start + len` (C order) to `dst`.
    ///
    /// # Safety
    /// `dst` holds `len` elements and the range is within the array.
    pub(super) unsafe fn read_block(&self, start: usize, len: usize, dst: *mut f64) {
        if let Some(s) = self.contiguous() {
            // SAFETY: as the caller promises.
            unsafe { std::ptr::copy_nonoverlapping(s.as_ptr().add(start), dst, len) };
            return;
        }
        let cols = if self.ndim == 2 {
            self.shape[1] as usize
        } else {
            1
        };
        for k in 0..len {
            let i = start + k;
            let (r, c) = if self.ndim == 2 {
                (i / cols, i % cols)
            } else {
                (i, 0)
            };
            let off = if self.ndim == 2 {
                r as i64 * self.strides[0] + c as i64 * self.strides[1]
            } else {
                r as i64 * self.strides[0]
            };
            // SAFETY: (r, c) is within the shape, so the offset is within the array.
            unsafe { *dst.add(k) = *self.data.offset(off as isize) };
        }
    }

    pub(super) fn same_shape(&self, other: &ArrayDesc) -> bool {
        self.ndim == other.ndim
            && self.shape[0] == other.shape[0]
            && (self.ndim == 1 || self.shape[1] == other.shape[1])
    }
}

/// An array a run made, in C order, for the host to turn into its own array type.
#[derive(Debug, Clone, PartialEq)]
pub struct NativeArray {
    pub data: Vec<f64>,
    pub shape: Vec<usize>,
    /// A float32 array (its values exact in float32): the host makes a float32 array.
    pub single: bool,
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
    /// Blocks of intermediate results of elementwise statements (`elementwise.rs`).
    scratch: Vec<f64>,
    /// Buffers and descriptors of earlier runs, reused (a loop of array statements
    /// makes an array per statement and step; the tape is the thread's, so are these).
    spare: Vec<(Box<ArrayDesc>, Vec<f64>)>,
    spare_elements: usize,
}

/// The most elements the spare buffers keep between runs (32 MB).
const SPARE_LIMIT: usize = 4 << 20;

impl Arena {
    /// Keeps `view` (a window on another array's elements) until the run ends, at a
    /// stable address.
    pub fn keep_view(&mut self, view: Box<ArrayDesc>) -> *mut ArrayDesc {
        self.views.push(view);
        let last = self.views.last_mut().expect("just pushed");
        &mut **last
    }

    pub fn clear(&mut self) {
        for (d, v) in self.arrays.drain(..) {
            if self.spare_elements + v.capacity() <= SPARE_LIMIT {
                self.spare_elements += v.capacity();
                self.spare.push((d, v));
            }
        }
        self.views.clear();
    }

    /// The elements of the arena's array at `desc`, or None if `desc` is not one of the
    /// arena's (an argument array returned as it is: the interpreter returns the object
    /// itself, which the native code cannot). The buffer leaves with the result unless
    /// `again`: a later result is the same array (`return g, g`), and gets its own copy.
    pub fn take(&mut self, desc: u64, again: bool) -> Option<NativeArray> {
        let k = self
            .arrays
            .iter()
            .position(|(d, _)| std::ptr::eq(&**d, desc as usize as *const ArrayDesc))?;
        let shape = self.arrays[k].0.dims();
        let data = if again {
            self.arrays[k].1.clone()
        } else {
            self.arrays.swap_remove(k).1
        };
        Some(NativeArray {
            data,
            shape,
            single: false,
        })
    }

    /// Scratch memory of at least `n` elements, reused by every elementwise statement.
    pub(super) fn scratch(&mut self, n: usize) -> *mut f64 {
        if self.scratch.len() < n {
            self.scratch.resize(n, 0.0);
        }
        self.scratch.as_mut_ptr()
    }

    /// A buffer of `n` elements and a descriptor box, reused when a spare one is large
    /// enough; its elements are zeros when `zeroed`, else whatever numbers an earlier
    /// run left (the caller writes every one).
    fn buffer(&mut self, n: usize, zeroed: bool) -> (Box<ArrayDesc>, Vec<f64>) {
        match self.spare.last() {
            Some((_, v)) if v.capacity() >= n => {
                let (d, mut v) = self.spare.pop().expect("just seen");
                self.spare_elements -= v.capacity();
                if zeroed {
                    v.clear();
                }
                v.resize(n, 0.0);
                (d, v)
            }
            _ => (Box::new(ArrayDesc::EMPTY), vec![0.0; n]),
        }
    }

    /// A new C-ordered array of `ndim` dimensions and `shape` (zeros when `zeroed`).
    fn array(&mut self, ndim: i64, shape: [i64; 2], zeroed: bool) -> *mut ArrayDesc {
        let n = (shape[0] * if ndim == 2 { shape[1] } else { 1 }) as usize;
        let (mut desc, mut data) = self.buffer(n, zeroed);
        let strides = if ndim == 2 { [shape[1], 1] } else { [1, 1] };
        *desc = ArrayDesc {
            data: data.as_mut_ptr(),
            ndim,
            shape,
            strides,
            elem: Elem::F64,
        };
        self.arrays.push((desc, data));
        let last = self.arrays.last_mut().expect("just pushed");
        &mut *last.0
    }

    /// A new C-ordered zero array of `ndim` dimensions and `shape`.
    pub fn zeros(&mut self, ndim: i64, shape: [i64; 2]) -> *mut ArrayDesc {
        self.array(ndim, shape, true)
    }

    /// A new zero array of the arena shaped like `like`.
    pub(super) fn zeros_like(&mut self, like: &ArrayDesc) -> *mut ArrayDesc {
        self.zeros(like.ndim, like.shape)
    }

    /// A new array of the arena shaped like `like`, for the caller to fill.
    pub(super) fn output_like(&mut self, like: &ArrayDesc) -> *mut ArrayDesc {
        self.array(like.ndim, like.shape, false)
    }

    pub fn copy_of(&mut self, src: &ArrayDesc) -> *mut ArrayDesc {
        let d = self.output_like(src);
        // SAFETY: the new array holds `src.len()` elements.
        unsafe { src.read_block(0, src.len(), (*d).data) };
        d
    }
}

#[cfg(test)]
mod tests {
    use super::Arena;

    /// `return g, g`: the first result is a copy, the last takes the buffer, and the
    /// array is no longer the arena's after its last use.
    #[test]
    fn an_array_returned_twice_is_copied_for_all_but_its_last_use() {
        let mut arena = Arena::default();
        let desc = arena.zeros(1, [3, 1]);
        // SAFETY: the arena's own zero array of 3 elements, alive until taken.
        unsafe { *(*desc).data.add(1) = 2.5 };
        let w = desc as u64;
        let first = arena.take(w, true).expect("the arena's array");
        let last = arena.take(w, false).expect("still the arena's array");
        assert_eq!(first.data, vec![0.0, 2.5, 0.0]);
        assert_eq!(last.data, first.data);
        assert_eq!((first.shape.clone(), last.shape), (vec![3], vec![3]));
        assert!(arena.take(w, false).is_none());
    }
}
