"""The libraries tangent differentiates through, one `Backend` each: the one place their
names, modules and runtimes are written. Everything that depends on the set of libraries
reads this table: the lazy loading of a runtime when a value of its types is first met
(`_registry`), the argument checks derivatives begin with (`_registry.entry_checks`),
the modules generated code may name (`_build._compile`, the engine's imports of a
derivative of a derivative), the `tangent.<library>_*` helpers (`tangent.__getattr__`),
the `compile=` modes (`_api`, `_build`) and `backend_status()` (so `tangent doctor`).

Adding a library is a `Backend` here, its runtime module `tangent._<name>`, its rule
file `backends/<name>.py` and its catalog (ARCHITECTURE.md, "How to add a backend").
"""


class Backend:
    """What tangent knows of one library.

    name          the import name; also the `compile=` mode when `compiles`, and the
                  prefix of its runtime's helpers in generated code (`tangent.torch_*`)
    type_modules  the modules its value types come from: exact names, or prefixes ending
                  in '.' (read from `type.__module__`, never by importing the library)
    rule_modules  the submodules rule bodies call into, imported before generated code
                  that names the library runs
    runtime       tangent's runtime module for it (None: nothing to load)
    entry_check   the `tangent.*` helper a derivative calls first with its arguments
                  while the library is imported (None: no check)
    compiles      `compile=<name>` wraps a derivative in the library's compiler
                  (`<runtime>.compiled(fn, func)`)
    pip           what `pip install` takes to get it
    """

    __slots__ = ("name", "type_modules", "rule_modules", "runtime", "entry_check",
                 "compiles", "pip")

    def __init__(self, name, type_modules=(), rule_modules=(), runtime=None,
                 entry_check=None, compiles=False, pip=None):
        self.name = name
        self.type_modules = tuple(type_modules)
        self.rule_modules = tuple(rule_modules)
        self.runtime = runtime
        self.entry_check = entry_check
        self.compiles = compiles
        self.pip = pip or name

    def __repr__(self):
        return "Backend(%r)" % (self.name,)

    def owns_module(self, module):
        """Does a type defined in `module` (a `__module__` string) belong to this library?"""
        for m in self.type_modules:
            if module == m or (m.endswith(".") and module.startswith(m)):
                return True
        return False

    def status_detail(self):
        """What backend_status() adds to 'available' (keras's backend, tinygrad's device),
        from the runtime's `status_detail()` when it has one."""
        if self.runtime is None:
            return None
        import sys
        detail = getattr(sys.modules[self.runtime], "status_detail", None)
        return detail() if detail is not None else None


BACKENDS = (
    Backend("math"),
    Backend("numpy"),
    Backend("scipy", rule_modules=("scipy.special", "scipy.linalg")),
    Backend("jax", type_modules=("jax", "jax.", "jaxlib", "jaxlib."),
            rule_modules=("jax.numpy", "jax.nn", "jax.lax", "jax.scipy.special"),
            runtime="tangent._jax", compiles=True),
    Backend("torch", type_modules=("torch", "torch."),
            rule_modules=("torch.nn.functional", "torch.linalg", "torch.special"),
            runtime="tangent._torch", entry_check="tangent.torch_check_devices",
            compiles=True),
    Backend("tensorflow", type_modules=("tensorflow", "tensorflow."),
            runtime="tangent._tensorflow", entry_check="tangent.tensorflow_check_arguments",
            compiles=True, pip="tensorflow-cpu"),
    Backend("keras", type_modules=("keras", "keras."),  # keras.Variable
            rule_modules=("keras.ops",), runtime="tangent._keras"),
    Backend("tinygrad", type_modules=("tinygrad", "tinygrad."), runtime="tangent._tinygrad",
            compiles=True),
)

BY_NAME = {b.name: b for b in BACKENDS}

# The libraries with a runtime module tangent loads when it first meets their values.
LAZY = tuple(b for b in BACKENDS if b.runtime is not None)

# compile=<library> modes (besides 'auto', 'native', 'native!' and 'python').
COMPILERS = tuple(b.name for b in BACKENDS if b.compiles)

# The modules generated code receives from the runtime rather than from the user's
# globals (`_build._compile` passes tangent, numpy and math, and a library's module when
# the source names it).
RUNTIME_MODULES = ("tangent",) + tuple(b.name for b in BACKENDS)


def of_type(type_):
    """The library (with a runtime) a value type comes from, or None: read from the
    module names along its MRO, so the library is never imported here."""
    for cls in getattr(type_, "__mro__", ()):
        module = getattr(cls, "__module__", "") or ""
        for backend in LAZY:
            if backend.owns_module(module):
                return backend
    return None
