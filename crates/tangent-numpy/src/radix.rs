//! Sorting float64 and int64 values by their bits: as signed 64-bit keys by the vector
//! quicksort (`vsort`) where the machine has AVX2 or AVX-512, else by a
//! least-significant-digit radix sort (linear time, no comparisons). Both keep up with
//! NumPy's vectorised sorts where a comparison sort is several times slower.

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

/// Sorts float64 values ascending with NaN last (NaNs in their order), as `np.sort`;
/// -0.0 before 0.0. In place: the values become integer keys in the floats' order,
/// which are sorted.
pub fn sort_f64(v: &mut [f64]) {
    match crate::vsort::sort_f64(v) {
        crate::vsort::FloatSort::Sorted => {}
        crate::vsort::FloatSort::HasNan => sort_f64_with_nans(v, sort_f64),
        crate::vsort::FloatSort::Unavailable => sort_f64_radix(v),
    }
}

/// `sort_f64` by a radix sort of the keys (machines without AVX2).
fn sort_f64_radix(v: &mut [f64]) {
    if v.iter().any(|x| x.is_nan()) {
        return sort_f64_with_nans(v, sort_f64_radix);
    }
    // SAFETY: u64 and f64 have one size and alignment, and every bit pattern is valid
    // for both.
    let keys = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u64, v.len()) };
    for k in keys.iter_mut() {
        *k = f64_key(f64::from_bits(*k));
    }
    sort_u64(keys);
    for k in keys.iter_mut() {
        let b = *k;
        *k = if b >> 63 == 1 { b & !(1 << 63) } else { !b };
    }
}

/// `sort_f64` where there are NaNs: the numbers first, sorted by `sort_numbers`, then
/// the NaNs.
fn sort_f64_with_nans(v: &mut [f64], sort_numbers: fn(&mut [f64])) {
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
    sort_numbers(front);
}

/// Sorts int64 values ascending, in place.
pub fn sort_i64(v: &mut [i64]) {
    if v.len() >= 2 && !crate::vsort::sort_i64(v) {
        sort_i64_radix(v);
    }
}

/// `sort_i64` by a radix sort (machines without AVX2).
fn sort_i64_radix(v: &mut [i64]) {
    // SAFETY: as in `sort_f64_radix`.
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
    // The scatter's other buffer, kept by the thread between sorts (a fresh one costs
    // its page faults every time), up to `SPARE_MAX` elements.
    thread_local! {
        static SPARE: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let mut buf = SPARE.with(|s| std::mem::take(&mut *s.borrow_mut()));
    buf.resize(n, 0);
    by_key_bytes(keys, &mut buf, |&k| k);
    if buf.len() <= SPARE_MAX {
        SPARE.with(|s| *s.borrow_mut() = buf);
    }
}

/// The positions that sort float64 values ascending, NaN last, equal values (-0.0 and
/// 0.0 among them, and every NaN) in the order of their positions: `np.argsort`'s
/// stable order.
pub fn argsort_f64(v: &[f64]) -> Vec<usize> {
    // Signed keys in the floats' order (as in `vsort::sort_f64`), equal for equal
    // values: -0.0 + 0.0 is 0.0, and every NaN is past +inf.
    let key = |x: f64| {
        if x.is_nan() {
            return i64::MAX;
        }
        let k = (x + 0.0).to_bits() as i64;
        k ^ ((k >> 63) & i64::MAX)
    };
    argsort_keys(v.iter().map(|&x| key(x)).collect())
}

/// The positions that sort int64 values ascending, equal ones in position order.
pub fn argsort_i64(v: &[i64]) -> Vec<usize> {
    argsort_keys(v.to_vec())
}

/// The positions that sort `keys` ascending, equal ones in position order.
fn argsort_keys(keys: Vec<i64>) -> Vec<usize> {
    let n = keys.len();
    if n < 2 || !crate::vsort::available() {
        return argsort_keys_radix(&keys);
    }
    let (lo, hi) = keys
        .iter()
        .fold((i64::MAX, i64::MIN), |(a, b), &k| (a.min(k), b.max(k)));
    // Each key, less the least, above its position in one non-negative i64: sorting
    // those sorts by key, then position. Where the keys' range and the positions need
    // more than 63 bits, the key's lowest bits are dropped, and the runs whose kept
    // bits agree are sorted again by the whole key.
    let index_bits = usize::BITS - (n - 1).leading_zeros();
    let range_bits = 64 - (hi.wrapping_sub(lo) as u64).leading_zeros();
    let dropped = (range_bits + index_bits).saturating_sub(63);
    let mut packed: Vec<i64> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| ((((k.wrapping_sub(lo) as u64) >> dropped) << index_bits) | i as u64) as i64)
        .collect();
    crate::vsort::sort_i64(&mut packed);
    let position = (1u64 << index_bits) - 1;
    let mut order: Vec<usize> = packed
        .iter()
        .map(|&p| (p as u64 & position) as usize)
        .collect();
    if dropped > 0 {
        let kept = |p: i64| p as u64 >> index_bits;
        let mut start = 0;
        for i in 1..=n {
            if i == n || kept(packed[i]) != kept(packed[start]) {
                if i - start > 1 {
                    // In position order already: a stable sort keeps it among equals.
                    order[start..i].sort_by_key(|&j| keys[j]);
                }
                start = i;
            }
        }
    }
    order
}

