# Custom derivatives (tangent.custom_vjp / custom_jvp) and tangent.stop_gradient, each
# checked against an independent oracle: the analytic derivative or central finite
# differences (never tangent's own output). Prints "ok NAME" or "FAIL NAME ...", then the
# first line of each expected error.
import math
import numpy as np
import tangent


def check(name, got, want, tol=1e-6):
    got_a, want_a = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    good = got_a.shape == want_a.shape and bool(np.all(np.abs(got_a - want_a) <= tol * (1.0 + np.abs(want_a))))
    print(("ok " if good else "FAIL ") + name + ("" if good else ": got %r, want %r" % (got, want)))


def fd(f, x, h=1e-5):
    """Central differences of a scalar function, at a float or each element of an array."""
    if isinstance(x, float):
        return (f(x + h) - f(x - h)) / (2 * h)
    out = np.zeros(x.shape)
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = h
        e = e.reshape(x.shape)
        out.reshape(-1)[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def fd2(f, x, h=1e-4):
    """Second central difference of a scalar function of a float."""
    return (f(x + h) - 2 * f(x) + f(x - h)) / (h * h)


def error_line(thunk):
    try:
        thunk()
    except (tangent.TangentError, TypeError) as e:
        return str(e).splitlines()[0]
    return "no error"


# 1. A custom_vjp whose primal is a Newton iteration (a while loop on floats) and whose
#    backward rule is the implicit-function-theorem derivative of y**3 = a.
@tangent.custom_vjp
def cbrt(a):
    y = a if a > 1.0 else 1.0
    steps = 0
    while abs(y * y * y - a) > 1e-13 * a and steps < 100:
        y = y - (y * y * y - a) / (3.0 * y * y)
        steps = steps + 1
    return y


def cbrt_fwd(a):
    y = cbrt(a)
    return y, y


def cbrt_bwd(y, g):
    return (g / (3.0 * y * y),)


cbrt.defvjp(cbrt_fwd, cbrt_bwd)


def cbrt_loss(a):
    y = cbrt(a)
    return y * y + math.sin(y)


def cbrt_helper(a):
    return cbrt(a) * 2.0


def cbrt_outer(a):
    return cbrt_helper(a) + a * a


def cbrt_loop(a):
    s = 0.0
    for i in range(4):
        s = s * 0.5 + cbrt(a + i * s)
    return s


a = 5.0
y = a ** (1.0 / 3.0)
check("plain call", cbrt(a), y)
check("newton/ift analytic", tangent.grad(cbrt_loss)(a), (2 * y + math.cos(y)) / (3 * y * y))
check("newton/ift fd", tangent.grad(cbrt_loss)(a), fd(cbrt_loss, a))
check("newton/ift unoptimized", tangent.grad(cbrt_loss, optimized=False)(a), fd(cbrt_loss, a))
check("through a callee", tangent.grad(cbrt_outer)(a), 2.0 / (3 * y * y) + 2 * a)
check("in a loop (residuals on the tape)", tangent.grad(cbrt_loop)(a), fd(cbrt_loop, a))
check("grad of the custom function itself", tangent.grad(cbrt)(8.0), 1.0 / 12.0)
check("split motion", tangent.autodiff(cbrt_loss, motion="split")(a), fd(cbrt_loss, a))


# A custom function with a tuple output; rules that are closures of a factory.
@tangent.custom_vjp
def pair(a):
    return a * 2.0, a * a


pair.defvjp(lambda a: (pair(a), a), lambda a, g: (2.0 * g[0] + 2.0 * a * g[1],))


def pair_loss(a):
    p, q = pair(a)
    return p * q


def make_clipper(bound):
    @tangent.custom_vjp
    def clip(x):
        return x

    def fwd(x):
        return x, None

    def bwd(res, g):
        return (max(-bound, min(bound, g)),)

    clip.defvjp(fwd, bwd)
    return clip


clip_half = make_clipper(0.5)


def uses_clip_half(x):
    return clip_half(x) * 3.0


check("tuple output", tangent.grad(pair_loss)(1.5), 6 * 1.5 ** 2)
check("rules from a factory's closure", tangent.grad(uses_clip_half)(1.0), 0.5)
check("compile='auto' (runs interpreted)", tangent.grad(cbrt_loss, compile="auto")(a), fd(cbrt_loss, a))


# 2. A custom_vjp that clips the gradient: the rule must be the one used (the plain
#    derivative of the identity would give w).
@tangent.custom_vjp(nondiff_argnums=(1,))
def clip_gradient(x, bound):
    return x


def clip_fwd(x, bound):
    return x, None


def clip_bwd(bound, res, g):
    return (np.clip(g, -bound, bound),)


clip_gradient.defvjp(clip_fwd, clip_bwd)
w = np.array([0.5, 3.0, -4.0])


def clipped(x):
    z = clip_gradient(x * 2.0, 1.0)
    return np.sum(z * w)


x = np.array([0.3, -0.2, 1.5])
check("clipped gradient (the user's formula)", tangent.grad(clipped)(x), 2.0 * np.clip(w, -1.0, 1.0))


# 3. custom_jvp of a numerically stable log(1 + exp(x)), forward and reverse.
@tangent.custom_jvp
def log1pexp(x):
    return np.log1p(np.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + np.exp(x)))


