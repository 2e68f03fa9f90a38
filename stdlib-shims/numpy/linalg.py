"""numpy.linalg over the native module (faer-backed where it matters)."""
from _numpy_native import norm

__all__ = ["norm"]
