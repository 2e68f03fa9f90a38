import math
import numpy as np
import tangent


def angle_loss(x):
    return np.sum(np.degrees(x) * 2.0)


try:
    tangent.grad(angle_loss)
except tangent.TangentError as e:
    print("before:", str(e).splitlines()[0])
    print("template shown:", "@tangent.adjoint(numpy.degrees)" in str(e))


@tangent.adjoint(np.degrees)
def degrees_adjoint(y, x):
    d[x] = d[y] * (180.0 / math.pi)


@tangent.tangent_(np.degrees)
def degrees_tangent(y, x):
    d[y] = d[x] * (180.0 / math.pi)


x = np.array([0.1, 0.2, 0.3])
print("reverse:", [round(v, 9) for v in tangent.grad(angle_loss)(x).tolist()])
print("forward:", round(tangent.autodiff(angle_loss, mode="forward")(x, np.array([1.0, 1.0, 0.0])), 9))
