"""Bit generators: the (key, counter) state that CANN's random operators take.

CANN's random operators (``aclnnInplaceUniform``, ``aclnnInplaceNormal``,
``aclnnInplaceRandom``, ``aclnnRandperm``, ``aclnnMultinomial``; hicann/ops-math ``random/``)
are counter-based Philox4x32-10 generators addressed by a 64-bit ``seed`` (the key) and a
64-bit ``offset`` (the counter). A :class:`BitGenerator` is exactly that pair: its key comes
from a :class:`SeedSequence` (NumPy's, an entropy hash run on the host: it draws no numbers),
its counter advances by the number of values each launch uses. :class:`Philox` is the native
one; :class:`MT19937`, :class:`PCG64`, :class:`PCG64DXSM` and :class:`SFC64` keep NumPy's
names and seeding interface but key the same device Philox stream: their numbers differ from
NumPy's generators of those names (bitwise equality with NumPy is not a goal, the
distributions are).
"""
import numbers
import os
import threading

import numpy as np

from .. import runtime
from .._acl import CaptureError
from .._core import _ops
from ..runtime._device import as_device_id
from ._compose import capturing, output_shape
from .._core._array_layout import reinterpreted

__all__ = ["SeedSequence", "BitGenerator", "Philox", "MT19937", "PCG64", "PCG64DXSM", "SFC64"]

SeedSequence = np.random.SeedSequence
_INT64_MAX = 2**63 - 1
_UINT64 = 2**64
_JUMP_WORD = 0x6A756D70  # "jump": marks the entropy of a jumped key
_ACL_ERROR_RT_STREAM_CAPTURED = 107027
_UNSIGNED_SEED = frozenset({"aclnnInplaceUniform"})  # uint64_t seed; the others take int64_t


def signed64(value):
    """``value`` (0 <= value < 2**64) as the int64 with the same bits (CANN's int64 seed)."""
    return value - _UINT64 if value > _INT64_MAX else value


def _seed_sequence(seed):
    """``seed`` as a SeedSequence: None (OS entropy), a non-negative int, a sequence of them
    or a SeedSequence. TypeError for other types, ValueError for negative entropy."""
    if isinstance(seed, np.random.bit_generator.ISeedSequence):
        return seed
    if isinstance(seed, np.random.BitGenerator):  # NumPy's: its seed sequence keys ours
        return seed.seed_seq
    if seed is None:
        return SeedSequence(int.from_bytes(os.urandom(16), "little"))
    if isinstance(seed, np.ndarray):
        if seed.dtype.kind not in "iu":
            raise TypeError(f"seed must be an integer array, got dtype {seed.dtype}")
        seed = seed.tolist()
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (numbers.Integral, list, tuple)):
        raise TypeError(f"seed must be None, a non-negative int, a sequence of them or a "
                        f"SeedSequence, got {type(seed).__name__}")
    try:
        return SeedSequence(seed)
    except (TypeError, ValueError) as error:
        raise ValueError(f"invalid seed {seed!r}: {error}") from None


