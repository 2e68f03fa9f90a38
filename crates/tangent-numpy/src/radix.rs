//! Sorting float64 and int64 values by their bits (least-significant-digit radix sort):
//! linear time, no comparisons, so it keeps up with NumPy's vectorised sorts where a
//! comparison sort is several times slower.

/// A float's key: unsigned integers in the floats' order (negative numbers have every
/// bit flipped, the others their sign bit set). Not for NaN.
fn f64_key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

fn f64_of_key(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// Sorts float64 values ascending with NaN last (NaNs in their order), as `np.sort`;
/// -0.0 before 0.0. In place: the values become their keys and back.
pub fn sort_f64(v: &mut [f64]) {
    let mut numbers = 0;
    let mut nans = Vec::new();
    for i in 0..v.len() {
        let x = v[i];
        if x.is_nan() {
            nans.push(x);
        } else {
            v[numbers] = x;
            numbers += 1;
        }
    }
    let (front, back) = v.split_at_mut(numbers);
    back.copy_from_slice(&nans);
    // SAFETY: u64 and f64 have one size and alignment, and every bit pattern is valid
    // for both.
    let keys = unsafe { std::slice::from_raw_parts_mut(front.as_mut_ptr() as *mut u64, numbers) };
    for k in keys.iter_mut() {
        *k = f64_key(f64::from_bits(*k));
    }
    sort_u64(keys);
    for k in keys.iter_mut() {
        *k = f64_of_key(*k).to_bits();
    }
}

/// Sorts int64 values ascending, in place.
pub fn sort_i64(v: &mut [i64]) {
    // SAFETY: as in `sort_f64`.
    let keys = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u64, v.len()) };
    for k in keys.iter_mut() {
        *k ^= 1 << 63;
    }
    sort_u64(keys);
    for k in keys.iter_mut() {
        *k ^= 1 << 63;
    }
}

/// The length from which the radix sort beats a comparison sort of the keys.
const RADIX_MIN: usize = 2048;

/// Sorts unsigned keys: a comparison sort for short slices, else one counting pass for
/// every byte, then one scatter pass per byte that is not the same in every key.
pub fn sort_u64(keys: &mut [u64]) {
    let n = keys.len();
    if n < RADIX_MIN {
        keys.sort_unstable();
        return;
    }
    // 256 buckets: the scatter's 256 write streams stay in the first-level cache.
    let bits = 8;
    let buckets = 1usize << bits;
    let mask = (buckets - 1) as u64;
    let passes = 64usize.div_ceil(bits);
    let mut counts = vec![0usize; passes * buckets];
    for &k in keys.iter() {
        for p in 0..passes {
            counts[p * buckets + ((k >> (p * bits)) & mask) as usize] += 1;
        }
    }
    // The scatter's other buffer, kept by the thread between sorts (a fresh one costs
    // its page faults every time), up to `SPARE_MAX` elements.
    thread_local! {
        static SPARE: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let mut buf = SPARE.with(|s| std::mem::take(&mut *s.borrow_mut()));
    buf.resize(n, 0);
    let mut in_buf = false;
    for p in 0..passes {
        let c = &mut counts[p * buckets..(p + 1) * buckets];
        if c.contains(&n) {
            continue; // one digit in every key: the pass would move nothing
        }
        let mut sum = 0;
        for x in c.iter_mut() {
            (*x, sum) = (sum, sum + *x);
        }
        let (src, dst) = if in_buf {
            (&buf[..], &mut keys[..])
        } else {
            (&keys[..], &mut buf[..])
        };
        let shift = p * bits;
        for &k in src {
            let d = ((k >> shift) & mask) as usize;
            dst[c[d]] = k;
            c[d] += 1;
        }
        in_buf = !in_buf;
    }
    if in_buf {
        keys.copy_from_slice(&buf);
    }
    if buf.len() <= SPARE_MAX {
        SPARE.with(|s| *s.borrow_mut() = buf);
    }
}

/// The longest scatter buffer a thread keeps (64 MB).
const SPARE_MAX: usize = 8 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a comparison sort: lengths around each switch, every digit pass, keys
    /// that share digits, negative numbers, infinities, signed zeros and NaNs.
    #[test]
    fn radix_sorts_agree_with_a_comparison_sort() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for n in [0usize, 1, 2, 1000, 2047, 2048, 2049, 70_001] {
            let special = [
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                1.5,
                -1.5,
            ];
            let floats: Vec<f64> = (0..n)
                .map(|i| match next() % 4 {
                    0 => special[i % special.len()],
                    1 => (next() % 1000) as f64 - 500.0,
                    _ => f64::from_bits(next()),
                })
                .collect();
            let mut got = floats.clone();
            sort_f64(&mut got);
            let mut want = floats.clone();
            want.sort_by(|a, b| match (a.is_nan(), b.is_nan()) {
                (false, false) => a.total_cmp(b),
                (x, y) => x.cmp(&y),
            });
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan(),
                    "n = {n}"
                );
            }
            let ints: Vec<i64> = (0..n)
                .map(|i| match i % 3 {
                    0 => next() as i64,
                    1 => (next() % 100) as i64 - 50,
                    _ => [i64::MIN, i64::MAX, 0, -1][i % 4],
                })
                .collect();
            let (mut got, mut want) = (ints.clone(), ints);
            sort_i64(&mut got);
            want.sort_unstable();
            assert_eq!(got, want, "n = {n}");
        }
    }
}
