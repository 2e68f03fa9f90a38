//! Sorting 64-bit integers with the machine's vector instructions (AVX-512 or AVX2): a
//! quicksort whose partition step moves a whole vector at a time, and whose short ranges
//! are sorted by bitonic networks held in registers. NumPy sorts with the same kind of
//! code (x86-simd-sort); the radix sort and the standard library's comparison sort are
//! three to four times slower on a million keys.
//!
//! The algorithm is written once (`vector_quicksort!`) over a handful of primitives that
//! each instruction set's module defines: `N` lanes, load/store, min/max, the lanes
//! below a pivot, a permutation that puts chosen lanes first, a lane permutation
//! (lane `l` from lane `l ^ d`) and a blend by a lane mask.

/// Sorts `v` ascending with the best vector instructions this machine has; false (and
/// `v` untouched) where it has neither AVX-512 nor AVX2.
pub fn sort_i64(v: &mut [i64]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the instructions the module uses are present (checked above).
            unsafe { avx512::sort(v) };
            return true;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: as above.
            unsafe { avx2::sort(v) };
            return true;
        }
    }
    let _ = v;
    false
}

/// What `sort_f64` did.
#[derive(Debug, PartialEq, Eq)]
pub enum FloatSort {
    Sorted,
    /// Nothing: there is a NaN among the values.
    HasNan,
    /// Nothing: the machine has neither AVX-512 nor AVX2.
    Unavailable,
}

/// Sorts float64 values ascending, -0.0 before 0.0, where there is no NaN among them:
/// as signed keys in the floats' order (a negative number has every bit but the sign
/// flipped; the same step maps the keys back).
pub fn sort_f64(v: &mut [f64]) -> FloatSort {
    // SAFETY: i64 and f64 have one size and alignment, and every bit pattern is valid
    // for both.
    let keys = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut i64, v.len()) };
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the instructions the module uses are present (checked above).
            return unsafe { avx512::sort_floats(keys) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: as above.
            return unsafe { avx2::sort_floats(keys) };
        }
    }
    let _ = keys;
    FloatSort::Unavailable
}

/// Whether `sort_i64` sorts on this machine.
pub fn available() -> bool {
    level() != "none"
}

/// The vector instructions `sort_i64` uses on this machine ("avx512", "avx2" or "none").
pub fn level() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return "avx512";
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return "avx2";
        }
    }
    "none"
}

/// The network's stages, one call each (so that each is compiled with its constants).
#[cfg(target_arch = "x86_64")]
macro_rules! network_stages {
    ($v:ident, $k:ident, $presorted:ident; $(($s:literal, $d:literal))*) => {
        $( stage::<$k, $s, $d>(&mut $v, $presorted); )*
    };
}

/// Compare-exchanges of whole vectors `$v[$base + i]` and `$v[$base + j]` (the smaller
/// lane-wise to i), one per pair.
#[cfg(target_arch = "x86_64")]
macro_rules! exchange_vectors {
    ($v:ident, $base:expr; $(($i:literal, $j:literal))*) => {
        $(
            let (lo, hi) = (min($v[$base + $i], $v[$base + $j]), max($v[$base + $i], $v[$base + $j]));
            ($v[$base + $i], $v[$base + $j]) = (lo, hi);
        )*
    };
}

