"""Continuous distributions composed on the device from uniform and normal draws.

Each method mirrors ``numpy.random.Generator``'s of the same name and keywords: parameters
are Python scalars, host arrays or NPUArrays broadcasting together (their shape is the
default ``size``), validated as NumPy validates them (ValueError; NPUArray parameters are
used unchecked). The result is a new float64 NPUArray computed on the current stream of
``device`` (default: the parameters' device, else the current one) with aclnn element-wise
operators (aclnnLog, aclnnExp, aclnnSqrt, aclnnMul, aclnnSWhere, ...) applied to draws of
aclnnInplaceUniform / aclnnInplaceNormal. Rejection methods (gamma and what derives from
it, vonmises) read one bool per round on the host, so they cannot be captured in a graph
(CaptureError).
"""
import math

import numpy as np

from .._sorting import where
from .._ufunc import acos, cos, exp, expm1, floor, log, log1p, pow as pow_, sqrt
from . import _compose as c

_POSITIVE = (lambda x: x > 0, "<= 0")
_NONNEGATIVE = (lambda x: x >= 0, "< 0")


def _p(value, name, rule=None):
    return c.param(value, name, *(rule or (None, None)))


class ContinuousDistributions:
    """The continuous ``numpy.random.Generator`` methods (mixed into Generator)."""

    def _params(self, size, device, *params, what="draw"):
        """The draw's parameters (see ``_compose.Params``); ``what``: the method's name when
        it cannot be captured (a rejection or sequential method), else "draw"."""
        return c.Params(size, device, params, capturable=what == "draw", what=what)

    def standard_exponential(self, size=None, dtype=np.float64, method="zig", out=None, *,
                             device=None):
        """Standard exponential floats (``Generator.standard_exponential``) by inversion,
        ``-log1p(-u)``; ``method`` ("zig" or "inv") is accepted, both invert (NumPy takes
        any other value as "inv"). ``out``: an NPUArray of ``dtype`` filled in place (its
        shape is the size)."""
        del method  # one algorithm serves both
        dtype = self._out_dtype(dtype, out, "standard_exponential")
        params = self._params(self._out_size(size, out), device or _out_device(out))
        return self._finish(c.exponential(self, params), dtype, out)

    def standard_gamma(self, shape, size=None, dtype=np.float64, out=None, *, device=None):
        """Gamma(shape, 1) floats (``Generator.standard_gamma``): Marsaglia-Tsang rejection
        from normals and uniforms. shape < 0: ValueError; shape 0 gives 0."""
        dtype = self._out_dtype(dtype, out, "standard_gamma")
        params = self._params(self._out_size(size, out), device or _out_device(out),
                              _p(shape, "shape", _NONNEGATIVE), what="standard_gamma")
        return self._finish(c.standard_gamma(self, params.values[0], params), dtype, out)

    def gamma(self, shape, scale=1.0, size=None, *, device=None):
        """Gamma floats of ``shape`` and ``scale`` (``Generator.gamma``): standard_gamma
        times scale. shape < 0 or scale < 0: ValueError."""
        params = self._params(size, device, _p(shape, "shape", _NONNEGATIVE),
                              _p(scale, "scale", _NONNEGATIVE), what="gamma")
        shape, scale = params.values
        return c.standard_gamma(self, shape, params) * scale

    def beta(self, a, b, size=None, *, device=None):
        """Beta(a, b) floats (``Generator.beta``): X / (X + Y) for X ~ Gamma(a), Y ~
        Gamma(b), as 1 / (1 + exp(log Y - log X)) so that tiny shapes keep their mass.
        a <= 0 or b <= 0: ValueError."""
        params = self._params(size, device, _p(a, "a", _POSITIVE), _p(b, "b", _POSITIVE), what="beta")
        a, b = params.values
        log_x = c.log_standard_gamma(self, a, params)
        log_y = c.log_standard_gamma(self, b, params)
        return 1.0 / (1.0 + exp(log_y - log_x))

    def chisquare(self, df, size=None, *, device=None):
        """Chi-square floats with ``df`` degrees of freedom (``Generator.chisquare``):
        2 Gamma(df / 2). df <= 0: ValueError."""
        params = self._params(size, device, _p(df, "df", _POSITIVE), what="chisquare")
        return 2.0 * c.standard_gamma(self, params.values[0] * 0.5, params)

    def noncentral_chisquare(self, df, nonc, size=None, *, device=None):
        """Noncentral chi-square floats (``Generator.noncentral_chisquare``): a chi-square
        with df + 2 K degrees of freedom, K ~ Poisson(nonc / 2) (the Poisson mixture).
        df <= 0 or nonc < 0: ValueError."""
        params = self._params(size, device, _p(df, "df", _POSITIVE),
                              _p(nonc, "nonc", _NONNEGATIVE), what="noncentral_chisquare")
        df, nonc = params.values
        mixed = df + 2.0 * self._poisson_device(nonc * 0.5, params)
        return 2.0 * c.standard_gamma(self, mixed * 0.5, params)

    def f(self, dfnum, dfden, size=None, *, device=None):
        """F floats (``Generator.f``): (chi2(dfnum) / dfnum) / (chi2(dfden) / dfden).
        dfnum <= 0 or dfden <= 0: ValueError."""
        params = self._params(size, device, _p(dfnum, "dfnum", _POSITIVE),
                              _p(dfden, "dfden", _POSITIVE), what="f")
        dfnum, dfden = params.values
        num = c.standard_gamma(self, dfnum * 0.5, params) * dfden
        den = c.standard_gamma(self, dfden * 0.5, params) * dfnum
        return num / den

    def noncentral_f(self, dfnum, dfden, nonc, size=None, *, device=None):
        """Noncentral F floats (``Generator.noncentral_f``): (noncentral chi2(dfnum, nonc) /
        dfnum) / (chi2(dfden) / dfden). dfnum <= 0, dfden <= 0 or nonc < 0: ValueError."""
        params = self._params(size, device, _p(dfnum, "dfnum", _POSITIVE),
                              _p(dfden, "dfden", _POSITIVE), _p(nonc, "nonc", _NONNEGATIVE), what="noncentral_f")
        dfnum, dfden, nonc = params.values
        mixed = dfnum + 2.0 * self._poisson_device(nonc * 0.5, params)
        num = c.standard_gamma(self, mixed * 0.5, params) * dfden
        den = c.standard_gamma(self, dfden * 0.5, params) * dfnum
        return num / den

    def standard_t(self, df, size=None, *, device=None):
        """Student's t floats (``Generator.standard_t``): Z / sqrt(chi2(df) / df).
        df <= 0: ValueError."""
        params = self._params(size, device, _p(df, "df", _POSITIVE), what="standard_t")
        df = params.values[0]
        chi2 = 2.0 * c.standard_gamma(self, df * 0.5, params)
        return c.normal(self, params) / sqrt(chi2 / df)

    def standard_cauchy(self, size=None, *, device=None):
        """Standard Cauchy floats (``Generator.standard_cauchy``): a ratio of two standard
        normals."""
        params = self._params(size, device)
        return c.normal(self, params) / c.normal(self, params)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, *, device=None):
        """Log-normal floats (``Generator.lognormal``): exp(mean + sigma Z). sigma < 0:
        ValueError."""
        params = self._params(size, device, _p(mean, "mean"), _p(sigma, "sigma", _NONNEGATIVE))
        mean, sigma = params.values
        return exp(mean + sigma * c.normal(self, params))

    def laplace(self, loc=0.0, scale=1.0, size=None, *, device=None):
        """Laplace floats (``Generator.laplace``) by inversion of its CDF. scale < 0:
        ValueError."""
        params = self._params(size, device, _p(loc, "loc"), _p(scale, "scale", _NONNEGATIVE))
        loc, scale = params.values
        u = c.uniform(self, params, open_low=True)
        # u in (0, 1]: the lower half maps to log(2u) <= 0, the upper to -log(2 - 2u) >= 0
        upper = u >= 0.5
        tail = where(upper, -log(where(upper, 2.0 - 2.0 * u, 1.0)), log(2.0 * u))
        return loc + scale * tail

    def logistic(self, loc=0.0, scale=1.0, size=None, *, device=None):
        """Logistic floats (``Generator.logistic``): loc + scale log(u / (1 - u)). scale < 0:
        ValueError."""
        params = self._params(size, device, _p(loc, "loc"), _p(scale, "scale", _NONNEGATIVE))
        loc, scale = params.values
        u = c.uniform(self, params, open_low=True)
        return loc + scale * (log(u) - log1p(-u))

    def gumbel(self, loc=0.0, scale=1.0, size=None, *, device=None):
        """Gumbel floats (``Generator.gumbel``): loc - scale log(-log(u)), u in (0, 1).
        scale < 0: ValueError."""
        params = self._params(size, device, _p(loc, "loc"), _p(scale, "scale", _NONNEGATIVE))
        loc, scale = params.values
        return loc - scale * log(c.exponential(self, params))

    def pareto(self, a, size=None, *, device=None):
        """Pareto II (Lomax) floats (``Generator.pareto``): expm1(E / a). a <= 0:
        ValueError."""
        params = self._params(size, device, _p(a, "a", _POSITIVE))
        return expm1(c.exponential(self, params) / params.values[0])

    def power(self, a, size=None, *, device=None):
        """Power-law floats in [0, 1] (``Generator.power``): (1 - exp(-E))^(1 / a).
        a <= 0: ValueError."""
        params = self._params(size, device, _p(a, "a", _POSITIVE))
        return pow_(-expm1(-c.exponential(self, params)), 1.0 / params.values[0])

    def rayleigh(self, scale=1.0, size=None, *, device=None):
        """Rayleigh floats (``Generator.rayleigh``): scale sqrt(2 E). scale < 0:
        ValueError."""
        params = self._params(size, device, _p(scale, "scale", _NONNEGATIVE))
        return params.values[0] * sqrt(2.0 * c.exponential(self, params))

    def weibull(self, a, size=None, *, device=None):
        """Weibull floats (``Generator.weibull``): E^(1 / a); 0 where a is 0. a < 0:
        ValueError."""
        params = self._params(size, device, _p(a, "a", _NONNEGATIVE))
        a = params.values[0]
        if isinstance(a, float):
            return c.exponential(self, params) * 0.0 if a == 0 else \
                pow_(c.exponential(self, params), 1.0 / a)
        zero = a == 0.0
        value = pow_(c.exponential(self, params), 1.0 / where(zero, 1.0, a))
        return where(zero, 0.0, value)

    def wald(self, mean, scale, size=None, *, device=None):
        """Wald (inverse Gaussian) floats (``Generator.wald``): Michael, Schucany and Haas's
        transformation of one normal and one uniform. mean <= 0 or scale <= 0: ValueError."""
        params = self._params(size, device, _p(mean, "mean", _POSITIVE),
                              _p(scale, "scale", _POSITIVE))
        mean, scale = params.values
        y = c.normal(self, params)
        my = mean * y * y
        x = mean + (mean / (2.0 * scale)) * (my - sqrt(4.0 * scale * my + my * my))
        u = c.uniform(self, params)
        return where(u <= mean / (mean + x), x, mean * mean / x)

    def triangular(self, left, mode, right, size=None, *, device=None):
        """Triangular floats on [left, right] peaking at ``mode`` (``Generator.triangular``)
        by inversion of its CDF. ValueError when left > mode, mode > right or left == right
        (host parameters)."""
        left_h, mode_h, right_h = (_p(v, n) for v, n in ((left, "left"), (mode, "mode"),
                                                        (right, "right")))
        if _host(left_h) and _host(mode_h) and np.any(np.greater(left_h, mode_h)):
            raise ValueError("left > mode")
        if _host(mode_h) and _host(right_h) and np.any(np.greater(mode_h, right_h)):
            raise ValueError("mode > right")
        if _host(left_h) and _host(right_h) and np.any(np.equal(left_h, right_h)):
            raise ValueError("left == right")
        params = self._params(size, device, left_h, mode_h, right_h)
        left, mode, right = params.values
        base, low, high = right - left, mode - left, right - mode
        u = c.uniform(self, params)
        lower = u <= low / base
        return where(lower, left + sqrt(u * base * low), right - sqrt((1.0 - u) * base * high))

    def vonmises(self, mu, kappa, size=None, *, device=None):
        """von Mises floats on [-pi, pi] (``Generator.vonmises``): Best and Fisher's
        rejection (Applied Statistics 28, 1979) from uniforms; a uniform angle for kappa
        below 1e-8 and a wrapped normal above 1e6 (as NumPy). kappa < 0: ValueError."""
        params = self._params(size, device, _p(mu, "mu"), _p(kappa, "kappa", _NONNEGATIVE), what="vonmises")
        mu, kappa = params.values
        huge, tiny = kappa > 1e6, kappa < 1e-8
        k = where(huge | tiny, 1.0, kappa)
        r = 1.0 + sqrt(1.0 + 4.0 * k * k)
        rho = (r - sqrt(2.0 * r)) / (2.0 * k)
        s = where(k < 1e-5, 1.0 / k + k, (1.0 + rho * rho) / (2.0 * rho))

        def propose(sub):
            s_, k_ = sub.pick(s), sub.pick(k)
            z = cos(math.pi * c.uniform(self, sub.params))
            w = (1.0 + s_ * z) / (s_ + z)
            y = k_ * (s_ - w)
            v = c.uniform(self, sub.params, open_low=True)
            accepted = (y * (2.0 - y) - v >= 0.0) | (log(y / v) + 1.0 - y >= 0.0)
            return w, accepted

        w = c.rejection(propose, params, "vonmises")
        sign = where(c.uniform(self, params) < 0.5, -1.0, 1.0)
        angle = sign * acos(where(w > 1.0, 1.0, where(w < -1.0, -1.0, w)))
        angle = where(tiny, math.pi * (2.0 * c.uniform(self, params) - 1.0), angle)
        angle = where(huge, c.normal(self, params) / sqrt(where(huge, kappa, 1.0)), angle)
        return _wrap(angle + mu)


def _host(value):
    return not hasattr(value, "device")


def _wrap(angle):
    """``angle`` wrapped into [-pi, pi]."""
    turns = (angle + math.pi) / (2.0 * math.pi)
    return angle - 2.0 * math.pi * floor(turns)


def _out_device(out):
    return None if out is None else out.device
