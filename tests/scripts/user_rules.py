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
