"""``Generator``: NumPy's random API on CANN's counter-based random operators.

A generator draws from a bit generator (``_bit_generator``): a Philox4x32-10 key
(``seed``) and a counter (``offset``), exactly the two arguments CANN's random operators take (``aclnnInplaceUniform``, ``aclnnInplaceNormal``,
``aclnnInplaceRandom``, ``aclnnRandperm``, ``aclnnMultinomial``; hicann/ops-math
``random/``). A launch filling ``n`` elements uses at most the counters ``[offset, offset +
n)`` (npusim's layout: kernels/ops/random_ops.c) and the generator then advances its offset
by ``n``: the same seed gives the same numbers on every run, consecutive calls give fresh
numbers, and generators with different seeds are independent streams. Every
array is produced on the device, on the current stream of the target device; only the
seed and offset (host integers) travel with the launch.

Graph capture, as torch_npu does it: an operator captured with a scalar offset would
replay the same numbers forever, so a draw on a stream being captured uses the Tensor
variant of its operator (``aclnnInplaceUniformTensor``, ``aclnnInplaceNormalTensor``,
``aclnnInplaceRandomTensor``), which reads the seed and offset from a small device
buffer of the generator, and the graph itself adds the draw's size to that offset: every
replay draws fresh numbers, and the same seed replays the same sequence. Captured and
eager draws use separate counter ranges. Replays of graphs sharing a generator are
ordered on its counter buffer like any other shared array. Draws without a Tensor variant
(``permutation``, ``shuffle``, ``choice`` through aclnnRandperm / aclnnMultinomial) raise
``CaptureError`` (107027) in a capture instead of replaying identical "random" numbers.

The distributions CANN has no operator for are composed on the device from these draws
(``_continuous``, ``_discrete``, ``_multivariate``): closed forms (inversion, ratios,
Box-Muller-like transforms) capture like the draws they use; rejection and sequential-search
methods read a count on the host between rounds and raise ``CaptureError`` in a capture.
"""
import math
import numbers

import numpy as np

from .._core import _ops
from .. import runtime
from .._core._array import NPUArray
from .._core._data_type import normalize_dtype
from .._core._elementwise import (add, broadcast_shapes, floor, greater_equal, log1p, multiply,
                                  negative, subtract, where)
from .._core._indexing import take, take_along_axis
from .._core._manipulation import reshape
from .._core._sorting import argsort
from .._core._transfer import asarray, asnumpy
from ._bit_generator import BitGenerator, Philox, signed64
from ._compose import Params, capturing, output_shape, param
from ._continuous import ContinuousDistributions
from ._discrete import DiscreteDistributions
from ._multivariate import MultivariateDistributions

__all__ = ["Generator", "default_rng"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# Integer dtypes aclnnInplaceRandom fills directly (random/dsa_random_uniform/docs/
# aclnnInplaceRandom.md); the other integer dtypes are drawn as int64 and cast.
_RANDOM_DIRECT = frozenset(np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32,
                                                    np.int64, np.uint8))
_INT64_MAX = 2**63 - 1
_POISSON_LAM_MAX = 1e10  # the CDF table spans 24 sqrt(lam) values: 2.4 million at most


def _float_dtype(dtype, method):
    dtype = normalize_dtype(dtype)
    if dtype not in _FLOATS:
        raise TypeError(f"Generator.{method}: unsupported dtype {dtype} (float32 or float64, "
                        "as numpy.random.Generator)")
    return dtype


def _scalar(value, name):
    if isinstance(value, NPUArray) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real Python or NumPy scalar, got "
                        f"{type(value).__name__}")
    return float(value)


