"""scipy for the embedded host: the subset tangent differentiates (`scipy.special`:
erf, erfc, gammaln, gamma, digamma/psi, polygamma, expit, logit, xlogy, logsumexp;
`scipy.linalg`: solve, inv). A script that needs more runs in CPython with the real
SciPy (`tangent run --python PATH`)."""

__version__ = "0+tangent.embedded"
