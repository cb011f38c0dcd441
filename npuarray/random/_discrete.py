"""Discrete distributions composed on the device from uniform draws (int64 results).

Each method mirrors ``numpy.random.Generator``'s of the same name and keywords; parameters
broadcast and are validated as in ``_continuous``. Scalar Poisson (mean up to 1e4) and
hypergeometric parameters invert a CDF table with aclnnSearchSorted; the table (O(standard
deviation) values) is computed on the device, only its bounds on the host from the parameters. Array
parameters, and large scalar means, run device algorithms: Hormann's transformed rejection
PTRS (Poisson) and BTRS (binomial) where the mean is at least 10, sequential inversion below
(the host reads one bool every few steps), so these cannot be captured in a graph
(CaptureError).
"""
import math

import numpy as np

from .._core._transfer import asnumpy
from .._creation import arange
from .._logic import any as any_
from .._math import cumsum
from .._sorting import searchsorted, where
from .._ufunc import exp, expm1, floor, log, log1p, maximum, minimum, pow as pow_, sqrt
from . import _compose as c

_POISSON_LAM_MAX = float(np.iinfo(np.int64).max - np.sqrt(np.iinfo(np.int64).max) * 10)
_POISSON_TABLE_MAX = 1e4  # table inversion up to this mean, PTRS above
_TABLE_SPREAD = 12.0  # the table spans mean +- 12 sd + 12: the mass left out is below 1e-30


def _p(value, name, valid=None, message=None, integer=False):
    return c.param(value, name, valid, message, integer)


def _probability(value, name, valid, message):
    return _p(value, name, lambda x: ~np.isnan(x) & valid(x), message)


