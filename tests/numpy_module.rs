//! The embedded `numpy`: Python snippets run in the interpreter and assert on results.

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
assert float(np.array([2.5])) == 2.5
assert int(np.array([[3.7]])) == 3
raises(TypeError, "only length-1 arrays can be converted to Python scalars", float, a)
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
raises(ValueError, "cannot reshape array of size 6 into shape (4, 2)", a.reshape, (4, 2))
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
eq(repr(np.arange(2000)), "array([   0,    1,    2, ..., 1997, 1998, 1999])")
eq(repr(np.float64), "<class 'float'>")
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
"#,
    );
}
