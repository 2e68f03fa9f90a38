# An uncaught TangentError: the traceback shows the user's frames, not tangent's shims.
import tangent


def f(x):
    return sorted([x, 1.0])[0]


tangent.grad(f)
