"""The side-by-side benchmark: this project against every framework a user would switch
from, on the design's workloads, in one run. One command (from the repository root):

    python3 benches/side_by_side/run.py

It builds the release `tangent` and bridge, makes the venvs it needs (the test venv of
.ci/python-env plus matplotlib, and tangent-ad 0.4.0 in ~/.cache/tangent-ad-venv), then
runs every contestant on every workload in a fresh process, ROUNDS rounds in a shuffled
order, first with one thread per framework (BLAS, XLA, torch, TF) and then with their
default threads on the array workloads; then the scaling runs (eval time and peak
memory against size, one process per size). It writes benches/results/ (the tables as
Markdown, the raw numbers as JSON, the plots as PNG) and the README's section between
its side-by-side markers.

Options: --rounds N (3), --threads single,default, --workloads mlp64,..., --contestants
id,... (see contestants.py), --no-scaling, --timeout S (a process's limit, 60),
--no-build, --tangent PATH (another tangent executable, not built), --no-readme,
--out DIR, --render (draw the plots, tables and README section again from DIR's
side_by_side.json without running anything), --startup-only and --scaling-only
(measure that part again into DIR's side_by_side.json, then --render). Measurements are saved to
DIR/side_by_side.partial.json as they come; --resume takes them from there and runs
only what is missing.

For each contestant and workload: compile + first call (median and min over rounds),
eval (median and min over rounds of the process's median call), the gradient's
checksum (a contestant that disagrees with the others is marked and left out of the
ratios), and the median over rounds of its eval divided by the best peer's eval in the
same round. A contestant that is not installed, fails or runs out of time is listed
with the reason.
"""
import datetime
import json
import os
import platform
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from contestants import CONTESTANTS, NOT_APPLICABLE, THREADED, WORKLOADS, peer, reference  # noqa

WORKER = os.path.join(HERE, "worker.py")
TANGENT_AD_VENV = os.path.expanduser("~/.cache/tangent-ad-venv")
SINGLE_THREAD_ENV = {
    "TANGENT_BENCH_THREADS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
}


def parse(argv):
    opts = {"rounds": 3, "threads": ["single", "default"], "workloads": list(WORKLOADS),
            "contestants": list(CONTESTANTS), "scaling": True, "timeout": 60.0,
            "render": False, "resume": False, "startup_only": False,
            "scaling_only": False,
            "build": True, "readme": True, "tangent": None,
            "out": os.path.join(ROOT, "benches", "results")}
    it = iter(argv)
    for a in it:
        if a == "--rounds":
            opts["rounds"] = int(next(it))
        elif a == "--threads":
            opts["threads"] = next(it).split(",")
        elif a == "--workloads":
            opts["workloads"] = next(it).split(",")
        elif a == "--contestants":
            opts["contestants"] = next(it).split(",")
        elif a == "--no-scaling":
            opts["scaling"] = False
        elif a == "--timeout":
            opts["timeout"] = float(next(it))
        elif a == "--no-build":
            opts["build"] = False
        elif a == "--tangent":
            opts["tangent"] = os.path.abspath(next(it))
            opts["build"] = False
        elif a == "--resume":
            opts["resume"] = True
        elif a == "--scaling-only":
            opts["scaling_only"] = True
        elif a == "--startup-only":
            opts["startup_only"] = True
        elif a == "--render":
            opts["render"] = True
        elif a == "--no-readme":
            opts["readme"] = False
        elif a == "--out":
            opts["out"] = os.path.abspath(next(it))
        else:
            sys.exit("unknown argument %r (see the docstring)" % a)
    for name in opts["workloads"]:
        if name not in WORKLOADS:
            sys.exit("unknown workload %r: %s" % (name, ", ".join(WORKLOADS)))
    for cid in opts["contestants"]:
        if cid not in CONTESTANTS:
            sys.exit("unknown contestant %r: %s" % (cid, ", ".join(CONTESTANTS)))
    return opts


# ---- setting up: the release build and the venvs ----

def log(msg):
    print(msg, file=sys.stderr, flush=True)


def target_dir():
    return os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")


def build_release():
    for args in (["-p", "tangent-bridge"], ["--bin", "tangent"]):
        log("cargo build --locked --release " + " ".join(args))
        subprocess.run(["cargo", "build", "--locked", "--release"] + args, cwd=ROOT,
                       check=True)


