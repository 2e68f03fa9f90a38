//! The embedded `numpy`: Python snippets run in the interpreter and assert on results.

use crate::common;

use tangent::host::rustpython::{exec_module, format_exception, with_vm};

const PRELUDE: &str = r#"
import numpy as np

def raises(exc, msg, f, *args):
    try:
        f(*args)
    except exc as e:
        assert str(e) == msg, "message was: " + repr(str(e))
        return
    raise AssertionError("expected " + exc.__name__)

def same(a, expected, shape=None):
    assert isinstance(a, np.ndarray), type(a)
    if shape is not None:
        assert a.shape == shape, a.shape
    got = a.tolist()
    assert got == expected, repr(got)

def near(a, b, tol=1e-12):
    assert abs(a - b) <= tol * (1 + abs(b)), (a, b)
"#;

fn check(src: &str) {
    let src = format!("{PRELUDE}\n{src}");
    let r = with_vm(move |vm| match exec_module(vm, &src, "<test>") {
        Ok(_) => Ok(()),
        Err(e) => Err(format_exception(vm, e)),
    });
    if let Err(e) = r {
        panic!("Python snippet failed:\n{e}");
    }
}

#[test]
fn constructors() {
    check(
        r#"
a = np.array([1.0, 2.0, 3.0])
assert isinstance(a, np.ndarray)
assert a.shape == (3,) and a.ndim == 1 and a.size == 3 and len(a) == 3
assert a.dtype == np.float64 and a.dtype == 'float64' and str(a.dtype) == 'float64'
same(np.array([[1, 2], [3, 4]]), [[1, 2], [3, 4]], (2, 2))
assert np.array([1, 2]).dtype == np.int64
assert np.array([True, False]).dtype == bool
assert np.array([1, 2.5]).dtype == np.float64
same(np.array((1.5, 2)), [1.5, 2.0])
same(np.array([a, a]), [[1.0, 2.0, 3.0]] * 2, (2, 3))
assert np.array(3.0).shape == () and np.array(3.0).ndim == 0
same(np.array([1, 2], dtype=float), [1.0, 2.0])
assert np.array([1, 2], dtype=float).dtype == np.float64
same(np.array([1.7, -1.7], dtype=int), [1, -1])
b = np.asarray(a)
assert b is a
same(np.asarray([1, 2]), [1, 2])
same(np.zeros(3), [0.0, 0.0, 0.0])
same(np.zeros((2, 3)), [[0.0] * 3] * 2, (2, 3))
same(np.ones((2,)), [1.0, 1.0])
same(np.zeros_like(np.ones((2, 2))), [[0.0, 0.0], [0.0, 0.0]])
same(np.ones_like(a), [1.0, 1.0, 1.0])
same(np.full((2, 2), 7.0), [[7.0, 7.0], [7.0, 7.0]])
same(np.full_like(a, 2.5), [2.5, 2.5, 2.5])
assert np.empty((4, 5)).shape == (4, 5)
same(np.arange(4), [0, 1, 2, 3])
assert np.arange(4).dtype == np.int64
same(np.arange(1.0, 2.0, 0.25), [1.0, 1.25, 1.5, 1.75])
same(np.arange(5, 0, -2), [5, 3, 1])
same(np.linspace(0, 1, 5), [0.0, 0.25, 0.5, 0.75, 1.0])
same(np.linspace(0, 1, 4, endpoint=False), [0.0, 0.25, 0.5, 0.75])
assert np.linspace(0, 1).shape == (50,)
same(np.eye(2), [[1.0, 0.0], [0.0, 1.0]])
same(np.eye(2, 3, k=1), [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
c = np.copy(a)
c[0] = 10.0
assert a[0] == 1.0 and c[0] == 10.0
d = a.copy()
d[1] = 5
assert a[1] == 2.0
raises(ValueError, "setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions. The detected shape was (2,) + inhomogeneous part.", np.array, [[1, 2], [3]])
"#,
    );
}

#[test]
fn arithmetic_and_broadcasting() {
    check(
        r#"
a = np.array([1.0, 2.0, 3.0])
b = np.array([4.0, 5.0, 6.0])
same(a + b, [5.0, 7.0, 9.0])
same(a - b, [-3.0, -3.0, -3.0])
same(a * b, [4.0, 10.0, 18.0])
same(b / a, [4.0, 2.5, 2.0])
same(a ** 2, [1.0, 4.0, 9.0])
same(2 ** a, [2.0, 4.0, 8.0])
same(b // a, [4.0, 2.0, 2.0])
same(b % a, [0.0, 1.0, 0.0])
same(np.array([-3.5, 3.5]) // 2, [-2.0, 1.0])
same(np.array([-3.5, 3.5]) % 2, [0.5, 1.5])
# NumPy's npy_divmod is CPython's: 2.5 // 0.1 == 24.0, -2.5 // inf == -1.0.
same(np.array([2.5, 1.0, -2.5]) // np.array([0.1, 0.1, np.inf]), [24.0, 9.0, -1.0])
same(-a, [-1.0, -2.0, -3.0])
same(+a, [1.0, 2.0, 3.0])
same(abs(-a), [1.0, 2.0, 3.0])
same(2.0 * a, [2.0, 4.0, 6.0])
same(a * 2, [2.0, 4.0, 6.0])
same(1 - a, [0.0, -1.0, -2.0])
same(1.0 / a, [1.0, 0.5, 1.0 / 3.0])
same(True + a, [2.0, 3.0, 4.0])
same(a + [1, 1, 1], [2.0, 3.0, 4.0])
m = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
same(m + a, [[2.0, 4.0, 6.0], [5.0, 7.0, 9.0]])
same(m * np.array([[10.0], [100.0]]), [[10.0, 20.0, 30.0], [400.0, 500.0, 600.0]])
same(np.array([[1.0], [2.0]]) + np.array([10.0, 20.0]), [[11.0, 21.0], [12.0, 22.0]])
raises(ValueError, "operands could not be broadcast together with shapes (2,3) (4,) ", lambda: m + np.ones(4))
raises(ValueError, "operands could not be broadcast together with shapes (3,) (2,) ", lambda: a < np.ones(2))
# int arithmetic keeps ints, true division gives floats
i = np.array([7, -7])
same(i // 2, [3, -4])
same(i % 3, [1, 2])
same(i / 2, [3.5, -3.5])
assert (i * 2).dtype == np.int64 and (i * 2.0).dtype == np.float64
# in-place
c = a.copy()
alias = c
c += b
same(alias, [5.0, 7.0, 9.0])
c -= 1
c *= 2
c /= 4
same(c, [2.0, 3.0, 4.0])
c **= 2
same(c, [4.0, 9.0, 16.0])
mm = np.zeros((2, 3))
mm += a
same(mm, [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
raises(ValueError, "non-broadcastable output operand with shape (3,) doesn't match the broadcast shape (2,3)", lambda: a.__iadd__(m))
d = a.copy()
d += d
same(d, [2.0, 4.0, 6.0])
k = np.arange(3)
raises(TypeError, "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64') with casting rule 'same_kind'", lambda: k.__iadd__(0.5))
"#,
    );
}

#[test]
fn comparisons_and_bool() {
    check(
        r#"
a = np.array([1.0, 2.0, 3.0])
b = np.array([3.0, 2.0, 1.0])
r = a < b
assert r.dtype == bool, r.dtype
same(r, [True, False, False])
same(a <= b, [True, True, False])
same(a > b, [False, False, True])
same(a >= b, [False, True, True])
same(a == b, [False, True, False])
same(a != b, [True, False, True])
same(a > 1.5, [False, True, True])
same(2 < a, [False, False, True])
same(np.array([[1.0], [5.0]]) > a, [[False, False, False], [True, True, True]])
assert bool(np.array([1.0])) is True
assert bool(np.array([0.0])) is False
raises(ValueError, "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()", bool, a)
assert float(np.array(2.5)) == 2.5 and int(np.array(3.7)) == 3
# NumPy 2: only 0-d arrays convert, size-1 arrays of other shapes raise
for bad in (lambda: float(np.array([2.5])), lambda: int(np.array([[3.7]]))):
    try:
        bad()
        raise AssertionError("converted a 1-element array")
    except TypeError as e:
        assert "0-dimensional" in str(e)
raises(TypeError, "only 0-dimensional arrays can be converted to Python scalars", float, a)
assert np.all(a > 0) is True and np.any(a > 2) is True and np.all(a > 1) is False
assert (a > 0).all() and not (a > 5).any()
same(np.all(np.array([[1, 0], [1, 1]]), axis=0), [True, False])
same((a > 1) & (a < 3), [False, True, False])
same((a < 2) | (a > 2), [True, False, True])
same(~(a > 1), [True, False, False])
"#,
    );
}

#[test]
fn matmul_dot_outer() {
    check(
        r#"
A = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
B = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 3.0]])
same(A @ B, [[1.0, 2.0, 8.0], [3.0, 4.0, 18.0], [5.0, 6.0, 28.0]], (3, 3))
same(B @ A, [[11.0, 14.0], [18.0, 22.0]])
v = np.array([1.0, 1.0])
same(A @ v, [3.0, 7.0, 11.0])
same(np.array([1.0, 0.0, 1.0]) @ A, [6.0, 8.0])
assert v @ v == 2.0 and isinstance(v @ v, float)
assert np.dot(v, v) == 2.0
same(np.dot(A, B), (A @ B).tolist())
same(A.dot(v), [3.0, 7.0, 11.0])
same(np.matmul(B, A), [[11.0, 14.0], [18.0, 22.0]])
assert np.dot(2.0, 3.0) == 6.0
same(np.dot(2.0, v), [2.0, 2.0])
same(np.outer(np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])), [[3.0, 4.0, 5.0], [6.0, 8.0, 10.0]])
raises(ValueError, "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size 4 is different from 3)", lambda: np.ones((2, 3)) @ np.ones((4, 5)))
raises(ValueError, "shapes (2,3) and (4,) not aligned: 3 (dim 1) != 4 (dim 0)", np.dot, np.ones((2, 3)), np.ones(4))
# batched
X = np.ones((2, 3, 4))
Y = np.ones((4, 5))
same(X @ Y, [[[4.0] * 5] * 3] * 2, (2, 3, 5))
# bigger product against a hand-computed value
M = np.arange(64 * 128).reshape(64, 128) * 0.001
N = np.eye(128) * 2.0
P = M @ N
near(P[10, 20], 2 * 0.001 * (10 * 128 + 20))
assert P.shape == (64, 128)
"#,
    );
}

#[test]
fn elementwise_functions() {
    check(
        r#"
import math
x = np.array([0.5, 1.0, 2.0])
for name, ref in [("exp", math.exp), ("log", math.log), ("sin", math.sin), ("cos", math.cos),
                  ("tan", math.tan), ("tanh", math.tanh), ("sqrt", math.sqrt),
                  ("log1p", math.log1p), ("expm1", math.expm1), ("arctan", math.atan),
                  ("sinh", math.sinh), ("cosh", math.cosh), ("floor", math.floor),
                  ("ceil", math.ceil)]:
    f = getattr(np, name)
    r = f(x)
    assert isinstance(r, np.ndarray) and r.shape == (3,), name
    for i in range(3):
        near(r[i], ref(x.tolist()[i]))
    s = f(0.5)
    assert isinstance(s, float), (name, type(s))
    near(s, ref(0.5))
y = np.array([-0.5, 0.0, 0.5])
for name, ref in [("arcsin", math.asin), ("arccos", math.acos)]:
    r = getattr(np, name)(y)
    for i in range(3):
        near(r[i], ref(y.tolist()[i]))
same(np.abs(np.array([-1.5, 2.0])), [1.5, 2.0])
same(np.absolute(np.array([-1.5, 2.0])), [1.5, 2.0])
assert np.abs(-2.0) == 2.0
same(np.sign(np.array([-2.0, 0.0, 3.0])), [-1.0, 0.0, 1.0])
same(np.square(np.array([3.0, -2.0])), [9.0, 4.0])
same(np.negative(np.array([3.0, -2.0])), [-3.0, 2.0])
same(np.maximum(np.array([1.0, 5.0]), np.array([3.0, 2.0])), [3.0, 5.0])
same(np.minimum(np.array([1.0, 5.0]), 2.0), [1.0, 2.0])
assert np.maximum(1.0, 2.0) == 2.0
same(np.where(np.array([True, False, True]), np.array([1.0, 2.0, 3.0]), 0.0), [1.0, 0.0, 3.0])
same(np.where(np.array([1.0, -1.0]) > 0, 1.0, -1.0), [1.0, -1.0])
r = np.arctan2(np.array([1.0, -1.0]), np.array([1.0, 1.0]))
near(r[0], math.pi / 4); near(r[1], -math.pi / 4)
near(np.arctan2(1.0, 0.0), math.pi / 2)
same(np.power(np.array([2.0, 3.0]), 2), [4.0, 9.0])
same(np.power(2.0, np.array([1.0, 3.0])), [2.0, 8.0])
same(np.clip(np.array([-2.0, 0.5, 7.0]), 0.0, 1.0), [0.0, 0.5, 1.0])
same(np.array([-2.0, 0.5, 7.0]).clip(0.0, 1.0), [0.0, 0.5, 1.0])
same(np.isnan(np.array([1.0, np.nan])), [False, True])
same(np.isfinite(np.array([1.0, np.inf, np.nan])), [True, False, False])
assert np.isnan(np.nan) is True
assert np.pi == math.pi and np.e == math.e and np.inf == float("inf") and np.isnan(np.nan)
assert np.newaxis is None
assert isinstance(np.float64(2), float) and np.float64(2) == 2.0
"#,
    );
}

#[test]
fn reductions() {
    check(
        r#"
m = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
s = np.sum(m)
assert s == 21.0 and isinstance(s, float)
assert m.sum() == 21.0
same(np.sum(m, axis=0), [5.0, 7.0, 9.0])
same(m.sum(axis=1), [6.0, 15.0])
same(m.sum(axis=-1), [6.0, 15.0])
same(m.sum(axis=(0, 1), keepdims=True), [[21.0]], (1, 1))
same(m.sum(axis=0, keepdims=True), [[5.0, 7.0, 9.0]], (1, 3))
assert np.sum(m, axis=None) == 21.0
assert np.mean(m) == 3.5
same(m.mean(axis=0), [2.5, 3.5, 4.5])
assert m.max() == 6.0 and np.max(m) == 6.0 and m.min() == 1.0 and np.min(m) == 1.0
same(np.max(m, axis=1), [3.0, 6.0])
same(m.min(axis=0), [1.0, 2.0, 3.0])
assert np.prod(np.array([1.0, 2.0, 3.0, 4.0])) == 24.0
same(m.prod(axis=0), [4.0, 10.0, 18.0])
assert np.argmax(m) == 5 and m.argmin() == 0
same(np.argmax(m, axis=0), [1, 1, 1])
same(m.argmin(axis=1), [0, 0])
assert np.sum(np.array([1, 2, 3])) == 6 and isinstance(np.sum(np.array([1, 2, 3])), int)
assert np.sum([1.5, 2.5]) == 4.0
t = np.arange(24).reshape(2, 3, 4)
same(t.sum(axis=(0, 2)), [60, 92, 124])
same(t.sum(axis=(-1, 0), keepdims=True), [[[60], [92], [124]]], (1, 3, 1))
same(t.max(axis=1), [[8, 9, 10, 11], [20, 21, 22, 23]])
raises(ValueError, "zero-size array to reduction operation maximum which has no identity", np.max, np.zeros(0))
raises(np.AxisError, "axis 2 is out of bounds for array of dimension 2", np.sum, m, 2)
raises(IndexError, "axis -3 is out of bounds for array of dimension 2", m.sum, -3)
"#,
    );
}

#[test]
fn shape_manipulation() {
    check(
        r#"
a = np.arange(6.0)
same(a.reshape(2, 3), [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
same(a.reshape((3, 2)), [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
same(a.reshape(-1, 2), [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
same(np.reshape(a, (2, -1)), [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
raises(ValueError, "cannot reshape array of size 6 into shape (4,)", a.reshape, 4)
raises(ValueError, "cannot reshape array of size 6 into shape (4,2)", a.reshape, (4, 2))
m = a.reshape(2, 3)
same(m.T, [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]], (3, 2))
same(m.transpose(), m.T.tolist())
same(np.transpose(m), m.T.tolist())
t = np.arange(24).reshape(2, 3, 4)
assert t.transpose(1, 0, 2).shape == (3, 2, 4)
assert np.transpose(t, (2, 0, 1)).shape == (4, 2, 3)
assert t.transpose((2, 0, 1))[3, 1, 2] == t[1, 2, 3]
same(m.T.ravel(), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0])
same(np.ravel(m), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
same(m.flatten(), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
assert np.zeros((1, 3, 1)).squeeze().shape == (3,)
assert np.squeeze(np.zeros((1, 3, 1)), axis=0).shape == (3, 1)
raises(ValueError, "cannot select an axis to squeeze out which has size not equal to one", np.squeeze, np.zeros((2, 1)), 0)
assert np.expand_dims(a, 0).shape == (1, 6)
assert np.expand_dims(a, -1).shape == (6, 1)
assert np.expand_dims(m, (0, 3)).shape == (1, 2, 3, 1)
same(np.broadcast_to(np.array([1.0, 2.0]), (2, 2)), [[1.0, 2.0], [1.0, 2.0]])
same(np.concatenate([np.array([1.0]), np.array([2.0, 3.0])]), [1.0, 2.0, 3.0])
same(np.concatenate((m, m), axis=1), [[0.0, 1.0, 2.0, 0.0, 1.0, 2.0], [3.0, 4.0, 5.0, 3.0, 4.0, 5.0]])
same(np.concatenate((m, m)), m.tolist() + m.tolist())
raises(ValueError, "all the input array dimensions except for the concatenation axis must match exactly, but along dimension 1, the array at index 0 has size 3 and the array at index 1 has size 2", np.concatenate, [m, np.zeros((2, 2))])
same(np.stack([np.array([1.0, 2.0]), np.array([3.0, 4.0])]), [[1.0, 2.0], [3.0, 4.0]])
same(np.stack([np.array([1.0, 2.0]), np.array([3.0, 4.0])], axis=1), [[1.0, 3.0], [2.0, 4.0]])
same(np.vstack([np.array([1.0, 2.0]), np.array([3.0, 4.0])]), [[1.0, 2.0], [3.0, 4.0]])
same(np.hstack([np.array([1.0, 2.0]), np.array([3.0])]), [1.0, 2.0, 3.0])
assert np.shape(m) == (2, 3) and np.shape([1, 2]) == (2,) and np.shape(1.0) == ()
assert np.ndim(m) == 2 and np.ndim(3.0) == 0 and np.size(m) == 6
assert np.isscalar(1.0) and np.isscalar(3) and not np.isscalar(m) and not np.isscalar([1.0])
"#,
    );
}

#[test]
fn indexing_read() {
    check(
        r#"
a = np.array([10.0, 20.0, 30.0, 40.0, 50.0])
assert a[0] == 10.0 and isinstance(a[0], float)
assert a[-1] == 50.0
same(a[1:3], [20.0, 30.0])
same(a[::2], [10.0, 30.0, 50.0])
same(a[::-1], [50.0, 40.0, 30.0, 20.0, 10.0])
same(a[-2:], [40.0, 50.0])
same(a[3:1:-1], [40.0, 30.0])
same(a[10:], [])
m = np.arange(12.0).reshape(3, 4)
same(m[1], [4.0, 5.0, 6.0, 7.0])
assert m[1, 2] == 6.0 and m[-1, -1] == 11.0
same(m[:, 1], [1.0, 5.0, 9.0])
same(m[1:, ::2], [[4.0, 6.0], [8.0, 10.0]])
same(m[..., -1], [3.0, 7.0, 11.0])
assert m[None].shape == (1, 3, 4)
assert m[:, None, :].shape == (3, 1, 4)
assert a[:, np.newaxis].shape == (5, 1)
assert m[..., None].shape == (3, 4, 1)
raises(IndexError, "index 5 is out of bounds for axis 0 with size 5", lambda: a[5])
raises(IndexError, "index 4 is out of bounds for axis 1 with size 4", lambda: m[0, 4])
raises(IndexError, "too many indices for array: array is 1-dimensional, but 2 were indexed", lambda: a[0, 0])
# advanced
same(a[[0, 2, 4]], [10.0, 30.0, 50.0])
same(a[np.array([-1, 0])], [50.0, 10.0])
same(a[a > 25], [30.0, 40.0, 50.0])
same(m[[0, 2], [1, 3]], [1.0, 11.0])
same(m[:, [0, 3]], [[0.0, 3.0], [4.0, 7.0], [8.0, 11.0]])
same(m[m % 2 == 0], [0.0, 2.0, 4.0, 6.0, 8.0, 10.0])
same(m[np.array([True, False, True])], [[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]])
# iteration
assert [x for x in a] == [10.0, 20.0, 30.0, 40.0, 50.0]
rows = [r.tolist() for r in m]
assert rows[2] == [8.0, 9.0, 10.0, 11.0]
x, y = np.array([1.0, 2.0])
assert (x, y) == (1.0, 2.0)
assert m.tolist()[1][1] == 5.0
assert np.array([[2.5]]).item() == 2.5
assert m.item(5) == 5.0
assert m.astype(int).dtype == np.int64
same(np.array([1.9, -1.9]).astype(int), [1, -1])
same(np.array([1, 2]).astype(float), [1.0, 2.0])
"#,
    );
}

#[test]
fn indexing_write() {
    check(
        r#"
a = np.zeros(5)
a[0] = 1.0
a[-1] = 5
same(a, [1.0, 0.0, 0.0, 0.0, 5.0])
a[1:3] = np.array([2.0, 3.0])
same(a, [1.0, 2.0, 3.0, 0.0, 5.0])
a[::2] = 9.0
same(a, [9.0, 2.0, 9.0, 0.0, 9.0])
m = np.zeros((2, 3))
m[0] = np.array([1.0, 2.0, 3.0])
m[:, 1] = 7.0
m[1, 2] = -1.0
same(m, [[1.0, 7.0, 3.0], [0.0, 7.0, -1.0]])
m[:] = np.array([4.0, 5.0, 6.0])
same(m, [[4.0, 5.0, 6.0], [4.0, 5.0, 6.0]])
m[...] = 0.0
same(m, [[0.0] * 3] * 2)
b = np.array([-1.0, 2.0, -3.0])
b[b < 0] = 0.0
same(b, [0.0, 2.0, 0.0])
b[[0, 2]] = np.array([5.0, 6.0])
same(b, [5.0, 2.0, 6.0])
b[:] = b
same(b, [5.0, 2.0, 6.0])
def bad():
    a[0:2] = np.array([1.0, 2.0, 3.0])
raises(ValueError, "could not broadcast input array from shape (3,) into shape (2,)", bad)
def oob():
    a[7] = 1.0
raises(IndexError, "index 7 is out of bounds for axis 0 with size 5", oob)
i = np.zeros(2, dtype=int)
i[0] = 2.7
same(i, [2, 0])
"#,
    );
}

/// Print options: set for the thread until changed, restored after a `printoptions`
/// block even when it raises; NumPy's options the embedded numpy does not have are
/// refused (with the reason), NumPy's errors for bad values kept.
#[test]
fn print_options() {
    check(
        r#"
import threading
np.set_printoptions(precision=2)
assert str(np.array([1 / 3])) == "[0.33]", str(np.array([1 / 3]))
seen = []
t = threading.Thread(target=lambda: seen.append(str(np.array([1 / 3]))))
t.start(); t.join()
assert seen == ["[0.33333333]"], seen  # another thread keeps NumPy's defaults
np.set_printoptions(precision=8)
try:
    with np.printoptions(precision=1):
        assert str(np.array([1 / 3])) == "[0.3]"
        raise KeyError("inside")
except KeyError:
    pass
assert str(np.array([1 / 3])) == "[0.33333333]"
for kw in ({"sign": "+"}, {"floatmode": "fixed"}, {"formatter": {"float": str}},
           {"legacy": "1.13"}):
    try:
        np.set_printoptions(**kw)
        raise AssertionError(kw)
    except NotImplementedError as e:
        assert "not in the embedded numpy's printing" in str(e), e
for kw, err in (({"precision": 1.5}, TypeError), ({"threshold": float("nan")}, ValueError),
                ({"sign": "x"}, ValueError), ({"floatmode": "x"}, ValueError)):
    try:
        np.set_printoptions(**kw)
        raise AssertionError(kw)
    except err:
        pass
assert np.get_printoptions()["precision"] == 8
"#,
    );
}

#[test]
fn repr_and_str() {
    check(
        r#"
def eq(got, want):
    assert got == want, "\n" + got + "\n!=\n" + want
eq(repr(np.array([1.0, 2.0, 3.0])), "array([1., 2., 3.])")
eq(str(np.array([1.0, 2.0, 3.0])), "[1. 2. 3.]")
eq(repr(np.array([[1.0, 2.0], [3.0, 4.0]])), "array([[1., 2.],\n       [3., 4.]])")
eq(str(np.array([[1.0, 2.0], [3.0, 4.0]])), "[[1. 2.]\n [3. 4.]]")
eq(repr(np.array([1.5, 2.25])), "array([1.5 , 2.25])")
eq(repr(np.array([0.1, 1.0])), "array([0.1, 1. ])")
eq(repr(np.array([1.0, -2.0])), "array([ 1., -2.])")
eq(repr(np.array([1.0, 100.0])), "array([  1., 100.])")
eq(repr(np.array([1.0 / 3.0])), "array([0.33333333])")
eq(repr(np.array([1e-5, 1.0])), "array([1.e-05, 1.e+00])")
eq(repr(np.array([1.5e-5, 1.0])), "array([1.5e-05, 1.0e+00])")
eq(repr(np.array([1.0, np.nan, np.inf])), "array([ 1., nan, inf])")
eq(repr(np.array([-np.inf, 0.5])), "array([-inf,  0.5])")
eq(repr(np.array([1, 2, 3])), "array([1, 2, 3])")
eq(repr(np.array([1, -20])), "array([  1, -20])")
eq(repr(np.array([True, False])), "array([ True, False])")
eq(str(np.array([True, False])), "[ True False]")
eq(repr(np.array(2.0)), "array(2.)")
eq(str(np.array(2.0)), "2.0")
eq(repr(np.zeros(0)), "array([], dtype=float64)")
eq(repr(np.zeros((0, 3))), "array([], shape=(0, 3), dtype=float64)")
eq(repr(np.zeros((2, 1, 2))), "array([[[0., 0.]],\n\n       [[0., 0.]]])")
eq(repr(np.arange(30.0)), "array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n       13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25.,\n       26., 27., 28., 29.])")
eq(repr(np.arange(2000)), "array([   0,    1,    2, ..., 1997, 1998, 1999], shape=(2000,))")
eq(repr(np.arange(2000.0).reshape(2, 1000)), "array([[0.000e+00, 1.000e+00, 2.000e+00, ..., 9.970e+02, 9.980e+02,\n        9.990e+02],\n       [1.000e+03, 1.001e+03, 1.002e+03, ..., 1.997e+03, 1.998e+03,\n        1.999e+03]], shape=(2, 1000))")
eq(repr(np.zeros((2, 0), dtype=np.float32)), "array([], shape=(2, 0), dtype=float32)")
eq(repr(np.array([1.5, 2.0], dtype=np.float32)), "array([1.5, 2. ], dtype=float32)")
eq(repr(np.arange(2000, dtype=np.float32)), "array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n       1.999e+03], shape=(2000,), dtype=float32)")
eq(repr(np.array(2.0, dtype=np.float32)), "array(2., dtype=float32)")
eq(repr(np.float64), "<class 'numpy.float64'>")
eq(repr(np.sum(np.array([1.5, 2.0]))), "np.float64(3.5)")
eq(str(np.sum(np.array([1.5, 2.0]))), "3.5")
eq(repr([v for v in np.array([0.5, 1.0])]), "[np.float64(0.5), np.float64(1.0)]")
eq(repr(np.array([0.5, 1.0]).tolist()), "[0.5, 1.0]")
eq(repr(np.array([1.0]).dtype), "dtype('float64')")
eq(repr(np.ndarray), "<class 'numpy.ndarray'>")
"#,
    );
}

#[test]
fn misc_functions() {
    check(
        r#"
a = np.array([1.0, 2.0, 3.0])
assert np.allclose(a, a + 1e-10)
assert not np.allclose(a, a + 1e-3)
same(np.isclose(a, np.array([1.0, 2.1, 3.0])), [True, False, True])
assert np.isclose(1.0, 1.0 + 1e-9) is True
assert np.linalg.norm(np.array([3.0, 4.0])) == 5.0
assert np.linalg.norm(np.array([[1.0, 2.0], [2.0, 4.0]])) == 5.0
same(np.linalg.norm(np.array([[3.0, 4.0], [6.0, 8.0]]), axis=1), [5.0, 10.0])
near(np.linalg.norm(np.array([1.0, -2.0]), ord=1), 3.0)
near(np.linalg.norm(np.array([1.0, -2.0]), ord=np.inf), 2.0)
assert np.array_equal(a, [1.0, 2.0, 3.0])
same(np.cumsum(a), [1.0, 3.0, 6.0])
import copy
import numpy.linalg
from numpy.linalg import norm
assert norm is np.linalg.norm and numpy.linalg.norm is norm
same([1.0, 1.0, 1.0] + a, [2.0, 3.0, 4.0])
same((1.0, 2.0, 3.0) * a, [1.0, 4.0, 9.0])
same(np.array(range(3)), [0, 1, 2])
same(np.array([x * 0.5 for x in range(3)]), [0.0, 0.5, 1.0])
assert np.result_type(np.ones(2), 1) == np.float64
near(np.var(np.array([1.0, 2.0, 3.0, 4.0])), 1.25)
near(np.std(np.array([[1.0, 3.0]]), axis=1)[0], 1.0)
same(np.diag(np.array([1.0, 2.0])), [[1.0, 0.0], [0.0, 2.0]])
assert np.trace(np.array([[1.0, 2.0], [3.0, 4.0]])) == 5.0
assert hasattr(np.ndarray, "__add__") and hasattr(np.ndarray, "__getitem__")
same(a.__add__(1.0), [2.0, 3.0, 4.0])
same(a.__rsub__(1.0), [0.0, -1.0, -2.0])
try:
    hash(a)
    raise AssertionError("hashable")
except TypeError:
    pass
b = copy.deepcopy(a)
b[0] = 100.0
assert a[0] == 1.0
"#,
    );
}

#[test]
fn linalg_decompositions() {
    check(
        r#"
import math
LinAlgError = np.linalg.LinAlgError
assert issubclass(LinAlgError, ValueError) and LinAlgError.__module__ == "numpy.linalg"
def close(a, b, tol=1e-10):
    a = np.asarray(a); b = np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert np.allclose(a, b, rtol=0.0, atol=tol), (a.tolist(), b.tolist())
M = np.array([[1.0, 2.0], [3.0, 4.0]])
close(np.linalg.inv(M), [[-2.0, 1.0], [1.5, -0.5]])
near(np.linalg.det(M), -2.0)
assert isinstance(np.linalg.det(M), float)
sign, logdet = np.linalg.slogdet(M)
assert sign == -1.0
near(logdet, math.log(2.0))
assert np.linalg.slogdet(M).logabsdet == logdet
A = np.array([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]])
near(np.linalg.det(A), 44.0)
close(A @ np.linalg.inv(A), np.eye(3))
close(np.linalg.inv(A) @ A, np.eye(3))
# int input gives float output
assert np.linalg.inv(np.array([[2, 0], [0, 4]])).tolist() == [[0.5, 0.0], [0.0, 0.25]]
# batched
S = np.stack([M, 2 * np.eye(2)])
close(np.linalg.inv(S)[1], 0.5 * np.eye(2))
close(np.linalg.det(S), [-2.0, 4.0])
# solve
close(np.linalg.solve(np.array([[3.0, 1.0], [1.0, 2.0]]), np.array([9.0, 8.0])), [2.0, 3.0])
B = np.array([[1.0, 0.0], [2.0, 1.0], [0.5, 3.0]])
X = np.linalg.solve(A, B)
assert X.shape == (3, 2)
close(A @ X, B)
# cholesky (lower; upper=True gives L.T)
close(np.linalg.cholesky(np.array([[4.0, 2.0], [2.0, 3.0]])), [[2.0, 0.0], [1.0, math.sqrt(2.0)]])
L = np.linalg.cholesky(A)
close(L @ L.T, A)
assert L[0, 1] == 0.0 and L[0, 2] == 0.0 and L[1, 2] == 0.0
close(np.linalg.cholesky(A, upper=True), L.T)
# eigh: ascending eigenvalues, A v = v diag(w)
w, v = np.linalg.eigh(np.array([[2.0, 1.0], [1.0, 2.0]]))
close(w, [1.0, 3.0])
close(abs(v), np.full((2, 2), 1 / math.sqrt(2.0)))
w, v = np.linalg.eigh(A)
assert w[0] <= w[1] <= w[2]
close(A @ v, v * w)
close(v.T @ v, np.eye(3))
near(np.sum(w), np.trace(A))
close(np.linalg.eigvalsh(A), w)
res = np.linalg.eigh(A)
close(res.eigenvalues, w)
# only the lower triangle is read (UPLO='L'), the upper with UPLO='U'
T = np.array([[2.0, 100.0], [1.0, 2.0]])
close(np.linalg.eigvalsh(T), [1.0, 3.0])
close(np.linalg.eigvalsh(T.T, UPLO="U"), [1.0, 3.0])
# qr (reduced)
Z = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [2.0, 1.0, 3.0]])
Q, R = np.linalg.qr(Z)
assert Q.shape == (4, 3) and R.shape == (3, 3)
close(Q @ R, Z)
close(Q.T @ Q, np.eye(3))
assert R[1, 0] == 0.0 and R[2, 0] == 0.0 and R[2, 1] == 0.0
Qc, Rc = np.linalg.qr(Z, mode="complete")
assert Qc.shape == (4, 4) and Rc.shape == (4, 3)
close(Qc @ Rc, Z)
close(Qc.T @ Qc, np.eye(4))
assert np.linalg.qr(Z, mode="r").shape == (3, 3)
# svd
U, s, Vh = np.linalg.svd(Z)
assert U.shape == (4, 4) and s.shape == (3,) and Vh.shape == (3, 3)
assert s[0] >= s[1] >= s[2] >= 0
Sig = np.zeros((4, 3))
Sig[:3, :3] = np.diag(s)
close(U @ Sig @ Vh, Z)
close(U.T @ U, np.eye(4))
close(Vh @ Vh.T, np.eye(3))
U, s, Vh = np.linalg.svd(Z, full_matrices=False)
assert U.shape == (4, 3) and Vh.shape == (3, 3)
close(U @ np.diag(s) @ Vh, Z)
close(np.linalg.svd(np.array([[3.0, 0.0], [0.0, -2.0]]), compute_uv=False), [3.0, 2.0])
near(np.sum(np.linalg.svd(Z, compute_uv=False) ** 2), np.sum(Z * Z))
# pinv, matrix_rank, matrix_power, lstsq
close(np.linalg.pinv(Z) @ Z, np.eye(3))
assert np.linalg.matrix_rank(Z) == 3 and np.linalg.matrix_rank(np.ones((3, 3))) == 1
close(np.linalg.matrix_power(M, 3), M @ M @ M)
close(np.linalg.matrix_power(M, 0), np.eye(2))
close(np.linalg.matrix_power(M, -1), np.linalg.inv(M))
x, resid, rank, sv = np.linalg.lstsq(np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]), np.array([1.0, 2.0, 2.0]), rcond=None)
close(x, [7.0 / 6.0, 0.5])
assert rank == 2
near(resid[0], 1.0 / 6.0)
# errors, as NumPy raises them
raises(LinAlgError, "Singular matrix", np.linalg.inv, np.ones((2, 2)))
raises(LinAlgError, "Singular matrix", np.linalg.solve, np.zeros((2, 2)), np.ones(2))
assert np.linalg.det(np.ones((3, 3))) == 0.0
assert np.linalg.slogdet(np.ones((2, 2))) == (0.0, -np.inf)
raises(LinAlgError, "Matrix is not positive definite", np.linalg.cholesky, np.array([[1.0, 2.0], [2.0, 1.0]]))
raises(LinAlgError, "Last 2 dimensions of the array must be square", np.linalg.inv, np.ones((2, 3)))
raises(LinAlgError, "1-dimensional array given. Array must be at least two-dimensional", np.linalg.det, np.ones(3))
raises(ValueError, "solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (m,m),(m)->(m) (size 3 is different from 2)", np.linalg.solve, np.eye(2), np.ones(3))
# matrix norms
N2 = np.array([[1.0, -2.0], [3.0, 4.0]])
near(np.linalg.norm(N2, 1), 6.0)
near(np.linalg.norm(N2, -1), 4.0)
near(np.linalg.norm(N2, np.inf), 7.0)
near(np.linalg.norm(N2, -np.inf), 3.0)
near(np.linalg.norm(N2, 2), float(np.linalg.svd(N2, compute_uv=False)[0]))
near(np.linalg.norm(N2, "nuc"), float(np.sum(np.linalg.svd(N2, compute_uv=False))))
near(np.linalg.norm(N2, "fro"), 30.0 ** 0.5)
near(np.linalg.norm(np.array([[3.0, 0.0], [0.0, -2.0]]), 2), 3.0)
assert np.linalg.norm(N2, 1, keepdims=True).shape == (1, 1)
same(np.linalg.norm(np.stack([N2, 2 * N2]), 1, axis=(1, 2)), [6.0, 12.0])
raises(ValueError, "Invalid norm order for matrices.", np.linalg.norm, N2, 3)
from numpy.linalg import LinAlgError as L2, inv
assert L2 is LinAlgError and inv is np.linalg.inv
"#,
    );
}

#[test]
fn contractions_and_diagonals() {
    check(
        r#"
A = np.array([[1.0, 2.0], [3.0, 4.0]])
B = np.array([[0.0, 1.0], [1.0, 0.0]])
assert np.trace(A) == 5.0 and A.trace() == 5.0
assert np.trace(np.arange(9).reshape(3, 3), offset=1) == 1 + 5
assert isinstance(np.trace(np.arange(4).reshape(2, 2)), int)
same(np.trace(np.arange(8).reshape(2, 2, 2)), [6, 8])
same(np.diag(np.array([1.0, 2.0])), [[1.0, 0.0], [0.0, 2.0]])
same(np.diag(np.array([1, 2]), k=1), [[0, 1, 0], [0, 0, 2], [0, 0, 0]])
same(np.diag(np.array([1, 2]), -1), [[0, 0, 0], [1, 0, 0], [0, 2, 0]])
same(np.diag(np.arange(9).reshape(3, 3)), [0, 4, 8])
same(np.diag(np.arange(9).reshape(3, 3), 1), [1, 5])
same(np.diagonal(np.arange(9).reshape(3, 3), -1), [3, 7])
same(np.arange(8).reshape(2, 2, 2).diagonal(), [[0, 6], [1, 7]])
# inner / outer
assert np.inner(np.array([1.0, 2.0]), np.array([3.0, 4.0])) == 11.0
same(np.inner(A, A), [[5.0, 11.0], [11.0, 25.0]])
same(np.inner(A, np.array([1.0, 1.0])), [3.0, 7.0])
same(np.outer([1, 2], [3, 4, 5]), [[3, 4, 5], [6, 8, 10]])
raises(ValueError, "shapes (2,) and (3,) not aligned: 2 (dim 0) != 3 (dim 0)", np.inner, np.ones(2), np.ones(3))
# tensordot
a = np.arange(6.0).reshape(2, 3)
b = np.arange(6.0).reshape(3, 2)
same(np.tensordot(a, b, axes=1), (a @ b).tolist())
assert np.tensordot(a, b, axes=([0, 1], [1, 0])) == 50.0
same(np.tensordot(a, a, axes=([1], [1])), (a @ a.T).tolist())
same(np.tensordot(np.ones((2, 3, 4)), np.ones((3, 4, 5)), axes=2), [[12.0] * 5] * 2)
same(np.tensordot(np.array([1.0, 2.0]), np.array([3.0, 4.0]), axes=0), [[3.0, 4.0], [6.0, 8.0]])
raises(ValueError, "shape-mismatch for sum", np.tensordot, np.ones((2, 3)), np.ones((2, 3)), 1)
# einsum
same(np.einsum("ij,jk->ik", a, b), (a @ b).tolist())
same(np.einsum("ij,jk", a, b), (a @ b).tolist())
same(np.einsum("ij->ji", a), a.T.tolist())
same(np.einsum("ba", a), a.T.tolist())
assert np.einsum("ii", A) == 5.0 and np.einsum("ii->", A) == 5.0
same(np.einsum("ii->i", A), [1.0, 4.0])
assert np.einsum("ij->", a) == 15.0
same(np.einsum("ij->j", a), [3.0, 5.0, 7.0])
assert np.einsum("i,i", [1.0, 2.0], [3.0, 4.0]) == 11.0
same(np.einsum("i,j->ij", np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])), [[3.0, 4.0, 5.0], [6.0, 8.0, 10.0]])
same(np.einsum("i,i->i", np.array([1.0, 2.0]), np.array([3.0, 4.0])), [3.0, 8.0])
X = np.arange(24.0).reshape(2, 3, 4)
Y = np.arange(40.0).reshape(2, 4, 5)
same(np.einsum("bij,bjk->bik", X, Y), (X @ Y).tolist())
same(np.einsum("...ij,...jk->...ik", X, Y), (X @ Y).tolist())
same(np.einsum("...ij,jk", X, Y[0]), (X @ Y[0]).tolist())
same(np.einsum("...ij->...ji", X), np.swapaxes(X, 1, 2).tolist())
same(np.einsum("ijk->kji", X), np.transpose(X).tolist())
P = np.arange(12.0).reshape(3, 2, 2)
same(np.einsum("ijj->i", P), [3.0, 11.0, 19.0])
same(np.einsum("ijk,jil->kl", np.arange(24.0).reshape(2, 3, 4), np.arange(30.0).reshape(3, 2, 5)),
     np.tensordot(np.arange(24.0).reshape(2, 3, 4), np.arange(30.0).reshape(3, 2, 5), axes=([0, 1], [1, 0])).tolist())
same(np.einsum("ij,jk,kl->il", A, B, A), (A @ B @ A).tolist())
same(np.einsum(" i j , j k -> i k ", A, B), (A @ B).tolist())
assert np.einsum("ij,ij->", A, B) == 5.0
assert np.einsum("i,i", np.array([1, 2]), np.array([3, 4])) == 11
assert isinstance(np.einsum("i,i", np.array([1, 2]), np.array([3, 4])), int)
raises(ValueError, "einstein sum subscripts string contains too many subscripts for operand 0", np.einsum, "ij", np.ones(3))
raises(ValueError, "operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to broadcast the extra dimensions.", np.einsum, "i", np.ones((2, 2)))
raises(ValueError, "einstein sum subscripts string included output subscript 'k' which never appeared in an input", np.einsum, "ij->k", A)
raises(ValueError, "einstein sum subscripts string includes output subscript 'i' multiple times", np.einsum, "ij->ii", A)
raises(ValueError, "invalid subscript '1' in einstein sum subscripts string, subscripts must be letters", np.einsum, "i1", A)
raises(ValueError, "fewer operands provided to einstein sum function than specified in the subscripts string", np.einsum, "ij", A, A)
try:
    np.einsum("ij,jk", A, np.ones((3, 2)))
    raise AssertionError("no error")
except ValueError:
    pass
raises(ValueError, "more operands provided to einstein sum function than specified in the subscripts string", np.einsum, "ij,jk", A)
"#,
    );
}

#[test]
fn sorting_and_searching() {
    check(
        r#"
a = np.array([3.0, 1.0, np.nan, 2.0, -1.0])
r = np.sort(a)
assert r.tolist()[:4] == [-1.0, 1.0, 2.0, 3.0] and np.isnan(r[4])
same(np.argsort(a), [4, 1, 3, 0, 2])
m = np.array([[3, 1, 2], [0, 5, 4]])
same(np.sort(m), [[1, 2, 3], [0, 4, 5]])
same(np.sort(m, axis=0), [[0, 1, 2], [3, 5, 4]])
same(np.sort(m, axis=None), [0, 1, 2, 3, 4, 5])
same(np.argsort(m), [[1, 2, 0], [0, 2, 1]])
same(np.argsort(m, axis=0), [[1, 0, 0], [0, 1, 1]])
same(m.argsort(axis=None), [3, 1, 2, 0, 5, 4])
assert np.argsort(m).dtype == np.int64 and np.sort(m).dtype == np.int64
# stable: equal keys keep their order
same(np.argsort(np.array([2, 1, 2, 1, 2])), [1, 3, 0, 2, 4])
same(np.argsort(np.array([1.0, 1.0, 1.0]), kind="stable"), [0, 1, 2])
# the method sorts in place and returns None
b = np.array([[3.0, 1.0], [2.0, 0.0]])
assert b.sort() is None
same(b, [[1.0, 3.0], [0.0, 2.0]])
b.sort(axis=0)
same(b, [[0.0, 2.0], [1.0, 3.0]])
same(np.sort([3, 2, 1]), [1, 2, 3])
raises(np.AxisError, "axis 2 is out of bounds for array of dimension 2", np.sort, m, 2)
s = np.array([1.0, 2.0, 2.0, 3.0])
raises(ValueError, "search side must be 'left' or 'right' (got 'x')", np.searchsorted, s, 1.0, "x")
assert np.searchsorted(s, 2.0) == 1 and np.searchsorted(s, 2.0, side="right") == 3
same(np.searchsorted(s, np.array([0.0, 2.5, 9.0])), [0, 3, 4])
"#,
    );
}

#[test]
fn shape_functions_extra() {
    check(
        r#"
t = np.arange(24).reshape(2, 3, 4)
assert np.swapaxes(t, 0, 2).shape == (4, 3, 2)
assert np.swapaxes(t, 0, 2)[3, 1, 0] == t[0, 1, 3]
assert t.swapaxes(1, -1).shape == (2, 4, 3)
assert np.moveaxis(t, 0, -1).shape == (3, 4, 2)
assert np.moveaxis(t, -1, 0).shape == (4, 2, 3)
assert np.moveaxis(t, [0, 1], [-1, -2]).shape == (4, 3, 2)
assert np.moveaxis(t, 0, -1)[1, 2, 1] == t[1, 1, 2]
raises(np.AxisError, "source: axis 3 is out of bounds for array of dimension 3", np.moveaxis, t, 3, 0)
raises(np.AxisError, "axis2: axis 2 is out of bounds for array of dimension 2", np.swapaxes, np.ones((2, 2)), 0, 2)
raises(ValueError, "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape (2,) and arg 1 with shape (3,).", np.roll, np.ones((2, 2)), (1, 2), (0, 1, 1))
raises(ValueError, "operands could not be broadcast together with shape (3,) (2,)", np.repeat, np.arange(3), [1, 2])
raises(TypeError, "`pad_width` must be of integral type.", np.pad, np.ones(2), 1.5)
raises(ValueError, "mode 'foo' is not supported", np.pad, np.ones(2), 1, "foo")
# split
parts = np.split(np.arange(6), 3)
assert [p.tolist() for p in parts] == [[0, 1], [2, 3], [4, 5]]
parts = np.split(np.arange(6), [1, 4])
assert [p.tolist() for p in parts] == [[0], [1, 2, 3], [4, 5]]
parts = np.split(np.arange(12).reshape(3, 4), 2, axis=1)
assert [p.tolist() for p in parts] == [[[0, 1], [4, 5], [8, 9]], [[2, 3], [6, 7], [10, 11]]]
raises(ValueError, "array split does not result in an equal division", np.split, np.arange(5), 2)
assert [p.tolist() for p in np.array_split(np.arange(5), 2)] == [[0, 1, 2], [3, 4]]
assert [p.tolist() for p in np.split(np.arange(4), [-1, 10])] == [[0, 1, 2], [3], []]
assert [p.shape for p in np.hsplit(np.ones((2, 4)), 2)] == [(2, 2), (2, 2)]
assert [p.shape for p in np.vsplit(np.ones((4, 2)), [1])] == [(1, 2), (3, 2)]
# tile / repeat
same(np.tile(np.array([1, 2]), 2), [1, 2, 1, 2])
same(np.tile(np.array([1, 2]), (2, 2)), [[1, 2, 1, 2], [1, 2, 1, 2]])
same(np.tile(np.array([[1], [2]]), 2), [[1, 1], [2, 2]])
same(np.repeat(np.array([1, 2]), 2), [1, 1, 2, 2])
same(np.repeat(np.array([[1, 2], [3, 4]]), 2), [1, 1, 2, 2, 3, 3, 4, 4])
same(np.repeat(np.array([[1, 2], [3, 4]]), 2, axis=0), [[1, 2], [1, 2], [3, 4], [3, 4]])
same(np.repeat(np.array([[1, 2], [3, 4]]), [1, 2], axis=1), [[1, 2, 2], [3, 4, 4]])
same(np.array([1.0, 2.0]).repeat(3), [1.0, 1.0, 1.0, 2.0, 2.0, 2.0])
same(np.repeat(3, 2), [3, 3])
# flip / roll
m = np.array([[1, 2, 3], [4, 5, 6]])
same(np.flip(np.array([1, 2, 3])), [3, 2, 1])
same(np.flip(m), [[6, 5, 4], [3, 2, 1]])
same(np.flip(m, axis=0), [[4, 5, 6], [1, 2, 3]])
same(np.flip(m, 1), [[3, 2, 1], [6, 5, 4]])
same(np.fliplr(m), [[3, 2, 1], [6, 5, 4]])
same(np.flipud(m), [[4, 5, 6], [1, 2, 3]])
same(np.roll(np.arange(5), 2), [3, 4, 0, 1, 2])
same(np.roll(np.arange(5), -1), [1, 2, 3, 4, 0])
same(np.roll(m, 1), [[6, 1, 2], [3, 4, 5]])
same(np.roll(m, 1, axis=1), [[3, 1, 2], [6, 4, 5]])
same(np.roll(m, 1, axis=0), [[4, 5, 6], [1, 2, 3]])
same(np.roll(m, (1, -1), axis=(0, 1)), [[5, 6, 4], [2, 3, 1]])
same(np.rot90(np.array([[1, 2], [3, 4]])), [[2, 4], [1, 3]])
# squeeze with axis, atleast_3d
assert np.squeeze(np.zeros((1, 2, 1)), axis=(0, 2)).shape == (2,)
assert np.atleast_3d(1.0).shape == (1, 1, 1)
assert np.atleast_3d(np.ones(3)).shape == (1, 3, 1)
assert np.atleast_3d(np.ones((2, 3))).shape == (2, 3, 1)
assert np.atleast_1d(2.0).shape == (1,) and np.atleast_2d(np.ones(3)).shape == (1, 3)
# pad
same(np.pad(np.array([1, 2, 3]), 1), [0, 1, 2, 3, 0])
same(np.pad(np.array([1, 2, 3]), (1, 2)), [0, 1, 2, 3, 0, 0])
same(np.pad(np.array([1, 2, 3]), (2, 1), constant_values=9), [9, 9, 1, 2, 3, 9])
same(np.pad(np.array([1.0, 2.0]), (1, 1), constant_values=(-1.0, 5.0)), [-1.0, 1.0, 2.0, 5.0])
same(np.pad(np.ones((1, 2)), ((1, 0), (0, 1))), [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0]])
same(np.pad(np.ones((1, 1)), [[1, 1], [2, 0]]), [[0.0] * 3, [0.0, 0.0, 1.0], [0.0] * 3])
same(np.pad(np.array([1, 2, 3]), 2, mode="edge"), [1, 1, 1, 2, 3, 3, 3])
same(np.pad(np.array([1, 2, 3]), 2, mode="reflect"), [3, 2, 1, 2, 3, 2, 1])
same(np.pad(np.array([1, 2, 3]), 2, mode="symmetric"), [2, 1, 1, 2, 3, 3, 2])
same(np.pad(np.array([1, 2, 3]), 2, mode="wrap"), [2, 3, 1, 2, 3, 1, 2])
raises(ValueError, "index can't contain negative values", np.pad, np.ones(2), -1)
# stacking
same(np.vstack([np.array([1, 2]), np.array([[3, 4]])]), [[1, 2], [3, 4]])
same(np.hstack([np.array([[1], [2]]), np.array([[3], [4]])]), [[1, 3], [2, 4]])
same(np.column_stack([np.array([1, 2]), np.array([3, 4])]), [[1, 3], [2, 4]])
assert np.dstack([np.ones((2, 2)), np.ones((2, 2))]).shape == (2, 2, 2)
# cumprod, var/std with ddof, all/any with axis
same(np.cumprod(np.array([1, 2, 3, 4])), [1, 2, 6, 24])
same(np.cumprod(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=0), [[1.0, 2.0], [3.0, 8.0]])
same(np.array([[1.0, 2.0], [3.0, 4.0]]).cumsum(axis=1), [[1.0, 3.0], [3.0, 7.0]])
x = np.array([1.0, 2.0, 3.0, 4.0])
near(np.var(x), 1.25)
near(np.var(x, ddof=1), 5.0 / 3.0)
near(x.std(ddof=1), (5.0 / 3.0) ** 0.5)
near(x.var(), 1.25)
y = np.array([[1.0, 3.0], [2.0, 6.0]])
same(np.var(y, axis=0), [0.25, 2.25])
same(np.std(y, axis=1), [1.0, 2.0])
same(np.var(y, axis=1, keepdims=True), [[1.0], [4.0]])
same(np.std(y, axis=0, ddof=1), [0.5 ** 0.5, 4.5 ** 0.5])
assert isinstance(np.var(np.array([1, 2, 3])), float)
bb = np.array([[True, False], [True, True]])
same(np.all(bb, axis=1), [False, True])
same(np.any(bb, axis=0), [True, True])
same(bb.any(axis=1), [True, True])
same(np.all(bb, axis=0, keepdims=True), [[True, False]])
"#,
    );
}

#[test]
fn elementwise_extra() {
    check(
        r#"
import math
x = np.array([0.25, 0.5, 0.75])
for name, ref in [("arcsinh", math.asinh), ("arctanh", math.atanh), ("exp2", lambda v: 2.0 ** v),
                  ("log2", math.log2), ("log10", math.log10), ("cbrt", lambda v: v ** (1.0 / 3.0)),
                  ("reciprocal", lambda v: 1.0 / v),
                  ("sinc", lambda v: math.sin(math.pi * v) / (math.pi * v))]:
    r = getattr(np, name)(x)
    assert r.dtype == np.float64, name
    for i in range(3):
        near(r[i], ref(x.tolist()[i]))
r = np.arccosh(np.array([1.0, 2.0]))
near(r[0], 0.0); near(r[1], math.acosh(2.0))
assert np.sinc(0.0) == 1.0
same(np.round(np.array([1.234, -2.567]), 2), [1.23, -2.57])
same(np.around(np.array([0.5, 1.5, 2.5])), [0.0, 2.0, 2.0])
same(np.round(np.array([1234.0, 5678.0]), -2), [1200.0, 5700.0])
same(np.array([1.26, 3.14159]).round(1), [1.3, 3.1])
assert np.round(2.675, 2) == 2.68 and np.round(1234.5678, -1) == 1230.0 and np.round(7, -1) == 10
same(np.fmod(np.array([-3.0, 3.0]), 2.0), [-1.0, 1.0])
same(np.mod(np.array([-3.0, 3.0]), 2.0), [1.0, 1.0])
same(np.remainder(np.array([-3, 3]), 2), [1, 1])
same(np.fmod(np.array([-3, 3]), 2), [-1, 1])
same(np.copysign(np.array([1.0, 2.0]), np.array([-1.0, 1.0])), [-1.0, 2.0])
near(np.logaddexp(1000.0, 1000.0), 1000.0 + math.log(2.0))
near(np.logaddexp(np.array([0.0]), np.array([0.0]))[0], math.log(2.0))
near(np.logaddexp2(3.0, 3.0), 4.0)
same(np.heaviside(np.array([-1.0, 0.0, 2.0]), 0.5), [0.0, 0.5, 1.0])
same(np.clip(np.array([-2.0, 0.5, 7.0]), None, 1.0), [-2.0, 0.5, 1.0])
same(np.clip(np.array([-2.0, 0.5, 7.0]), 0.0, None), [0.0, 0.5, 7.0])
same(np.clip(np.array([-2, 5]), 0, 3), [0, 3])
same(np.trunc(np.array([-1.5, 1.5])), [-1.0, 1.0])
same(np.fix(np.array([-1.5, 1.5])), [-1.0, 1.0])
# dtype arguments
assert np.zeros(2, dtype=np.int64).dtype == np.int64
assert np.ones(2, dtype=np.bool_).dtype == np.bool_
assert np.array([1, 2], dtype=np.float64).dtype == np.float64
assert np.array([0.5, 0.0]).astype(np.bool_).tolist() == [True, False]
assert np.arange(3, dtype=np.float32).dtype == np.float32
assert np.dtype(np.float32) == np.float32 and np.dtype("float32").itemsize == 4
assert np.dtype("f4") == np.float32 and np.dtype(np.float32).name == "float32"
assert np.float32 == np.dtype("float32")
"#,
    );
}

#[test]
fn random_module() {
    check(
        r#"
rng = np.random.default_rng(42)
a = rng.normal(size=5)
b = np.random.default_rng(42).normal(size=5)
assert a.shape == (5,) and a.tolist() == b.tolist()
assert np.random.default_rng(43).normal(size=5).tolist() != a.tolist()
assert isinstance(rng.normal(), float)
z = rng.standard_normal((200, 100))
assert z.shape == (200, 100)
assert abs(float(z.mean())) < 0.03 and abs(float(z.std()) - 1.0) < 0.03
n = rng.normal(3.0, 2.0, size=20000)
assert abs(float(n.mean()) - 3.0) < 0.06 and abs(float(n.std()) - 2.0) < 0.06
assert rng.normal(np.zeros(3), 1.0).shape == (3,)
u = rng.uniform(-1.0, 2.0, size=10000)
assert float(u.min()) >= -1.0 and float(u.max()) < 2.0 and abs(float(u.mean()) - 0.5) < 0.05
r = rng.random((3, 2))
assert r.shape == (3, 2) and bool(np.all((r >= 0) & (r < 1)))
assert 0.0 <= rng.random() < 1.0
k = rng.integers(0, 10, size=1000)
assert k.dtype == np.int64 and int(k.min()) == 0 and int(k.max()) == 9
assert sorted(set(rng.integers(5, size=200).tolist())) == [0, 1, 2, 3, 4]
assert isinstance(rng.integers(3), int)
c = rng.choice(10, size=10, replace=False)
assert sorted(c.tolist()) == list(range(10))
c = rng.choice(np.array([1.5, 2.5, 3.5]), size=(2, 2))
assert c.shape == (2, 2) and set(c.ravel().tolist()) <= {1.5, 2.5, 3.5}
assert rng.choice([7, 8, 9]) in (7, 8, 9)
w = rng.choice(3, size=3000, p=[0.0, 0.25, 0.75])
assert int(np.sum(w == 0)) == 0 and abs(float(np.mean(w == 2)) - 0.75) < 0.04
raises(ValueError, "Cannot take a larger sample than population when replace is False", rng.choice, 3, 4, False)
raises(ValueError, "Probabilities do not sum to 1. See Notes section of docstring for more information.", rng.choice, 3, 2, True, [0.5, 0.6, 0.1])
raises(ValueError, "low >= high", rng.integers, 5, 5)
raises(ValueError, "a must be a positive integer unless no samples are taken", rng.choice, 0)
assert sorted(rng.permutation(5).tolist()) == [0, 1, 2, 3, 4]
arr = np.arange(6)
rng.shuffle(arr)
assert sorted(arr.tolist()) == [0, 1, 2, 3, 4, 5]
# legacy API
rs = np.random.RandomState(0)
x1 = rs.rand(2, 3)
assert x1.shape == (2, 3)
assert np.random.RandomState(0).rand(2, 3).tolist() == x1.tolist()
assert rs.randn(4).shape == (4,) and isinstance(rs.randn(), float)
assert rs.normal(1.0, 0.5, size=(2,)).shape == (2,)
assert rs.uniform(size=3).shape == (3,)
ri = rs.randint(3, 6, size=100)
assert int(ri.min()) >= 3 and int(ri.max()) <= 5
assert rs.choice(4, 2, replace=False).shape == (2,)
np.random.seed(7)
g1 = (np.random.rand(3), np.random.randn(2, 2), np.random.normal(size=2), np.random.uniform(0, 1, 2), np.random.randint(0, 5, 3))
np.random.seed(7)
g2 = (np.random.rand(3), np.random.randn(2, 2), np.random.normal(size=2), np.random.uniform(0, 1, 2), np.random.randint(0, 5, 3))
assert [x.tolist() for x in g1] == [x.tolist() for x in g2]
import numpy.random
from numpy.random import default_rng
assert numpy.random.default_rng is default_rng
raises(ValueError, "scale < 0", rng.normal, 0.0, -1.0)
"#,
    );
}

/// `a.flat` reads the elements in C order and writes through to `a`, whatever its
/// layout (it was a copy: writes were lost).
#[test]
fn flat_writes_through() {
    check(
        r#"
e = np.zeros(3); e.flat[1] = 5
assert e.tolist() == [0.0, 5.0, 0.0]
m = np.zeros((2, 3)); m.flat[4] = 1.5; m.flat[[0, 5]] = [7, 8]
assert m.tolist() == [[7.0, 0.0, 0.0], [0.0, 1.5, 8.0]]
t = np.zeros((3, 2)).T; t.flat[1] = 2.0; t.flat[3:6] = [1, 2]
assert t.tolist() == [[0.0, 2.0, 0.0], [1.0, 2.0, 1.0]], t.tolist()
k = np.zeros(2, dtype=np.int64); k.flat[0] = 2 ** 62 + 1
assert k[0] == 2 ** 62 + 1
assert m.flat[4] == 1.5 and list(m.flat)[5] == 8.0 and len(m.flat) == 6
assert m.flat.base is m and m.flat[1:3].tolist() == [0.0, 0.0] and m.flat.copy().shape == (6,)
"#,
    );
}

#[test]
fn float32_dtype() {
    check(
        r#"
import math
x = np.array([1.0, 2.0, 3.0], dtype=np.float32)
assert x.dtype == np.float32 and str(x.dtype) == "float32" and x.itemsize == 4 and x.nbytes == 12
assert repr(x) == "array([1., 2., 3.], dtype=float32)", repr(x)
assert repr(np.array([0.1, 0.25], dtype="float32")) == "array([0.1 , 0.25], dtype=float32)"
assert repr(np.zeros(0, dtype=np.float32)) == "array([], dtype=float32)"
assert str(np.array([0.1], dtype=np.float32)) == "[0.1]"
# values are stored at single precision
t = np.array([0.1], dtype=np.float32)
assert float(t[0]) == 0.10000000149011612 and float(t[0]) != 0.1
assert float(np.float32(0.1)) == 0.10000000149011612
assert np.array([1.0]).astype(np.float32).dtype == np.float32
assert (np.ones(2, dtype=np.float32) / 3)[0] == 0.3333333432674408
third = np.float32(1.0) / 3.0
# promotion (NumPy 2 / NEP 50)
assert (x + x).dtype == np.float32
assert (x * 2.5).dtype == np.float32 and (2.5 * x).dtype == np.float32
assert (x + 1).dtype == np.float32 and (x / 2).dtype == np.float32
assert (x + np.ones(3)).dtype == np.float64
assert (x + np.arange(3)).dtype == np.float64
assert (np.arange(3) + x).dtype == np.float64
assert (x + np.array([True, False, True])).dtype == np.float32
assert (x > 1.5).dtype == np.bool_
assert (x @ x) == 14.0 and (x.reshape(3, 1) @ x.reshape(1, 3)).dtype == np.float32
assert np.exp(x).dtype == np.float32 and np.sqrt(x).dtype == np.float32
# computed in f64 and rounded once (NumPy's own float32 exp may differ by 1 ulp)
near(float(np.exp(x)[0]), math.e, 1e-7)
assert np.sum(x, keepdims=True).dtype == np.float32 and np.mean(x, keepdims=True).dtype == np.float32
assert np.sum(x) == 6.0
assert np.var(np.array([1.0, 2.0], dtype=np.float32), keepdims=True).dtype == np.float32
assert np.concatenate([x, x]).dtype == np.float32
assert np.concatenate([x, np.ones(1)]).dtype == np.float64
assert np.zeros((2, 2), dtype="float32").dtype == np.float32
assert np.ones_like(x).dtype == np.float32
assert np.linalg.inv(np.eye(2, dtype=np.float32)).dtype == np.float32
assert np.einsum("i,i->i", x, x).dtype == np.float32
assert np.where(x > 1, x, 0.0).dtype == np.float32
assert np.result_type(x, 1.0) == np.float32 and np.result_type(x, np.ones(1)) == np.float64
assert np.result_type(np.arange(2), x) == np.float64 and np.result_type(np.arange(2), 1.0) == np.float64
# in-place keeps float32 (same-kind cast from float64)
y = x.copy()
y += np.array([0.1, 0.1, 0.1])
assert y.dtype == np.float32 and y[0] == float(np.float32(1.1))
# rounding after each op: 1 + 1e-8 is 1 in float32
assert (np.ones(1, dtype=np.float32) + 1e-8)[0] == 1.0
assert (np.ones(1) + 1e-8)[0] != 1.0
"#,
    );
}

/// Timing report (not an assertion): `cargo test --release --test numpy_module -- --ignored --nocapture`.
#[test]
#[ignore]
fn perf_report() {
    check(
        r#"
import time
def bench(label, f, n):
    f()
    t = time.perf_counter()
    for _ in range(n):
        f()
    dt = (time.perf_counter() - t) / n
    print("%-28s %9.2f us" % (label, dt * 1e6), flush=True)
A = np.ones((64, 128)) * 0.5
B = np.ones((128, 128)) * 0.25
x = np.ones(3)
y = np.ones(3)
v = np.ones(1000)
rng = np.random.default_rng(0)
bench("matmul 64x128 @ 128x128", lambda: A @ B, 200)
bench("x + y (3 elems)", lambda: x + y, 5000)
bench("x * 2.0 (3 elems)", lambda: x * 2.0, 5000)
bench("2.0 * x (3 elems)", lambda: 2.0 * x, 5000)
bench("np.exp(x) (3 elems)", lambda: np.exp(x), 5000)
bench("np.sum(x)", lambda: np.sum(x), 5000)
bench("x[1]", lambda: x[1], 5000)
bench("v + v (1000 elems)", lambda: v + v, 2000)
bench("np.tanh(v) (1000 elems)", lambda: np.tanh(v), 2000)
bench("float add (baseline)", lambda: 1.5 + 2.5, 5000)
S = np.eye(64) * 4.0 + np.ones((64, 64))
bench("linalg.inv 64x64", lambda: np.linalg.inv(S), 200)
bench("linalg.eigh 64x64", lambda: np.linalg.eigh(S), 100)
bench("linalg.svd 64x128", lambda: np.linalg.svd(A, full_matrices=False), 50)
bench("einsum ij,jk->ik 64x128x128", lambda: np.einsum("ij,jk->ik", A, B), 200)
bench("np.sort(v) (1000 elems)", lambda: np.sort(v), 2000)
bench("rng.normal(size=1000)", lambda: rng.normal(size=1000), 2000)
"#,
    );
}

#[test]
fn views_write_through() {
    check(
        r#"
# basic slicing
a = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
b = a[1:3]
b[0] = 5.0
same(a, [0.0, 5.0, 2.0, 3.0, 4.0])
assert b.base is a and a.base is None
b += 1
same(a, [0.0, 6.0, 3.0, 3.0, 4.0])
c = a[::-2]
same(c, [4.0, 3.0, 0.0])
c[1] = -1.0
same(a, [0.0, 6.0, -1.0, 3.0, 4.0])
c[...] = 7
same(a, [7.0, 6.0, 7.0, 3.0, 7.0])
# view of a view; base is the owner
d = c[1:]
d[1] = 8.0
same(a, [8.0, 6.0, 7.0, 3.0, 7.0])
assert d.base is a
# 2-D: rows, columns, a[i], None, ...
m = np.zeros((2, 3))
m[1][2] = 4.0
same(m, [[0.0, 0.0, 0.0], [0.0, 0.0, 4.0]])
col = m[:, 1]
col[:] = [1.0, 2.0]
same(m, [[0.0, 1.0, 0.0], [0.0, 2.0, 4.0]])
e = m[None, ..., 0]
assert e.shape == (1, 2)
e[0, 1] = 9.0
assert m[1, 0] == 9.0
for row in m:
    row *= 2
same(m, [[0.0, 2.0, 0.0], [18.0, 4.0, 8.0]])
# .T, transpose, swapaxes, moveaxis
a = np.zeros((2, 3))
a.T[0, 1] = 2.0
assert a[1, 0] == 2.0
np.transpose(a)[2, 0] = 3.0
assert a[0, 2] == 3.0
a.transpose(1, 0)[1, 1] = 4.0
assert a[1, 1] == 4.0
t = np.zeros((2, 3, 4))
np.swapaxes(t, 0, 2)[3, 1, 0] = 5.0
assert t[0, 1, 3] == 5.0
t.swapaxes(1, 2)[1, 2, 0] = 6.0
assert t[1, 0, 2] == 6.0
mv = np.moveaxis(t, 0, -1)
assert mv.shape == (3, 4, 2)
mv[2, 1, 1] = 7.0
assert t[1, 2, 1] == 7.0
# reshape / ravel: views when contiguous
a = np.arange(6.0).reshape(2, 3)
assert a.base is not None
r = a.reshape(6)
r[0] = 9.0
assert a[0, 0] == 9.0
np.reshape(a, (3, 2))[2, 1] = 10.0
assert a[1, 2] == 10.0
a.ravel()[4] = 11.0
assert a[1, 1] == 11.0
np.ravel(a)[3] = 12.0
assert a[1, 0] == 12.0
# reshape of a non-contiguous array copies
at = a.T
rt = at.reshape(6)
rt[0] = -1.0
assert a[0, 0] == 9.0 and not np.shares_memory(rt, a)
# reshape keeping sliced axes apart is still a view (as in NumPy)
big = np.zeros((4, 6))
s = big[:, ::2].reshape(2, 2, 3)
s[1, 1, 2] = 1.0
assert big[3, 4] == 1.0
# squeeze, expand_dims, atleast_*
a = np.zeros((1, 3, 1))
np.squeeze(a)[1] = 1.0
a.squeeze(axis=0)[2, 0] = 2.0
same(a, [[[0.0], [1.0], [2.0]]])
v = np.zeros(3)
ex = np.expand_dims(v, 0)
assert ex.shape == (1, 3)
ex[0, 2] = 3.0
np.expand_dims(v, (0, 2))[0, 0, 0] = 4.0
same(v, [4.0, 0.0, 3.0])
np.atleast_2d(v)[0, 1] = 5.0
np.atleast_3d(v)[0, 1, 0] += 1.0
same(v, [4.0, 6.0, 3.0])
w = v.view()
w[0] = 1.0
assert v[0] == 1.0 and w.base is v
# views of views of views
a = np.arange(24.0).reshape(2, 3, 4)
q = a[1].T[1:, ::2]
assert q.shape == (3, 2)
q[2, 1] = -5.0
assert a[1, 2, 3] == -5.0
# views keep working after the base is rebound or deleted
a = np.ones(4)
b = a[2:]
del a
b[0] = 3.0
same(b.base, [1.0, 1.0, 3.0, 1.0])
# in-place ops between overlapping views
a = np.array([1.0, 2.0, 3.0, 4.0])
a[1:] += a[:-1]
same(a, [1.0, 3.0, 5.0, 7.0])
a[:2] = a[2:]
same(a, [5.0, 7.0, 5.0, 7.0])
a += a[::-1]
same(a, [12.0, 12.0, 12.0, 12.0])
m = np.array([[1.0, 2.0], [3.0, 4.0]])
m += m.T
same(m, [[2.0, 5.0], [5.0, 8.0]])
# advanced indexing on a view writes through
a = np.zeros(6)
v = a[::2]
v[[0, 2]] = 1.0
v[np.array([False, True, False])] = 2.0
same(a, [1.0, 0.0, 2.0, 0.0, 1.0, 0.0])
a[1:].reshape(5)[::2].sort()
# fill and sort through views
a = np.array([[3.0, 1.0, 2.0], [0.0, 0.0, 0.0]])
a[0].sort()
a[1].fill(7.0)
same(a, [[1.0, 2.0, 3.0], [7.0, 7.0, 7.0]])
# flip, split, atleast_1d, real
a = np.arange(6.0).reshape(2, 3)
f = np.flip(a, 1)
f[0, 0] = -1.0
assert a[0, 2] == -1.0
np.fliplr(a)[1, 2] = -2.0
np.flipud(a)[0, 1] = -3.0
same(a, [[0.0, 1.0, -1.0], [-2.0, -3.0, 5.0]])
np.flip(a)[0, 0] = 9.0
assert a[1, 2] == 9.0
p, q = np.split(np.arange(6.0), 2)
p[0] = 7.0
assert p.base is q.base
assert p.base[0] == 7.0
a = np.zeros((2, 4))
parts = np.array_split(a, 3, axis=1)
assert [x.shape for x in parts] == [(2, 2), (2, 1), (2, 1)]
parts[1][1, 0] = 1.0
parts[2] += 2.0
same(a, [[0.0, 0.0, 0.0, 2.0], [0.0, 0.0, 1.0, 2.0]])
v = np.zeros(2)
np.atleast_1d(v)[0] = 1.0
v.real[1] = 2.0
same(v, [1.0, 2.0])
# int dtype views keep their dtype and casting
i = np.arange(4)
iv = i[1:3]
assert iv.dtype == np.int64
iv[0] = 2.7
same(i, [0, 2, 2, 3])
"#,
    );
}

#[test]
fn views_read_only_and_copies() {
    check(
        r#"
a = np.array([1.0, 2.0, 3.0])
b = np.broadcast_to(a, (2, 3))
same(b, [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
assert b.base is a
raises(ValueError, "assignment destination is read-only", b.__setitem__, (0, 0), 5.0)
def iadd(x):
    x += 1
raises(ValueError, "output array is read-only", iadd, b)
raises(ValueError, "assignment destination is read-only", b[0].__setitem__, 0, 5.0)
raises(ValueError, "assignment destination is read-only", b.fill, 0.0)
a[1] = 9.0
same(b, [[1.0, 9.0, 3.0], [1.0, 9.0, 3.0]])
# arithmetic on a broadcast view gives a new, writeable array
c = b + 1
c[0, 0] = 0.0
same(a, [1.0, 9.0, 3.0])
# copies do not alias
a = np.arange(6.0)
for cp in [a[[0, 1, 2]], a[a > 2.0], a.copy(), np.copy(a), np.array(a), a.flatten(),
           a.reshape(2, 3).flatten(), a + 0, a.astype(np.float64)]:
    cp[...] = -1.0
    same(a, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    assert cp.base is None
    assert not np.shares_memory(cp, a)
m = np.arange(6.0).reshape(2, 3)
adv = m[[1, 0]]
adv[0, 0] = 100.0
assert m[1, 0] == 3.0
mixed = m[1, [0, 2]]
mixed[0] = 100.0
assert m[1, 0] == 3.0
# shares_memory / may_share_memory
a = np.arange(10.0)
assert np.shares_memory(a, a[2:5])
assert np.may_share_memory(a[::2], a[1::2])
assert not np.shares_memory(a[::2], a[1::2])
assert not np.may_share_memory(a[:5], a[5:])
assert not np.shares_memory(a, np.arange(10.0))
assert not np.shares_memory(a, [1.0])
# np.asarray keeps the view; np.array copies
v = a[1:4]
assert np.asarray(v) is v
assert np.array(v).base is None
"#,
    );
}

#[test]
fn diagonal_is_a_read_only_view() {
    check(
        r#"
a = np.arange(12.0).reshape(3, 4)
d = a.diagonal()
assert d.tolist() == [0.0, 5.0, 10.0]
assert np.shares_memory(a, d)
assert a.diagonal(1).tolist() == [1.0, 6.0, 11.0]
assert a.diagonal(-1).tolist() == [4.0, 9.0]
assert np.diagonal(a, 2).tolist() == [2.0, 7.0]
assert a.diagonal(5).shape == (0,)
b = np.arange(24.0).reshape(2, 3, 4)
assert np.diagonal(b, 0, 1, 2).tolist() == [[0.0, 5.0, 10.0], [12.0, 17.0, 22.0]]
assert np.diagonal(b, 0, 0, 2).tolist() == [[0.0, 13.0], [4.0, 17.0], [8.0, 21.0]]
assert a.T.diagonal().tolist() == [0.0, 5.0, 10.0]
try:
    d[0] = 5.0
    raise AssertionError("wrote through a read-only view")
except ValueError as e:
    assert str(e) == "assignment destination is read-only", str(e)
a[1, 1] = 50.0
assert d.tolist() == [0.0, 50.0, 10.0]
"#,
    );
}

/// `tangent`'s hot helpers have a native path for their common case; it must agree with
/// the helper's Python definition (`__wrapped__`) on every input, common or not.
#[test]
fn native_helper_paths_match_their_python_definitions() {
    check(
        r#"
import tangent
rng = np.random.default_rng(3)
a = rng.standard_normal((4, 3))
b = rng.standard_normal((3, 5))
g = rng.standard_normal((4, 5))
f32 = a.astype(np.float32)
ints = np.arange(12).reshape((4, 3))

def agree(name, *args):
    fast = getattr(tangent, name)
    slow = fast.__wrapped__
    x, y = fast(*args), slow(*args)
    if isinstance(y, np.ndarray):
        assert isinstance(x, np.ndarray) and x.dtype == y.dtype and x.shape == y.shape, (name, x, y)
        assert x.tolist() == y.tolist(), name
    else:
        assert type(x) is type(y) and x == y, (name, x, y)

for like in (a, f32, ints, a[:, :1], a[0], 2.0, [1.0, 2.0, 3.0]):
    for grad in (a, 1.5, 2, np.ones((4, 3), dtype=np.float32)):
        try:
            tangent.unbroadcast.__wrapped__(grad, like)
        except Exception:
            continue
        agree('unbroadcast', grad, like)
for x in (a, f32, ints, 3.0):
    for seed in (1.0, 2, np.float64(1.0) if hasattr(np, 'float64') else 1.0):
        agree('unreduce', seed, x, None, False)
agree('unreduce', np.ones(3), a, 0, False)
agree('matmul_grad_left', g, a, b)
agree('matmul_grad_right', g, a, b)
agree('matmul_grad_left', g[0], a[0], b)
agree('matmul_grad_right', g.astype(np.float32), f32, b.astype(np.float32))
agree('check_output', 1.0, 1.0, 'f')
assert tangent.unbroadcast.__name__ == 'unbroadcast'
assert 'broadcast' in tangent.unbroadcast.__doc__
"#,
    );
}

/// float32 arithmetic and tanh round each result once, to the nearest float32.
#[test]
fn float32_results_are_rounded_in_the_same_pass() {
    check(
        r#"
import struct
def f32(v):
    return struct.unpack('f', struct.pack('f', v))[0]
x = np.array([0.1, 0.7, -2.3, 1e-3, 5.0], dtype=np.float32)
y = np.array([0.3, -0.2, 1.1, 7.0, 0.5], dtype=np.float32)
xs, ys = x.tolist(), y.tolist()
for got, want in ((x * y, [f32(p * q) for p, q in zip(xs, ys)]),
                  (x + y, [f32(p + q) for p, q in zip(xs, ys)]),
                  (x / y, [f32(p / q) for p, q in zip(xs, ys)]),
                  (1.0 - x, [f32(1.0 - p) for p in xs]),
                  (x * 3.0, [f32(p * 3.0) for p in xs])):
    assert got.dtype == np.float32
    assert got.tolist() == want, (got.tolist(), want)
import math
big = np.linspace(-3.0, 3.0, 200).astype(np.float32)
t = np.tanh(big)
assert t.dtype == np.float32
for v, w in zip(t.tolist(), big.tolist()):
    assert v == f32(v)
    assert abs(v - math.tanh(w)) <= 2 ** -23 * abs(math.tanh(w)) + 1e-45, (v, w)
"#,
    );
}

/// The embedded numpy against real NumPy: 4,269 seeded cases over float64, float32, int64
/// and bool arrays, complex ones and numpy.fft (broadcast pairs, axis and keepdims variants, the order statistics,
/// sums, means, products, variances of C, Fortran and strided layouts bit for bit,
/// int64 past 2**53, arithmetic on float64 and float32 scalars, writes through views and
/// into copies, the functions written in Python over the native ones) evaluated by NumPy
/// in the test CPython and by the embedded module, which
/// must give the same dtypes, shapes and values (tests/numpy_diff/numpy_diff.py says how
/// close floats must be).
#[test]
fn agrees_with_real_numpy() {
    let Some(out) = against_numpy("numpy_diff.py", "numpy-diff") else {
        return;
    };
    assert!(out.contains("4449 cases compared, 0 differences"), "{out}");
}

/// Runs `tests/numpy_diff/<script> expect FILE` in the test CPython's NumPy, then
/// `compare FILE` in the embedded host, and returns what the comparison printed (None
/// without a test CPython with NumPy). Either side failing fails the test.
fn against_numpy(script: &str, dir: &str) -> Option<String> {
    let python = common::cpython::python(&["numpy"])?;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let expected = dir.join("expected.json");
    let script = format!("{}/tests/numpy_diff/{script}", env!("CARGO_MANIFEST_DIR"));
    let want = std::process::Command::new(&python)
        .args(["-W", "ignore", &script, "expect"])
        .arg(&expected)
        .output()
        .expect("run the test CPython");
    assert!(
        want.status.success(),
        "NumPy's side failed:\n{}",
        String::from_utf8_lossy(&want.stderr)
    );
    let got = std::process::Command::new(env!("CARGO_BIN_EXE_tangent"))
        .args(["run", "--embedded", &script, "compare"])
        .arg(&expected)
        .output()
        .expect("run tangent");
    let out = String::from_utf8_lossy(&got.stdout).into_owned();
    assert!(
        got.status.success(),
        "the embedded numpy differs from NumPy:\n{out}\n{}",
        String::from_utf8_lossy(&got.stderr)
    );
    Some(out)
}

/// Every public function and type of NumPy's top level, `numpy.linalg`, `numpy.random`,
/// its Generator's methods, `numpy.fft` and `numpy.exceptions` (as the test CPython's NumPy lists them) is in
/// the embedded numpy, or named in README.md as out of scope or not there yet; a name
/// the README lists that the embedded numpy has is a stale list, and fails too.
#[test]
fn has_numpys_public_names() {
    let Some(python) = common::cpython::python(&["numpy"]) else {
        return;
    };
    let listing = std::process::Command::new(&python)
        .args([
            "-c",
            "import types, numpy as np, numpy.linalg, numpy.random, numpy.fft\n\
             import numpy.exceptions\n\
             def public(mod, prefix):\n\
             \x20   return [prefix + n for n in dir(mod) if not n.startswith('_')\n\
             \x20           and callable(getattr(mod, n))\n\
             \x20           and not isinstance(getattr(mod, n), types.ModuleType)]\n\
             names = public(np, '') + public(np.linalg, 'linalg.')\n\
             names += public(np.random, 'random.') + public(np.fft, 'fft.')\n\
             names += public(np.random.Generator, 'random.Generator.')\n\
             names += public(np.exceptions, 'exceptions.')\n\
             print(' '.join(sorted(names)))",
        ])
        .output()
        .expect("run the test CPython");
    assert!(
        listing.status.success(),
        "{}",
        String::from_utf8_lossy(&listing.stderr)
    );
    let numpy_names = String::from_utf8_lossy(&listing.stdout).trim().to_owned();
    assert!(numpy_names.split(' ').count() > 600, "{numpy_names}");
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let listed = |marker: &str| -> Vec<String> {
        let start = readme
            .find(&format!("<!-- {marker} -->"))
            .unwrap_or_else(|| panic!("README.md has no {marker} list"));
        let end = start
            + readme[start..]
                .find(&format!("<!-- /{marker} -->"))
                .unwrap();
        readme[start..end]
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    };
    let mut excused = listed("numpy-out-of-scope");
    excused.extend(listed("numpy-missing"));
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("numpy-names");
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("names.py");
    std::fs::write(
        &script,
        format!(
            "import numpy as np\n\
             try:\n\
             \x20   import numpy.fft\n\
             except ImportError:\n\
             \x20   pass\n\
             def has(path):\n\
             \x20   obj = np\n\
             \x20   for part in path.split('.'):\n\
             \x20       if not hasattr(obj, part):\n\
             \x20           return False\n\
             \x20       obj = getattr(obj, part)\n\
             \x20   return True\n\
             names = {numpy_names:?}.split()\n\
             excused = set({excused:?})\n\
             absent = [n for n in names if not has(n)]\n\
             print('unexcused:', ' '.join(n for n in absent if n not in excused))\n\
             print('stale:', ' '.join(n for n in sorted(excused) if has(n)))\n"
        ),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tangent"))
        .args(["run", "--embedded"])
        .arg(&script)
        .output()
        .expect("run tangent");
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{so}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        so.contains("unexcused: \n"),
        "NumPy names missing here: {so}"
    );
    assert!(
        so.contains("stale: \n"),
        "README.md lists names present here: {so}"
    );
}

/// numpy.random's bit streams are NumPy's: tests/numpy_diff/random_streams.py draws from
/// `default_rng`, `PCG64`, `SeedSequence` and the legacy `RandomState` in the test
/// CPython's NumPy and here, and every number must be the same to the bit.
#[test]
fn random_streams_are_numpys() {
    let Some(out) = against_numpy("random_streams.py", "random-streams") else {
        return;
    };
    assert!(out.contains("93 cases, 0 differ"), "{out}");
}

/// numpy.random's distributions (the Generator's, the legacy ones) against SciPy's in the
/// test CPython: tests/numpy_diff/random_stats.py draws seeded samples here and tests them
/// there (Kolmogorov-Smirnov, chi-square over counts; p below 1e-3 fails).
#[test]
fn random_distributions_match_scipys() {
    let Some(python) = common::cpython::python(&["numpy", "scipy"]) else {
        return;
    };
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("random-stats");
    std::fs::create_dir_all(&dir).unwrap();
    let drawn = dir.join("drawn.json");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/numpy_diff/random_stats.py"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tangent"))
        .args(["run", "--embedded", script, "draw"])
        .arg(&drawn)
        .output()
        .expect("run tangent");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let check = std::process::Command::new(&python)
        .args([script, "check"])
        .arg(&drawn)
        .output()
        .expect("run the test CPython");
    let so = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success(),
        "{so}\n{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(so.contains("39 distributions checked, 0 below"), "{so}");
}

/// Every dtype keeps its own element type: float32 arithmetic is single precision
/// (the weak Python scalar is cast to float32 first, as NumPy 2 does), int64 is exact
/// over its whole range and wraps around on overflow, complex arrays work where a
/// function has a complex version and are refused with the reason elsewhere, and
/// `np.linalg.eig` gives real results for real spectra.
#[test]
fn dtypes_keep_their_element_type() {
    check(
        r#"
import struct
f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]
a = np.array([0.1, 1.0 / 3.0], dtype=np.float32)
assert a.dtype == np.float32 and a.itemsize == 4 and a.nbytes == 8
# 0.1 is cast to float32, then multiplied in single precision
want = [f32(f32(0.1) * f32(0.1)), f32(f32(1.0 / 3.0) * f32(0.1))]
assert (a * 0.1).tolist() == want, ((a * 0.1).tolist(), want)
assert (a * 0.1).dtype == np.float32
assert (a + np.array([1.0])).dtype == np.float64
m = np.array([[1.5, 2.0], [0.25, -1.0]], dtype=np.float32)
p = m @ m
assert p.dtype == np.float32 and p.tolist() == [[2.75, 1.0], [0.125, 1.5]]
assert np.tanh(m).dtype == np.float32 and np.sum(m).__class__ is np.float32
t = np.array([0.1, 0.2, 0.3, 1e-3], dtype=np.float32)
for s in (np.sum(t), t.sum(), np.mean(t), t.max(), np.prod(t)):
    assert s == f32(s), s  # a float32 reduction is a float32 value
assert np.sum(t, axis=0) == f32(np.sum(t, axis=0))
big = 2 ** 62 + 1
b = np.array([big, -big, 2 ** 63 - 1, -(2 ** 63)])
assert b.dtype == np.int64 and b.tolist() == [big, -big, 2 ** 63 - 1, -(2 ** 63)]
assert (b + 1).tolist() == [big + 1, -big + 1, -(2 ** 63), -(2 ** 63) + 1]
assert (b * 2).tolist()[0] == -(2 ** 63) + 2
assert int(np.sum(b[:2])) == 0 and b[0] == big and b[::-1][3] == big
assert (b // 3).tolist()[0] == big // 3 and (b % 7).tolist()[1] == (-big) % 7
assert (-b).tolist()[3] == -(2 ** 63) and np.abs(b).tolist()[3] == -(2 ** 63)
c = b.copy(); c[1] = 5; assert c.tolist() == [big, 5, 2 ** 63 - 1, -(2 ** 63)]
c += 1; assert c[0] == big + 1
assert np.array([b, b]).tolist()[1][0] == big
assert np.sort(b).tolist() == [-(2 ** 63), -big, big, 2 ** 63 - 1]
assert np.argmax(b) == 2 and np.argmin(b) == 3 and np.argmax(np.array([big, big + 1])) == 1
# a function computing int64 in float64 refuses values it would round
try:
    np.exp2(np.array([big]))
    raise AssertionError("expected a refusal")
except NotImplementedError as e:
    assert "past 2**53" in str(e) and "tangent run --python" in str(e), str(e)
assert np.exp2(np.array([3])).tolist() == [8.0]
raises(OverflowError, "Python integer 9223372036854775808 out of bounds for int64", np.array, [2 ** 63])
assert np.iinfo(np.int64).max == 2 ** 63 - 1 and np.finfo(np.float32).eps == 2.0 ** -23
why = ("this function of the embedded numpy does not take complex numbers (complex arrays "
       "there have arithmetic, indexing, numpy.fft and the functions the README lists); run "
       "the script under CPython with real NumPy: `tangent run --python PYTHON script.py`")
# complex arrays: made, computed with and refused where a function has no complex version
z = np.array([1j, 2.0])
assert z.dtype == np.complex128 and z.tolist() == [1j, 2 + 0j] and not np.iscomplexobj(z.real)
assert (np.ones(2) * 1j).tolist() == [1j, 1j] and np.zeros(3, "complex128").shape == (3,)
assert np.ones(2).astype(complex).dtype == np.complex128 and np.complex128(1.0) == 1
v = z.real
v[0] = 5.0
assert z[0] == 5 + 1j, "z.real is a view, as NumPy's"
raises(NotImplementedError, why, np.tanh, z)
raises(NotImplementedError, why, np.cumprod, z)
raises(NotImplementedError, why, np.linalg.inv, np.array([[1j]]))
raises(NotImplementedError, why, np.cov, z)
raises(NotImplementedError, why, lambda: np.ones(2) % 1j)
raises(AttributeError, "'argmax' of the embedded numpy's complex arrays is not there (they "
       "have arithmetic, indexing, the shape methods, sum/mean/cumsum/prod/var/std/max/min, "
       "sort, conj, real/imag and numpy.fft); run the script under CPython with real NumPy "
       "for it: `tangent run --python PYTHON script.py`", lambda: z.argmax())
w, v = np.linalg.eig(np.array([[2.0, 1.0], [0.0, 3.0]]))
assert sorted(w.tolist()) == [2.0, 3.0] and w.dtype == np.float64
A = np.array([[2.0, 1.0], [0.0, 3.0]])
for i in range(2):
    assert np.allclose(A @ v[:, i], w[i] * v[:, i]) and abs(np.linalg.norm(v[:, i]) - 1) < 1e-12
assert sorted(np.linalg.eigvals(A).tolist()) == [2.0, 3.0]
raises(NotImplementedError, "eig: the matrix has complex eigenvalues; " + why,
       np.linalg.eig, np.array([[0.0, -1.0], [1.0, 0.0]]))
"#,
    );
}
