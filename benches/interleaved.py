"""What the framework benchmarks (torch_mlp.py, tinygrad_mlp.py) share: build every
contestant and time its build + first calls, then run ROUNDS rounds of CALLS calls each
in a shuffled order per round (the machine's load falls on all alike), and report each
contestant's eval as the median over rounds of the round's median call, with the median
of its per-round ratios to its baseline."""
import random
import statistics
import time


def round_median(fn, args, calls):
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def compare(contestants, baseline, args, correct, rounds, calls, label, first_calls=1,
            shuffle=None):
    """Rows (label, contestant, build + first calls, eval, ratio, gradient ok) for
    `contestants` [(name, make)] on `args`; `correct(result)` says whether a
    contestant's gradient is right; `baseline` maps a name to the one its ratio is to.
    A contestant that raises is reported with its error, not dropped."""
    shuffle = shuffle or random.Random(0)
    built, results = {}, {}
    for name, make in contestants:
        t0 = time.perf_counter()
        try:
            fn = make()
            for _ in range(first_calls):
                got = fn(*args)
        except Exception as e:  # e.g. a compiler that cannot run here
            results[name] = "error: %s" % str(e).splitlines()[0][:80]
            continue
        built[name] = fn
        results[name] = (time.perf_counter() - t0, correct(got), [])
    for _ in range(rounds):
        order = list(built)
        shuffle.shuffle(order)
        for name in order:
            results[name][2].append(round_median(built[name], args, calls))
    rows = []
    for name, _ in contestants:
        result = results[name]
        if isinstance(result, str):
            rows.append((label, name, result, "", "", ""))
            continue
        first, ok, medians = result
        ratio = ""
        base = baseline.get(name)
        if base in built:
            ratio = "%.2fx %s" % (statistics.median(
                m / b for m, b in zip(medians, results[base][2])), base)
        rows.append((label, name, "%.3f s" % first,
                     "%.1f us" % (statistics.median(medians) * 1e6), ratio,
                     "ok" if ok else "WRONG"))
    return rows


def print_rows(rows, first_header):
    print("%-8s %-28s %-17s %-11s %-40s %s" % ("dtype", "contestant", first_header, "eval",
                                              "ratio (per-round median)", "gradient"))
    for row in rows:
        print("%-8s %-28s %-17s %-11s %-40s %s" % row)