def bench_python():
    """The test venv (.ci/python-env: numpy, scipy, jax, torch, TF, keras, tinygrad)
    with matplotlib for the plots."""
    py = subprocess.run([os.path.join(ROOT, ".ci", "python-env")], check=True,
                        capture_output=True, text=True).stdout.strip()
    if subprocess.run([py, "-c", "import matplotlib"], capture_output=True).returncode:
        log("installing matplotlib into the benchmark venv")
        subprocess.run([py, "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", "matplotlib"], check=True)
    return py


def tangent_ad_python():
    """tangent-ad 0.4.0 in its own venv (its `import tangent` is tangent-ad); None and
    the reason when it cannot be installed."""
    py = os.path.join(TANGENT_AD_VENV, "bin", "python")
    probe = [py, "-c", "import importlib.metadata as m; print(m.version('tangent-ad'))"]
    if os.path.exists(py):
        done = subprocess.run(probe, capture_output=True, text=True)
        if done.returncode == 0 and done.stdout.strip() == "0.4.0":
            return py, None
    log("creating %s with tangent-ad 0.4.0" % TANGENT_AD_VENV)
    shutil.rmtree(TANGENT_AD_VENV, ignore_errors=True)
    made = subprocess.run([sys.executable, "-m", "venv", TANGENT_AD_VENV],
                          capture_output=True, text=True)
    if made.returncode == 0:
        made = subprocess.run([py, "-m", "pip", "install", "--quiet",
                               "--disable-pip-version-check", "tangent-ad==0.4.0"],
                              capture_output=True, text=True)
    if made.returncode != 0:
        return None, "not installed: " + (made.stderr.strip().splitlines() or ["?"])[-1]
    return py, None


def installed(py, module):
    return subprocess.run([py, "-c", "import " + module], capture_output=True).returncode == 0


def hosts(opts):
    """host -> command prefix, or a reason string when the host is missing."""
    if opts["build"]:
        build_release()
    tangent = opts["tangent"] or os.path.join(target_dir(), "release", "tangent")
    py = bench_python()
    ad_py, ad_missing = tangent_ad_python()
    out = {"python": [py], "tangent-ad": [ad_py] if ad_py else ad_missing}
    if os.path.exists(tangent):
        out["embedded"] = [tangent, "run", "--embedded"]
        out["tangent"] = [tangent, "run", "--python", py]
    else:
        out["embedded"] = out["tangent"] = "not built: %s is missing" % tangent
    return out, py


LIBRARY_CHECKED = {}


def missing_library(py, library):
    """Why a library cannot be imported in `py`, or None (each checked once)."""
    if library not in LIBRARY_CHECKED:
        module = {"numpy": "numpy", "jax": "jax", "torch": "torch", "tf": "tensorflow",
                  "tinygrad": "tinygrad"}[library]
        LIBRARY_CHECKED[library] = None if installed(py, module) else \
            "not installed: no %s in %s" % (module, py)
    return LIBRARY_CHECKED[library]


def missing_contestants(opts, prefixes, py):
    """(contestant, why) for those whose host or library is not there."""
    for cid in opts["contestants"]:
        host, library = CONTESTANTS[cid][1], CONTESTANTS[cid][2]
        if isinstance(prefixes[host], str):
            yield cid, prefixes[host]
        elif host != "tangent-ad":
            why = missing_library(py, library)
            if why:
                yield cid, why


# ---- running one process ----

def exception_line(stderr):
    """The `SomeError: message` line of a traceback (the last one), shortened."""
    found = None
    for line in stderr.splitlines():
        head = line.split(":", 1)[0].strip()
        if head and " " not in head and (head.endswith("Error") or
                                         head.endswith("Exception") or head.endswith("Exit")):
            found = line.strip()
    if found is None:
        lines = [line for line in stderr.splitlines() if line.strip()]
        found = lines[-1].strip() if lines else None
    return found[:160] if found else None


PROGRESS = {"path": None, "runs": [], "resumed": []}


def record(cid, workload, size, threads, result):
    """Keeps every measurement on disk as it comes (a run stopped midway is not lost)."""
    PROGRESS["runs"].append({"contestant": cid, "workload": workload, "size": size,
                             "threads": threads, "result": result})
    if PROGRESS["path"]:
        with open(PROGRESS["path"], "w") as fh:
            json.dump(PROGRESS["runs"], fh, indent=0)


