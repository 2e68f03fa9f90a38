"""Complex values between real inputs and a real result: angle and numpy.fft.

The rules' convention for a complex value z = x + iy is JAX's: its adjoint is
dL/dx - i dL/dy and its tangent dx + i dy. Rules of holomorphic functions are then the
real ones unchanged (no conjugates), a linear map's adjoint is its transpose, and the
adjoint or tangent of a real value stays real (the helpers take the real part where a
complex gradient reaches a real value: `unbroadcast`, `array_grad`, `cast_like`).

Every transform of numpy.fft is linear, and the DFT matrix is symmetric: the adjoint of
fft is fft and of ifft ifft (same `norm`), on the lengths the transform used, fitted back
to the input's (a transform pads or truncates its input to `n`/`s`). rfft is the first
n//2 + 1 rows of fft on a real input: its adjoint is the real part of fft of the gradient
padded with zeros to n. irfft reads each interior frequency twice (it and its conjugate)
and the zero and Nyquist ones once, real part only: its adjoint is ifft of the gradient
truncated to n//2 + 1, the interior terms doubled. hfft and ihfft are irfft and rfft of
conjugates with the opposite normalisation. NumPy's only (both hosts' numpy.fft)."""
from tangent._grads_common import _is_zero, _tg, _xp_complex, numpy  # noqa: F401
from tangent._registry import _is_complex
from tangent._runtime import real_like

_ONE_AXIS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
_TWO_AXES = ("fft2", "ifft2", "rfft2", "irfft2")
_SWAPPED = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def angle_grad(g, z, deg=False):
    """The adjoint of `numpy.angle(z, deg)`: -i g / z (0 where z is 0, and for a real z,
    whose angle is piecewise constant)."""
    xp = _xp_complex(g, z)
    if not _is_complex(z):
        return _tg().array_grad(0.0 * xp.asarray(g), z)
    size = xp.abs(z) ** 2
    out = xp.where(size == 0, 0, -1j * g * xp.conj(z) / xp.where(size == 0, 1, size))
    return out * (57.29577951308232 if deg else 1.0)


def angle_tangent(t, z, deg=False):
    """The tangent of `numpy.angle(z, deg)`: Im(t / z) (0 where z is 0 or real)."""
    xp = _xp_complex(t, z)
    if not _is_complex(z):
        return 0.0 * xp.real(xp.asarray(t))
    size = xp.abs(z) ** 2
    out = xp.where(size == 0, 0, xp.imag(xp.conj(z) * t) / xp.where(size == 0, 1, size))
    return out * (57.29577951308232 if deg else 1.0)


def _zero_grad(g, x):
    """A zero gradient of `x` (for a real `x`, the helpers' derivatives below)."""
    return _tg().array_grad(0.0 * _xp_complex(g, x).asarray(g), x)


def sign_tangent(t, z):
    """The tangent of tangent.sign(z): 0 for a real z (piecewise constant); for a complex
    z, of s = conj(z) / |z|: conj(t) / |z| - conj(z) Re(conj(z) t) / |z|^3 (0 at 0)."""
    if not _is_complex(z):
        return _zero_grad(t, z)
    xp = _xp_complex(t, z)
    r = xp.abs(z)
    safe = xp.where(r == 0, 1.0, r)
    out = xp.conj(t) / safe - xp.conj(z) * xp.real(xp.conj(z) * t) / safe ** 3
    return xp.where(r == 0, 0, out)


def sign_grad(g, z):
    """The adjoint of tangent.sign(z): 0 for a real z; for a complex z, the transpose of
    sign_tangent: conj(g) / |z| - Re(g conj(z)) conj(z) / |z|^3 (0 at 0)."""
    if not _is_complex(z):
        return _zero_grad(g, z)
    xp = _xp_complex(g, z)
    r = xp.abs(z)
    safe = xp.where(r == 0, 1.0, r)
    out = xp.conj(g) / safe - xp.real(g * xp.conj(z)) * xp.conj(z) / safe ** 3
    return _tg().unbroadcast(xp.where(r == 0, 0, out), z)


def _inverse_square(xp, z):
    """1 / z^2, 0 where z is 0."""
    safe = xp.where(z == 0, 1.0, z)
    return xp.where(z == 0, 0, 1.0 / (safe * safe))


def angle_grad_tangent_full(tg, tz, g, z, deg=False):
    """The tangent of angle_grad(g, z) = -i g / z: angle_grad(tg, z) + i g tz / z^2."""
    out = None if _is_zero(tg) else angle_grad(tg, z, deg)
    if _is_complex(z) and not _is_zero(tz):
        xp = _xp_complex(g, z)
        extra = 1j * g * tz * _inverse_square(xp, z) * (57.29577951308232 if deg else 1.0)
        out = extra if out is None else out + extra
    return angle_grad(0.0 * g, z, deg) if out is None else out


def angle_tangent_tangent_full(tt, tz, t, z, deg=False):
    """The tangent of angle_tangent(t, z) = Im(t / z): Im(tt / z) - Im(t tz / z^2)."""
    out = None if _is_zero(tt) else angle_tangent(tt, z, deg)
    if _is_complex(z) and not _is_zero(tz):
        xp = _xp_complex(t, z)
        extra = -xp.imag(t * tz * _inverse_square(xp, z)) * (57.29577951308232 if deg else 1.0)
        out = extra if out is None else out + extra
    return angle_tangent(0.0 * _real_part(t), z, deg) if out is None else out


