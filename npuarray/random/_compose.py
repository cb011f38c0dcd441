"""Building blocks of the distributions composed on the device: parameters, the base draws
(uniform, standard normal, standard exponential), rejection rounds and log-gamma.

Every parameter becomes a float64 NPUArray (0-d for a Python scalar) so that one formula
serves scalars and arrays; Python scalars and host arrays are validated on the host first,
as NumPy validates them (device arrays are used as given: a bad entry gives NaN or a
meaningless value there, since checking it would need a transfer).
"""
import math
import numbers
import operator

import numpy as np

from .._core._transfer import asnumpy
from .._creation import asarray, full
from .._indexing import take
from .._logic import any as any_
from .._manipulation import broadcast_shapes, broadcast_to, reshape
from .._sorting import flatnonzero, where
from .._ufunc import exp, floor, greater, log, log1p, logical_and, logical_not, sqrt
from .._acl import CaptureError
from .._core._array import NPUArray
from .. import runtime
from ..runtime import _capture_guard

_F64 = np.dtype(np.float64)
_ACL_ERROR_RT_STREAM_CAPTURED = 107027
_HOST_CHECK_EVERY = 8  # inversion steps between two host reads of "anyone left?"
_INVERSION_STEPS_MAX = 100_000


class Params:
    """The parameters of one draw, their broadcast shape and device. Host arrays become
    float64 NPUArrays; Python scalars stay floats when the draw is ``capturable`` (closed
    forms: a scalar then travels with each launch, as a graph replays it), else they become
    0-d float64 NPUArrays so that one formula serves scalars and arrays; such draws (rejection
    or sequential search) refuse a capture first (CaptureError)."""

    def __init__(self, size, device, params, capturable=False, what="draw"):
        if not capturable:
            check_not_capturing(what)
        arrays = [p for p in params if isinstance(p, NPUArray)]
        if device is None and arrays:
            device = arrays[0].device
        self.values = [p if capturable and isinstance(p, float) else _device(p, device)
                       for p in params]
        param_shape = broadcast_shapes(*(np.shape(v) if isinstance(v, float) else v.shape
                                         for v in self.values)) if self.values else ()
        self.shape = param_shape if size is None else output_shape(size)
        if broadcast_shapes(self.shape, param_shape) != self.shape:
            raise ValueError(f"parameters of shape {param_shape} do not broadcast to size "
                             f"{self.shape}")
        self.device = device

    def subset(self, count):
        """Parameters sizing a draw of ``count`` elements on the same device."""
        sub = object.__new__(Params)
        sub.values, sub.shape, sub.device = [], (count,), self.device
        return sub


def _device(value, device):
    if isinstance(value, NPUArray):
        return value if value.dtype == _F64 else value.astype(_F64)
    return asarray(np.asarray(value, dtype=np.float64), device=device)


def on_values(device_fn, host_fn, x):
    """``host_fn(x)`` for a float parameter, ``device_fn(x)`` for an NPUArray one."""
    return host_fn(x) if isinstance(x, float) else device_fn(x)