def earlier(cid, workload, size, threads):
    """The measurements of a resumed run for this process, in their order."""
    return [r["result"] for r in PROGRESS["resumed"]
            if (r["contestant"], r["workload"], r["size"], r["threads"]) ==
            (cid, workload, size, threads)]


def measure(prefix, cid, workload, size, threads, timeout, nth=0):
    """The nth measurement of this process (a resumed run's own when it has one)."""
    done = earlier(cid, workload, size, threads)
    if nth < len(done):
        record(cid, workload, size, threads, done[nth])
        return done[nth]
    result = run_worker(prefix, cid, workload, size, threads, timeout)
    record(cid, workload, size, threads, result)
    return result


def run_worker(prefix, cid, workload, size, threads, timeout):
    env = dict(os.environ, TANGENT_DISK_CACHE="0", PYTHONHASHSEED="0")
    if threads == "single":
        env.update(SINGLE_THREAD_ENV)
    cmd = prefix + [WORKER, cid, workload, str(size)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                           cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"error": "over the time limit (%d s)" % timeout, "timeout": True}
    except OSError as e:
        return {"error": str(e)}
    lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
    if p.returncode != 0 or not lines:
        return {"error": exception_line(p.stderr) or "exit %d" % p.returncode}
    return json.loads(lines[-1])


# ---- agreement and ratios ----

def tolerance(workload):
    return 1e-3 if workload == "mlp32" else 1e-6


def agreeing(checksums, workload):
    """The checksum most contestants agree with (within the workload's tolerance); ties
    go to the one peers back."""
    tol = tolerance(workload)

    def close(a, b):
        return abs(a - b) <= tol * max(1.0, abs(a), abs(b))
    best, votes = None, -1
    for cid, c in checksums.items():
        n = sum(2 if peer(o) else 1 for o, d in checksums.items() if close(c, d))
        if n > votes:
            best, votes = c, n
    return {cid: close(c, best) for cid, c in checksums.items()} if best is not None else {}


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def summarize(runs, workload, cids):
    """Per contestant: first/eval median and min over rounds, agreement, ratio to the
    best agreeing peer of each round."""
    out = {}
    last = {cid: rs[-1] for cid, rs in runs.items() if rs}
    checks = {cid: r["checksum"] for cid, r in last.items()
              if "checksum" in r and not reference(cid)}
    agree = agreeing(checks, workload)
    rounds = max((len(rs) for rs in runs.values()), default=0)
    best_peer = []
    for k in range(rounds):
        evals = [rs[k]["eval_us"] for cid, rs in runs.items()
                 if peer(cid) and agree.get(cid) and len(rs) > k and "eval_us" in rs[k]]
        best_peer.append(min(evals) if evals else None)
    for cid in cids:
        rs = runs.get(cid) or []
        ok = [r for r in rs if "eval_us" in r]
        if not ok:
            out[cid] = {"error": rs[-1]["error"] if rs else "not run"}
            continue
        ratios = [r["eval_us"] / best_peer[k] for k, r in enumerate(rs)
                  if "eval_us" in r and k < len(best_peer) and best_peer[k]]
        out[cid] = {
            "first_ms": median([r["first_ms"] for r in ok]),
            "first_min_ms": min(r["first_ms"] for r in ok),
            "eval_us": median([r["eval_us"] for r in ok]),
            "eval_min_us": min(r["eval_us"] for r in ok),
            "peak_kb": median([r["peak_kb"] for r in ok if r.get("peak_kb") is not None]
                              or [0]),
            "rounds": len(ok), "checksum": ok[-1]["checksum"],
            "agrees": bool(agree.get(cid)),
            "ratio": median(ratios) if ratios and agree.get(cid) else None,
            "reference": reference(cid),
        }
        floors = runs.get("floor-embedded") or []
        to_floor = [r["eval_us"] / f["eval_us"] for r, f in zip(rs, floors)
                    if "eval_us" in r and "eval_us" in f]
        if to_floor and not reference(cid):
            out[cid]["floor_ratio"] = median(to_floor)
    return out


# ---- the two phases ----