def softplus_loss(x):
    return np.sum(log1pexp(x) * w)


def softplus_scalar(x):
    return log1pexp(x) * x


x = np.array([0.3, -1.2, 2.5])
sig = 1.0 / (1.0 + np.exp(-x))
check("custom_jvp reverse (array) analytic", tangent.grad(softplus_loss)(x), w * sig)
check("custom_jvp reverse (array) fd", tangent.grad(softplus_loss)(x), fd(softplus_loss, x))
v = np.array([1.0, -2.0, 0.5])
check("custom_jvp forward (array)", tangent.autodiff(softplus_loss, mode="forward")(x, v),
      np.sum(fd(softplus_loss, x) * v))
check("custom_jvp reverse (float)", tangent.grad(softplus_scalar)(0.7), fd(softplus_scalar, 0.7))
check("custom_jvp forward (float)", tangent.autodiff(softplus_scalar, mode="forward")(0.7, 1.0),
      fd(softplus_scalar, 0.7))
check("custom_jvp of the function itself, forward", tangent.autodiff(log1pexp, mode="forward")(0.7, 2.0),
      2.0 / (1.0 + math.exp(-0.7)))


# A straight-through estimator: round in the primal, identity in the rule. The plain
# derivative of round is zero; the rule says one, in both modes.
@tangent.custom_jvp
def straight_round(x):
    return np.round(x)


def straight_round_jvp(primals, tangents):
    return straight_round(primals[0]), tangents[0]


straight_round.defjvp(straight_round_jvp)


def rounded(x):
    return np.sum(straight_round(x) * w)


check("straight-through reverse (the rule is used)", tangent.grad(rounded)(x), w)
check("straight-through forward (the rule is used)",
      tangent.autodiff(rounded, mode="forward")(x, v), np.sum(w * v))


# 4. stop_gradient: the value, with a zero derivative.
def stopped(x):
    return x * tangent.stop_gradient(x)


def stopped_array(x):
    return np.sum(x * tangent.stop_gradient(x * x))


def stopped_loop(x):
    s = x
    for i in range(3):
        s = s * tangent.stop_gradient(s)
    return s


def stopped_cube(x):
    return x ** 3 * tangent.stop_gradient(x)


check("stop_gradient value", stopped(3.0), 9.0)
check("stop_gradient reverse", tangent.grad(stopped)(3.0), 3.0)
check("stop_gradient forward", tangent.autodiff(stopped, mode="forward")(3.0, 1.0), 3.0)
check("stop_gradient array reverse", tangent.grad(stopped_array)(x), x * x)
check("stop_gradient array forward", tangent.autodiff(stopped_array, mode="forward")(x, v),
      np.sum(x * x * v))
check("stop_gradient in a loop", tangent.grad(stopped_loop)(1.3), 1.3 ** 7)
check("stop_gradient second order", tangent.grad(tangent.grad(stopped_cube))(1.3), 6 * 1.3 ** 2)
keep = np.array([1.0, 2.0])
copy = tangent.stop_gradient(keep)
copy[0] = 5.0
check("stop_gradient copies a mutable array", keep, [1.0, 2.0])