/// `argsort_keys` by a radix sort of (key, position) pairs (machines without AVX2).
fn argsort_keys_radix(keys: &[i64]) -> Vec<usize> {
    let mut items: Vec<(u64, usize)> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (k as u64 ^ 1 << 63, i))
        .collect();
    if items.len() < RADIX_MIN {
        // (key, position) pairs are all distinct: no stability needed.
        items.sort_unstable();
    } else {
        let mut buf = vec![(0u64, 0usize); items.len()];
        by_key_bytes(&mut items, &mut buf, |item| item.0);
    }
    items.into_iter().map(|(_, i)| i).collect()
}

/// A stable least-significant-digit radix sort of `items` by `key`, one byte at a time:
/// one counting pass for every byte, then a scatter pass (into `buf`, of the same
/// length, and back) per byte that is not the same in every key; 256 buckets, so the
/// scatter's write streams stay in the first-level cache.
fn by_key_bytes<T: Copy>(items: &mut [T], buf: &mut [T], key: impl Fn(&T) -> u64) {
    const PASSES: usize = 8;
    let n = items.len();
    let mut counts = vec![[0usize; 256]; PASSES];
    for item in items.iter() {
        let k = key(item);
        for (p, c) in counts.iter_mut().enumerate() {
            c[((k >> (8 * p)) & 0xff) as usize] += 1;
        }
    }
    let mut in_buf = false;
    for (p, c) in counts.iter_mut().enumerate() {
        if c.contains(&n) {
            continue; // one digit in every key: the pass would move nothing
        }
        let mut sum = 0;
        for x in c.iter_mut() {
            (*x, sum) = (sum, sum + *x);
        }
        let (src, dst) = if in_buf {
            (&*buf, &mut *items)
        } else {
            (&*items, &mut *buf)
        };
        for item in src {
            let d = ((key(item) >> (8 * p)) & 0xff) as usize;
            dst[c[d]] = *item;
            c[d] += 1;
        }
        in_buf = !in_buf;
    }
    if in_buf {
        items.copy_from_slice(buf);
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
            let mut got_radix = floats.clone();
            sort_f64_radix(&mut got_radix);
            let mut want = floats.clone();
            want.sort_by(|a, b| match (a.is_nan(), b.is_nan()) {
                (false, false) => a.total_cmp(b),
                (x, y) => x.cmp(&y),
            });
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want).chain(got_radix.iter().zip(&want)) {
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
            let (mut got, mut got_radix, mut want) = (ints.clone(), ints.clone(), ints.clone());
            sort_i64(&mut got);
            sort_i64_radix(&mut got_radix);
            want.sort_unstable();
            assert_eq!(got, want, "n = {n}");
            assert_eq!(got_radix, want, "n = {n}, radix");
            // argsort: stable, -0.0 equal to 0.0, NaNs equal and last.
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&i, &j| {
                let (a, b) = (floats[i], floats[j]);
                match (a.is_nan(), b.is_nan()) {
                    (false, false) => a.partial_cmp(&b).unwrap(),
                    (x, y) => x.cmp(&y),
                }
            });
            assert_eq!(argsort_f64(&floats), order, "n = {n}");
            let keys: Vec<i64> = floats
                .iter()
                .map(|&x| match x.is_nan() {
                    true => i64::MAX,
                    false => {
                        ((x + 0.0).to_bits() as i64)
                            ^ (((x + 0.0).to_bits() as i64 >> 63) & i64::MAX)
                    }
                })
                .collect();
            assert_eq!(argsort_keys_radix(&keys), order, "n = {n}, radix");
            // int64: stable, every bit (neighbours past 2**53 and at the extremes).
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&i| ints[i]);
            assert_eq!(argsort_i64(&ints), order, "n = {n}, int64");
            let wide: Vec<i64> = ints.iter().map(|&k| k | 1 << 53).collect();
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&i| wide[i]);
            assert_eq!(argsort_i64(&wide), order, "n = {n}, int64 past 2**53");
        }
    }
}