def table_phase(opts, prefixes, missing):
    """Every contestant on every workload at its default size, interleaved rounds."""
    results = {}
    rng = random.Random(2026)
    for threads in opts["threads"]:
        workloads = opts["workloads"] if threads == "single" else \
            [w for w in opts["workloads"] if w in THREADED]
        pairs = [(cid, w) for w in workloads for cid in opts["contestants"]
                 if (cid, w) not in NOT_APPLICABLE and cid not in missing]
        runs = {(cid, w): [] for cid, w in pairs}
        given_up = set()
        for k in range(opts["rounds"]):
            order = list(pairs)
            rng.shuffle(order)
            for n, (cid, w) in enumerate(order):
                if (cid, w) in given_up:
                    continue
                log("[%s threads, round %d/%d, %d/%d] %s %s" % (
                    threads, k + 1, opts["rounds"], n + 1, len(order), cid, w))
                r = measure(prefixes[CONTESTANTS[cid][1]], cid, w, WORKLOADS[w][1],
                            threads, opts["timeout"], nth=k)
                runs[(cid, w)].append(r)
                if "error" in r:
                    given_up.add((cid, w))  # a failure or timeout is not retried
        for w in workloads:
            per = {cid: runs.get((cid, w), []) for cid in opts["contestants"]}
            summary = summarize(per, w, opts["contestants"])
            for cid in opts["contestants"]:
                if cid in missing:
                    summary[cid] = {"error": missing[cid]}
                elif (cid, w) in NOT_APPLICABLE and NOT_APPLICABLE[(cid, w)]:
                    summary[cid] = {"error": "n/a: " + NOT_APPLICABLE[(cid, w)]}
                elif (cid, w) in NOT_APPLICABLE:
                    del summary[cid]
            results["%s/%s" % (threads, w)] = summary
    return results


def growth(workload):
    """How a process's time grows with the size (the exponent), to skip sizes that
    would run past the time limit."""
    return 2.0 if workload.startswith("mlp") else 1.0


def scaling_phase(opts, prefixes, missing):
    """Eval time and peak memory against size: one process per size, single-threaded;
    a contestant stops at the first size that fails or would run past the limit."""
    results = {}
    for w in opts["workloads"]:
        sizes = WORKLOADS[w][2]
        if not sizes:
            continue
        per_size = {}
        stopped = {}
        cids = [cid for cid in opts["contestants"]
                if (cid, w) not in NOT_APPLICABLE and cid not in missing]
        for size in sizes:
            runs = {}
            order = list(cids)
            random.Random(size).shuffle(order)
            for cid in order:
                if cid in stopped:
                    continue
                log("[scaling %s, size %d] %s" % (w, size, cid))
                r = measure(prefixes[CONTESTANTS[cid][1]], cid, w, size, "single",
                            opts["timeout"])
                runs[cid] = [r]
                if "error" in r:
                    stopped[cid] = "stopped at %d: %s" % (size, r["error"])
                    continue
                prev = size
                nxt = [s for s in sizes if s > prev]
                if nxt:
                    spent = (r["first_ms"] / 1e3 + 0.5 + 3 * r["eval_us"] / 1e6)
                    if spent * (nxt[0] / prev) ** growth(w) > opts["timeout"]:
                        stopped[cid] = "stopped after %d: size %d would take about %.0f s" % (
                            size, nxt[0], spent * (nxt[0] / prev) ** growth(w))
            per_size[size] = summarize(runs, w, cids)
        results[w] = {"sizes": per_size, "stopped": stopped,
                      "date": datetime.date.today().isoformat()}
    return results


def startup_phase(prefixes, opts):
    """`tangent run` of an empty script (the process's wall time; with the disk cache,
    which keeps the shims' bytecode, primed by a first run, and without it) and the
    first `tangent.grad` of a 30-line function in the embedded host with no disk cache;
    medians and minimums over 9 processes."""
    prefix = prefixes["embedded"]
    if isinstance(prefix, str):
        return {"error": prefix}
    import tempfile
    import time
    empty = os.path.join(tempfile.mkdtemp(prefix="tangent-bench-"), "empty.py")
    open(empty, "w").close()
    cold = dict(os.environ, TANGENT_DISK_CACHE="0")
    subprocess.run(prefix + [empty], check=True)  # primes the shims' bytecode
    walls, walls_nocache, grads = [], [], []
    for _ in range(9):
        for env, into in ((os.environ, walls), (cold, walls_nocache)):
            t0 = time.perf_counter()
            subprocess.run(prefix + [empty], check=True, env=env)
            into.append((time.perf_counter() - t0) * 1e3)
        p = subprocess.run(prefix + [os.path.join(HERE, "startup.py")], env=cold,
                           capture_output=True, text=True, check=True)
        grads.append(json.loads(p.stdout.strip().splitlines()[-1])["grad_ms"])
    return {"run_empty_ms": median(walls), "run_empty_min_ms": min(walls),
            "run_empty_nocache_ms": median(walls_nocache),
            "grad30_ms": median(grads), "grad30_min_ms": min(grads)}


