import math
import numpy as np
import tangent


def angle_loss(x):
    return np.sum(np.sinc(x) * 2.0)


try:
    tangent.grad(angle_loss)
except tangent.TangentError as e:
    print("before:", str(e).splitlines()[0])
    print("template shown:", "@tangent.adjoint(numpy.sinc)" in str(e))


# sinc(x) = sin(pi x) / (pi x): its slope away from 0
@tangent.adjoint(np.sinc)
def sinc_adjoint(y, x):
    d[x] = d[y] * (np.cos(math.pi * x) - y) / x


@tangent.tangent_(np.sinc)
def sinc_tangent(y, x):
    d[y] = d[x] * (np.cos(math.pi * x) - y) / x


x = np.array([0.1, 0.2, 0.3])
print("reverse:", [round(v, 9) for v in tangent.grad(angle_loss)(x).tolist()])
print("forward:", round(tangent.autodiff(angle_loss, mode="forward")(x, np.array([1.0, 1.0, 0.0])), 9))


# An argument a rule does not differentiate is an error at the call, not a zero: numpy's
# polyint rule gives no derivative with respect to the integration constants k.
def with_constant(p, k):
    return np.sum(np.polyint(p, 1, k))


for mode in ("reverse", "forward"):
    try:
        tangent.autodiff(with_constant, wrt=(1,), mode=mode)
        print(mode, "constant: no error")
    except tangent.TangentError as e:
        print(mode, "constant:", str(e).splitlines()[0])
