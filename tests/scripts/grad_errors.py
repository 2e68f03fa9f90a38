import sys
import numpy as np
import tangent


def vector_out(x):
    return x * 2.0


def uses_with(x):
    with open("nothing") as fh:
        y = x
    return y


df = tangent.grad(vector_out)
try:
    df(np.array([1.0, 2.0]))
except ValueError as e:
    print("check_dims:", e)

# With a seed of the output's shape it is a vector-Jacobian product.
print("seeded:", df(np.array([1.0, 2.0]), np.array([1.0, 3.0])).tolist())

try:
    df(1.0, 2.0, 3.0)
except TypeError as e:
    print("arity:", e)

try:
    tangent.grad(uses_with)
except tangent.TangentError as e:
    print("fence:", str(e).splitlines()[0])

print("argv:", sys.argv[1:])
g = tangent.grad(vector_out, verbose=1, check_dims=False)
print("source attr:", g.__tangent_source__.splitlines()[0])