class DiscreteDistributions:
    """The discrete ``numpy.random.Generator`` methods (mixed into Generator)."""

    def poisson(self, lam=1.0, size=None, *, device=None):
        """Poisson counts (int64) of mean ``lam`` (``Generator.poisson``). lam < 0, NaN or
        beyond NumPy's bound (about 9.2e18): ValueError."""
        lam = _p(lam, "lam", lambda x: (x >= 0) & (x <= _POISSON_LAM_MAX),
                 "< 0, is NaN or is too large")
        params = self._params(size, device, lam, what="poisson")
        if isinstance(lam, float) and 0 < lam <= _POISSON_TABLE_MAX:
            return _poisson_table(self, params, lam)
        return c.to_int64(self._poisson_device(params.values[0], params))

    def _poisson_device(self, lam, params):
        """float64 Poisson(lam) counts for a device ``lam``: PTRS where lam >= 10, sequential
        inversion below."""
        large = lam >= 10.0
        small_lam = where(large, 0.0, lam)
        counts = c.inversion(self, params, exp(-small_lam),
                             lambda k: small_lam / (k + 1.0), "poisson")
        if not bool(asnumpy(any_(large))):
            return counts
        return where(large, _ptrs(self, where(large, lam, 10.0), params), counts)

    def binomial(self, n, p, size=None, *, device=None):
        """Binomial counts (int64) of ``n`` trials with success probability ``p``
        (``Generator.binomial``): aclnnInplaceBernoulli for one trial (scalar p); else BTRS
        where n min(p, 1 - p) >= 10, sequential inversion below, on min(p, 1 - p) (n minus
        the count for p > 1/2). n < 0 or p outside [0, 1]
        or NaN: ValueError."""
        n = _p(n, "n", lambda x: x >= 0, "< 0", integer=True)
        p = _probability(p, "p", lambda x: (x >= 0) & (x <= 1), "< 0, p > 1 or p is NaN")
        if isinstance(n, float) and n == 1 and isinstance(p, float):  # one trial: Bernoulli
            return self._bernoulli(p, c.Params(size, device, ()).shape, device, "binomial")
        params = self._params(size, device, n, p, what="binomial")
        n, p = params.values
        return c.to_int64(draw_binomial(self, n, p, params))

    def negative_binomial(self, n, p, size=None, *, device=None):
        """Negative binomial counts (int64) (``Generator.negative_binomial``): Poisson of a
        Gamma(n, (1 - p) / p) mean. n <= 0 or p outside (0, 1] or NaN: ValueError."""
        n = _p(n, "n", lambda x: x > 0, "<= 0")
        p = _probability(p, "p", lambda x: (x > 0) & (x <= 1), "<= 0, p > 1 or p contains NaNs")
        params = self._params(size, device, n, p, what="negative_binomial")
        n, p = params.values
        mean = c.standard_gamma(self, n, params) * ((1.0 - p) / p)
        return c.to_int64(self._poisson_device(mean, params))

    def geometric(self, p, size=None, *, device=None):
        """Geometric counts >= 1 (int64) (``Generator.geometric``) by inversion:
        ceil(log(u) / log1p(-p)), u in (0, 1]. p outside (0, 1] or NaN: ValueError."""
        p = _probability(p, "p", lambda x: (x > 0) & (x <= 1), "<= 0, p > 1 or p contains NaNs")
        params = self._params(size, device, p)
        u = c.uniform(self, params, open_low=True)
        log_q = c.on_values(lambda p: log1p(-p),
                            lambda p: math.log1p(-p) if p < 1 else -math.inf, params.values[0])
        trials = -floor(-(log(u) / log_q))
        return c.to_int64(maximum(trials, 1.0))

    def hypergeometric(self, ngood, nbad, nsample, size=None, *, device=None):
        """Hypergeometric counts (int64): good items among ``nsample`` drawn without
        replacement from ``ngood`` good and ``nbad`` bad (``Generator.hypergeometric``).
        Scalars invert the CDF table; arrays invert sequentially from the low end of the
        support (about 24 standard deviations of steps). Negative counts or nsample >
        ngood + nbad: ValueError."""
        ngood = _p(ngood, "ngood", lambda x: x >= 0, "< 0", integer=True)
        nbad = _p(nbad, "nbad", lambda x: x >= 0, "< 0", integer=True)
        nsample = _p(nsample, "nsample", lambda x: x >= 0, "< 0", integer=True)
        if all(isinstance(v, (float, np.ndarray)) for v in (ngood, nbad, nsample)) and \
                np.any(np.add(ngood, nbad) < nsample):
            raise ValueError("ngood + nbad < nsample")
        params = self._params(size, device, ngood, nbad, nsample, what="hypergeometric")
        if all(isinstance(v, float) for v in (ngood, nbad, nsample)):
            return _hypergeometric_table(self, params, int(ngood), int(nbad), int(nsample))
        return c.to_int64(draw_hypergeometric(self, *params.values, params))

    def logseries(self, p, size=None, *, device=None):
        """Logarithmic series counts >= 1 (int64) (``Generator.logseries``): Kemp's second
        algorithm (LK) from two uniforms. p outside [0, 1) or NaN: ValueError."""
        p = _probability(p, "p", lambda x: (x >= 0) & (x < 1), "< 0, p >= 1 or p is NaN")
        params = self._params(size, device, p)
        p = params.values[0]
        r = c.on_values(lambda p: log1p(-p), lambda p: math.log1p(-p), p)
        v = c.uniform(self, params, open_low=True)
        q = -expm1(r * c.uniform(self, params, open_low=True))
        safe_q = where(q > 0.0, q, 0.5)
        deep = floor(1.0 + log(v) / log(safe_q))
        shallow = where(v <= q, 2.0, 1.0)
        value = where(v <= q * q, maximum(deep, 1.0), shallow)
        return c.to_int64(where(v >= p, 1.0, value))

    def zipf(self, a, size=None, *, device=None):
        """Zipf counts >= 1 (int64) (``Generator.zipf``): Devroye's rejection from two
        uniforms (as NumPy). a <= 1 or NaN: ValueError."""
        a = _probability(a, "a", lambda x: x > 1, "<= 1 or a is NaN")
        params = self._params(size, device, a, what="zipf")
        am1 = params.values[0] - 1.0
        b = pow_(2.0, am1)
        cap = float(np.iinfo(np.int64).max)

        def propose(sub):
            am1_, b_ = sub.pick(am1), sub.pick(b)
            u = c.uniform(self, sub.params, open_low=True)
            v = c.uniform(self, sub.params)
            x = floor(pow_(u, -1.0 / am1_))
            in_range = (x >= 1.0) & (x <= cap)
            x = where(in_range, x, 1.0)
            t = pow_(1.0 + 1.0 / x, am1_)
            return x, in_range & (v * x * (t - 1.0) / (b_ - 1.0) <= t / b_)

        return c.to_int64(c.rejection(propose, params, "zipf"))


