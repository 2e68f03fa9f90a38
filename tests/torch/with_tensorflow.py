"""compile='torch' in a program that also imports tensorflow (issue 16, item 5): loading
triton's LLVM (torch.compile) after tensorflow's aborts the process. tangent's import hook
loads triton's library just before tensorflow is imported, so compile='torch' works; if
tensorflow was imported before tangent, compile='torch' is a TangentError saying why, not
an abort. Run with `tensorflow-first` as the argument to import tensorflow first. Prints
"tensorflow: not installed" without tensorflow."""
import importlib.util
import sys

if importlib.util.find_spec("tensorflow") is None:
    print("tensorflow: not installed")
    sys.exit(0)

if sys.argv[1:] == ["tensorflow-first"]:
    import tensorflow  # noqa: F401
import tangent  # noqa: E402
import tensorflow  # noqa: E402,F401,F811
import torch  # noqa: E402


def f(x):
    return torch.sum(torch.tanh(x) * x)


x = torch.randn(5, dtype=torch.float64)
want = torch.tanh(x) + x * (1 - torch.tanh(x) ** 2)
print("triton loaded before tensorflow:", "triton._C.libtriton" in sys.modules)
try:
    g = tangent.grad(f, compile="torch")(x)
    print("compiled:", bool(torch.allclose(g, want)))
except tangent.TangentError as e:
    print("refused:", "abort" in str(e) and "compile='python'" in str(e))
print("python:", bool(torch.allclose(tangent.grad(f)(x), want)))