/// `$body` for each of the first `$k` vectors (at most 16), with `$i` its index: written
/// out, so that every index, and what the body computes from it, is a constant.
#[cfg(target_arch = "x86_64")]
macro_rules! each_vector {
    ($i:ident, $k:ident, $body:block) => {
        each_vector!(@ $i, $k, $body; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
    (@ $i:ident, $k:ident, $body:block; $($n:literal)*) => {
        $( if $n < $k { let $i: usize = $n; $body } )*
    };
}

/// For each of the `M` masks of `L` lanes, the lane order that puts the lanes of the mask
/// first (in order) and the others after them (in order).
#[cfg(target_arch = "x86_64")]
const fn lane_orders<const L: usize, const M: usize>() -> [[usize; L]; M] {
    let mut out = [[0; L]; M];
    let mut m = 0;
    while m < M {
        let mut at = 0;
        let mut pass = 0;
        while pass < 2 {
            let mut lane = 0;
            while lane < L {
                if ((m >> lane) & 1 == 1) == (pass == 0) {
                    out[m][at] = lane;
                    at += 1;
                }
                lane += 1;
            }
            pass += 1;
        }
        m += 1;
    }
    out
}

/// The quicksort over one instruction set's primitives (defined in the module where this
/// expands, every one with the target feature `$feature`).
#[cfg(target_arch = "x86_64")]
macro_rules! vector_quicksort {
    ($feature:literal) => {
        /// Ranges up to this many keys go to the bitonic networks.
        const SMALL: usize = SMALL_VECTORS * N;
        /// Vectors the partition reads at a time.
        const U: usize = 4;
        // The partition holds `U` vectors from each end.
        const _: () = assert!(SMALL >= 2 * U * N);

        /// Sorts `v` ascending.
        ///
        /// # Safety
        /// The machine has the target feature.
        #[target_feature(enable = $feature)]
        pub unsafe fn sort(v: &mut [i64]) {
            let n = v.len();
            // Past this depth the pivots are being unlucky (or chosen against): the
            // standard library's sort bounds the worst case.
            let depth = 2 * (usize::BITS - n.leading_zeros()) + 8;
            quicksort(v.as_mut_ptr(), n, depth);
        }

        /// `sort_f64` on the floats' bits: keys made and unmade in passes the
        /// compiler vectorises (the first also finds the largest absolute value, past
        /// infinity's for a NaN).
        ///
        /// # Safety
        /// The machine has the target feature.
        #[target_feature(enable = $feature)]
        pub unsafe fn sort_floats(keys: &mut [i64]) -> super::FloatSort {
            let mut largest = 0;
            for k in keys.iter_mut() {
                largest = largest.max(*k & i64::MAX);
                *k ^= (*k >> 63) & i64::MAX;
            }
            let flip = |keys: &mut [i64]| {
                for k in keys.iter_mut() {
                    *k ^= (*k >> 63) & i64::MAX;
                }
            };
            if largest > f64::INFINITY.to_bits() as i64 {
                flip(keys);
                return super::FloatSort::HasNan;
            }
            sort(keys);
            flip(keys);
            super::FloatSort::Sorted
        }

        #[target_feature(enable = $feature)]
        unsafe fn quicksort(a: *mut i64, n: usize, depth: u32) {
            if n <= SMALL {
                small_sort(a, n);
                return;
            }
            if depth == 0 {
                std::slice::from_raw_parts_mut(a, n).sort_unstable();
                return;
            }
            let pivot = choose_pivot(a, n);
            let k = partition::<false>(a, n, pivot);
            if k == 0 {
                // The pivot is the least key: the keys equal to it go first, and are
                // in place.
                let k = partition::<true>(a, n, pivot);
                quicksort(a.add(k), n - k, depth - 1);
                return;
            }
            quicksort(a, k, depth - 1);
            quicksort(a.add(k), n - k, depth - 1);
        }

        /// The median of 8 keys spread over the range (sorted by a network).
        #[target_feature(enable = $feature)]
        unsafe fn choose_pivot(a: *mut i64, n: usize) -> i64 {
            let mut sample = [0i64; 8];
            for (k, s) in sample.iter_mut().enumerate() {
                *s = *a.add(k * (n - 1) / 7);
            }
            network::<{ 8 / N }>(sample.as_mut_ptr(), 8);
            sample[4]
        }

        /// Moves the keys below `pivot` (at or below it with `or_equal`) to the front of
        /// the `n >= 2 U N` keys at `a`, the others behind them; returns how many went
        /// first. In place: the first and last `U` vectors are held in registers, so the
        /// end a batch of `U` vectors is read from always has room for what it sends
        /// there. (A batch of vectors per choice of end: the choice is a branch the
        /// processor cannot predict.)
        #[target_feature(enable = $feature)]
        unsafe fn partition<const OR_EQUAL: bool>(a: *mut i64, n: usize, pivot: i64) -> usize {
            const B: usize = U * N;
            let pv = splat(pivot);
            let mut first = [splat(0); U];
            let mut last = [splat(0); U];
            for u in 0..U {
                first[u] = load(a.add(u * N));
                last[u] = load(a.add(n - B + u * N));
            }
            // Unread keys are [l, r); the front is written at `wl` upwards, the back
            // below `wr`.
            let (mut l, mut r) = (B, n - B);
            let (mut wl, mut wr) = (0, n);
            // The keys that make r - l a whole number of vectors, one at a time and
            // without a branch (each written at both ends; the cursor that keeps it
            // moves).
            let rem = (r - l) % N;
            let mut spare = [0i64; N];
            std::ptr::copy_nonoverlapping(a.add(l), spare.as_mut_ptr(), rem);
            l += rem;
            for &x in &spare[..rem] {
                let front = x < pivot || (OR_EQUAL && x == pivot);
                *a.add(wl) = x;
                *a.add(wr - 1) = x;
                wl += front as usize;
                wr -= !front as usize;
            }
            // Then whole vectors until r - l is a whole number of batches.
            while (r - l) % B != 0 {
                let v = if l - wl <= wr - r {
                    l += N;
                    load(a.add(l - N))
                } else {
                    r -= N;
                    load(a.add(r))
                };
                split::<OR_EQUAL, 1>(a, &mut wl, &mut wr, [v], pv);
            }
            while l < r {
                // Read from the end with less room, which then has room for a batch.
                let at = if l - wl <= wr - r {
                    l += B;
                    l - B
                } else {
                    r -= B;
                    r
                };
                let batch = [
                    load(a.add(at)),
                    load(a.add(at + N)),
                    load(a.add(at + 2 * N)),
                    load(a.add(at + 3 * N)),
                ];
                split::<OR_EQUAL, U>(a, &mut wl, &mut wr, batch, pv);
            }
            split::<OR_EQUAL, U>(a, &mut wl, &mut wr, first, pv);
            split::<OR_EQUAL, U>(a, &mut wl, &mut wr, last, pv);
            wl
        }

        /// The lanes of the vectors `vs` that go to the front written at `wl`, the others
        /// below `wr`: one permutation puts the front's lanes first, and the whole vector
        /// is stored at both ends (each has room for a vector).
        #[inline]
        #[target_feature(enable = $feature)]
        unsafe fn split<const OR_EQUAL: bool, const M: usize>(
            a: *mut i64,
            wl: &mut usize,
            wr: &mut usize,
            vs: [V; M],
            pv: V,
        ) {
            let fronts = vs.map(|v| front_lanes::<OR_EQUAL>(v, pv));
            for (v, front) in vs.into_iter().zip(fronts) {
                let w = front_first(v, front);
                let k = front.count_ones() as usize;
                store(a.add(*wl), w);
                store(a.add(*wr - N), w);
                *wl += k;
                *wr -= N - k;
            }
        }

        /// Sorts the `n <= SMALL` keys at `a` by a bitonic network over the fewest
        /// vectors (a power of two) that hold them, the lanes past `n` the largest key.
        #[target_feature(enable = $feature)]
        unsafe fn small_sort(a: *mut i64, n: usize) {
            match n.div_ceil(N) {
                0 => {}
                1 => network::<1>(a, n),
                2 => network::<2>(a, n),
                3 | 4 => network::<4>(a, n),
                5..=8 => network::<8>(a, n),
                _ => network::<16>(a, n),
            }
        }

        /// A bitonic sorting network over `K` vectors (a power of two, at most 16) in
        /// registers, holding the `n` keys at `p`: every stage written out, each one's
        /// constants known to the compiler.
        #[target_feature(enable = $feature)]
        unsafe fn network<const K: usize>(p: *mut i64, n: usize) {
            let mut v = [splat(i64::MAX); K];
            each_vector!(i, K, {
                if (i + 1) * N <= n {
                    v[i] = load(p.add(i * N));
                } else if i * N < n {
                    v[i] = load_part(p.add(i * N), n - i * N);
                }
            });
            // Each vector sorted (alternately ascending and descending) by sorting the
            // lanes across vectors and transposing, where there are N vectors or more:
            // the network's first stages then have nothing to do.
            let presorted = presort(&mut v);
            network_stages!(v, K, presorted; (2, 1) (4, 2) (4, 1) (8, 4) (8, 2) (8, 1) (16, 8) (16, 4)
                (16, 2) (16, 1) (32, 16) (32, 8) (32, 4) (32, 2) (32, 1) (64, 32) (64, 16)
                (64, 8) (64, 4) (64, 2) (64, 1) (128, 64) (128, 32) (128, 16) (128, 8)
                (128, 4) (128, 2) (128, 1));
            each_vector!(i, K, {
                if (i + 1) * N <= n {
                    store(p.add(i * N), v[i]);
                } else if i * N < n {
                    store_part(p.add(i * N), n - i * N, v[i]);
                }
            });
        }

        /// Stage (S, D) of the network: each key against the one D away, in blocks of S
        /// that alternate ascending and descending (nothing where S is past the keys, or
        /// within a vector already sorted).
        #[inline]
        #[target_feature(enable = $feature)]
        fn stage<const K: usize, const S: usize, const D: usize>(v: &mut [V; K], presorted: bool) {
            if S > K * N || (presorted && S <= N) {
                return;
            }
            if D >= N {
                // Whole vectors against whole vectors.
                each_vector!(i, K, {
                    let j = i ^ (D / N);
                    if j > i {
                        let (lo, hi) = (min(v[i], v[j]), max(v[i], v[j]));
                        if (i * N) & S == 0 {
                            (v[i], v[j]) = (lo, hi);
                        } else {
                            (v[i], v[j]) = (hi, lo);
                        }
                    }
                });
            } else {
                each_vector!(i, K, {
                    v[i] = exchange(v[i], swap_lanes(v[i], D), upper_lanes(i, S, D));
                });
            }
        }

        /// The lanes of vector `i` that take the larger key of their pair at stage (s, d)
        /// for d below N: the upper one of a pair in an ascending block, the lower one in
        /// a descending block.
        const fn upper_lanes(i: usize, s: usize, d: usize) -> u32 {
            let mut mask = 0;
            let mut lane = 0;
            while lane < N {
                let descending = (i * N + lane) & s != 0;
                if (lane & d != 0) != descending {
                    mask |= 1 << lane;
                }
                lane += 1;
            }
            mask
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    type V = __m512i;
    const N: usize = 8;
    const SMALL_VECTORS: usize = 8;

    /// For each mask of the lanes that go first, the lane order that puts them first.
    static SPLITS: [[u8; 8]; 256] = {
        let orders = super::lane_orders::<8, 256>();
        let mut out = [[0; 8]; 256];
        let mut m = 0;
        while m < 256 {
            let mut lane = 0;
            while lane < 8 {
                out[m][lane] = orders[m][lane] as u8;
                lane += 1;
            }
            m += 1;
        }
        out
    };

    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn load(p: *const i64) -> V {
        _mm512_loadu_epi64(p)
    }

    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn store(p: *mut i64, v: V) {
        _mm512_storeu_epi64(p, v)
    }

    /// The `m < N` keys at `p`, the other lanes the largest key.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn load_part(p: *const i64, m: usize) -> V {
        _mm512_mask_loadu_epi64(splat(i64::MAX), ((1u32 << m) - 1) as u8, p)
    }

    /// The first `m < N` lanes of `v` to `p`.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn store_part(p: *mut i64, m: usize, v: V) {
        _mm512_mask_storeu_epi64(p, ((1u32 << m) - 1) as u8, v)
    }

    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn splat(x: i64) -> V {
        _mm512_set1_epi64(x)
    }

    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn min(a: V, b: V) -> V {
        _mm512_min_epi64(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn max(a: V, b: V) -> V {
        _mm512_max_epi64(a, b)
    }

    /// Lane l of `v` from lane `l ^ d`.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn swap_lanes(v: V, d: usize) -> V {
        let d = d as i64;
        let idx = _mm512_set_epi64(7 ^ d, 6 ^ d, 5 ^ d, 4 ^ d, 3 ^ d, 2 ^ d, 1 ^ d, d);
        _mm512_permutexvar_epi64(idx, v)
    }

    /// Each lane of `v` against the same lane of `q`: the larger where `upper` has a bit,
    /// the smaller elsewhere.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn exchange(v: V, q: V, upper: u32) -> V {
        _mm512_mask_max_epi64(_mm512_min_epi64(v, q), upper as u8, v, q)
    }

    /// The lanes of `v` that go first: below the pivot `pv` (at or below with
    /// `OR_EQUAL`).
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn front_lanes<const OR_EQUAL: bool>(v: V, pv: V) -> u32 {
        u32::from(if OR_EQUAL {
            _mm512_cmple_epi64_mask(v, pv)
        } else {
            _mm512_cmplt_epi64_mask(v, pv)
        })
    }

    /// `v` with the lanes of `front` first (in order), the others after them.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn front_first(v: V, front: u32) -> V {
        let order = _mm512_cvtepu8_epi64(_mm_loadl_epi64(
            SPLITS[front as usize].as_ptr() as *const __m128i
        ));
        _mm512_permutexvar_epi64(order, v)
    }

    /// Sorts each of the `K` vectors, even ones ascending and odd ones descending, where
    /// `K` is 8 or more: each block of 8 vectors has its lanes sorted across the vectors
    /// (an optimal network of 19 exchanges), then is transposed. False (nothing done)
    /// for fewer vectors.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn presort<const K: usize>(v: &mut [V; K]) -> bool {
        if K < 8 {
            return false;
        }
        for b in (0..K).step_by(8) {
            exchange_vectors!(v, b; (0, 2) (1, 3) (4, 6) (5, 7) (0, 4) (1, 5) (2, 6) (3, 7)
                (0, 1) (2, 3) (4, 5) (6, 7) (2, 4) (3, 5) (1, 4) (3, 6) (1, 2) (3, 4) (5, 6));
            let t = [
                _mm512_unpacklo_epi64(v[b], v[b + 1]),
                _mm512_unpackhi_epi64(v[b], v[b + 1]),
                _mm512_unpacklo_epi64(v[b + 2], v[b + 3]),
                _mm512_unpackhi_epi64(v[b + 2], v[b + 3]),
                _mm512_unpacklo_epi64(v[b + 4], v[b + 5]),
                _mm512_unpackhi_epi64(v[b + 4], v[b + 5]),
                _mm512_unpacklo_epi64(v[b + 6], v[b + 7]),
                _mm512_unpackhi_epi64(v[b + 6], v[b + 7]),
            ];
            let even = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
            let odd = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
            let u = [
                _mm512_permutex2var_epi64(t[0], even, t[2]),
                _mm512_permutex2var_epi64(t[1], even, t[3]),
                _mm512_permutex2var_epi64(t[0], odd, t[2]),
                _mm512_permutex2var_epi64(t[1], odd, t[3]),
                _mm512_permutex2var_epi64(t[4], even, t[6]),
                _mm512_permutex2var_epi64(t[5], even, t[7]),
                _mm512_permutex2var_epi64(t[4], odd, t[6]),
                _mm512_permutex2var_epi64(t[5], odd, t[7]),
            ];
            let low = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
            let high = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
            let reverse = _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7);
            for c in 0..4 {
                v[b + c] = _mm512_permutex2var_epi64(u[c], low, u[c + 4]);
                v[b + c + 4] = _mm512_permutex2var_epi64(u[c], high, u[c + 4]);
            }
            for c in (1..8).step_by(2) {
                v[b + c] = _mm512_permutexvar_epi64(reverse, v[b + c]);
            }
        }
        true
    }

    vector_quicksort!("avx512f,popcnt");
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    type V = __m256i;
    const N: usize = 4;
    const SMALL_VECTORS: usize = 8;

    /// For each mask of the lanes that go first, the order of 32-bit halves that puts
    /// them first.
    static SPLITS: [[i32; 8]; 16] = {
        let orders = super::lane_orders::<4, 16>();
        let mut out = [[0; 8]; 16];
        let mut m = 0;
        while m < 16 {
            let mut lane = 0;
            while lane < 4 {
                out[m][2 * lane] = 2 * orders[m][lane] as i32;
                out[m][2 * lane + 1] = 2 * orders[m][lane] as i32 + 1;
                lane += 1;
            }
            m += 1;
        }
        out
    };

    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn load(p: *const i64) -> V {
        _mm256_loadu_si256(p as *const V)
    }

    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn store(p: *mut i64, v: V) {
        _mm256_storeu_si256(p as *mut V, v)
    }

    /// The `m < N` keys at `p`, the other lanes the largest key.
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn load_part(p: *const i64, m: usize) -> V {
        let lanes = _mm256_cmpgt_epi64(splat(m as i64), _mm256_set_epi64x(3, 2, 1, 0));
        let keys = _mm256_maskload_epi64(p, lanes);
        _mm256_blendv_epi8(splat(i64::MAX), keys, lanes)
    }

    /// The first `m < N` lanes of `v` to `p`.
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn store_part(p: *mut i64, m: usize, v: V) {
        let lanes = _mm256_cmpgt_epi64(splat(m as i64), _mm256_set_epi64x(3, 2, 1, 0));
        _mm256_maskstore_epi64(p, lanes, v)
    }

    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn splat(x: i64) -> V {
        _mm256_set1_epi64x(x)
    }

    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn min(a: V, b: V) -> V {
        _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b))
    }

    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn max(a: V, b: V) -> V {
        _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b))
    }

    /// Lane l of `v` from lane `l ^ d` (d is 1 or 2).
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn swap_lanes(v: V, d: usize) -> V {
        if d == 1 {
            _mm256_permute4x64_epi64::<0b10_11_00_01>(v)
        } else {
            _mm256_permute4x64_epi64::<0b01_00_11_10>(v)
        }
    }

    /// Each lane of `v` against the same lane of `q`: the larger where `upper` has a bit,
    /// the smaller elsewhere (`q`'s lane where it is smaller, or larger in an upper lane).
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn exchange(v: V, q: V, upper: u32) -> V {
        let bit = |l: u32| -(((upper >> l) & 1) as i64);
        let upper = _mm256_set_epi64x(bit(3), bit(2), bit(1), bit(0));
        let take_q = _mm256_xor_si256(_mm256_cmpgt_epi64(v, q), upper);
        _mm256_blendv_epi8(v, q, take_q)
    }

    /// The lanes of `v` that go first: below the pivot `pv` (at or below with
    /// `OR_EQUAL`).
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn front_lanes<const OR_EQUAL: bool>(v: V, pv: V) -> u32 {
        if OR_EQUAL {
            let above = _mm256_cmpgt_epi64(v, pv);
            !_mm256_movemask_pd(_mm256_castsi256_pd(above)) as u32 & 0xf
        } else {
            _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(pv, v))) as u32
        }
    }

    /// `v` with the lanes of `front` first (in order), the others after them.
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn front_first(v: V, front: u32) -> V {
        let order = _mm256_loadu_si256(SPLITS[front as usize].as_ptr() as *const V);
        _mm256_permutevar8x32_epi32(v, order)
    }

    /// Sorts each of the `K` vectors, even ones ascending and odd ones descending, where
    /// `K` is 4 or more: each block of 4 vectors has its lanes sorted across the vectors
    /// (5 exchanges), then is transposed. False (nothing done) for fewer vectors.
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn presort<const K: usize>(v: &mut [V; K]) -> bool {
        if K < 4 {
            return false;
        }
        for b in (0..K).step_by(4) {
            exchange_vectors!(v, b; (0, 1) (2, 3) (0, 2) (1, 3) (1, 2));
            let t0 = _mm256_unpacklo_epi64(v[b], v[b + 1]);
            let t1 = _mm256_unpackhi_epi64(v[b], v[b + 1]);
            let t2 = _mm256_unpacklo_epi64(v[b + 2], v[b + 3]);
            let t3 = _mm256_unpackhi_epi64(v[b + 2], v[b + 3]);
            v[b] = _mm256_permute2x128_si256::<0x20>(t0, t2);
            v[b + 1] = _mm256_permute2x128_si256::<0x20>(t1, t3);
            v[b + 2] = _mm256_permute2x128_si256::<0x31>(t0, t2);
            v[b + 3] = _mm256_permute2x128_si256::<0x31>(t1, t3);
            for c in [1, 3] {
                v[b + c] = _mm256_permute4x64_epi64::<0b00_01_10_11>(v[b + c]);
            }
        }
        true
    }

    vector_quicksort!("avx2,popcnt");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(n: usize, seed: u64, spread: u64) -> Vec<i64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let x = (s >> 1) as i64;
                if spread == 0 {
                    x ^ ((s >> 63) as i64).wrapping_neg()
                } else {
                    (x % spread as i64) - spread as i64 / 2
                }
            })
            .collect()
    }

    type IntSort = fn(&mut [i64]);
    type FloatKeySort = fn(&mut [i64]) -> FloatSort;

    /// Each instruction set this machine has: its integer and float sorts.
    fn instruction_sets() -> Vec<(&'static str, IntSort, FloatKeySort)> {
        #[allow(unused_mut)]
        let mut sets: Vec<(&str, IntSort, FloatKeySort)> = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                sets.push((
                    "avx512",
                    |v| unsafe { avx512::sort(v) },
                    |v| unsafe { avx512::sort_floats(v) },
                ));
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                sets.push((
                    "avx2",
                    |v| unsafe { avx2::sort(v) },
                    |v| unsafe { avx2::sort_floats(v) },
                ));
            }
        }
        sets
    }

    /// Every length up to past the networks' and the partition's sizes, and some long
    /// ones.
    fn lengths() -> Vec<usize> {
        let mut lengths: Vec<usize> = (0..300).collect();
        lengths.extend([511, 512, 513, 1000, 4097, 10_000, 100_003]);
        lengths
    }

    /// Floats with signed zeros, infinities, subnormals and repeats: ascending by value,
    /// -0.0 before 0.0; with a NaN, nothing done and the NaN reported.
    #[test]
    fn float_sorts_order_by_value() {
        let special = [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            5e-324,
            -5e-324,
            1.5,
        ];
        for (name, _, sort) in instruction_sets() {
            for n in lengths() {
                let v: Vec<f64> = keys(n, n as u64, 0)
                    .iter()
                    .enumerate()
                    .map(|(i, &k)| match i % 3 {
                        0 => special[(k as usize) % special.len()],
                        1 => (k % 100) as f64 * 0.5,
                        _ => f64::from_bits(k as u64 & !(0x7ff << 52)) * 1e300,
                    })
                    .collect();
                let mut want = v.clone();
                want.sort_by(f64::total_cmp);
                let mut got: Vec<i64> = v.iter().map(|x| x.to_bits() as i64).collect();
                assert_eq!(sort(&mut got), FloatSort::Sorted, "{name}, n {n}");
                let got: Vec<u64> = got.iter().map(|&k| k as u64).collect();
                let want: Vec<u64> = want.iter().map(|x| x.to_bits()).collect();
                assert_eq!(got, want, "{name}, n {n}");
                if n > 0 {
                    let mut with_nan: Vec<i64> = v.iter().map(|x| x.to_bits() as i64).collect();
                    with_nan[n / 3] = (-f64::NAN).to_bits() as i64;
                    let before = with_nan.clone();
                    assert_eq!(sort(&mut with_nan), FloatSort::HasNan, "{name}, n {n}");
                    assert_eq!(with_nan, before, "{name}, n {n}: untouched");
                }
            }
        }
    }

    /// Every length around the networks' sizes and the partition's remainder, keys with
    /// many and with no repeats, the extremes, sorted and reversed input, on each
    /// instruction set this machine has.
    #[test]
    fn vector_sorts_agree_with_a_comparison_sort() {
        for (name, sort, _) in instruction_sets() {
            for n in lengths() {
                for (seed, spread) in [(1, 0), (2, 3), (3, 1000), (4, 1)] {
                    let mut v = keys(n, seed + n as u64, spread);
                    if n > 4 {
                        v[0] = i64::MIN;
                        v[n / 2] = i64::MAX;
                    }
                    let mut want = v.clone();
                    want.sort_unstable();
                    let mut got = v.clone();
                    sort(&mut got);
                    assert_eq!(got, want, "{name}, n {n}, spread {spread}");
                    // Sorted and reversed.
                    sort(&mut got);
                    assert_eq!(got, want, "{name}, n {n}, sorted input");
                    got.reverse();
                    sort(&mut got);
                    assert_eq!(got, want, "{name}, n {n}, reversed input");
                }
            }
        }
    }
}