def _table_inversion(gen, params, first, last, log_pmf):
    """int64 draws inverting the CDF of the values first .. last (host ints from the
    parameters) with searchsorted(cdf, u, side="right") (aclnnSearchSorted). The table is
    made on the device: ``log_pmf(k)`` of a float64 arange (aclnnArange; log-gamma by
    Stirling's series, aclnnExp), summed by aclnnCumsum and normalised to end at 1."""
    u = c.uniform(gen, params)
    k = arange(float(first), float(last) + 1.0, dtype=np.float64, device=u.device)
    cdf = cumsum(exp(log_pmf(k)))
    index = minimum(searchsorted(cdf / cdf[-1], u, side="right"), last - first)
    return index + first if first else index


def _poisson_table(gen, params, lam):
    """Poisson(lam) by table inversion over lam +- (12 sqrt(lam) + 12)."""
    spread = _TABLE_SPREAD * math.sqrt(lam) + _TABLE_SPREAD
    first, last = max(0, int(lam - spread)), int(lam + spread) + 1
    log_lam = math.log(lam)
    return _table_inversion(gen, params, first, last,
                            lambda k: k * log_lam - lam - c.loggam(k + 1.0))


def _hypergeometric_table(gen, params, good, bad, sample):
    """Hypergeometric(good, bad, sample) by table inversion over mean +- (12 sd + 12)."""
    total = good + bad
    low, high = max(0, sample - bad), min(sample, good)
    mean = sample * good / total if total else 0.0
    sd = math.sqrt(mean * (bad / total) * (total - sample) / (total - 1)) if total > 1 else 0.0
    spread = _TABLE_SPREAD * sd + _TABLE_SPREAD
    first, last = max(low, int(mean - spread)), min(high, int(mean + spread) + 1)
    constant = (math.lgamma(good + 1) + math.lgamma(bad + 1) - math.lgamma(total + 1)
                + math.lgamma(sample + 1) + math.lgamma(total - sample + 1))

    def log_pmf(k):  # log C(good, k) + log C(bad, sample - k) - log C(total, sample)
        return (constant - c.loggam(k + 1.0) - c.loggam(good - k + 1.0)
                - c.loggam(sample - k + 1.0) - c.loggam(bad - sample + k + 1.0))

    return _table_inversion(gen, params, first, last, log_pmf)


def _ptrs(gen, lam, params):
    """float64 Poisson(lam) counts for lam >= 10: Hormann's PTRS ("The transformed
    rejection method for generating Poisson random variables", 1993)."""
    slam, loglam = sqrt(lam), log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    log_inv_alpha = log(1.1239 + 1.1328 / (b - 3.4))
    vr = 0.9277 - 3.6224 / (b - 2.0)

    def propose(sub):
        lam_, loglam_, a_, b_ = (sub.pick(x) for x in (lam, loglam, a, b))
        u = c.uniform(gen, sub.params) - 0.5
        v = c.uniform(gen, sub.params, open_low=True)
        us = 0.5 - abs(u)
        k = floor((2.0 * a_ / us + b_) * u + lam_ + 0.43)
        quick = (us >= 0.07) & (v <= sub.pick(vr))
        refused = (k < 0.0) | ((us < 0.013) & (v > us))
        k_safe = maximum(k, 0.0)
        bound = -lam_ + k_safe * loglam_ - c.loggam(k_safe + 1.0)
        slow = log(v) + sub.pick(log_inv_alpha) - log(a_ / (us * us) + b_) <= bound
        return k_safe, (k >= 0.0) & (quick | (~refused & slow))

    return c.rejection(propose, params, "poisson")


