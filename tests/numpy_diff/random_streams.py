"""The embedded numpy.random's bit streams against real NumPy's: `expect OUT.json` (real
NumPy, in CPython) draws from `default_rng`, `PCG64` and `SeedSequence` for seeds of
every kind (0, small and big ints, sequences of ints, ints past 2**32 in a sequence) and
writes the numbers; `compare OUT.json` (the embedded host) draws the same and reports
every case that differs in any bit. Covered: `Generator.random` (float32 and `out=` too), `Generator.integers`
over ranges that take NumPy's 32-bit path (whose draws share a 64-bit word) and its
64-bit one, the whole int64 range with `endpoint=True`, scalar and array draws
interleaved, `SeedSequence.generate_state` (32- and 64-bit words), its pool and spawned
children, `PCG64.random_raw` and its state, `MT19937`, `PCG64DXSM`, `SFC64` and `Philox`
under a Generator (NumPy's seeding of each class, `random`, `integers`, raw words), `Generator.spawn`, `Generator.permutation`
and `shuffle`; the legacy `RandomState` (MT19937: seeding by one word and by arrays,
`random_sample`, `randn`, `randint` over 32- and 64-bit ranges, `normal`, `uniform`,
`rand`, `permutation`, `shuffle`, `choice` with and without replacement and with `p`,
`random_integers`), the module-level functions after `np.random.seed`, and
`get_state`/`set_state`.
"""
import json
import sys
import warnings

import numpy as np

SEEDS = (0, 1, 12345, 2**40 + 7, 2**100 + 3, [1, 2, 3], [2**33, 5])
# The legacy RandomState's: one 32-bit word, and arrays of them (init_by_array).
LEGACY_SEEDS = (0, 1, 12345, 2**32 - 1, [1, 2, 3], [0], [2**32 - 1, 7, 99, 5, 3])
RANGES = ((0, 10), (-5, 3), (0, 2**40), (-2**63, 2**63 - 1), (0, 2**32), (3, 4),
          (0, 2**32 + 1))


def ints(xs):
    return [int(x) for x in xs]


def cases():
    out = []
    for seed in SEEDS:
        g = np.random.default_rng(seed)
        out.append(("random", repr(seed), g.random(4).tolist() + [g.random()]))
        g = np.random.default_rng(seed)
        filled = np.zeros(3)
        single = np.zeros(2, dtype=np.float32)
        drawn = g.random(out=filled).tolist() + g.random(3, dtype=np.float32).tolist()
        drawn += [g.random(dtype="f4")] + g.random(out=single, dtype=np.float32).tolist()
        out.append(("random out= and float32", repr(seed), drawn + [g.random()]))
        g = np.random.default_rng(seed)
        drawn = []
        for lo, hi in RANGES:
            drawn += ints(g.integers(lo, hi, 3)) + [int(g.integers(lo, hi))]
        drawn += ints(g.integers(-2**63, 2**63 - 1, 2, endpoint=True)) + [g.random()]
        out.append(("integers", repr(seed), drawn))
        ss = np.random.SeedSequence(seed)
        out.append(("SeedSequence", repr(seed),
                    ints(ss.generate_state(6)) + ints(ss.pool)
                    + ints(ss.spawn(3)[2].generate_state(2))
                    + ints(np.random.SeedSequence(seed).generate_state(2, "uint64"))))
        p = np.random.PCG64(seed)
        state = p.state["state"]
        out.append(("PCG64", repr(seed),
                    ints(p.random_raw(3)) + [state["state"], state["inc"]]))
        children = np.random.default_rng(seed).spawn(2)
        out.append(("spawn", repr(seed), children[1].random(2).tolist()))
        m = np.random.MT19937(seed)
        state = m.state["state"]
        g = np.random.Generator(np.random.MT19937(seed))
        out.append(("MT19937", repr(seed),
                    ints(m.random_raw(2)) + ints(state["key"][:3]) + [state["pos"]]
                    + g.random(3).tolist() + ints(g.integers(0, 10, 3))
                    + ints(g.integers(0, 2**40, 2)) + ints(g.permutation(6))))
        for kind in (np.random.PCG64DXSM, np.random.SFC64, np.random.Philox):
            g = np.random.Generator(kind(seed))
            out.append((kind.__name__, repr(seed),
                        ints(kind(seed).random_raw(3)) + g.random(2).tolist()
                        + ints(g.integers(0, 10, 3)) + ints(g.integers(0, 2**40, 2))))
        state = np.random.PCG64DXSM(seed).state["state"]
        out.append(("PCG64DXSM.state", repr(seed), [state["state"], state["inc"]]))
        g = np.random.default_rng(seed)
        items = list(range(7))
        g.shuffle(items)
        out.append(("Generator.permutation", repr(seed),
                    ints(g.permutation(10)) + items + g.permutation(np.arange(6.0)).tolist()))
    for seed in LEGACY_SEEDS:
        r = np.random.RandomState(seed)
        drawn = r.random_sample(3).tolist() + r.randn(5).tolist() + [r.randn()]
        drawn += ints(r.randint(0, 10, 4)) + ints(r.randint(-5, 3, 3)) + [int(r.randint(7))]
        drawn += ints(r.randint(0, 2**40 + 1, 3)) + ints(r.randint(-2**63, 2**63 - 1, 2))
        drawn += r.normal(1.0, 2.0, 3).tolist() + r.uniform(-1.0, 3.0, 2).tolist()
        drawn += r.rand(2, 2).ravel().tolist() + ints(r.permutation(9))
        items = list(range(8))
        r.shuffle(items)
        drawn += items + ints(r.choice(5, 4)) + ints(r.choice(6, 3, replace=False))
        drawn += ints(r.choice(4, 5, p=[0.1, 0.2, 0.3, 0.4]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            drawn += ints(r.random_integers(1, 6, 3))
        out.append(("RandomState", repr(seed), drawn))
    np.random.seed(2024)
    drawn = np.random.rand(3).tolist() + np.random.randn(2).tolist() + [np.random.random()]
    drawn += ints(np.random.randint(0, 100, 3)) + [np.random.normal()]
    out.append(("np.random.seed", "2024", drawn))
    # The legacy state: its words, position and kept normal, and a replay from it.
    np.random.seed(5)
    np.random.randn()
    state = np.random.get_state()
    drawn = ints(state[1][:4]) + ints(state[1][-2:]) + [state[0], state[2], state[3], state[4]]
    first = np.random.randn(3).tolist() + ints(np.random.randint(0, 50, 3))
    np.random.set_state(state)
    drawn += first + np.random.randn(3).tolist() + ints(np.random.randint(0, 50, 3))
    out.append(("get_state/set_state", "5", drawn))
    return out


if __name__ == "__main__":
    if sys.argv[1] == "expect":
        with open(sys.argv[2], "w") as f:
            json.dump(cases(), f)
    else:
        with open(sys.argv[2]) as f:
            want = json.load(f)
        got = json.loads(json.dumps(cases()))
        differ = [(w, g) for w, g in zip(want, got) if w != g]
        for w, g in differ[:5]:
            print("differs:", w, "embedded:", g)
        print("%d cases, %d differ" % (len(want), len(differ) + abs(len(want) - len(got))))
        sys.exit(1 if differ or len(want) != len(got) else 0)
