# Derivative rules for numpy.linalg and the other matrix functions of NumPy (einsum,
# tensordot, trace, ...). Template conventions as in python.py. Runtime helpers for
# these rules live in stdlib-shims/tangent_numpy_grads.py and are reached as `tangent.*`.

nondifferentiable(numpy.linalg.matrix_rank)
