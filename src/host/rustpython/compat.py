"""Where RustPython's standard library differs from CPython's in ways scripts meet,
patched when the embedded interpreter starts (before any user code): modules the
embedded interpreter does not have (`sqlite3`'s `_sqlite3`, the profilers) raise a
ModuleNotFoundError that says so and names `tangent run --python`.
"""
import sys

# module -> what it needs that the embedded interpreter lacks
_MISSING = {
    "_sqlite3": "sqlite3",
    "cProfile": "cProfile",
    "_lsprof": "cProfile",
    "profile": "profile",
    "pstats": "pstats",
}


class _MissingModules:
    """Last on sys.meta_path: consulted only for modules no other finder has."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        what = _MISSING.get(name)
        if what is None:
            return None
        raise ModuleNotFoundError(
            "No module named %r: tangent's embedded interpreter has no `%s`; run the "
            "script in CPython with `tangent run --python python3 SCRIPT.py`"
            % (name, what), name=name)

    @staticmethod
    def invalidate_caches():
        pass


sys.meta_path.append(_MissingModules)
