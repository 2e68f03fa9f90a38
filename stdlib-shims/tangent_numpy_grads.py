"""Runtime helpers for the NumPy derivative rules (backends/numpy.py, backends/linalg.py).

`tangent` re-exports every public name of this module, so generated code calls them as
`tangent.<name>`. Helpers that need tangent's own helpers import it inside the function
(this module is loaded before `tangent`).
"""
import numpy
