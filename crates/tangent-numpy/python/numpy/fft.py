"""`numpy.fft` of the embedded numpy: NumPy 2's discrete Fourier transforms.

Three native kernels (`src/fft.rs`, rustfft's and realfft's plans: any length) do the
work along one axis each, lengths (`n`/`s`: trimming or zero padding) and scaling
included: `_fft_c2c` (complex transforms), `_fft_r2c` (`rfft`: the `n//2 + 1`
non-negative frequency terms of a real signal) and `_fft_c2r` (`irfft`: the imaginary
parts of the zero and Nyquist terms ignored, as NumPy). This module adds NumPy's
arguments: normalisations (`norm`: 'backward', the default, 'ortho', 'forward'), axes,
the n-dimensional forms (one axis after another) and `out=`. Results are complex128
(complex64 for float32 and complex64 input, as NumPy 2), and float64 or float32 for the
real outputs. See `numpy/_complex.py` for the complex arrays.
"""
import math as _math

import _numpy_native as _nn
import numpy as np
from numpy import _complex as _cx

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
           "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq",
           "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")


def _check_norm(norm):
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError('Invalid norm value %s; should be "backward","ortho" or '
                         '"forward".' % (norm,))
    return norm


def _swap_direction(norm):
    norm = _check_norm(norm)
    return {"backward": "forward", "ortho": "ortho", "forward": "backward"}[norm]


def _scale(norm, n, inverse):
    """The factor of NumPy's normalisation of a transform of length `n` (`norm` None is
    'backward')."""
    if norm is None or norm == "backward":
        return 1.0 / n if inverse else 1.0
    if norm == "ortho":
        return 1.0 / _math.sqrt(n)
    if norm == "forward":
        return 1.0 if inverse else 1.0 / n
    _check_norm(norm)


def _axis(axis, ndim):
    if not -ndim <= axis < ndim:
        raise IndexError("axis %d is out of bounds for array of dimension %d"
                           % (axis, ndim))
    return axis % ndim


def _complex_input(a):
    """`a` as parts (float64, or float32 for single precision input) and whether it is
    single precision; `im` None for real input."""
    if type(a) is np.ndarray:
        name = a.dtype.name
        if name == "float64":
            return a, None, False
        if name == "float32":
            return a, None, True
        return a.astype(np.float64), None, False
    if isinstance(a, (_cx.complexarray, complex)) or (
            isinstance(a, (list, tuple)) and not isinstance(_try_real(a), np.ndarray)):
        z = _cx.asarray(a)
        return z._re, z._im, z._re.dtype == np.float32
    re = np.asarray(a)
    single = re.dtype == np.float32
    if not single and re.dtype != np.float64:
        re = re.astype(np.float64)
    return re, None, single


def _try_real(a):
    try:
        return np.asarray(a)
    except NotImplementedError:
        return None


def _length(n, have):
    if n is None:
        n = have
    if n < 1:
        raise ValueError("Invalid number of FFT data points (%d) specified." % (n,))
    return n


def _raw(re, im, n, axis, norm, inverse, keep=None):
    """The transform of parts along one axis (taken at length `n`), scaled, its first
    `keep` terms kept: float64 parts."""
    axis = _axis(axis, re.ndim)
    n = _length(n, re.shape[axis])
    return _nn._fft_c2c(re, im, axis, n, inverse, _scale(norm, n, inverse),
                        n if keep is None else keep)


def _result(re, im, single, out):
    if single:
        re, im = re.astype(np.float32), im.astype(np.float32)
    if out is None:
        return _cx.complexarray(re, im)
    out[...] = _cx.complexarray(re, im)
    return out


def _c2c(a, n, axis, norm, out, inverse):
    re, im, single = _complex_input(a)
    if re.ndim == 0:
        raise IndexError("axis %d is out of bounds for array of dimension 0" % (axis,))
    re, im = _raw(re, im, n, axis, norm, inverse)
    return _result(re, im, single, out)


def _plain(a, n, axis, norm, out):
    """The length of the last axis when the call is the plain `f(a)` of a non-empty
    float64 array (what most calls are): no argument to read but the array; else 0."""
    if type(a) is np.ndarray and n is None and axis == -1 and norm is None \
            and out is None and a.dtype.name == "float64":
        shape = a.shape
        if shape:
            return shape[-1]
    return 0


def fft(a, n=None, axis=-1, norm=None, out=None):
    """The one-dimensional discrete Fourier transform along `axis`."""
    m = _plain(a, n, axis, norm, out)
    if m:
        re, im = _nn._fft_c2c(a, None, a.ndim - 1, m, False, 1.0, m)
        return _cx.complexarray(re, im)
    return _c2c(a, n, axis, norm, out, False)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of `fft`."""
    return _c2c(a, n, axis, norm, out, True)


def _nd_args(a, s, axes, ndim):
    """NumPy's `s` and `axes` of an n-dimensional transform."""
    if s is None:
        if axes is None:
            axes = list(range(ndim))
        axes = [_axis(ax, ndim) for ax in axes]
        return [None] * len(axes), axes
    s = list(s)
    if axes is None:
        axes = list(range(ndim - len(s), ndim))
    axes = [_axis(ax, ndim) for ax in axes]
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    return s, axes