# ---- reporting ----

def machine():
    model, flags = "?", set()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name") and model == "?":
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return "%d cores, %s, %s, %s" % (os.cpu_count() or 0, model, simd_level(flags),
                                     platform.platform(terse=True))


def simd_level(flags):
    """The vector unit this project's kernels run on here (they pick, at run time, the
    widest of AVX-512, AVX2+FMA and the baseline SSE2 the processor has, capped by
    TANGENT_SIMD=avx2|sse2)."""
    cap = os.environ.get("TANGENT_SIMD")
    if "avx512f" in flags and cap not in ("avx2", "sse2"):
        return "kernels on AVX-512"
    if "avx2" in flags and "fma" in flags and cap != "sse2":
        return "kernels on AVX2+FMA" + (" (capped by TANGENT_SIMD)" if "avx512f" in flags
                                         else " (no AVX-512)")
    return "kernels on SSE2" if flags else "SIMD level unknown"


def versions(py):
    code = ("import importlib.metadata as m\n"
            "for p in ('numpy','jax','torch','tensorflow-cpu','tinygrad'):\n"
            "    try: print(p, m.version(p))\n"
            "    except Exception: print(p, 'missing')\n")
    done = subprocess.run([py, "-c", code], capture_output=True, text=True)
    return ", ".join(line.replace(" ", " ") for line in done.stdout.splitlines())


def fmt_time(us):
    if us >= 1e6:
        return "%.2f s" % (us / 1e6)
    if us >= 1e3:
        return "%.2f ms" % (us / 1e3)
    return "%.0f µs" % us


def command(recorded):
    """The command as a reader runs it: where the files were written is left out (the
    README's come from benches/results)."""
    words = recorded.split()
    kept = [w for k, w in enumerate(words)
            if w != "--out" and (k == 0 or words[k - 1] != "--out")]
    return " ".join(kept)


def markdown(meta, startup, table, scaling):
    lines = ["Measured %s on %s (%s): `%s`." % (
        meta["date"], meta["machine"], meta["versions"], command(meta["command"])),
        "",
        "Compile + first call and eval are the median over rounds (min in brackets); "
        "\"vs best peer\" is the median over rounds of the eval divided by the fastest "
        "agreeing peer's eval in the same round (peers: everything but this project). "
        "The checksum is a weighted sum of the gradient's elements (float32 agrees within "
        "1e-3 relative, float64 within 1e-6); a gradient that disagrees with the others "
        "is marked and left out of the ratios.",
        ""]
    if "error" in startup:
        lines += ["Start-up: %s" % startup["error"], ""]
    else:
        lines += ["Start-up (embedded host, 9 processes, median and min): `tangent run` of "
                  "an empty script %.0f ms (%.0f ms) with the disk cache that keeps the "
                  "shims' bytecode, %.0f ms without; the first `tangent.grad` in a process "
                  "of a 30-line function (benches/side_by_side/startup.py, no disk cache) "
                  "%.1f ms (%.1f ms)."
                  % (startup["run_empty_ms"], startup["run_empty_min_ms"],
                     startup.get("run_empty_nocache_ms", float("nan")),
                     startup["grad30_ms"], startup["grad30_min_ms"]), ""]
    for key, summary in table.items():
        threads, w = key.split("/")
        lines += ["#### %s; %s %s; %s" % (
            WORKLOADS[w][0], WORKLOADS[w][3], WORKLOADS[w][1],
            "one thread" if threads == "single" else "default threads"), "",
            "| contestant | compile + first call | eval | vs best peer | gradient checksum |",
            "|---|---|---|---|---|"]
        rows = sorted(summary.items(), key=lambda kv: (
            "eval_us" not in kv[1], kv[1].get("eval_us", 0)))
        for cid, s in rows:
            label = CONTESTANTS[cid][0]
            if "error" in s:
                lines.append("| %s | %s | | | |" % (label, s["error"].replace("|", "/")))
                continue
            lines.append("| %s | %s (%s) | %s (%s) | %s | %s |" % (
                label, fmt_time(s["first_ms"] * 1e3), fmt_time(s["first_min_ms"] * 1e3),
                fmt_time(s["eval_us"]), fmt_time(s["eval_min_us"]),
                "%.2fx" % s["ratio"] if s["ratio"] else "",
                "(not a gradient)" if s.get("reference") else
                "%.10g%s" % (s["checksum"], "" if s["agrees"] else " **DIFFERENT GRADIENT**")))
        lines.append("")
        embedded = summary.get("tangent-embedded", {})
        if "floor_ratio" in embedded:
            lines += ["tangent-rs embedded's eval is %.2fx its matmul floor (median of the "
                      "per-round ratios)." % embedded["floor_ratio"], ""]
    for w, sc in scaling.items():
        if sc["stopped"]:
            lines += ["Scaling, %s: %s." % (w, "; ".join(
                "%s %s" % (CONTESTANTS[c][0], why) for c, why in sorted(sc["stopped"].items()))),
                ""]
    return "\n".join(lines)


