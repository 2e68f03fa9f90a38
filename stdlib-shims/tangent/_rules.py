"""User rules: `@tangent.adjoint(target)` and `@tangent.tangent_(target)` register a
template with the transformer under the canonical names of `target`."""
import _tangent

from tangent._build import _SEAM_VERSION, _rules_generation
from tangent._errors import TangentError, _at_call_site


def _canonical_names(target):
    """The canonical names rules are keyed by: every name under which `target` is
    reached from numpy, numpy.linalg, math or builtins (aliases such as `np.absolute` and
    `np.abs` included), else its own module and name."""
    import sys
    names = []
    for modname in ("numpy", "numpy.linalg", "math", "builtins"):
        module = sys.modules.get(modname)
        if module is None:
            continue
        for attr in dir(module):
            if not attr.startswith("_") and getattr(module, attr, None) is target:
                names.append(modname + "." + attr)
    if names:
        return names
    name = getattr(target, "__name__", None)
    module = getattr(target, "__module__", None)
    if name and module:
        return [module + "." + name]
    raise TypeError(_at_call_site(
        "tangent: cannot register a rule for %r: it has no module and name" % (target,),
        "pass the function itself, e.g. @tangent.adjoint(np.tanh)"))


def _register(kind, target):
    qualnames = _canonical_names(target)

    def register(template):
        code = getattr(template, "__code__", None)
        if code is None:
            raise TypeError(_at_call_site(
                "tangent.%s: the rule template is not a function written with `def`" % kind,
                "write the template as `def name(result, x): d[x] = d[result] * ...`"))
        try:
            for qualname in qualnames:
                answer = _tangent.ask(dict(
                    ask="register_rule", version=_SEAM_VERSION, rule=kind,
                    qualname=qualname, file=code.co_filename, function=template.__name__))
                if answer["outcome"] != "registered":
                    raise TangentError(answer["message"])
        finally:
            # Derivatives built before this rule existed are stale (also when a later
            # name of the same template was refused: the earlier ones are registered).
            _rules_generation[0] += 1
        return template

    return register


def adjoint(target):
    """Registers the decorated template as the reverse-mode rule of `target`:
    `@tangent.adjoint(np.cbrt)` over `def cbrt(y, x): d[x] = d[y] / (3.0 * y * y)`."""
    return _register("adjoint", target)


def tangent_(target):
    """Registers the decorated template as the forward-mode rule of `target`:
    `@tangent.tangent_(np.cbrt)` over `def cbrt(y, x): d[y] = d[x] / (3.0 * y * y)`."""
    return _register("tangent", target)