class BitGenerator:
    """A Philox4x32-10 key and counter on the device (``numpy.random.BitGenerator``).

    ``seed``: None (OS entropy), an int >= 0, a sequence of them, a :class:`SeedSequence`
    or a NumPy bit generator (its ``seed_seq``); the 64-bit key is the sequence's first
    uint64 word. Draws made through a
    :class:`~npuarray.random.Generator` on this bit generator reserve counters from it, so
    generators sharing one bit generator share its stream. TypeError / ValueError for bad
    seeds (as NumPy). ``state`` is ``{"bit_generator": name, "state": {"key", "counter"}}``
    and can be set back; ``spawn(n)`` gives ``n`` independent children (keys of the seed
    sequence's children); ``lock`` serialises counter reservations."""

    def __init__(self, seed=None):
        self._seed_seq = _seed_sequence(seed)
        self._set_key(int(self._seed_seq.generate_state(1, np.uint64)[0]))
        self._lock = threading.Lock()

    @property
    def lock(self):
        """The lock serialising this bit generator's counter reservations."""
        return self._lock

    def _set_key(self, key, counter=0):
        self._key = key
        self._counter = counter
        self._states = {}  # device id -> DeviceState, the counters captured draws read

    def __repr__(self):
        return f"{type(self).__name__}(key={self._key:#x}, counter={self._counter})"

    @property
    def seed_seq(self):
        """The :class:`SeedSequence` the key came from."""
        return self._seed_seq

    def _reserve(self, count):
        """The counter of a launch using ``count`` counters; the next launch starts after."""
        with self._lock:
            counter = self._counter
            self._counter = (self._counter + count) % _UINT64
        return counter

    @property
    def state(self):
        """``{"bit_generator": name, "state": {"key": int, "counter": int}}`` (host ints)."""
        return {"bit_generator": type(self).__name__,
                "state": {"key": self._key, "counter": self._counter}}

    @state.setter
    def state(self, value):
        if not isinstance(value, dict) or value.get("bit_generator") != type(self).__name__:
            raise ValueError(f"state must be a dict given by {type(self).__name__}.state")
        inner = value.get("state")
        try:
            key, counter = int(inner["key"]), int(inner["counter"])
        except (TypeError, KeyError, ValueError):
            raise ValueError("state['state'] must hold the int 'key' and 'counter'") from None
        if not (0 <= key < _UINT64 and 0 <= counter < _UINT64):
            raise ValueError("key and counter must be in [0, 2**64)")
        with self._lock:
            self._set_key(key, counter)

    def spawn(self, n_children):
        """``n_children`` new bit generators of this type, keyed by the children of the seed
        sequence (``numpy.random.BitGenerator.spawn``): independent streams."""
        return [type(self)(child) for child in self._seed_seq.spawn(n_children)]

    def jumped(self, jumps=1):
        """A new bit generator of this type whose stream is independent of this one, as
        ``jumped`` gives in NumPy: here a key derived from this key and ``jumps`` (the
        operators' 64-bit offset leaves no room for NumPy's 2**128-step jump). ValueError for
        a negative ``jumps``."""
        jumps = operator_index(jumps, "jumps")
        if jumps < 0:
            raise ValueError("jumps must be non-negative")
        child = type(self).__new__(type(self))
        child._seed_seq = self._seed_seq
        child._lock = threading.Lock()
        words = [self._key & 0xFFFFFFFF, self._key >> 32, jumps & 0xFFFFFFFF, jumps >> 32,
                 _JUMP_WORD]
        key = int(SeedSequence(words).generate_state(1, np.uint64)[0]) if jumps else self._key
        child._set_key(key, self._counter)
        return child

    def advance(self, delta):
        """Advances the counter by ``delta`` values (``Philox.advance``) and returns self."""
        delta = operator_index(delta, "delta")
        if delta < 0:
            raise ValueError("delta must be non-negative")
        self._reserve(delta % _UINT64)
        return self

    # -- draws: the launches of Generator's methods and of random_raw -------------------------

    def _device_state(self, device, stream):
        """The counter buffer on ``device`` (made on first use)."""
        state = self._states.get(device.id)
        if state is None:
            with self.lock:  # one counter buffer per device, even across threads
                state = self._states.get(device.id)
                if state is None:
                    state = self._states[device.id] = DeviceState(self._key, device, stream)
        return state

    def _empty(self, shape, dtype, device, method, capturable=False):
        """A new array for a draw and the stream it runs on. ``capturable``: the draw has a
        Tensor variant; others are refused on a stream being captured."""
        stream = self._draw_stream(device, method, capturable)
        return _ops.empty(shape, dtype, stream.device, stream), stream

    def _draw_stream(self, device, method, capturable):
        """The current stream of ``device`` for a draw (see :meth:`_empty`)."""
        device = runtime.Device(as_device_id(device))
        stream = runtime.get_current_stream(device)
        if not capturing(stream):
            self._device_state(device, stream)
        elif not capturable or device.id not in self._states:
            why = ("has no device-resident variant (aclnnRandperm, aclnnMultinomial)"
                   if not capturable else
                   f"needs the generator's counter on {device!r}, which is made by its first "
                   "draw there outside a capture (or by default_rng on the current device)")
            raise CaptureError(_ACL_ERROR_RT_STREAM_CAPTURED, f"Generator.{method}",
                               f"{stream!r} is being captured into a graph and this draw {why}; "
                               "draw outside the capture instead")
        return stream

    def _fill(self, op, out, stream, *params):
        """Launch the in-place draw ``op``(out, *params, seed, offset); inside a capture its
        Tensor variant reading the device counter, which the graph then advances."""
        size = out.size
        if not size:
            return out
        if capturing(stream):
            state = self._states[stream.device.id]
            seed, offset = state.tensors(op in _UNSIGNED_SEED)
            _ops.launch(op + "Tensor", out, *params, seed, offset, 0, stream=stream)
            state.advance(size, stream)
        else:
            seed = self._key if op in _UNSIGNED_SEED else signed64(self._key)
            _ops.launch(op, out, *params, seed, self._reserve(size), stream=stream)
        return out

    def _raw64(self, shape, device):
        """uint64 words uniform over [0, 2**64): two aclnnInplaceRandom draws in [0, 2**32)
        joined on the device (aclnnBitwiseLeftShift, aclnnBitwiseOr)."""
        halves, stream = self._empty((2,) + shape, np.dtype(np.int64), device, "integers",
                                     capturable=True)
        halves = self._fill("aclnnInplaceRandom", halves, stream, 0, 2**32).astype(np.uint64)
        return (halves[0] << np.uint64(32)) | halves[1]

    def random_raw(self, size=None, output=True):
        """Raw uint64 words (``BitGenerator.random_raw``) on the current device: two 32-bit
        halves drawn by aclnnInplaceRandom joined on the device (aclnnBitwiseLeftShift,
        aclnnBitwiseOr). ``output=False`` advances the stream and returns None."""
        words = self._raw64(output_shape(size), None)
        return words if output else None

    def __getstate__(self):
        """Pickles the seed sequence, key and counter (not the device buffers or the lock)."""
        return {"seed_seq": self._seed_seq, "key": self._key, "counter": self._counter}

    def __setstate__(self, state):
        self._seed_seq = state["seed_seq"]
        self._lock = threading.Lock()
        self._set_key(state["key"], state["counter"])