def draw_binomial(gen, n, p, params):
    """float64 Binomial(n, p) counts (device n, p)."""
    flip = p > 0.5
    q = where(flip, 1.0 - p, p)
    large = n * q >= 10.0
    n_small, q_small = where(large, 0.0, n), where(large, 0.0, q)
    ratio_base = q_small / (1.0 - q_small)
    counts = c.inversion(gen, params, exp(n_small * log1p(-q_small)),
                         lambda k: maximum(n_small - k, 0.0) / (k + 1.0) * ratio_base,
                         "binomial")
    counts = minimum(counts, n_small)
    if bool(asnumpy(any_(large))):
        counts = where(large, _btrs(gen, where(large, n, 100.0), where(large, q, 0.5), params),
                       counts)
    return where(flip, n - counts, counts)


def _btrs(gen, n, p, params):
    """float64 Binomial(n, p) counts for n p >= 10 and p <= 1/2: Hormann's BTRS ("The
    generation of binomial random variates", 1993)."""
    q = 1.0 - p
    spq = sqrt(n * p * q)
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    center = n * p + 0.5
    vr = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    lpq = log(p / q)
    m = floor((n + 1.0) * p)
    h = c.loggam(m + 1.0) + c.loggam(n - m + 1.0)

    def propose(sub):
        n_, a_, b_, m_ = (sub.pick(x) for x in (n, a, b, m))
        u = c.uniform(gen, sub.params) - 0.5
        v = c.uniform(gen, sub.params, open_low=True)
        us = 0.5 - abs(u)
        k = floor((2.0 * a_ / us + b_) * u + sub.pick(center))
        valid = (k >= 0.0) & (k <= n_)
        quick = (us >= 0.07) & (v <= sub.pick(vr))
        k_safe = minimum(maximum(k, 0.0), n_)
        bound = (sub.pick(h) - c.loggam(k_safe + 1.0) - c.loggam(n_ - k_safe + 1.0)
                 + (k_safe - m_) * sub.pick(lpq))
        slow = log(v * sub.pick(alpha) / (a_ / (us * us) + b_)) <= bound
        return k_safe, valid & (quick | slow)

    return c.rejection(propose, params, "binomial")


def draw_hypergeometric(gen, good, bad, sample, params):
    """float64 hypergeometric counts for device parameters: sequential inversion from
    max(low end of the support, mean - 12 sd - 12)."""
    total = good + bad
    low = maximum(sample - bad, 0.0)
    mean = sample * good / maximum(total, 1.0)
    var = mean * (bad / maximum(total, 1.0)) * (total - sample) / maximum(total - 1.0, 1.0)
    start = maximum(low, floor(mean - _TABLE_SPREAD * sqrt(maximum(var, 0.0)) - _TABLE_SPREAD))
    high = minimum(sample, good)

    def log_choose(n, k):
        return c.loggam(n + 1.0) - c.loggam(k + 1.0) - c.loggam(n - k + 1.0)

    pmf0 = exp(log_choose(good, start) + log_choose(bad, sample - start)
                 - log_choose(total, sample))

    def ratio(step):
        k = start + step
        return maximum((good - k) * (sample - k), 0.0) / ((k + 1.0) * (bad - sample + k + 1.0))

    counts = c.inversion(gen, params, pmf0, ratio, "hypergeometric")
    return minimum(start + counts, high)
