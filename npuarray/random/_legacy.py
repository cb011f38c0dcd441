"""``RandomState``: NumPy's legacy random API on a device Philox stream.

A RandomState is a :class:`~npuarray.random.Generator` on an :class:`MT19937` bit generator
(NumPy's legacy name and seeding; the numbers come from the device Philox4x32-10 stream
keyed by the seed, so they differ from NumPy's). Its methods keep the legacy names and
signatures (``rand``, ``randn``, ``randint``, ``random_integers``, ``random_sample``,
``tomaxint``, ``seed``, ``get_state``/``set_state``) and the distributions are the
Generator's, computed on the device on the current stream.
"""
import functools
import sys
import warnings

import numpy as np

from ._bit_generator import MT19937, BitGenerator
from ._generator import Generator

__all__ = ["RandomState"]

# Methods whose legacy signature is the Generator's (the extra keywords are NumPy 2's).
DELEGATED = ("beta", "binomial", "bytes", "chisquare", "choice", "dirichlet", "exponential",
             "f", "gamma", "geometric", "gumbel", "hypergeometric", "laplace", "logistic",
             "lognormal", "logseries", "multinomial", "multivariate_normal",
             "negative_binomial", "noncentral_chisquare", "noncentral_f", "normal", "pareto",
             "permutation", "poisson", "power", "rayleigh", "shuffle", "standard_cauchy",
             "standard_exponential", "standard_gamma", "standard_normal", "standard_t",
             "triangular", "uniform", "vonmises", "wald", "weibull", "zipf")


def _delegate(name):
    method = getattr(Generator, name)

    @functools.wraps(method)
    def call(self, *args, **kwargs):
        return method(self._generator, *args, **kwargs)

    call.__doc__ = (f"``numpy.random.RandomState.{name}``: :meth:`Generator.{name}` on this "
                    f"state's stream.\n\n{method.__doc__}")
    return call


class RandomState:
    """NumPy's legacy generator (``numpy.random.RandomState``) on the device.

    ``seed``: None (OS entropy), an int >= 0, an array or sequence of them (as NumPy), or a
    :class:`BitGenerator` used as it is. Every method returns a new NPUArray computed on the
    current stream of the current device (``device=`` picks another); a 0-d array where
    NumPy returns a Python scalar. The same seed gives the same numbers on every run."""

    def __init__(self, seed=None):
        self._generator = Generator(seed if isinstance(seed, BitGenerator) else MT19937(seed))

    def __repr__(self):
        return f"RandomState({type(self._generator.bit_generator).__name__})"

    def seed(self, seed=None):
        """Reseeds the stream (``RandomState.seed``): a new MT19937 key from ``seed``."""
        self._generator = Generator(MT19937(seed))

    def get_state(self, legacy=True):
        """The stream's state (``RandomState.get_state``): with ``legacy`` the tuple
        (name, uint64 array [key], counter, 0, 0.0) of NumPy's five-field form, else the bit
        generator's ``state`` dict. Both round-trip through :meth:`set_state`."""
        state = self._generator.bit_generator.state
        if not legacy:
            return state
        inner = state["state"]
        return (state["bit_generator"], np.array([inner["key"]], dtype=np.uint64),
                inner["counter"], 0, 0.0)

    def set_state(self, state):
        """Restores a state from :meth:`get_state` (either form); ValueError for others."""
        if isinstance(state, tuple):
            if len(state) < 3:
                raise ValueError("state must be a tuple (name, key, counter, ...) or a dict")
            name, key, counter = state[:3]
            state = {"bit_generator": name,
                     "state": {"key": int(np.asarray(key).ravel()[0]), "counter": int(counter)}}
        self._generator.bit_generator.state = state

    def random_sample(self, size=None, *, device=None):
        """Floats uniform in [0, 1) (``RandomState.random_sample``): aclnnInplaceUniform."""
        return self._generator.random(size, device=device)

    random = random_sample

    def rand(self, *shape, device=None):
        """Float64 values uniform in [0, 1) of shape ``shape`` (``RandomState.rand``):
        aclnnInplaceUniform; ``rand()`` is a 0-d array."""
        return self._generator.random(shape, device=device)

    def randn(self, *shape, device=None):
        """Standard normal float64 values of shape ``shape`` (``RandomState.randn``):
        aclnnInplaceNormal."""
        return self._generator.standard_normal(shape, device=device)

    def randint(self, low, high=None, size=None, dtype=int, *, device=None):
        """Integers in [low, high) ([0, low) when ``high`` is None) (``RandomState.randint``):
        aclnnInplaceRandom; errors as Generator.integers."""
        return self._generator.integers(low, high, size, dtype, device=device)

    def random_integers(self, low, high=None, size=None, *, device=None):
        """Integers in [low, high] ([1, low] when ``high`` is None)
        (``RandomState.random_integers``, deprecated in NumPy: DeprecationWarning)."""
        warnings.warn("This function is deprecated. Please call randint(low, high + 1) "
                      "instead", DeprecationWarning, stacklevel=2)
        if high is None:
            low, high = 1, low
        return self._generator.integers(low, high, size, endpoint=True, device=device)

    def tomaxint(self, size=None, *, device=None):
        """Integers in [0, sys.maxsize) (``RandomState.tomaxint``; NumPy includes sys.maxsize,
        beyond aclnnInplaceRandom's int64 ``to``): aclnnInplaceRandom."""
        return self._generator.integers(0, sys.maxsize, size, endpoint=False, device=device)


for _name in DELEGATED:
    setattr(RandomState, _name, _delegate(_name))
del _name