# 5. Second order through a custom function differentiates its rules (as JAX does):
#    forward over reverse and grad of grad through a custom_jvp rule, literal reverse
#    over reverse through a custom_vjp's fwd and bwd. cbrt_fwd calls cbrt itself, which
#    has no forward-mode rule: forward over reverse through it is a located error (as in
#    JAX); forward over forward through a custom rule too.
check("second order through custom_jvp", tangent.grad(tangent.grad(softplus_scalar))(0.7),
      fd2(softplus_scalar, 0.7), tol=1e-5)
tangent.literal_reverse_over_reverse = True
check("reverse over reverse through custom_vjp", tangent.grad(tangent.grad(cbrt_loss))(a),
      fd2(cbrt_loss, a), tol=1e-5)
tangent.literal_reverse_over_reverse = False
print("forward over reverse through cbrt:", error_line(
    lambda: tangent.jvp(tangent.grad(cbrt_loss))(a, 1.0, 1.0)))
print("forward over forward:", error_line(lambda: tangent.autodiff(
    tangent.autodiff(softplus_scalar, mode="forward"), mode="forward")(0.7, 1.0, 1.0)))
check("second order of stop_gradient vs second differences",
      tangent.grad(tangent.grad(stopped_cube))(0.9), fd2(lambda t: t ** 3 * 0.9, 0.9))


# 6. Bad inputs: clear, located errors.
@tangent.custom_vjp
def never_defined(x):
    return x * 2.0


def uses_never_defined(x):
    return never_defined(x) + x


@tangent.custom_vjp
def too_many(x):
    return x


too_many.defvjp(lambda x: (x, None), lambda res, g: (g, g))


def uses_too_many(x):
    return too_many(x) * 2.0


def wrong_shape_bwd(res, g):
    return (np.sum(g),)


@tangent.custom_vjp
def wrong_shape(x):
    return x * 1.0


wrong_shape.defvjp(lambda x: (x * 1.0, None), wrong_shape_bwd)


def uses_wrong_shape(x):
    return np.sum(wrong_shape(x))


def forward_through_vjp(x):
    return cbrt(x) * x


def active_nondiff(x):
    return np.sum(clip_gradient(x, x[0]))


print("never defined:", error_line(lambda: tangent.grad(uses_never_defined)))
print("too many entries:", error_line(lambda: tangent.grad(uses_too_many)(1.0)))
print("wrong shape:", error_line(lambda: tangent.grad(uses_wrong_shape)(x)))
print("forward through custom_vjp:",
      error_line(lambda: tangent.autodiff(forward_through_vjp, mode="forward")))
print("active nondiff argument:", error_line(lambda: tangent.grad(active_nondiff)))
def by_keyword(x):
    return clip_half(x=x)


print("keyword argument:", error_line(lambda: tangent.grad(by_keyword)))
print("not a function:", error_line(lambda: tangent.custom_vjp(3.0)))


# 7. Odd control flow, in-place updates and aliasing around custom calls (against finite
#    differences, optimizer on and off).
def odd_flow(a):
    s = 0.0
    i = 0
    while i < 10:
        if s > 3.0:
            break
        if i % 2 == 0:
            s = s + cbrt(a + s)
        else:
            s = s + log1pexp(s * a)
        i = i + 1
    return s


def odd_flow_jvp(a):
    s = a
    for i in range(6):
        if s > 4.0:
            continue
        s = s + log1pexp(s * a)
        if i == 4:
            break
    return s


def inplace_after(x):
    y = x * 1.0
    z = log1pexp(y)
    y[0] = 10.0
    return np.sum(z * y)


def alias_out(x):
    x2 = x * 2.0
    z = clip_gradient(x2, 100.0)
    z[0] = 0.0
    return np.sum(z * x2)


for opt in (True, False):
    check("odd control flow optimized=%s" % opt, tangent.grad(odd_flow, optimized=opt)(2.0), fd(odd_flow, 2.0))
check("odd control flow, custom_jvp, reverse", tangent.grad(odd_flow_jvp)(0.8), fd(odd_flow_jvp, 0.8))
check("odd control flow, custom_jvp, forward",
      tangent.autodiff(odd_flow_jvp, mode="forward")(0.8, 1.0), fd(odd_flow_jvp, 0.8))
# The result of a custom function may be its argument (clip_gradient returns x itself),
# so a store into either is refused where it is written.
print("store into an argument after the call:", error_line(lambda: tangent.grad(inplace_after)(x)))
print("store into a custom function's result:", error_line(lambda: tangent.grad(alias_out)(x)))
