//! Elementwise array statements in native code (`h = np.tanh(h * 0.9 + x * 0.1)`): the
//! right side, an expression over float64 arrays of one shape and numbers, is compiled
//! to a `Program` of operations, and a run of it is one pass over the buffers, block by
//! block: every operation of the statement is applied to a block of elements (kept in
//! the L1 cache) before the next block is read. The loops over a block are compiled for
//! AVX-512, AVX2+FMA and the baseline, the widest the machine has chosen at run time.
//! Also the reductions that end such code (`np.sum`).

use super::arrays::ArrayDesc;
use super::runtime::Tape;
use crate::syntax::ir::{walk_stmts, Expr, FuncDef, StmtKind};
use std::collections::HashMap;

/// Elements per block: every operation's block of results stays in the L1 cache.
const BLOCK: usize = 256;

/// The most arrays one program reads (a statement with more runs interpreted).
pub const MAX_ARRAYS: usize = 8;

/// Where an operation reads: an array argument of the run, a number argument, or the
/// result of an earlier operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Src {
    Array(usize),
    Number(usize),
    Op(usize),
}

/// One operation of a program.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    Add(Src, Src),
    Sub(Src, Src),
    Mul(Src, Src),
    Div(Src, Src),
    Neg(Src),
    /// `tanh` by the vectorised kernel the embedded numpy uses.
    Tanh(Src),
    /// A function of one float (the runtime's kernel of a `native_scalar` function).
    Call1(extern "C" fn(f64) -> f64, Src),
    Call2(extern "C" fn(f64, f64) -> f64, Src, Src),
    /// Rounded to float32 (a float32 result: `a + b` of float32 arrays is the exact sum
    /// rounded once).
    Round32(Src),
}

/// A statement's right side: operations in order, the last one the result.
#[derive(Debug, Default)]
pub struct Program {
    pub ops: Vec<Op>,
    pub arrays: usize,
    pub numbers: usize,
}

/// A block operand: a window of elements or one number for all of them.
#[derive(Clone, Copy)]
enum Operand {
    Slice(*const f64),
    Number(f64),
}

/// Runs `prog` over the arrays at `arrays` (`prog.arrays` descriptor addresses) and the
/// numbers at `numbers`; the result is a new array of the arena, or null when the arrays
/// do not all have one shape (the caller bails: NumPy would broadcast or raise).
///
/// # Safety
/// `tape` is the run's tape, `prog` a live program, and `arrays`/`numbers` hold as many
/// valid descriptors and numbers as the program reads.
pub unsafe extern "C" fn run(
    tape: *mut Tape,
    prog: *const Program,
    arrays: *const *const ArrayDesc,
    numbers: *const f64,
) -> *mut ArrayDesc {
    // SAFETY: as the caller promises.
    let (tape, prog) = unsafe { (&mut *tape, &*prog) };
    let mut descs = [ArrayDesc::EMPTY; MAX_ARRAYS];
    for (k, d) in descs.iter_mut().enumerate().take(prog.arrays) {
        // SAFETY: as the caller promises.
        *d = unsafe { **arrays.add(k) };
    }
    let descs = &descs[..prog.arrays];
    let Some(first) = descs.first() else {
        return std::ptr::null_mut();
    };
    if descs.iter().any(|d| !first.same_shape(d)) {
        return std::ptr::null_mut();
    }
    // SAFETY: as the caller promises.
    let numbers = unsafe { std::slice::from_raw_parts(numbers, prog.numbers) };
    let out = tape.arena.output_like(first);
    // SAFETY: `out` is a fresh C-ordered array of the arena with `first`'s shape.
    let out_data = unsafe { (*out).data };
    let n = first.len();
    let scratch = tape.arena.scratch((prog.ops.len() + descs.len()) * BLOCK);
    blocks(&Pass {
        prog,
        descs,
        numbers,
        out: out_data,
        n,
        scratch,
    });
    out
}