class Generator(ContinuousDistributions, DiscreteDistributions, MultivariateDistributions):
    """A random number generator on the NPU (``numpy.random.Generator``, every method;
    mirrors ``cupy.random.Generator``) drawing from ``bit_generator``: a
    :class:`BitGenerator` (a Philox4x32-10 key and counter, as CANN's random operators take
    them), or a seed for a new :class:`Philox`. Create one with :func:`default_rng`.

    Every method returns a new NPUArray of shape ``size`` (``None``: a 0-d array, where
    NumPy returns a Python scalar: reading it would synchronise) on ``device`` (default:
    the current device), computed on the device's current stream. Calls from several
    threads are safe: each call reserves its own counter range. Drawing on a stream being
    captured into a Graph raises ``CaptureError`` (see the module docstring)."""

    def __init__(self, bit_generator=None):
        if not isinstance(bit_generator, BitGenerator):
            bit_generator = Philox(bit_generator)
        self._bit_generator = bit_generator
        stream = runtime.get_current_stream()
        if not capturing(stream):
            self._bit_generator._device_state(stream.device, stream)

    def __repr__(self):
        return f"Generator({type(self._bit_generator).__name__})"

    @property
    def bit_generator(self):
        """The :class:`BitGenerator` (key and counter) this generator draws from."""
        return self._bit_generator

    def spawn(self, n_children):
        """``n_children`` new Generators on the children of this bit generator
        (``numpy.random.Generator.spawn``): independent streams."""
        return [type(self)(child) for child in self._bit_generator.spawn(n_children)]

    # -- plumbing --------------------------------------------------------------------------

    def _reserve(self, count):
        """The offset of a launch using ``count`` counters; the next launch starts after."""
        return self._bit_generator._reserve(count)

    def _target(self, size, dtype, out, device, method):
        """(array, stream) a capturable in-place draw fills: ``out`` itself (an NPUArray of
        ``dtype`` whose shape is ``size`` when given) or a new array."""
        if out is None:
            return self._bit_generator._empty(output_shape(size), dtype, device, method,
                                              capturable=True)
        self._out_size(size, out)
        if out.dtype != dtype:
            raise TypeError(f"Generator.{method}: out has dtype {out.dtype}, expected {dtype}")
        return out, self._bit_generator._draw_stream(out.device, method, capturable=True)

    @staticmethod
    def _out_size(size, out):
        """The draw's size: ``size``, or ``out``'s shape (ValueError when they differ;
        TypeError when ``out`` is not an NPUArray)."""
        if out is None:
            return size
        if not isinstance(out, NPUArray):
            raise TypeError(f"out must be an NPUArray, got {type(out).__name__}")
        if size is not None and output_shape(size) != out.shape:
            raise ValueError(f"size {output_shape(size)} must match out.shape {out.shape}")
        return out.shape

    @staticmethod
    def _out_dtype(dtype, out, method):
        dtype = _float_dtype(dtype, method)
        if out is not None and isinstance(out, NPUArray) and out.dtype != dtype:
            raise TypeError(f"Generator.{method}: out has dtype {out.dtype}, expected {dtype}")
        return dtype

    @staticmethod
    def _finish(result, dtype, out):
        """``result`` in ``dtype``, copied into ``out`` when given (aclnnInplaceCopy)."""
        result = _as_dtype(result, dtype)
        if out is None:
            return result
        _ops.copy_(out, result)
        return out

    def _uniform01(self, shape, dtype, device, method):
        out, stream = self._bit_generator._empty(shape, dtype, device, method, capturable=True)
        return self._bit_generator._fill("aclnnInplaceUniform", out, stream, 0.0, 1.0)

    def _randperm(self, n, device, method):
        out, stream = self._bit_generator._empty((n,), np.dtype(np.int64), device, method)
        if n:
            _ops.launch("aclnnRandperm", n, signed64(self._bit_generator._key), self._reserve(n), out,
                        stream=stream)
        return out

    def _bernoulli(self, p, shape, device, method):
        """int64 zeros and ones, ones with probability ``p`` (a float in [0, 1]):
        aclnnInplaceBernoulli (no Tensor variant: refused in a capture)."""
        out, stream = self._bit_generator._empty(shape, np.dtype(np.int64), device, method)
        if out.size:
            _ops.launch("aclnnInplaceBernoulli", out, _ops.acl_scalar(p, np.dtype(np.float64)),
                        signed64(self._bit_generator._key), self._reserve(out.size),
                        stream=stream)
        return out

    # -- floating distributions -----------------------------------------------------------

    def random(self, size=None, dtype=np.float64, out=None, *, device=None):
        """Floats uniform in [0, 1) (``numpy.random.Generator.random``): aclnnInplaceUniform
        with from=0, to=1, into ``out`` (an NPUArray of ``dtype``) when given. ``dtype``
        float32 or float64, else TypeError; negative sizes: ValueError."""
        target, stream = self._target(size, _float_dtype(dtype, "random"), out, device,
                                      "random")
        return self._bit_generator._fill("aclnnInplaceUniform", target, stream, 0.0, 1.0)

    def _broadcast(self, params, size, device):
        """(shape, device) of a draw whose parameters are floats or NPUArrays: ``size``, or
        the parameters' broadcast shape when it is None; the arrays' device by default.
        ValueError when the parameters do not broadcast to ``size``."""
        arrays = [p for p in params if isinstance(p, NPUArray)]
        if not arrays:
            return output_shape(size), device
        param_shape = broadcast_shapes(*(a.shape for a in arrays))
        shape = param_shape if size is None else output_shape(size)
        if broadcast_shapes(shape, param_shape) != shape:
            raise ValueError(f"parameters of shape {param_shape} do not broadcast to size {shape}")
        return shape, arrays[0].device if device is None else device

    def uniform(self, low=0.0, high=1.0, size=None, *, dtype=np.float64, device=None):
        """Floats uniform in [low, high) (``numpy.random.Generator.uniform``). Scalar bounds
        with low <= high: aclnnInplaceUniform with from=low, to=high. Otherwise (low > high
        draws from (high, low] as NumPy does; NPUArray or host array bounds broadcast
        together, default ``size`` their shape): ``u * (high - low) + low`` on the device
        (aclnnMul, aclnnAdd). Non-finite scalar bounds or range: OverflowError; dtype other
        than float32/float64: TypeError; bounds not broadcasting to ``size``: ValueError."""
        dtype = _float_dtype(dtype, "uniform")
        low, high = _parameter(low, "low", device), _parameter(high, "high", device)
        shape, device = self._broadcast((low, high), size, device)
        scalars = isinstance(low, float) and isinstance(high, float)
        if scalars:
            if not math.isfinite(high - low):
                raise OverflowError(f"high - low range exceeds valid bounds (low={low}, "
                                    f"high={high})")
            if low <= high:
                out, stream = self._bit_generator._empty(shape, dtype, device, "uniform",
                                                         capturable=True)
                return self._bit_generator._fill("aclnnInplaceUniform", out, stream, low, high)
        unit = self._uniform01(shape, dtype, device, "uniform")
        span = high - low if scalars else subtract(high, low)
        return _as_dtype(add(multiply(unit, span), low), dtype)

    def standard_normal(self, size=None, dtype=np.float64, out=None, *, device=None):
        """Standard normal floats (``numpy.random.Generator.standard_normal``):
        aclnnInplaceNormal with mean=0, std=1, into ``out`` (an NPUArray of ``dtype``) when
        given. ``dtype`` float32 or float64, else TypeError."""
        target, stream = self._target(size, _float_dtype(dtype, "standard_normal"), out,
                                      device, "standard_normal")
        return self._bit_generator._fill("aclnnInplaceNormal", target, stream, 0.0, 1.0)

    def normal(self, loc=0.0, scale=1.0, size=None, *, dtype=np.float64, device=None):
        """Normal floats of mean ``loc`` and standard deviation ``scale``
        (``numpy.random.Generator.normal``): aclnnInplaceNormal(0, 1), then ``z * scale +
        loc`` on the device in the output dtype (the operator's float32 mean/std would
        round float64 parameters). NPUArray or host array parameters broadcast together
        (default ``size``: their shape). A scalar scale < 0: ValueError; negative entries
        of an array scale give NaN there (checking them would need a transfer)."""
        loc, scale = _parameter(loc, "loc", device), _parameter(scale, "scale", device)
        _check_nonnegative(scale, "scale")
        shape, device = self._broadcast((loc, scale), size, device)
        z = self.standard_normal(shape, dtype, device=device)
        if isinstance(loc, float) and isinstance(scale, float) and (loc, scale) == (0.0, 1.0):
            return z
        return _as_dtype(_nan_where_negative(add(multiply(z, scale), loc), scale), dtype)

    def exponential(self, scale=1.0, size=None, *, dtype=np.float64, device=None):
        """Exponential floats of mean ``scale`` (``numpy.random.Generator.exponential``) by
        inversion on the device: ``-log1p(-u) * scale`` with u from aclnnInplaceUniform
        (aclnnLog1p, aclnnNeg, aclnnMul). An NPUArray or host array scale sets the default
        ``size``. A scalar scale < 0: ValueError; negative entries of an array scale give
        NaN there."""
        scale = _parameter(scale, "scale", device)
        _check_nonnegative(scale, "scale")
        shape, device = self._broadcast((scale,), size, device)
        unit = self._uniform01(shape, _float_dtype(dtype, "exponential"), device, "exponential")
        result = multiply(negative(log1p(negative(unit))), scale)
        return _as_dtype(_nan_where_negative(result, scale), dtype)

    # -- discrete distributions -----------------------------------------------------------

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False, *,
                 device=None):
        """Integers uniform in [low, high) ([low, high] with ``endpoint=True``; ``high=None``:
        [0, low)) (``numpy.random.Generator.integers``; scalar bounds): aclnnInplaceRandom
        for bool, int8-64 and uint8, int64 draws cast with aclnnCast for uint16-64; the
        whole 64-bit range (int64 or uint64) joins two 32-bit draws on the device
        (aclnnBitwiseLeftShift, aclnnBitwiseOr). ValueError when the range is empty or leaves
        ``dtype``'s bounds, or for other uint64 ranges beyond int64's (the operator's
        parameter type); TypeError for non-integer dtypes. Array bounds (host data or
        NPUArrays, broadcasting with ``size``) scale float64 uniforms instead (see
        ``_integers_array``)."""
        dtype = normalize_dtype(dtype)
        if dtype.kind not in "biu":
            raise TypeError(f"Generator.integers: unsupported dtype {dtype} (an integer or "
                            "bool dtype)")
        if high is None:
            low, high = 0, low
        if any(isinstance(b, (NPUArray, np.ndarray, list, tuple)) for b in (low, high)):
            return self._integers_array(low, high, size, dtype, endpoint, device)
        low, high = _integer(low, "low"), _integer(high, "high")
        if endpoint:
            high += 1
        if low >= high:
            raise ValueError(f"low >= high (low={low}, high={high - bool(endpoint)}"
                             f"{', endpoint=True' if endpoint else ''})")
        info = np.iinfo(dtype) if dtype.kind != "b" else None
        lowest, highest = (0, 1) if info is None else (int(info.min), int(info.max))
        if low < lowest:
            raise ValueError(f"low is out of bounds for {dtype}")
        if high - 1 > highest:
            raise ValueError(f"high is out of bounds for {dtype}")
        if high - low == 2**64:  # every 64-bit pattern: uniform whatever low is
            return _as_dtype(self._bit_generator._raw64(output_shape(size), device), dtype)
        if high - 1 > _INT64_MAX - 1:
            raise ValueError(f"high - 1 = {high - 1} exceeds aclnnInplaceRandom's int64 bound "
                             f"{_INT64_MAX - 1} (only the whole 64-bit range goes beyond)")
        draw_dtype = dtype if dtype in _RANDOM_DIRECT else np.dtype(np.int64)
        out, stream = self._bit_generator._empty(output_shape(size), draw_dtype, device,
                                                 "integers", capturable=True)
        self._bit_generator._fill("aclnnInplaceRandom", out, stream, low, high)
        return out if draw_dtype == dtype else _ops.cast(out, dtype, stream=stream)

    def _integers_array(self, low, high, size, dtype, endpoint, device):
        """``integers`` with array bounds (host data checked as NumPy does; NPUArrays used
        as given): floor(u (high - low)) + low for 53-bit float64 uniforms u
        (aclnnInplaceUniform, aclnnMul, aclnnFloor, aclnnAdd), so the bias is below
        (high - low) 2^-53; ranges must stay below 2^53."""
        low = param(low, "low", integer=True)
        high = param(high, "high", integer=True)
        if endpoint:
            high = high + 1
        if not isinstance(low, NPUArray) and not isinstance(high, NPUArray):
            if np.any(np.greater_equal(low, high)):
                raise ValueError("low >= high")
            info = np.iinfo(dtype) if dtype.kind != "b" else None
            lowest, highest = (0, 1) if info is None else (int(info.min), int(info.max))
            if np.any(np.less(low, lowest)):
                raise ValueError(f"low is out of bounds for {dtype}")
            if np.any(np.greater(np.subtract(high, 1), highest)):
                raise ValueError(f"high is out of bounds for {dtype}")
            if np.any(np.subtract(high, low) > 2.0**53):
                raise ValueError("high - low must stay below 2**53 with array bounds")
        params = Params(size, device, (low, high), capturable=True)
        low, high = params.values
        unit = self._uniform01(params.shape, np.dtype(np.float64), params.device, "integers")
        return _ops.cast(floor(unit * (high - low)) + low, dtype)

    # -- permutations and sampling --------------------------------------------------------

    def permutation(self, x, axis=0, *, device=None):
        """A random permutation (``numpy.random.Generator.permutation``): of ``arange(x)``
        for an int ``x`` (aclnnRandperm, int64), else of the array ``x`` (an NPUArray, or host
        data uploaded to ``device``) along ``axis`` (aclnnRandperm, then aclnnIndexSelect). IndexError for a 0-d array or a bad axis,
        ValueError for a negative int, TypeError for other inputs."""
        if isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_)):
            if x < 0:
                raise ValueError(f"permutation of a negative length {x}")
            return self._randperm(int(x), device, "permutation")
        x = _device_array(x, "permutation", device)
        axis = _axis(x, axis, "permutation")
        return take(x, self._randperm(x.shape[axis], x.device, "permutation"), axis=axis)

    def shuffle(self, x, axis=0):
        """Shuffles the NPUArray ``x`` in place along ``axis``
        (``numpy.random.Generator.shuffle``): aclnnRandperm, aclnnIndexSelect, then
        aclnnInplaceCopy back into ``x``. Returns None. TypeError for non-NPUArrays,
        IndexError for a 0-d array or a bad axis."""
        if not isinstance(x, NPUArray):
            raise TypeError(f"shuffle works in place on an NPUArray, got {type(x).__name__}")
        axis = _axis(x, axis, "shuffle")
        _ops.copy_(x, take(x, self._randperm(x.shape[axis], x.device, "shuffle"), axis=axis))

    def permuted(self, x, *, axis=None, out=None):
        """``x`` with each slice along ``axis`` shuffled independently (``numpy.random.
        Generator.permuted``; ``axis=None``: the flattened array, reshaped back): the
        argsort of aclnnInplaceUniform keys along ``axis`` (aclnnArgsort), then
        aclnnGatherV2 (take_along_axis). ``out`` (an NPUArray of x's shape; may be x) receives
        the result. IndexError for a bad axis, ValueError for an ``out`` of another shape."""
        x = _device_array(x, "permuted", None) if not isinstance(x, NPUArray) else x
        if out is not None and (not isinstance(out, NPUArray) or out.shape != x.shape):
            raise ValueError("out must be an NPUArray of the same shape as x")
        if axis is None:
            flat = reshape(x, (x.size,))
            result = reshape(take(flat, self._randperm(x.size, x.device, "permuted")), x.shape)
        else:
            axis = _axis(x, axis, "permuted")
            keys = self._uniform01(x.shape, np.dtype(np.float32), x.device, "permuted")
            result = take_along_axis(x, argsort(keys, axis=axis), axis=axis)
        if out is None:
            return result
        _ops.copy_(out, result)
        return out

    def bytes(self, length):
        """``length`` random bytes (``numpy.random.Generator.bytes``): uint8 draws of
        aclnnInplaceRandom on the current device, copied to the host as ``bytes``."""
        length = _integer(length, "length")
        if length < 0:
            raise ValueError("length must be non-negative")
        return asnumpy(self.integers(0, 256, length, dtype=np.uint8)).tobytes()

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True, *, device=None):
        """Random samples from ``a`` (an int n: ``arange(n)``; or an array, host data
        uploaded to ``device``, along
        ``axis``; then aclnnIndexSelect) (``numpy.random.Generator.choice``). Uniform
        indices come from aclnnInplaceRandom (with replacement) or the first items of
        aclnnRandperm (without); with probabilities ``p`` from aclnnMultinomial (without
        replacement: successive draws, NumPy's law). The result's order is always random
        (``shuffle`` is accepted for compatibility).
        ValueError for an empty ``a`` with samples requested, more samples than items
        without replacement, or a ``p`` of the wrong length, with negative entries, not
        summing to 1 or with too few non-zero entries (checked when ``p`` is host data; an
        NPUArray ``p`` is used as given, normalised by its sum, without a transfer: npusim
        then fails the launch, reported at the next synchronisation, on bad weights)."""
        del shuffle  # the result is always in random order
        pool = None
        if isinstance(a, numbers.Integral) and not isinstance(a, (bool, np.bool_)):
            n = int(a)
            if n < 0:
                raise ValueError(f"a must be a positive integer or an array (got {n})")
        else:
            pool = _device_array(a, "choice", device)
            axis = _axis(pool, axis, "choice")
            n = pool.shape[axis]
            device = pool.device
        shape = output_shape(size)
        count = math.prod(shape)
        if n == 0 and count:
            raise ValueError("a cannot be empty unless no samples are taken")
        if not replace and count > n:
            raise ValueError(f"cannot take a larger sample ({count}) than the population "
                             f"({n}) when replace=False")
        if p is not None:
            p = _probabilities(p, n, count, replace, device)
        index = self._choice_indices(n, count, replace, p, device)
        if pool is None:
            return reshape(index, shape)
        picked = take(pool, index, axis=axis)
        return reshape(picked, pool.shape[:axis] + shape + pool.shape[axis + 1:])

    def _choice_indices(self, n, count, replace, p, device):
        """``count`` int64 indices into ``range(n)`` (1-D)."""
        if p is None:
            if replace:
                return self.integers(0, max(n, 1), count, device=device)
            return self._randperm(n, device, "choice")[:count]
        out, stream = self._bit_generator._empty((count,), np.dtype(np.int64), p.device, "choice")
        if count:
            _ops.launch("aclnnMultinomial", p, count, replace, signed64(self._bit_generator._key),
                        self._reserve(max(n, count)), out, stream=stream)
        return out