def param(value, name, valid=None, message=None, integer=False):
    """``value`` checked as NumPy checks it: a real scalar or host array data (float64 on
    the host) whose entries all satisfy ``valid`` (a NumPy predicate; else ValueError
    "``name`` ``message``"); an NPUArray is returned unchecked. TypeError for other
    types; ``integer``: entries are truncated to integers as NumPy's int parameters."""
    if isinstance(value, NPUArray):
        return value.astype(_F64) if integer and value.dtype.kind == "f" else value
    if isinstance(value, (bool, np.bool_)) and integer:
        value = int(value)
    if not isinstance(value, (numbers.Real, np.ndarray, list, tuple)):
        raise TypeError(f"{name} must be a real number or an array, got {type(value).__name__}")
    try:
        host = np.asarray(value, dtype=np.int64 if integer else np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number or an array of them") from None
    if valid is not None and not np.all(valid(host)):
        raise ValueError(f"{name} {message}")
    return host.astype(np.float64) if host.ndim else float(host)


def uniform(gen, params, open_low=False):
    """float64 uniforms in [0, 1) (``open_low``: in (0, 1]) of the draw's shape."""
    u = gen._uniform01(params.shape, _F64, params.device, "draw")
    return 1.0 - u if open_low else u


def normal(gen, params):
    return gen.standard_normal(params.shape, _F64, device=params.device)


def exponential(gen, params):
    """Standard exponentials by inversion, ``-log1p(-u)`` (aclnnLog1p)."""
    return -log1p(-uniform(gen, params))


def check_not_capturing(what):
    stream = runtime.get_current_stream()
    if capturing(stream):
        raise CaptureError(_ACL_ERROR_RT_STREAM_CAPTURED, what,
                           f"{stream!r} is being captured into a graph and {what} reads on the "
                           "host, between rounds, whether every element is accepted; draw "
                           "outside the capture instead")


class Subset:
    """The elements a rejection round draws for: all of them (``index`` None), or the flat
    positions ``index`` (an int64 NPUArray) of those still pending. ``params`` sizes the
    round's draws; :meth:`pick` gathers a derived parameter at the round's elements."""

    def __init__(self, params, index=None):
        self.index = index
        self.params = params if index is None else params.subset(index.shape[0])
        self._shape = params.shape

    def pick(self, x):
        if self.index is None or isinstance(x, float) or x.ndim == 0:
            return x
        return take(reshape(broadcast_to(x, self._shape), (-1,)), self.index)


def rejection(propose, params, what):
    """Rounds of ``propose(subset) -> (candidate, accepted)`` until every element holds an
    accepted candidate: the first accepted one. The first round draws for every element,
    the next ones only for those still pending (aclnnNonzero, then aclnnIndex /
    aclnnIndexPutImpl), so a round costs what is left. The host reads the pending count
    after each round (a synchronisation), so this cannot run in a capture (CaptureError)."""
    check_not_capturing(what)
    value, done = propose(Subset(params))
    value = reshape(value, (-1,))
    pending = flatnonzero(logical_not(done))
    while pending.shape[0]:
        candidate, accepted = propose(Subset(params, pending))
        value[pending[accepted]] = candidate[accepted]
        pending = pending[logical_not(accepted)]
    return reshape(value, params.shape)


def inversion(gen, params, pmf0, ratio, what):
    """Discrete inversion by sequential search: the least k with u <= CDF(k), where
    pmf(0) = ``pmf0`` and pmf(k + 1) = pmf(k) * ``ratio(k)`` (device arrays broadcasting to
    the draw's shape; all elements step through k together). The host checks every few
    steps whether any element is still searching (CaptureError in a capture)."""
    check_not_capturing(what)
    u = uniform(gen, params)
    k = full(params.shape, 0.0, dtype=_F64, device=params.device)
    pmf, cdf = pmf0, pmf0
    step = 0
    while step < _INVERSION_STEPS_MAX:
        for _ in range(_HOST_CHECK_EVERY):
            k = k + greater(u, cdf)
            pmf = pmf * ratio(float(step))
            cdf = cdf + pmf
            step += 1
        if not bool(asnumpy(any_(logical_and(greater(u, cdf), greater(pmf, 0.0))))):
            break
    return k


_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _stirling(y):
    """log Gamma(y) for y >= 7 (Stirling's series; truncation error below 1e-11)."""
    r = 1.0 / y
    r2 = r * r
    series = r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 / 1680)))
    return (y - 0.5) * log(y) - y + _HALF_LOG_2PI + series


def loggam(x):
    """log Gamma(x) for x >= 1 on the device: Stirling's series, shifted up by seven with
    Gamma's recurrence below 7."""
    shifted = x * (x + 1) * (x + 2) * (x + 3) * (x + 4) * (x + 5) * (x + 6)
    return where(x >= 7, _stirling(x), _stirling(x + 7) - log(shifted))


def log_standard_gamma(gen, shape_param, params):
    """log of Gamma(shape_param, 1) variates (``shape_param`` >= 0, a device array):
    Marsaglia and Tsang's squeeze-rejection (ACM TOMS 26(3), 2000) from normals and
    uniforms; shapes below 1 draw Gamma(a + 1) times u^(1/a), in logs so that tiny shapes
    do not underflow (-inf for a shape of 0)."""
    boosted = where(shape_param < 1.0, shape_param + 1.0, shape_param)
    d = boosted - 1.0 / 3.0
    c = 1.0 / sqrt(9.0 * d)
    log_d = log(d)

    def propose(sub):
        d_, c_ = sub.pick(d), sub.pick(c)
        x = normal(gen, sub.params)
        t = 1.0 + c_ * x
        v = t * t * t
        positive = v > 0.0
        log_v = log(where(positive, v, 1.0))
        bound = 0.5 * x * x + d_ - d_ * v + d_ * log_v
        accepted = logical_and(positive, log(uniform(gen, sub.params, open_low=True)) < bound)
        return sub.pick(log_d) + log_v, accepted

    log_gamma = rejection(propose, params, "gamma")
    small = shape_param < 1.0
    if bool(asnumpy(any_(small))):
        tail = log(uniform(gen, params, open_low=True)) / where(small, shape_param, 1.0)
        log_gamma = where(small, log_gamma + tail, log_gamma)
    return where(shape_param == 0.0, -math.inf, log_gamma)


def standard_gamma(gen, shape_param, params):
    return exp(log_standard_gamma(gen, shape_param, params))


def to_int64(x):
    """Integer-valued float64 draws as int64 (aclnnCast)."""
    return floor(x).astype(np.int64)


def output_shape(size):
    if size is None:
        return ()
    if isinstance(size, numbers.Integral) and not isinstance(size, (bool, np.bool_)):
        size = (size,)
    try:
        shape = tuple(_index(n) for n in size)
    except TypeError:
        raise TypeError(f"size must be None, an int or a tuple of ints, got {size!r}") from None
    if any(n < 0 for n in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


def _index(n):
    if isinstance(n, (bool, np.bool_)):
        raise TypeError("bool is not a valid size")
    return operator.index(n)


def capturing(stream):
    return bool(_capture_guard.active) and _capture_guard.capture_of(stream) is not None


