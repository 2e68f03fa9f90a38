"""Side-by-side comparison on the design's workloads: this project (embedded host and
CPython host) against its peers, each contestant in fresh processes, one run.

    python3 benches/compare.py [--tangent PATH] [--python PY] [--peer NAME=PY ...]
                               [--workloads mlp64,mlp32,recurrence]

--tangent  the tangent executable (default target/release/tangent under
           $CARGO_TARGET_DIR or ./target); the bridge library must sit next to it
           (`cargo build --release -p tangent -p tangent-bridge`).
--python   a CPython with numpy and jax (default ~/.cache/tangent-venv/bin/python, the
           venv of .ci/python-env): the CPython host and the JAX contestant.
--peer     NAME=PY: a peer whose `import tangent` is another implementation, e.g.
           tangent-ad=~/.cache/tangent-peers-venv/bin/python after
           `python3 -m venv ~/.cache/tangent-peers-venv &&
            ~/.cache/tangent-peers-venv/bin/pip install tangent-ad==0.4.0 numpy`.

Columns: compile + first call (ms, a new process each time: transformation or tracing
plus the first evaluation) and eval (us, best of 5 rounds). A contestant whose gradient
disagrees with the others (relative 1e-6; 1e-3 for float32) is marked; one that fails
shows its error. Ratios in a row are only meaningful within one run (a shared machine).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "compare_worker.py")


def default_tangent():
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(HERE, "..", "target")
    return os.path.join(target, "release", "tangent")


def parse(argv):
    opts = {"tangent": default_tangent(),
            "python": os.path.expanduser("~/.cache/tangent-venv/bin/python"),
            "peers": [], "workloads": ["mlp64", "mlp32", "recurrence"]}
    it = iter(argv)
    for a in it:
        if a == "--tangent":
            opts["tangent"] = next(it)
        elif a == "--python":
            opts["python"] = next(it)
        elif a == "--peer":
            name, py = next(it).split("=", 1)
            opts["peers"].append((name, os.path.expanduser(py)))
        elif a == "--workloads":
            opts["workloads"] = next(it).split(",")
        else:
            sys.exit("unknown argument %r (see the docstring)" % a)
    return opts


def contestants(opts):
    """(label, command prefix, worker arguments before the workload, compile mode)."""
    t, py = opts["tangent"], opts["python"]
    out = [
        ("tangent-rs embedded", [t, "run", "--embedded"], "tangent", "python"),
        ("tangent-rs embedded, compile=auto", [t, "run", "--embedded"], "tangent", "auto"),
        ("tangent-rs CPython", [t, "run", "--python", py], "tangent", "python"),
        ("tangent-rs CPython, compile=auto", [t, "run", "--python", py], "tangent", "auto"),
        ("tangent-rs CPython, compile=jax", [t, "run", "--python", py], "tangent", "jax"),
        ("jax (jax.jit(jax.grad))", [py], "jax", None),
    ]
    for name, peer_py in opts["peers"]:
        out.append((name, [peer_py], "tangent", None))
    return out


def measure(prefix, who, workload, compile_mode):
    cmd = prefix + [WORKER, who, workload, compile_mode or "-"]
    # No derivative from an earlier process: "first" includes the transformation.
    env = dict(os.environ, TANGENT_DISK_CACHE="0")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": str(e)}
    lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
    if p.returncode != 0 or not lines:
        return {"error": exception_line(p.stderr) or "exit %d" % p.returncode}
    return json.loads(lines[-1])


def exception_line(stderr):
    """The `SomeError: message` line of a traceback (the last one), shortened."""
    found = None
    for line in stderr.splitlines():
        head = line.split(":", 1)[0]
        if head and " " not in head and (head.endswith("Error") or head.endswith("Exception")):
            found = line
    return found[:100] if found else None


def main():
    opts = parse(sys.argv[1:])
    print("%-36s %-11s %14s %12s" % ("contestant", "workload", "first (ms)", "eval (us)"))
    for workload in opts["workloads"]:
        rows = [(label, measure(prefix, who, workload, mode))
                for label, prefix, who, mode in contestants(opts)]
        sums = [r["checksum"] for _, r in rows if "checksum" in r]
        ref = sorted(sums)[len(sums) // 2] if sums else None
        tol = 1e-3 if workload == "mlp32" else 1e-6
        for label, r in rows:
            if "error" in r:
                print("%-36s %-11s   failed: %s" % (label, workload, r["error"]))
                continue
            agree = abs(r["checksum"] - ref) <= tol * max(1.0, abs(ref))
            print("%-36s %-11s %14.2f %12.1f%s" % (label, workload, r["first_ms"], r["eval_us"],
                                                   "" if agree else "  DIFFERENT GRADIENT"))
        print()


main()