def _parameter(value, name, device):
    """A real scalar as a float, an NPUArray as a floating NPUArray, host array data uploaded
    (float64) to ``device``; TypeError for anything else."""
    if isinstance(value, NPUArray):
        return value if value.dtype.kind == "f" else _ops.cast(value, np.dtype(np.float64))
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, (np.ndarray, list, tuple)):
        return asarray(np.asarray(value, dtype=np.float64), device=device)
    raise TypeError(f"{name} must be a real number or an array, got {type(value).__name__}")


def _check_nonnegative(value, name):
    if isinstance(value, float) and not value >= 0:
        raise ValueError(f"{name} < 0 (got {value})")


def _nan_where_negative(result, scale):
    """``result`` with NaN where an array ``scale`` is negative (aclnnSWhere)."""
    if not isinstance(scale, NPUArray):
        return result
    return where(greater_equal(scale, 0.0), result, math.nan)


def _as_dtype(x, dtype):
    return x if x.dtype == dtype else _ops.cast(x, dtype)


def _integer(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    return int(value)


def _device_array(x, method, device):
    """``x`` as an NPUArray of at least one dimension: host arrays and lists are uploaded
    (npuarray.asarray) to ``device``."""
    if isinstance(x, (np.ndarray, list, tuple)):
        x = asarray(x, device=device)
    if not isinstance(x, NPUArray):
        raise TypeError(f"Generator.{method}: expected an int or an array, got "
                        f"{type(x).__name__}")
    if x.ndim == 0:
        raise IndexError(f"Generator.{method}: x must be an integer or at least 1-dimensional")
    return x


def _axis(x, axis, method):
    axis = _integer(axis, "axis")
    if not -x.ndim <= axis < x.ndim:
        raise IndexError(f"Generator.{method}: axis {axis} is out of bounds for array of "
                         f"dimension {x.ndim}")
    return axis % x.ndim


def _probabilities(p, n, count, replace, device):
    """``p`` as a float64 NPUArray of length n, validated as NumPy does when it is host data."""
    if isinstance(p, NPUArray):
        if p.shape != (n,):
            raise ValueError(f"p must be 1-dimensional with the length of a ({n}), got shape "
                             f"{p.shape}")
        return p if p.dtype == np.float64 else _ops.cast(p, np.dtype(np.float64))
    host = np.asarray(p, dtype=np.float64)
    if host.shape != (n,):
        raise ValueError(f"p must be 1-dimensional with the length of a ({n}), got shape "
                         f"{host.shape}")
    if not np.all(np.isfinite(host)) or np.any(host < 0):
        raise ValueError("probabilities must be finite and non-negative")
    if abs(host.sum() - 1.0) > math.sqrt(np.finfo(np.float64).eps):
        raise ValueError("probabilities do not sum to 1")
    if not replace and np.count_nonzero(host) < count:
        raise ValueError("Fewer non-zero entries in p than size")
    return asarray(host, device=device)


def default_rng(seed=None):
    """A new :class:`Generator` (``numpy.random.default_rng``) on a :class:`Philox` bit
    generator seeded with ``seed`` (None: OS entropy; an int >= 0, a sequence of them or a
    :class:`SeedSequence`); a :class:`BitGenerator` is wrapped as it is, and a Generator is
    returned as it is. TypeError / ValueError for other seeds."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, BitGenerator):
        return Generator(seed)
    return Generator(Philox(seed))
