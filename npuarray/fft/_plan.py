"""aclfft plans and their cache: the one place npuarray calls CANN's FFT library.

A plan (``aclfftPlan1d``, horizontal, single precision; ``aclfftPlan2d`` for C2C
transforms over the last two axes) is keyed by transform length (``(nx, ny)`` for
a 2-D plan), type (C2C, R2C, C2R), batch and device, and kept in a small LRU cache
like CuPy's cuFFT plan cache; an evicted or cleared plan is destroyed with
``aclfftDestroy`` when the last reference goes (npusim keeps the tables a queued
transform uses alive). Each execution binds the plan to the current stream of
the operands' device (``aclfftSetStream``) and orders the operands' buffers on
it, as ``_ops.launch`` does for aclnn operators.
"""
import collections
import functools
import threading

from .. import _acl
from .._acl import ffi, lib
from .._core._ops import current_stream
from ..runtime._device import activate

__all__ = ["FFTError", "plan_cache_info", "clear_plan_cache", "set_plan_cache_size"]

ACLFFT_HORIZONTAL = 0
ACLFFT_FORWARD, ACLFFT_BACKWARD = -1, 1
C2C, R2C, C2R = 0x29, 0x2A, 0x2C  # aclfftType
_EXEC = {C2C: "aclfftExecC2C", R2C: "aclfftExecR2C", C2R: "aclfftExecC2R"}
_POINTER = {C2C: ("aclfftComplex *", "aclfftComplex *"), R2C: ("aclfftReal *", "aclfftComplex *"),
            C2R: ("aclfftComplex *", "aclfftReal *")}
MAX_SIZE = 1 << 27   # the library's limits (hicann/ops-fft docs/zh/API Reference/FFT_1D.md)
MAX_PRIME = 199
MAX_ELEMENTS = 1 << 30


class FFTError(_acl.AclError):
    """A non-zero ``aclfftResult`` from CANN's FFT library; ``code`` is that value,
    ``name`` its ACLFFT constant, ``message`` the library's recent error message."""

    def __init__(self, code, api="", message=""):
        super().__init__(code, api, message)
        self.name = ffi.string(lib.aclfftGetErrorString(code)).decode().split(":")[0]

    def __str__(self):
        return f"{self.api} returned {self.code} ({self.name}): {self.message}"


def _check(result, api):
    if result:
        message = lib.aclGetRecentErrMsg()
        raise FFTError(result, api, ffi.string(message).decode() if message != ffi.NULL else "")


@functools.lru_cache(maxsize=1024)
def supported_length(n):
    """Whether aclfft transforms length ``n``: at most 2**27, no prime factor above 199
    (remembered per length: the trial division costs more than a small transform)."""
    if not 0 < n <= MAX_SIZE:
        return False
    for p in range(2, MAX_PRIME + 1):
        while n % p == 0:
            n //= p
    return n == 1


class _Plan:
    __slots__ = ("handle",)

    def __init__(self, n, kind, batch):
        out = ffi.new("aclfftHandle *")
        if isinstance(n, tuple):
            _check(lib.aclfftPlan2d(out, batch, n[0], n[1], kind), "aclfftPlan2d")
        else:
            _check(lib.aclfftPlan1d(out, n, kind, batch, ACLFFT_HORIZONTAL), "aclfftPlan1d")
        self.handle = ffi.gc(out[0], lib.aclfftDestroy)


_lock = threading.Lock()
_cache = collections.OrderedDict()  # (n, type, batch, device id) -> _Plan, least recent first
_cache_size = 16
_stats = {"hits": 0, "misses": 0}


def _plan(n, kind, batch, device):
    key = (n, kind, batch, device.id)
    with _lock:
        plan = _cache.get(key)
        if plan is not None:
            _cache.move_to_end(key)
            _stats["hits"] += 1
            return plan
        _stats["misses"] += 1
    activate(device.id)  # CANN makes a plan on the current device
    plan = _Plan(n, kind, batch)
    with _lock:
        _cache[key] = plan
        while len(_cache) > _cache_size:
            _cache.popitem(last=False)
    return plan


def plan_cache_info():
    """``{"size", "max_size", "hits", "misses", "keys"}`` of the aclfft plan cache;
    keys are ``(n, aclfftType, batch, device id)``, ``n`` a pair ``(nx, ny)`` for 2-D plans."""
    with _lock:
        return {"size": len(_cache), "max_size": _cache_size, "keys": list(_cache), **_stats}


def clear_plan_cache():
    """Drops every cached plan (each is destroyed once no transform uses it)."""
    with _lock:
        _cache.clear()


def set_plan_cache_size(size):
    """Sets how many plans the cache keeps (0 disables caching); evicts the least
    recently used ones beyond it."""
    global _cache_size
    if int(size) < 0:
        raise ValueError(f"the plan cache size must be >= 0, got {size}")
    with _lock:
        _cache_size = int(size)
        while len(_cache) > _cache_size:
            _cache.popitem(last=False)


def execute(kind, n, batch, x, out, direction):
    """Runs the 1-D transform ``kind`` of length ``n`` over ``batch`` contiguous rows of
    the C-contiguous NPUArray ``x`` into the C-contiguous ``out`` on the current stream of
    their device; with ``n = (nx, ny)`` the 2-D C2C transform of ``batch`` row-major
    ``nx`` x ``ny`` matrices (``aclfftPlan2d``)."""
    device = x._buffer.device
    stream = current_stream(device)
    plan = _plan(n, kind, batch, device)
    for buffer in (x._buffer, out._buffer):
        buffer.prepare(stream)
    activate(device.id)
    _check(lib.aclfftSetStream(plan.handle, stream.handle), "aclfftSetStream")
    in_type, out_type = _POINTER[kind]
    args = [plan.handle, ffi.cast(in_type, x.data_ptr), ffi.cast(out_type, out.data_ptr)]
    if kind == C2C:
        args.append(direction)
    _check(getattr(lib, _EXEC[kind])(*args), _EXEC[kind])
