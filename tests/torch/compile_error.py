"""compile='torch' where inductor cannot compile (no working C++ compiler, simulated):
the error is a TangentError saying why, at the user's line, naming compile='python'."""
import os
import tempfile

os.environ["CXX"] = os.environ["CC"] = "/bin/false"
os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="tangent-inductor-")

import torch  # noqa: E402

import tangent  # noqa: E402


def f(x):
    return torch.sum(torch.tanh(x) * x)


x = torch.randn(5, dtype=torch.float64)
try:
    tangent.grad(f, compile="torch")(x)
    print("compiled without a compiler?")
except tangent.TangentError as e:
    text = str(e)
    print("says why:", "torch.compile could not compile" in text and "compiler" in text.lower())
    print("names compile='python':", "compile='python'" in text)
    print("located:", "compile_error.py:" in text)
# The uncompiled derivative is unaffected.
g = tangent.grad(f, compile="python")(x)
print("python:", bool(torch.allclose(g, torch.tanh(x) + x * (1 - torch.tanh(x) ** 2))))
