"""The embedded numpy.random's distributions against SciPy's: `draw OUT.json` (in the
embedded host) writes seeded samples of every distribution; `check OUT.json` (in the
test CPython, with SciPy) tests each against its distribution: Kolmogorov-Smirnov for
continuous ones, chi-square over the counts for discrete ones (cells with fewer than 5
expected draws merged), and fails on a p-value below 1e-3. The seeds are fixed, so the
outcome is too.
"""
import json
import sys

N = 10000

# (name, the draw, SciPy's distribution as text, continuous)
CASES = [
    ("standard_normal", "g.standard_normal(N)", "stats.norm()", True),
    ("normal", "g.normal(1, 2, N)", "stats.norm(1, 2)", True),
    # The ziggurat's tail strip and wedges: |z| past 3 (about 5,400 of 2,000,000 draws)
    # against the normal truncated there.
    ("standard_normal_tail", "(lambda z: np.abs(z[np.abs(z) > 3.0]))(g.standard_normal(2000000))",
     "stats.truncnorm(3.0, float('inf'))", True),
    ("standard_t", "g.standard_t(5, N)", "stats.t(5)", True),
    ("standard_gamma_array_shape", "g.standard_gamma(np.full(N, 2.5))", "stats.gamma(2.5)",
     True),
    ("gamma_array_scale", "g.gamma(2.0, np.full(N, 3.0))", "stats.gamma(2.0, scale=3.0)", True),
    ("beta_array", "g.beta(np.full(N, 2.0), 5.0)", "stats.beta(2.0, 5.0)", True),
    ("chisquare", "g.chisquare(3, N)", "stats.chi2(3)", True),
    ("noncentral_chisquare", "g.noncentral_chisquare(3, 2, N)", "stats.ncx2(3, 2)", True),
    ("noncentral_chisquare_small_df", "g.noncentral_chisquare(0.5, 2, N)", "stats.ncx2(0.5, 2)", True),
    ("f", "g.f(3, 7, N)", "stats.f(3, 7)", True),
    ("noncentral_f", "g.noncentral_f(3, 5, 1, N)", "stats.ncf(3, 5, 1)", True),
    ("gumbel", "g.gumbel(1, 2, N)", "stats.gumbel_r(1, 2)", True),
    ("pareto", "g.pareto(3, N)", "stats.lomax(3)", True),
    ("power", "g.power(2, N)", "stats.powerlaw(2)", True),
    ("rayleigh", "g.rayleigh(2, N)", "stats.rayleigh(scale=2)", True),
    ("weibull", "g.weibull(1.5, N)", "stats.weibull_min(1.5)", True),
    ("wald", "g.wald(1, 2, N)", "stats.invgauss(0.5, scale=2)", True),
    ("triangular", "g.triangular(0, 1, 3, N)", "stats.triang(1 / 3, loc=0, scale=3)", True),
    ("vonmises", "g.vonmises(0.5, 2, N)", "stats.vonmises(2, loc=0.5)", True),
    ("vonmises_concentrated", "g.vonmises(-1, 50, N)", "stats.vonmises(50, loc=-1)", True),
    ("standard_cauchy", "g.standard_cauchy(N)", "stats.cauchy()", True),
    ("logistic", "g.logistic(1, 2, N)", "stats.logistic(1, 2)", True),
    ("standard_exponential", "np.random.standard_exponential(N)", "stats.expon()", True),
    ("dirichlet_marginal", "g.dirichlet([1, 2, 3], N)[:, 0]", "stats.beta(1, 5)", True),
    ("multivariate_normal_marginal",
     "g.multivariate_normal([0, 1], [[1, 0.5], [0.5, 2]], N)[:, 1]", "stats.norm(1, 2 ** 0.5)",
     True),
    ("poisson", "g.poisson(3.0, N)", "stats.poisson(3.0)", False),
    ("poisson_large", "g.poisson(50.0, N)", "stats.poisson(50.0)", False),
    ("binomial", "g.binomial(10, 0.3, N)", "stats.binom(10, 0.3)", False),
    ("binomial_large", "g.binomial(1000, 0.4, N)", "stats.binom(1000, 0.4)", False),
    ("binomial_high_p", "g.binomial(20, 0.8, N)", "stats.binom(20, 0.8)", False),
    ("negative_binomial", "g.negative_binomial(3, 0.4, N)", "stats.nbinom(3, 0.4)", False),
    ("geometric", "g.geometric(0.2, N)", "stats.geom(0.2)", False),
    ("hypergeometric", "g.hypergeometric(10, 5, 6, N)", "stats.hypergeom(15, 10, 6)", False),
    ("logseries", "g.logseries(0.6, N)", "stats.logser(0.6)", False),
    ("zipf", "g.zipf(2.5, N)", "stats.zipf(2.5)", False),
    ("multinomial_marginal", "g.multinomial(10, [0.2, 0.3, 0.5], N)[:, 0]",
     "stats.binom(10, 0.2)", False),
    ("legacy_poisson", "np.random.poisson(7.5, N)", "stats.poisson(7.5)", False),
    ("multivariate_hypergeometric_marginal",
     "g.multivariate_hypergeometric([4, 6, 5], 7, N)[:, 1]", "stats.hypergeom(15, 6, 7)", False),
]


def draw(path):
    import numpy as np
    out = {}
    for k, (name, expr, _, _) in enumerate(CASES):
        g = np.random.default_rng(1000 + k)
        np.random.seed(2000 + k)
        out[name] = np.asarray(eval(expr, {"g": g, "np": np, "N": N})).tolist()
    with open(path, "w") as fh:
        json.dump(out, fh)
    print("%d distributions drawn" % len(out))


def chi_square_p(samples, dist):
    import numpy as np
    from scipy import stats
    values = np.asarray(samples, dtype=np.int64)
    lo, hi = int(values.min()), int(values.max())
    ks = np.arange(lo, hi + 1)
    expected = dist.pmf(ks) * len(values)
    # The tails beyond the observed range join the end cells.
    expected[0] += dist.cdf(lo - 1) * len(values)
    expected[-1] += dist.sf(hi) * len(values)
    observed = np.array([(values == k).sum() for k in ks], dtype=float)
    # Merge cells until each expects at least 5 draws.
    cells_o, cells_e, acc_o, acc_e = [], [], 0.0, 0.0
    for o, e in zip(observed, expected):
        acc_o += o
        acc_e += e
        if acc_e >= 5:
            cells_o.append(acc_o)
            cells_e.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0:
        cells_o[-1] += acc_o
        cells_e[-1] += acc_e
    cells_e = np.array(cells_e) * (sum(cells_o) / sum(cells_e))
    return stats.chisquare(cells_o, cells_e).pvalue


def check(path):
    from scipy import stats  # noqa: F401 - the distributions' texts use it
    with open(path) as fh:
        drawn = json.load(fh)
    failed = []
    for name, _, dist_text, continuous in CASES:
        dist = eval(dist_text)
        samples = drawn[name]
        # N draws each; a case that keeps the draws in a region keeps thousands.
        assert len(samples) == N or name.endswith("_tail") and len(samples) > 2000, (
            name, len(samples))
        if continuous:
            p = stats.kstest(samples, dist.cdf).pvalue
        else:
            p = chi_square_p(samples, dist)
        if p < 1e-3:
            failed.append("%s: p = %.2g" % (name, p))
    print("%d distributions checked, %d below p = 1e-3%s" % (
        len(CASES), len(failed), "".join("\n  " + f for f in failed)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    {"draw": draw, "check": check}[sys.argv[1]](sys.argv[2])
