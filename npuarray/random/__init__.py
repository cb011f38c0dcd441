"""``npuarray.random``: NumPy's random API on the NPU (``numpy.random``, as ``cupy.random``).

:func:`default_rng` gives a :class:`Generator` on a :class:`Philox` bit generator (a
Philox4x32-10 key and counter, the ``seed`` and ``offset`` of CANN's random operators);
:class:`RandomState` is NumPy's legacy generator, and the module-level functions (``seed``,
``rand``, ``normal``, ``binomial``, ``get_state``, ...) draw from one module-wide
RandomState, as NumPy's do. Every draw runs on the device, on the current stream of the
target device; only the key and counter (host integers) travel with each launch.
"""
import functools
import threading

from ._bit_generator import (MT19937, PCG64, PCG64DXSM, SFC64, BitGenerator, Philox,
                             SeedSequence)
from ._generator import Generator, default_rng
from ._legacy import DELEGATED, RandomState

_STATE_FUNCTIONS = ("seed", "get_state", "set_state", "rand", "randn", "randint",
                    "random_integers", "random_sample")
__all__ = ["BitGenerator", "Generator", "MT19937", "PCG64", "PCG64DXSM", "Philox",
           "RandomState", "SFC64", "SeedSequence", "default_rng", "get_bit_generator",
           "set_bit_generator", "random", "ranf", "sample", *_STATE_FUNCTIONS, *DELEGATED]

_global_lock = threading.Lock()
_global = None


def _global_state():
    """The module-wide RandomState (made on first use, on the current device)."""
    global _global
    with _global_lock:
        if _global is None:
            _global = RandomState()
        return _global


def get_bit_generator():
    """The module-wide RandomState's bit generator (``numpy.random.get_bit_generator``)."""
    return _global_state()._generator.bit_generator


def set_bit_generator(bitgen):
    """Makes the module-wide RandomState draw from ``bitgen``, a :class:`BitGenerator`
    (``numpy.random.set_bit_generator``); TypeError for anything else."""
    global _global
    if not isinstance(bitgen, BitGenerator):
        raise TypeError(f"bitgen must be a BitGenerator, got {type(bitgen).__name__}")
    state = RandomState(bitgen)
    with _global_lock:
        _global = state


def _module_function(name):
    method = getattr(RandomState, name)

    @functools.wraps(method)
    def call(*args, **kwargs):
        return method(_global_state(), *args, **kwargs)

    call.__doc__ = (f"``numpy.random.{name}``: :meth:`RandomState.{name}` on the module-wide "
                    f"RandomState.\n\n{method.__doc__}")
    return call


for _name in _STATE_FUNCTIONS + DELEGATED:
    globals()[_name] = _module_function(_name)
del _name
random = ranf = sample = random_sample  # noqa: F821  NumPy's aliases
