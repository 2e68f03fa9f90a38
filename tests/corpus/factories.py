"""Factories of closures for the corpus (reverse.py): kept out of reverse.py, whose every
`def` is differentiated by the snapshot tests without a host, where closure cells cannot
be read."""
import math

import numpy as np


def make_scaled_loss(w):
    def scaled_loss(x):
        return w * np.sum(np.tanh(x)) + math.cos(w)
    return scaled_loss


def make_head(a):
    def inner(x):
        return a * np.sin(x)

    def make(b):
        def head(x, y):
            return np.sum(inner(x) * b + a * y * x)
        return head
    return make


def make_order_loss(data, knots):
    def order_loss(x):
        # `data` is the very array passed as x (reverse.py's CASES): read through the
        # closure it is a constant, through the argument it is differentiated
        y = x * data
        return (np.median(y) + np.nanmax(np.fmin(x, data + 0.5))
                + np.sum(np.interp(x, knots, data) * x) + np.ptp(data - x * x))
    return order_loss