/// The kernel loop, compiled once per vector width (see `simd_blocks`).
#[inline(always)]
unsafe fn blocks_body(
    prog: &Program,
    descs: &[ArrayDesc],
    numbers: &[f64],
    out: *mut f64,
    n: usize,
    scratch: *mut f64,
) {
    let (op_bufs, gather) = (scratch, unsafe { scratch.add(prog.ops.len() * BLOCK) });
    let last = prog.ops.len() - 1;
    let mut bases: [Option<*const f64>; MAX_ARRAYS] = [None; MAX_ARRAYS];
    for (b, d) in bases.iter_mut().zip(descs) {
        *b = d.contiguous().map(|s| s.as_ptr());
    }
    let mut start = 0;
    while start < n {
        let len = BLOCK.min(n - start);
        // The arrays' elements of this block: in place when contiguous, else gathered.
        for (k, d) in descs.iter().enumerate() {
            if bases[k].is_none() {
                unsafe { d.read_block(start, len, gather.add(k * BLOCK)) };
            }
        }
        let src = |s: Src| -> Operand {
            match s {
                Src::Number(k) => Operand::Number(numbers[k]),
                Src::Op(k) => Operand::Slice(unsafe { op_bufs.add(k * BLOCK) }),
                Src::Array(k) => Operand::Slice(match bases[k] {
                    Some(p) => unsafe { p.add(start) },
                    None => unsafe { gather.add(k * BLOCK) },
                }),
            }
        };
        for (k, op) in prog.ops.iter().enumerate() {
            let dst = if k == last {
                unsafe { out.add(start) }
            } else {
                unsafe { op_bufs.add(k * BLOCK) }
            };
            let dst = unsafe { std::slice::from_raw_parts_mut(dst, len) };
            match *op {
                Op::Add(a, b) => binary(dst, src(a), src(b), |x, y| x + y),
                Op::Sub(a, b) => binary(dst, src(a), src(b), |x, y| x - y),
                Op::Mul(a, b) => binary(dst, src(a), src(b), |x, y| x * y),
                Op::Div(a, b) => binary(dst, src(a), src(b), |x, y| x / y),
                Op::Neg(a) => binary(dst, src(a), Operand::Number(0.0), |x, _| -x),
                Op::Tanh(a) => match src(a) {
                    Operand::Slice(p) => {
                        let s = unsafe { std::slice::from_raw_parts(p, len) };
                        tangent_fastmath::tanh_slice(s, dst);
                    }
                    Operand::Number(x) => dst.fill(tangent_fastmath::tanh(x)),
                },
                Op::Call1(f, a) => binary(dst, src(a), Operand::Number(0.0), |x, _| f(x)),
                Op::Call2(f, a, b) => binary(dst, src(a), src(b), |x, y| f(x, y)),
                Op::Round32(a) => binary(dst, src(a), Operand::Number(0.0), |x, _| x as f32 as f64),
            }
        }
        start += len;
    }
}

/// `dst[i] = f(a[i], b[i])`, either side possibly one number.
#[inline(always)]
fn binary(dst: &mut [f64], a: Operand, b: Operand, f: impl Fn(f64, f64) -> f64) {
    let len = dst.len();
    // SAFETY: slices of a block hold `len` elements.
    let slice = |p: *const f64| unsafe { std::slice::from_raw_parts(p, len) };
    match (a, b) {
        (Operand::Slice(a), Operand::Slice(b)) => {
            for ((d, &x), &y) in dst.iter_mut().zip(slice(a)).zip(slice(b)) {
                *d = f(x, y);
            }
        }
        (Operand::Slice(a), Operand::Number(y)) => {
            for (d, &x) in dst.iter_mut().zip(slice(a)) {
                *d = f(x, y);
            }
        }
        (Operand::Number(x), Operand::Slice(b)) => {
            for (d, &y) in dst.iter_mut().zip(slice(b)) {
                *d = f(x, y);
            }
        }
        (Operand::Number(x), Operand::Number(y)) => dst.fill(f(x, y)),
    }
}

/// One pass's inputs: the program, the arrays' descriptors, the numbers, the output's
/// elements and count, and scratch for `(ops + arrays) * BLOCK` elements (`run` checks
/// the shapes and sizes the memory).
struct Pass<'a> {
    prog: &'a Program,
    descs: &'a [ArrayDesc],
    numbers: &'a [f64],
    out: *mut f64,
    n: usize,
    scratch: *mut f64,
}

tangent_fastmath::simd_kernel! {
    /// `blocks_body` for the widest vector unit present.
    fn blocks(p: &Pass<'_>) |_FMA| {
        // SAFETY: `run` built the pass: every pointer covers what the program reads
        // and writes.
        unsafe { blocks_body(p.prog, p.descs, p.numbers, p.out, p.n, p.scratch) }
    }
}

/// `np.sum(x)` of a float64 array, in NumPy's order (`strided_sum_in`: pairwise over
/// the elements as they lie in memory).
///
/// # Safety
/// `x` is a valid descriptor.
pub unsafe extern "C" fn sum(x: *const ArrayDesc) -> f64 {
    // SAFETY: as the caller promises.
    let d = unsafe { &*x };
    if let Some(s) = d.contiguous() {
        return tangent_fastmath::pairwise_sum_by(s, |v| v);
    }
    ordered_sum(d, 0.0, |v| v)
}