def operator_index(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    return int(value)


class Philox(BitGenerator):
    """Philox4x32-10, CANN's random operators' own generator (``numpy.random.Philox``).

    ``seed`` as :class:`BitGenerator`; ``key`` (an int in [0, 2**64)) sets the key directly
    and ``counter`` (an int in [0, 2**64)) the first counter, instead of a seed (ValueError
    when both ``seed`` and ``key`` are given)."""

    def __init__(self, seed=None, counter=None, key=None):
        if key is not None and seed is not None:
            raise ValueError("seed and key cannot be both used")
        super().__init__(seed)
        if key is not None:
            self._set_key(_word64(key, "key"))
        if counter is not None:
            self._counter = _word64(counter, "counter")


def _word64(value, name):
    value = int(np.asarray(value).ravel()[0]) if isinstance(value, (np.ndarray, list, tuple)) \
        else operator_index(value, name)
    if not 0 <= value < _UINT64:
        raise ValueError(f"{name} must be in [0, 2**64)")
    return value


class MT19937(BitGenerator):
    """NumPy's Mersenne Twister name and seeding (``numpy.random.MT19937``), drawing from a
    device Philox4x32-10 stream keyed by the seed: the numbers differ from NumPy's MT19937."""


class PCG64(BitGenerator):
    """NumPy's PCG64 name and seeding (``numpy.random.PCG64``), drawing from a device
    Philox4x32-10 stream keyed by the seed: the numbers differ from NumPy's PCG64."""


class PCG64DXSM(BitGenerator):
    """NumPy's PCG64DXSM name and seeding (``numpy.random.PCG64DXSM``), drawing from a device
    Philox4x32-10 stream keyed by the seed: the numbers differ from NumPy's PCG64DXSM."""


class SFC64(BitGenerator):
    """NumPy's SFC64 name and seeding (``numpy.random.SFC64``), drawing from a device
    Philox4x32-10 stream keyed by the seed: the numbers differ from NumPy's SFC64."""

    def jumped(self, jumps=1):
        raise AttributeError("'SFC64' object has no attribute 'jumped' (as NumPy's SFC64)")

    def advance(self, delta):
        raise AttributeError("'SFC64' object has no attribute 'advance' (as NumPy's SFC64)")


class DeviceState:
    """A bit generator's device-resident (key, counter) on one device, for captured draws:
    the Tensor variants of the operators read them when the graph runs, and the graph adds
    each draw's size to the counter (aclnnAdds), so every replay continues the stream.
    The counters start at 2**62, apart from the host counter's, so captured and eager
    draws never share counters."""

    _FIRST_OFFSET = 2**62

    def __init__(self, key, device, stream):
        state = _ops.empty((2,), np.dtype(np.int64), device, stream)
        _ops.fill_(state[0:1], signed64(key), stream=stream)
        _ops.fill_(state[1:2], self._FIRST_OFFSET, stream=stream)
        self._int64 = state[0:1], state[1:2]
        self._uint64 = tuple(reinterpreted(half, np.dtype(np.uint64)) for half in self._int64)

    def tensors(self, unsigned):
        """(seedTensor, offsetTensor) as uint64 (``unsigned``) or int64, as the Tensor
        variant's document says."""
        return self._uint64 if unsigned else self._int64

    def advance(self, count, stream):
        offset = self._int64[1]
        one = _ops.acl_scalar(1, offset.dtype)
        _ops.launch("aclnnAdds", offset, _ops.acl_scalar(count, offset.dtype), one, offset,
                    stream=stream)