def update_readme(md, plots):
    path = os.path.join(ROOT, "README.md")
    begin, end = "<!-- side-by-side:begin -->", "<!-- side-by-side:end -->"
    text = open(path).read()
    if begin not in text or end not in text:
        log("README.md has no side-by-side markers: not updated")
        return
    images = "\n".join("![%s](%s)" % (title, rel) for title, rel in plots)
    body = "%s\n%s\n\n%s\n%s" % (begin, md, images, end)
    head, rest = text.split(begin, 1)
    open(path, "w").write(head + body + rest.split(end, 1)[1])


def report(opts, py, meta, startup, table, scaling):
    """Plots, the Markdown tables and the README section from one run's numbers."""
    raw = os.path.join(opts["out"], "side_by_side.json")
    plots = []
    if scaling:
        done = subprocess.run([py, os.path.join(HERE, "plot.py"), raw, opts["out"]],
                              capture_output=True, text=True)
        if done.returncode != 0:
            log("plots failed: " + (exception_line(done.stderr) or "?"))
        for line in done.stdout.splitlines():
            title, path = line.split("\t")
            plots.append((title, os.path.relpath(path, ROOT)))
    md = markdown(meta, startup, table, scaling)
    with open(os.path.join(opts["out"], "side_by_side.md"), "w") as fh:
        fh.write(md + "\n")
    print(md)
    if opts["readme"]:
        update_readme(md, plots)


def main():
    opts = parse(sys.argv[1:])
    if opts["render"] or opts["startup_only"] or opts["scaling_only"]:
        data = json.load(open(os.path.join(opts["out"], "side_by_side.json")))
        if opts["startup_only"]:
            data["startup"] = startup_phase(hosts(opts)[0], opts)
        if opts["scaling_only"]:
            prefixes, py = hosts(opts)
            missing = {cid: why for cid, why in missing_contestants(opts, prefixes, py)}
            # Only the workloads asked for are measured again; the others' stay.
            data["scaling"].update(scaling_phase(opts, prefixes, missing))
        if opts["startup_only"] or opts["scaling_only"]:
            with open(os.path.join(opts["out"], "side_by_side.json"), "w") as fh:
                json.dump(data, fh, indent=1)
        report(opts, bench_python(), data["meta"], data["startup"], data["table"],
               data["scaling"])
        return
    os.makedirs(opts["out"], exist_ok=True)
    PROGRESS["path"] = os.path.join(opts["out"], "side_by_side.partial.json")
    if opts["resume"] and os.path.exists(PROGRESS["path"]):
        PROGRESS["resumed"] = json.load(open(PROGRESS["path"]))
    prefixes, py = hosts(opts)
    missing = dict(missing_contestants(opts, prefixes, py))
    meta = {"date": datetime.date.today().isoformat(), "machine": machine(),
            "versions": versions(py), "rounds": opts["rounds"],
            "command": "python3 benches/side_by_side/run.py " + " ".join(
                a for a in sys.argv[1:] if a not in ("--no-readme", "--resume"))}
    meta["command"] = meta["command"].strip()
    startup = startup_phase(prefixes, opts)
    table = table_phase(opts, prefixes, missing)
    scaling = scaling_phase(opts, prefixes, missing) if opts["scaling"] else {}
    with open(os.path.join(opts["out"], "side_by_side.json"), "w") as fh:
        json.dump({"meta": meta, "startup": startup, "table": table, "scaling": scaling},
                  fh, indent=1)
    os.remove(PROGRESS["path"])
    report(opts, py, meta, startup, table, scaling)


if __name__ == "__main__":
    main()
