"""Objects built from differentiated values, for the corpus (reverse.py names them):
calls of classes resolve only through the live program, so the snapshot test, which
reads reverse.py's text, does not see them; tests/scripts/closure_sources.py shows
their generated source."""
import dataclasses
import math

import numpy as np


class Affine:
    def __init__(self, w, b):
        self.w = w
        self.b = b
        self.wb = self.w * b
        self.name = "affine"

    def apply(self, x):
        return self.w * x + self.b


@dataclasses.dataclass
class Scale:
    k: float

    def times(self, x):
        return self.k * x


def object_from_args(w, x):
    layer = Affine(w, 0.5 * w)
    s = Scale(k=math.tanh(w))
    return np.sum(layer.apply(x) * s.times(x)) + layer.wb
