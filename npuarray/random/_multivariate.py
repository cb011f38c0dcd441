"""Multivariate distributions composed on the device: multinomial and multivariate
hypergeometric (conditional binomial / hypergeometric draws, one category after another),
Dirichlet (normalised gammas) and the multivariate normal (a factor of the covariance by
npuarray.linalg's svd / eigh / cholesky, then a matmul of standard normals).

Each method mirrors ``numpy.random.Generator``'s of the same name and keywords; the result
has shape ``size + (k,)`` (k categories or dimensions) and is computed on the current stream
of the parameters' device (or ``device``). Host parameters are validated as NumPy does
(ValueError); NPUArray parameters are used unchecked.
"""
import warnings

import numpy as np

from .. import linalg
from .._creation import asarray, full
from .._linear_algebra import matmul
from .._manipulation import stack
from .._math import max as max_, sum as sum_
from .._ufunc import exp, maximum, sqrt
from .._core._array import NPUArray
from . import _compose as c
from ._discrete import draw_binomial, draw_hypergeometric


class MultivariateDistributions:
    """The multivariate ``numpy.random.Generator`` methods (mixed into Generator)."""

    def multinomial(self, n, pvals, size=None, *, device=None):
        """Multinomial counts (int64, shape ``size + (len(pvals),)``) of ``n`` trials
        (``Generator.multinomial``): category i is Binomial(n - earlier counts, p_i / (1 -
        earlier p)) on the device, the last one takes the rest. n < 0, pvals entries outside
        [0, 1], sum(pvals[:-1]) > 1 + 1e-12 or pvals not 1-D: ValueError."""
        n = c.param(n, "n", lambda x: x >= 0, "< 0", integer=True)
        p = np.asarray(pvals, dtype=np.float64)
        if p.ndim != 1 or p.size == 0:
            raise ValueError("pvals must be a non-empty 1-d sequence")
        if np.any(np.isnan(p)) or np.any(p < 0) or np.any(p > 1):
            raise ValueError("pvals < 0, pvals > 1 or pvals contains NaNs")
        if p[:-1].sum() > 1.0 + 1e-12:
            raise ValueError("sum(pvals[:-1]) > 1.0")
        params = self._params(size, device, n, what="multinomial")
        left = params.values[0] + full(params.shape, 0.0, dtype=np.float64, device=params.device)
        counts, mass = [], 1.0
        for share in p[:-1]:
            prob = min(max(share / mass, 0.0), 1.0) if mass > 0 else 0.0
            drawn = draw_binomial(self, left, asarray(prob, device=params.device), params)
            counts.append(drawn)
            left = left - drawn
            mass -= share
        counts.append(left)
        return stack(counts, axis=-1).astype(np.int64)

    def multivariate_hypergeometric(self, colors, nsample, size=None, method="marginals", *,
                                    device=None):
        """Counts per color (int64, shape ``size + (len(colors),)``) of ``nsample`` items
        drawn without replacement (``Generator.multivariate_hypergeometric``): color i is
        hypergeometric among the colors not yet drawn. ``method`` ("marginals" or "count")
        is accepted; both give this law. Negative colors or nsample, nsample > sum(colors)
        or a bad method: ValueError."""
        if method not in ("marginals", "count"):
            raise ValueError('method must be "count" or "marginals"')
        colors = np.asarray(colors)
        if colors.ndim != 1 or colors.dtype.kind not in "iu":
            raise ValueError("colors must be a one-dimensional sequence of nonnegative "
                             "integers")
        if np.any(colors < 0):
            raise ValueError("colors must be a one-dimensional sequence of nonnegative "
                             "integers")
        nsample = c.param(nsample, "nsample", lambda x: x >= 0, "< 0", integer=True)
        if np.any(np.asarray(nsample) > colors.sum()):
            raise ValueError("nsample > sum(colors)")
        params = self._params(size, device, nsample, what="multivariate_hypergeometric")
        left = params.values[0] + full(params.shape, 0.0, dtype=np.float64, device=params.device)
        counts, rest = [], int(colors.sum())
        for count in colors[:-1].tolist():
            rest -= count
            good, bad = (asarray(float(v), device=params.device) for v in (count, rest))
            drawn = draw_hypergeometric(self, good, bad, left, params)
            counts.append(drawn)
            left = left - drawn
        counts.append(left)
        return stack(counts, axis=-1).astype(np.int64)

    def dirichlet(self, alpha, size=None, *, device=None):
        """Dirichlet vectors (float64, shape ``size + (len(alpha),)``) (``Generator.dirichlet``): gammas of shapes ``alpha`` normalised to sum 1, in logs so that tiny
        alphas keep their mass (a zero alpha gives 0). alpha < 0 or NaN, or not 1-D:
        ValueError."""
        alpha = c.param(alpha, "alpha", lambda x: x >= 0, "< 0")
        if np.ndim(alpha) != 1 if not isinstance(alpha, NPUArray) else alpha.ndim != 1:
            raise ValueError("alpha must be a one-dimensional sequence")
        k = len(alpha) if not isinstance(alpha, NPUArray) else alpha.shape[0]
        shape = c.output_shape(size) + (k,)
        params = self._params(shape, device, alpha, what="dirichlet")
        logs = c.log_standard_gamma(self, params.values[0], params)
        top = max_(logs, axis=-1, keepdims=True)
        weights = exp(logs - maximum(top, -1e300))
        return weights / maximum(sum_(weights, axis=-1, keepdims=True), 1e-300)

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, *,
                            method="svd", device=None):
        """Multivariate normal vectors (float64, shape ``size + (len(mean),)``)
        (``Generator.multivariate_normal``): ``z @ F + mean`` for standard normals z
        (aclnnInplaceNormal) and a factor F with F.T F = cov computed on the device by
        npuarray.linalg (``method`` "svd": sqrt(s) Vh; "eigh": sqrt(w) V.T; "cholesky":
        L.T). A host ``cov`` that is not symmetric positive-semidefinite warns
        (RuntimeWarning), raises (ValueError) or is ignored as ``check_valid`` says; bad
        shapes or method: ValueError."""
        if method not in ("svd", "eigh", "cholesky"):
            raise ValueError("method must be one of {'eigh', 'svd', 'cholesky'}")
        if check_valid not in ("warn", "raise", "ignore"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        mean_shape = mean.shape if isinstance(mean, NPUArray) else np.shape(mean)
        cov_shape = cov.shape if isinstance(cov, NPUArray) else np.shape(cov)
        if len(mean_shape) != 1:
            raise ValueError("mean must be 1 dimensional")
        if len(cov_shape) != 2 or cov_shape[0] != cov_shape[1]:
            raise ValueError("cov must be 2 dimensional and square")
        if mean_shape[0] != cov_shape[0]:
            raise ValueError("mean and cov must have same length")
        if not isinstance(cov, NPUArray) and check_valid != "ignore":
            _check_psd(np.asarray(cov, dtype=np.float64), tol, check_valid, method)
        dims = mean_shape[0]
        shape = c.output_shape(size) + (dims,)
        params = self._params(shape, device, mean, what="multivariate_normal")
        cov_d = c._device(cov, params.device)
        z = c.normal(self, params)
        return matmul(z, _factor(cov_d, method)) + params.values[0]


def _factor(cov, method):
    """F with F.T @ F == cov, on the device."""
    if method == "cholesky":
        return linalg.cholesky(cov).mT
    if method == "eigh":
        w, v = linalg.eigh(cov)
        return sqrt(maximum(w, 0.0))[:, None] * v.mT
    _, s, vh = linalg.svd(cov)
    return sqrt(s)[:, None] * vh


def _check_psd(cov, tol, check_valid, method):
    """NumPy's validity check of a host covariance: symmetric and positive-semidefinite
    within ``tol`` (its svd reconstructs it)."""
    if method == "cholesky":
        return
    _, s, vh = np.linalg.svd(cov)
    psd = np.allclose(np.dot(vh.T * s, vh), cov, rtol=tol, atol=tol)
    if not psd:
        message = "covariance is not symmetric positive-semidefinite."
        if check_valid == "raise":
            raise ValueError(message)
        warnings.warn(message, RuntimeWarning, stacklevel=3)
