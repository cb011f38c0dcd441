"""``npuarray.random``: NumPy's random API on the NPU (``numpy.random``, as ``cupy.random``).

:func:`default_rng` gives a :class:`Generator` (Philox4x32-10 key and counter, the ``seed``
and ``offset`` of CANN's random operators); the legacy functions ``seed``, ``rand``,
``randn``, ``randint``, ``random_sample`` (alias ``random``) draw from one module-wide
generator. Every draw runs on the device, on the current stream of the target device.
"""
import threading

import numpy as np

from ._generator import Generator, default_rng

__all__ = ["Generator", "default_rng", "seed", "rand", "randn", "randint", "random_sample",
           "random"]

_global_lock = threading.Lock()
_global = None


def _global_generator():
    global _global
    with _global_lock:
        if _global is None:
            _global = Generator()
        return _global


def seed(seed=None):
    """Reseeds the module-wide generator of the legacy functions (``numpy.random.seed``;
    None: OS entropy)."""
    global _global
    generator = Generator(seed)
    with _global_lock:
        _global = generator


def rand(*shape, device=None):
    """Float64 values uniform in [0, 1) of shape ``shape`` (``numpy.random.rand``):
    aclnnInplaceUniform from the module-wide generator; ``rand()`` is a 0-d array."""
    return _global_generator().random(shape, device=device)


def randn(*shape, device=None):
    """Standard normal float64 values of shape ``shape`` (``numpy.random.randn``):
    aclnnInplaceNormal from the module-wide generator."""
    return _global_generator().standard_normal(shape, device=device)


def randint(low, high=None, size=None, dtype=np.int64, *, device=None):
    """Integers in [low, high) ([0, low) when ``high`` is None) (``numpy.random.randint``):
    aclnnInplaceRandom from the module-wide generator; errors as Generator.integers."""
    return _global_generator().integers(low, high, size, dtype, device=device)


def random_sample(size=None, *, device=None):
    """Float64 values uniform in [0, 1) of shape ``size`` (``numpy.random.random_sample``):
    aclnnInplaceUniform from the module-wide generator."""
    return _global_generator().random(size, device=device)


random = random_sample
