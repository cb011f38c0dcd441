"""``dask.array.random`` with NPUArray chunks: what the ``npuarray`` backend gives Dask.

Dask's random module asks the array backend for two things (as CuPy's backend
gives ``cupy.random.XORWOW`` and ``cupy.random.RandomState``):

- ``default_bit_generator`` (:class:`Philox`), for ``da.random.default_rng(seed)``.
  Dask spawns one child per chunk from the bit generator's ``_seed_seq``
  (``numpy.random.SeedSequence.spawn``), rebuilds ``type(bitgen)(child)`` in the
  task, and draws with ``<top-level module of the type>.random.default_rng(bitgen)``
  — that is ``npuarray.random.default_rng``, which returns a Generator as it is.
  So :class:`Philox` *is* an ``npuarray.random.Generator`` (Philox4x32-10, key
  from the seed sequence) that carries its seed sequence.
- ``RandomState`` (:class:`RandomState`), for ``da.random.RandomState(seed)`` and
  the legacy ``da.random.normal`` & co.: Dask seeds one per chunk with 624
  uint32 words drawn from a host ``numpy.random.RandomState(seed)``; here they
  seed an npuarray Generator.

Every chunk is drawn on the device by CANN's random operators (aclnnInplaceUniform,
aclnnInplaceNormal, aclnnInplaceRandom, ...; see ``npuarray.random``), on the
current stream of the device of the worker computing it. The same seed gives the
same chunks on every run and with any scheduler; the numbers differ from NumPy's
backend (another generator), as CuPy's do. Distributions ``npuarray.random`` lacks
raise AttributeError when the Dask array is built.
"""
import numpy as np

from ..random import Generator

__all__ = ["Philox", "RandomState"]


class Philox(Generator):
    """An ``npuarray.random.Generator`` seeded from a ``numpy.random.SeedSequence``
    (``seed``: a SeedSequence, or anything SeedSequence takes; None: OS entropy),
    which it keeps as ``_seed_seq`` for Dask to spawn per-chunk children from."""

    def __init__(self, seed=None):
        self._seed_seq = seed if isinstance(seed, np.random.SeedSequence) \
            else np.random.SeedSequence(seed)
        super().__init__(self._seed_seq.generate_state(4).tolist())

    def __dask_tokenize__(self):
        seeds = self._seed_seq
        return type(self).__name__, seeds.entropy, seeds.spawn_key, seeds.n_children_spawned

    def random(self, size=None, dtype=np.float64, out=None, *, device=None):
        """``Generator.random``; Dask passes NumPy's ``out=None``, which is all it takes."""
        if out is not None:
            raise TypeError("Philox.random: out= is not supported (the result is a new NPUArray)")
        return super().random(size, dtype, device=device)


class RandomState:
    """``numpy.random.RandomState``'s drawing methods that npuarray can run, on an
    ``npuarray.random.Generator`` seeded with ``seed`` (an int, a sequence or array
    of ints such as Dask's per-chunk state words, or None). Each returns a new
    NPUArray of shape ``size`` on the current device."""

    def __init__(self, seed=None):
        if isinstance(seed, np.ndarray):
            seed = seed.tolist()
        self._generator = Generator(seed)

    def random_sample(self, size=None):
        """Floats uniform in [0, 1): aclnnInplaceUniform."""
        return self._generator.random(size)

    random = random_sample

    def standard_normal(self, size=None):
        """Standard normal floats: aclnnInplaceNormal."""
        return self._generator.standard_normal(size)

    def normal(self, loc=0.0, scale=1.0, size=None):
        return self._generator.normal(loc, scale, size)

    def uniform(self, low=0.0, high=1.0, size=None):
        return self._generator.uniform(low, high, size)

    def exponential(self, scale=1.0, size=None):
        return self._generator.exponential(scale, size)

    def poisson(self, lam=1.0, size=None):
        return self._generator.poisson(lam, size)

    def randint(self, low, high=None, size=None, dtype=int):
        """Integers in [low, high) ([0, low) when ``high`` is None): aclnnInplaceRandom."""
        return self._generator.integers(low, high, size, dtype)

    def choice(self, a, size=None, replace=True, p=None):
        return self._generator.choice(a, size, replace, p)