/// `np.sum(x)` of a float32 array (values exact in float32): NumPy adds them in float32,
/// in the same order as `sum`.
///
/// # Safety
/// `x` is a valid descriptor.
pub unsafe extern "C" fn sum32(x: *const ArrayDesc) -> f64 {
    // SAFETY: as the caller promises.
    let d = unsafe { &*x };
    ordered_sum(d, 0.0f32, |v| v as f32) as f64
}

/// The sum of `d`'s elements in NumPy's order, accumulated in `A`.
fn ordered_sum<A: Copy + std::ops::Add<Output = A>>(
    d: &ArrayDesc,
    zero: A,
    of: impl Fn(f64) -> A,
) -> A {
    let nd = d.ndim as usize;
    let shape: Vec<usize> = d.shape[..nd].iter().map(|&n| n as usize).collect();
    let strides: Vec<isize> = d.strides[..nd].iter().map(|&s| s as isize).collect();
    // SAFETY: every offset `strided_sum_in` reads is an element inside the shape.
    let read = |off: isize| of(unsafe { *d.data.offset(off) });
    tangent_fastmath::strided_sum_in(&shape, &strides, read, zero)
}

/// `np.dot(a, b)` of two float64 vectors of one length (the caller has checked): the
/// products summed pairwise, as NumPy sums `a * b`.
///
/// # Safety
/// `a` and `b` are valid 1-d descriptors of one length.
pub unsafe extern "C" fn dot(a: *const ArrayDesc, b: *const ArrayDesc) -> f64 {
    // SAFETY: as the caller promises.
    let (a, b) = unsafe { (&*a, &*b) };
    let owned = |d: &ArrayDesc| {
        let mut buf = vec![0.0; d.len()];
        // SAFETY: `buf` holds every element.
        unsafe { d.read_block(0, d.len(), buf.as_mut_ptr()) };
        buf
    };
    match (a.contiguous(), b.contiguous()) {
        (Some(x), Some(y)) => tangent_fastmath::pairwise_dot(x, y),
        (Some(x), None) => tangent_fastmath::pairwise_dot(x, &owned(b)),
        (None, Some(y)) => tangent_fastmath::pairwise_dot(&owned(a), y),
        (None, None) => tangent_fastmath::pairwise_dot(&owned(a), &owned(b)),
    }
}

