"""tangent: source-to-source automatic differentiation.

`grad` reads a function's source, generates the source of its derivative (in Rust, via
`_tangent`) and executes it in the function's own globals. The same package runs in both
hosts: the embedded RustPython (with the native `numpy`) and CPython through the bridge
(real NumPy when it is installed). The hosts install its modules in this order
(`host::SHIMS`); this file only re-exports them:

  _backends             the libraries: names, modules, runtimes, compile modes
  _registry             which array library a value belongs to (register_namespace, ...)
  _errors               TangentError, located messages, check_output / check_inplace
  _runtime              the generic helpers generated code calls (init_grad, unbroadcast)
  _grads_common         what the rule helpers share (the array namespace of arguments)
  _grads_shape          rule helpers: reshape, concatenate, stack, split, tile, pad
  _grads_reductions     rule helpers: prod, cumsum, cumprod, var, clip
  _grads_matrix         rule helpers: diagonal, trace, linspace, inner, tensordot, einsum
  _grads_select         rule helpers: take, insert, delete, block, diff, gradient, trapezoid
  _grads_linalg         rule helpers: numpy.linalg / jax.numpy.linalg / scipy.linalg
  _grads_second_order   rules of the helpers, for derivatives of derivatives
  _grads_special        rule helpers: scipy.special
  _grads_complex        rule helpers: complex values (angle) and numpy.fft
  _numpy                the NumPy runtime (registers numpy.ndarray)
  _library_helpers      the helpers every array library shares, over its primitives
  _jax                  the JAX runtime (imports jax and registers it only when met)
  _torch                the PyTorch runtime (imports torch and registers it only when met)
  _tensorflow           the TensorFlow 2 runtime (imports tensorflow only when met)
  _keras                the Keras 3 runtime (helpers of the keras.ops rules)
  _tinygrad             the tinygrad runtime (imports tinygrad only when met)
  _custom               custom_vjp, custom_jvp, stop_gradient and the helpers they need
  _build                building, caching and compiling derivatives
  _rules                user rules (@tangent.adjoint, @tangent.tangent_)
  _methods              derivatives of the methods of user classes, at run time
  _api                  grad, autodiff, vjp, jvp, explain, backend_status
"""
import _tangent
import sys as _sys

from tangent._registry import (  # noqa: F401
    namespace_of, register_add_grad, register_helper, register_init_grad,
    register_matmul_grad, register_namespace, register_shape_function,
    register_unbroadcast, register_unreduce)
from tangent._errors import *  # noqa: F401,F403
from tangent._errors import _at_call_site, _located  # noqa: F401
from tangent._runtime import *  # noqa: F401,F403
from tangent._grads_shape import *  # noqa: F401,F403
from tangent._grads_reductions import *  # noqa: F401,F403
from tangent._grads_matrix import *  # noqa: F401,F403
from tangent._grads_select import *  # noqa: F401,F403
from tangent._grads_linalg import *  # noqa: F401,F403
from tangent._grads_second_order import *  # noqa: F401,F403
from tangent._grads_special import *  # noqa: F401,F403
from tangent._grads_complex import *  # noqa: F401,F403
from tangent._numpy import (  # noqa: F401
    _from_flat, _to_flat, matmul_grad_left_adjoint, matmul_grad_right_adjoint,
    unreduce_adjoint)
from tangent._custom import *  # noqa: F401,F403
from tangent._build import *  # noqa: F401,F403
from tangent._build import _CACHE, _CACHE_SIZE, _compile  # noqa: F401
from tangent._methods import (  # noqa: F401
    construct_grad, construct_jvp, merge_fields, merge_fields_grad, merge_fields_tangent,
    method_grad, method_grad_jvp, method_jvp, method_jvp_vjp, parent_fields,
    parent_fields_grad, parent_fields_jvp)
from tangent._rules import *  # noqa: F401,F403
from tangent._api import *  # noqa: F401,F403
from tangent import _api, _backends

__version__ = _tangent.VERSION
grad_util = _sys.modules["tangent.grad_util"] = _api._grad_util_module()


def __getattr__(name):
    # `tangent.jax_*` / `tangent.torch_*` / ...: helpers of a library's rules, loaded only
    # when generated code calls one (the library is imported then: a value of it exists).
    # Never imports the library itself: looking the names up (the live names do) is not
    # a reason to.
    import sys
    for backend in _backends.LAZY:
        if name.startswith(backend.name + "_") and backend.name in sys.modules:
            helper = getattr(sys.modules[backend.runtime].load(), name, None)
            if helper is not None:
                globals()[name] = helper
                return helper
    raise AttributeError("module 'tangent' has no attribute %r" % (name,))
