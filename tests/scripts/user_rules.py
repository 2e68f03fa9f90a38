import math
import numpy as np
import tangent


def power_loss(x):
    return math.exp2(x) * 2.0


try:
    tangent.grad(power_loss)
except tangent.TangentError as e:
    print("before:", str(e).splitlines()[0])
    print("template shown:", "@tangent.adjoint(math.exp2)" in str(e))


# exp2(x) = 2**x: its slope is 2**x ln 2
@tangent.adjoint(math.exp2)
def exp2_adjoint(y, x):
    d[x] = d[y] * y * math.log(2.0)


@tangent.tangent_(math.exp2)
def exp2_tangent(y, x):
    d[y] = d[x] * y * math.log(2.0)


print("reverse:", [round(tangent.grad(power_loss)(v), 9) for v in (0.1, 0.2, 0.3)])
print("forward:", round(tangent.autodiff(power_loss, mode="forward")(0.5, 1.0), 9))


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
