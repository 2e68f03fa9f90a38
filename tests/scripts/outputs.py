import numpy as np
import tangent


def two(x, y):
    return x * y, x + y * y


def with_array(a):
    return np.sum(a * a), a * 2.0


print("index 0:", tangent.grad(two, wrt=(0, 1), output_index=0)(2.0, 3.0))
print("index 1:", tangent.grad(two, wrt=(0, 1), output_index=1)(2.0, 3.0))
print("index -1:", tangent.grad(two, output_index=-1)(2.0, 3.0))
print("weights:", tangent.grad(two, wrt=(0, 1), output_weights=(0.5, 2.0))(2.0, 3.0))
print("array, index 0:", tangent.grad(with_array, output_index=0)(np.array([1.0, 2.0])).tolist())
for kwargs in ({}, {"output_index": 2}, {"output_weights": (1.0,)}):
    try:
        tangent.grad(two, **kwargs)(2.0, 3.0)
    except (ValueError, IndexError) as e:
        print(type(e).__name__ + ":", e)