/// Names assigned once (by name) and read once in `def`: temporaries of the generated
/// three-address code that may be computed inside the pass of the one statement that
/// reads them.
pub fn single_use_temporaries(def: &FuncDef) -> std::collections::HashSet<String> {
    let mut assigned: HashMap<String, usize> = HashMap::new();
    let mut reads: HashMap<String, usize> = HashMap::new();
    walk_stmts(&def.body, &mut |s| {
        let mut read = |e: &Expr| {
            e.walk(&mut |x| {
                if let Some(n) = x.as_name() {
                    *reads.entry(n.to_owned()).or_default() += 1;
                }
            })
        };
        match &s.kind {
            StmtKind::Assign(t, v) => {
                match t.as_name() {
                    Some(n) => *assigned.entry(n.to_owned()).or_default() += 1,
                    None => read(t),
                }
                read(v);
            }
            _ => crate::syntax::visit::stmt_exprs(s, &mut read),
        }
        if let StmtKind::For(t, _, _) | StmtKind::AugAssign(t, _, _) = &s.kind {
            // Assigned too.
            t.walk(&mut |x| {
                if let Some(n) = x.as_name() {
                    *assigned.entry(n.to_owned()).or_insert(1) += 1;
                }
            });
        }
    });
    let params: Vec<&str> = def.params.iter().map(|p| p.name.as_str()).collect();
    assigned
        .into_iter()
        .filter(|(n, k)| *k == 1 && reads.get(n) == Some(&1) && !params.contains(&n.as_str()))
        .map(|(n, _)| n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_runs_over_contiguous_and_strided_arrays_in_blocks() {
        // 600 elements: two full blocks and a partial one; `b` is every other element.
        let a: Vec<f64> = (0..600).map(|i| i as f64 * 0.01 - 3.0).collect();
        let b: Vec<f64> = (0..1200).map(|i| (i as f64).sin()).collect();
        let da = ArrayDesc::new(a.as_ptr(), &[600], &[1]).expect("1-d");
        let db = ArrayDesc::new(b.as_ptr(), &[600], &[2]).expect("1-d");
        // tanh(a * 0.5) - b / (1 + a * a)
        let prog = Program {
            ops: vec![
                Op::Mul(Src::Array(0), Src::Number(0)),
                Op::Tanh(Src::Op(0)),
                Op::Mul(Src::Array(0), Src::Array(0)),
                Op::Add(Src::Number(1), Src::Op(2)),
                Op::Div(Src::Array(1), Src::Op(3)),
                Op::Sub(Src::Op(1), Src::Op(4)),
            ],
            arrays: 2,
            numbers: 2,
        };
        let mut tape = Tape::new();
        let numbers = [0.5, 1.0];
        let arrays = [&da as *const ArrayDesc, &db as *const ArrayDesc];
        // SAFETY: live descriptors and numbers, as many as the program reads.
        let out = unsafe { run(&mut tape, &prog, arrays.as_ptr(), numbers.as_ptr()) };
        assert!(!out.is_null());
        // SAFETY: a 600-element array of the arena.
        let got = unsafe { std::slice::from_raw_parts((*out).data, 600) };
        for i in 0..600 {
            let want = (a[i] * 0.5).tanh() - b[2 * i] / (1.0 + a[i] * a[i]);
            assert!((got[i] - want).abs() <= 1e-14, "{i}: {} {want}", got[i]);
        }
        // Arrays of two shapes: null (the code bails).
        let short = ArrayDesc::new(a.as_ptr(), &[599], &[1]).expect("1-d");
        let arrays = [&da as *const ArrayDesc, &short as *const ArrayDesc];
        // SAFETY: as above.
        let out = unsafe { run(&mut tape, &prog, arrays.as_ptr(), numbers.as_ptr()) };
        assert!(out.is_null());
    }

    #[test]
    fn a_sum_of_float32_arrays_is_rounded_once_as_float32_adds() {
        // Float32 values held as doubles (the float32 arrays of native code).
        let a: Vec<f32> = (0..300).map(|i| 0.1 + i as f32 * 0.37).collect();
        let b: Vec<f32> = (0..300).map(|i| 0.2 / (1.0 + i as f32)).collect();
        let (wa, wb): (Vec<f64>, Vec<f64>) = (
            a.iter().map(|&v| f64::from(v)).collect(),
            b.iter().map(|&v| f64::from(v)).collect(),
        );
        let da = ArrayDesc::new(wa.as_ptr(), &[300], &[1]).expect("1-d");
        let db = ArrayDesc::new(wb.as_ptr(), &[300], &[1]).expect("1-d");
        let prog = Program {
            ops: vec![
                Op::Add(Src::Array(0), Src::Array(1)),
                Op::Round32(Src::Op(0)),
            ],
            arrays: 2,
            numbers: 0,
        };
        let mut tape = Tape::new();
        let arrays = [&da as *const ArrayDesc, &db as *const ArrayDesc];
        // SAFETY: live descriptors, as many as the program reads.
        let out = unsafe { run(&mut tape, &prog, arrays.as_ptr(), [].as_ptr()) };
        // SAFETY: a 300-element array of the arena.
        let got = unsafe { std::slice::from_raw_parts((*out).data, 300) };
        let mut inexact = 0;
        for i in 0..300 {
            assert_eq!(got[i], f64::from(a[i] + b[i]), "{i}");
            inexact += usize::from(wa[i] + wb[i] != f64::from(a[i] + b[i]));
        }
        // The double sums are not all float32 numbers: the rounding is seen.
        assert!(inexact > 100, "{inexact}");
    }

    #[test]
    fn sum_adds_a_transposed_view_in_c_order() {
        let m: Vec<f64> = (0..6).map(|i| 0.1 * i as f64).collect();
        // The transpose of the 2x3 array m: shape (3, 2), strides (1, 3).
        let t = ArrayDesc::new(m.as_ptr(), &[3, 2], &[1, 3]).expect("2-d");
        // SAFETY: a live descriptor.
        let s = unsafe { sum(&t) };
        assert!((s - 1.5).abs() < 1e-15, "{s}");
    }

    #[test]
    fn an_inner_product_is_the_pairwise_sum_of_the_products() {
        // 1000 elements (several pairwise blocks), one of them read with a stride of 2.
        let a: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.37).sin()).collect();
        let b: Vec<f64> = (0..2000).map(|i| (i as f64 * 0.11).cos() * 1e3).collect();
        let products: Vec<f64> = (0..1000).map(|i| a[i] * b[2 * i]).collect();
        let want = tangent_fastmath::pairwise_sum_by(&products, |v| v);
        let da = ArrayDesc::new(a.as_ptr(), &[1000], &[1]).expect("1-d");
        let db = ArrayDesc::new(b.as_ptr(), &[1000], &[2]).expect("1-d");
        // SAFETY: both descriptors cover their vectors, of one length.
        let got = unsafe { dot(&da, &db) };
        assert_eq!(got.to_bits(), want.to_bits());
        let naive: f64 = products.iter().sum();
        assert!((got - naive).abs() <= 1e-9 * naive.abs().max(1.0));
    }
}