def _real_part(t):
    return _xp_complex(t).real(t)


def angle_grad_adjoint_z(c, g, z, deg=False, imaginary=False):
    """The adjoint with respect to z of angle_grad(g, z) = -i g / z (the cotangent `c`
    complex): c i g / z^2; of angle_tangent(g, z) = Im(g / z) (`imaginary`, `c` real): the
    same, both holomorphic in z. Zero for a real z."""
    if not _is_complex(z):
        return _zero_grad(c, z)
    xp = _xp_complex(c, g, z)
    out = c * 1j * g * _inverse_square(xp, z) * (57.29577951308232 if deg else 1.0)
    return _tg().unbroadcast(out, z)


def _plan(kind, a, s, axes):
    """(lengths, axes): the transform's length along each of its axes (non-negative) for
    input `a`, as NumPy reads `n`/`s` and `axis`/`axes`."""
    shape = tuple(numpy.shape(a))
    ndim = len(shape)
    if kind in _ONE_AXIS:
        axes = (axes,)
        s = None if s is None else (s,)
    elif axes is None:
        axes = (-2, -1) if kind in _TWO_AXES and s is None else (
            tuple(range(-len(s), 0)) if s is not None else tuple(range(ndim)))
    axes = tuple(int(ax) % ndim for ax in axes)
    if s is None:
        s = [shape[ax] for ax in axes]
        if kind.startswith("irfft") or kind == "hfft":
            s[-1] = 2 * (shape[axes[-1]] - 1)  # the Hermitian half's full length
    return tuple(int(n) for n in s), axes


def _fit(xp, v, shape, axes):
    """`v` cut or padded with zeros along `axes` to the lengths of `shape` there: the
    adjoint of a transform's own padding or cutting of its input."""
    for ax in axes:
        have, want = v.shape[ax], shape[ax]
        if have > want:
            v = v[(slice(None),) * ax + (slice(0, want),)]
        elif have < want:
            pad = list(v.shape)
            pad[ax] = want - have
            v = xp.concatenate([v, xp.zeros(pad, dtype=v.dtype)], axis=ax)
    return v


def _transform(xp, kind, v, s, axes, norm):
    """numpy.fft's `kind` of `v` (the name of its n-dimensional form for several axes)."""
    fft = xp.fft
    if len(axes) == 1 and kind in ("fft", "ifft"):
        return getattr(fft, kind)(v, s[0], axes[0], norm)
    return getattr(fft, kind + "n")(v, s, axes, norm)


def _half_weights(xp, n, m, ndim, axis, dtype):
    """Weights along `axis` of irfft's adjoint: 2 for the frequencies irfft reads twice,
    1 for zero and (n even) the Nyquist one."""
    w = numpy.full(m, 2.0)
    w[0] = 1.0
    if n % 2 == 0 and m > 1:
        w[m - 1] = 1.0
    shape = [1] * ndim
    shape[axis] = m
    return xp.asarray(w.reshape(shape)).astype(dtype)


def fft_grad(g, a, kind, s=None, axes=None, norm=None):
    """The gradient with respect to `a` of numpy.fft's transform `kind` ("fft", "rfft2",
    "irfftn", ...) of `a` with `n`/`s` and `axis`/`axes` as given (the adjoint of the
    linear map, see the module's text), given the gradient `g` of its result."""
    xp = _xp_complex(g, a)
    g = xp.asarray(g)
    lengths, axes = _plan(kind, a, s, axes)
    base = kind.rstrip("2n") if kind not in _ONE_AXIS else kind
    if base in ("fft", "ifft"):
        out = _transform(xp, "fft" if base == "fft" else "ifft", g, lengths, axes, norm)
    elif base in ("rfft", "ihfft"):
        if base == "ihfft":
            g, norm = xp.conj(g), _SWAPPED[norm]
        # the gradient padded with zeros to the full length on the last axis
        out = _transform(xp, "fft", g, lengths, axes, norm)
    else:  # irfft, hfft: the gradient is real, of the n outputs
        if base == "hfft":
            norm = _SWAPPED[norm]
        full = _transform(xp, "ifft", g.astype(_complex_of(g.dtype)), lengths, axes, norm)
        n, last = lengths[-1], axes[-1]
        m = n // 2 + 1
        full = full[(slice(None),) * last + (slice(0, m),)]
        out = full * _half_weights(xp, n, m, full.ndim, last, full.real.dtype)
        if base == "hfft":
            out = xp.conj(out)
    out = _fit(xp, out, tuple(numpy.shape(a)), axes)
    return _tg().array_grad(real_like(out, a), a)


def _complex_of(dtype):
    return numpy.complex64 if str(dtype) in ("float32", "complex64") else numpy.complex128


def fft_apply(v, kind, s=None, axes=None, norm=None):
    """numpy.fft's transform `kind` of `v` with `n`/`s` and `axis`/`axes` (the adjoint of
    `fft_grad` in its gradient: the transform itself)."""
    transform = getattr(_xp_complex(v).fft, kind)
    if kind in _ONE_AXIS:
        return transform(v, s, -1 if axes is None else axes, norm)
    if axes is None and not kind.endswith("n"):
        return transform(v, s, norm=norm)  # fft2's own default axes, (-2, -1)
    return transform(v, s, axes, norm)