def _c2c_nd(a, s, axes, norm, out, inverse):
    re, im, single = _complex_input(a)
    norm = _check_norm(norm)
    s, axes = _nd_args(a, s, axes, re.ndim)
    for k in reversed(range(len(axes))):
        re, im = _raw(re, im, s[k], axes[k], norm, inverse)
    if im is None:
        im = np.zeros(re.shape)
    return _result(re, im, single, out)


def fftn(a, s=None, axes=None, norm=None, out=None):
    """The n-dimensional discrete Fourier transform (over every axis by default)."""
    return _c2c_nd(a, s, axes, norm, out, False)


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """The inverse of `fftn`."""
    return _c2c_nd(a, s, axes, norm, out, True)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The two-dimensional transform (the last two axes by default)."""
    return _c2c_nd(a, s, axes, norm, out, False)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The inverse of `fft2`."""
    return _c2c_nd(a, s, axes, norm, out, True)


def _real_input(a, name):
    re, im, single = _complex_input(a)
    if im is not None:
        raise TypeError("ufunc '%s' not supported for the input types, and the inputs "
                        "could not be safely coerced to any supported types according "
                        "to the casting rule ''safe''" % (name,))
    return re, single


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """The transform of real input: the `n//2 + 1` non-negative frequency terms."""
    m = _plain(a, n, axis, norm, out)
    if m:
        r, i = _nn._fft_r2c(a, a.ndim - 1, m, 1.0)
        return _cx.complexarray(r, i)
    re, single = _real_input(a, "rfft_n_even" if (n or 0) % 2 == 0 else "rfft_n_odd")
    if re.ndim == 0:
        raise IndexError("axis %d is out of bounds for array of dimension 0" % (axis,))
    ax = _axis(axis, re.ndim)
    n = _length(n, re.shape[ax])
    r, i = _nn._fft_r2c(re, ax, n, _scale(norm, n, False))
    return _result(r, i, single, out)


def _real_result(r, single, out):
    r = r.astype(np.float32) if single else r
    if out is not None:
        out[...] = r
        return out
    return r


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of `rfft`: a real signal of length `n` (`2*(m - 1)` by default)."""
    re, im, single = _complex_input(a)
    if re.ndim == 0:
        raise IndexError("axis %d is out of bounds for array of dimension 0" % (axis,))
    ax = _axis(axis, re.ndim)
    n = _length(2 * (re.shape[ax] - 1) if n is None else n, 0)
    r = _nn._fft_c2r(re, im, ax, n, _scale(norm, n, True))
    return _real_result(r, single, out)


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """`rfft` over the last axis of `axes`, then `fft` over the others."""
    re, single = _real_input(a, "rfft_n_even")
    norm = _check_norm(norm)
    s, axes = _nd_args(a, s, axes, re.ndim)
    last = axes[-1]
    n = _length(s[-1], re.shape[last])
    r, i = _nn._fft_r2c(re, last, n, _scale(norm, n, False))
    for k in reversed(range(len(axes) - 1)):
        r, i = _raw(r, i, s[k], axes[k], norm, False)
    return _result(r, i, single, out)


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """The inverse of `rfftn`."""
    re, im, single = _complex_input(a)
    norm = _check_norm(norm)
    s, axes = _nd_args(a, s, axes, re.ndim)
    for k in range(len(axes) - 1):
        re, im = _raw(re, im, s[k], axes[k], norm, True)
    last = axes[-1]
    n = _length(2 * (re.shape[last] - 1) if s[-1] is None else s[-1], 0)
    r = _nn._fft_c2r(re, im, last, n, _scale(norm, n, True))
    return _real_result(r, single, out)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return rfftn(a, s, axes, norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return irfftn(a, s, axes, norm, out)


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """The transform of a signal with Hermitian symmetry (given by its first half): a
    real spectrum."""
    return irfft(_cx.conjugate(_cx.asarray(a)), n, axis, _swap_direction(norm), out)


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of `hfft`."""
    r = rfft(a, n, axis, _swap_direction(norm))
    r = _cx.conjugate(r)
    if out is not None:
        out[...] = r
        return out
    return r


def fftfreq(n, d=1.0, device=None):
    """The sample frequencies of `fft`'s terms for `n` samples `d` apart."""
    if not isinstance(n, int):
        raise ValueError("n should be an integer")
    val = 1.0 / (n * d)
    results = np.empty(n, dtype=int)
    N = (n - 1) // 2 + 1
    results[:N] = np.arange(0, N, dtype=int)
    results[N:] = np.arange(-(n // 2), 0, dtype=int)
    return results * val


def rfftfreq(n, d=1.0, device=None):
    """The sample frequencies of `rfft`'s terms for `n` samples `d` apart."""
    if not isinstance(n, int):
        raise ValueError("n should be an integer")
    val = 1.0 / (n * d)
    return np.arange(0, n // 2 + 1, dtype=int) * val


def _shifted(x, axes, sign):
    z = x if isinstance(x, _cx.complexarray) else np.asarray(x)
    if axes is None:
        axes = tuple(range(z.ndim))
    elif isinstance(axes, int):
        axes = (axes,)
    for ax in axes:
        z = np.roll(z, sign * (z.shape[ax] // 2), ax)
    return z


def fftshift(x, axes=None):
    """The zero-frequency term moved to the centre (along `axes`, all by default)."""
    return _shifted(x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of `fftshift`."""
    return _shifted(x, axes, -1)
