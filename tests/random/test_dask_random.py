"""``dask.array.random`` with the npuarray backend: NPUArray chunks drawn by npuarray.random,
reproducible per seed, with the shapes, dtypes, chunks and statistics of NumPy's backend."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'npuarray[dask]')")
import dask  # noqa: E402

import npuarray as npx  # noqa: E402
from npuarray.dask._random import Philox, RandomState  # noqa: E402

N = 20000  # samples for the statistics: 4 standard errors of a mean is about 0.03 sigma


def npu(make):
    with dask.config.set({"array.backend": "npuarray"}):
        return make()


def numpy_backend(make):
    with dask.config.set({"array.backend": "numpy"}):
        return make()


def compute(x):
    with npx.transfer_guard("disallow"):
        result = x.compute(scheduler="sync")
    assert isinstance(result, npx.NPUArray)
    return result.to_host()


_GENERATOR_DRAWS = {
    "standard_normal": (lambda r, s, c: r.standard_normal(s, chunks=c), 0.0, 1.0),
    "standard_normal_f32": (lambda r, s, c: r.standard_normal(s, chunks=c, dtype=np.float32), 0.0, 1.0),
    "random": (lambda r, s, c: r.random(s, chunks=c), 0.5, 12 ** -0.5),
    "random_f32": (lambda r, s, c: r.random(s, dtype=np.float32, chunks=c), 0.5, 12 ** -0.5),
    "uniform": (lambda r, s, c: r.uniform(-2.0, 6.0, s, chunks=c), 2.0, 8 * 12 ** -0.5),
    "normal": (lambda r, s, c: r.normal(3.0, 0.5, s, chunks=c), 3.0, 0.5),
    "exponential": (lambda r, s, c: r.exponential(2.0, s, chunks=c), 2.0, 2.0),
    "poisson": (lambda r, s, c: r.poisson(4.0, s, chunks=c), 4.0, 2.0),
    "integers": (lambda r, s, c: r.integers(0, 10, s, chunks=c), 4.5, (99 / 12) ** 0.5),
    "integers_int8_endpoint": (lambda r, s, c: r.integers(-5, 5, s, dtype=np.int8, endpoint=True,
                                                           chunks=c), 0.0, 10 ** 0.5),
    "integers_uint16": (lambda r, s, c: r.integers(0, 1000, s, dtype=np.uint16, chunks=c),
                        499.5, ((1000 ** 2 - 1) / 12) ** 0.5),
    "choice": (lambda r, s, c: r.choice(7, size=s, chunks=c), 3.0, 2.0),
}


@pytest.mark.parametrize("draw, mean, std", list(_GENERATOR_DRAWS.values()), ids=list(_GENERATOR_DRAWS))
def test_generator_matches_numpys_backend(draw, mean, std):
    shape, chunks = (N // 10, 10), (700, 4)
    x = npu(lambda: draw(da.random.default_rng(7), shape, chunks))
    reference = numpy_backend(lambda: draw(da.random.default_rng(7), shape, chunks))
    assert isinstance(x._meta, npx.NPUArray)
    assert (x.shape, x.dtype, x.chunks) == (reference.shape, reference.dtype, reference.chunks)
    got, expected = compute(x), reference.compute()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert abs(got.mean() - mean) < 4 * std / N ** 0.5
    assert abs(got.std() - std) < 0.03 * std
    assert got.min() >= expected.min() - 6 * std and got.max() <= expected.max() + 6 * std


@pytest.mark.parametrize("name", ["standard_normal", "random", "integers", "poisson"])
def test_same_seed_same_chunks_other_seed_others(name):
    draw = _GENERATOR_DRAWS[name][0]
    first = compute(npu(lambda: draw(da.random.default_rng(123), (40, 6), (15, 4))))
    again = compute(npu(lambda: draw(da.random.default_rng(123), (40, 6), (15, 4))))
    other = compute(npu(lambda: draw(da.random.default_rng(124), (40, 6), (15, 4))))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_chunks_are_independent_streams():
    x = compute(npu(lambda: da.random.default_rng(5).standard_normal((4, 1000), chunks=(1, 1000))))
    for i in range(4):
        for j in range(i + 1, 4):
            assert abs(np.corrcoef(x[i], x[j])[0, 1]) < 0.15


def test_successive_draws_differ_and_the_generator_is_reported():
    rng = npu(lambda: da.random.default_rng(9))
    assert str(rng) == "Generator(Philox)"
    a = compute(npu(lambda: rng.random(50, chunks=20)))
    b = compute(npu(lambda: rng.random(50, chunks=20)))
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("size", [(), 0, (3, 0), 5, (2, 3, 4)])
def test_zero_d_empty_and_nd_sizes(size):
    x = npu(lambda: da.random.default_rng(1).standard_normal(size, chunks=2))
    expected = np.random.default_rng(1).standard_normal(size)
    got = compute(x)
    assert got.shape == expected.shape and got.dtype == expected.dtype


def test_array_parameters_broadcast_like_numpy():
    loc = np.array([0.0, 100.0, -50.0])
    x = npu(lambda: da.random.default_rng(3).normal(loc, 1.0, size=(4000, 3), chunks=(1000, 2)))
    reference = numpy_backend(lambda: da.random.default_rng(3).normal(loc, 1.0, size=(4000, 3),
                                                                      chunks=(1000, 2)))
    assert x.chunks == reference.chunks
    # Dask hands NumPy parameter chunks to the draws: npuarray.random uploads them.
    got = x.compute(scheduler="sync").to_host()
    np.testing.assert_allclose(got.mean(axis=0), loc, atol=0.1)


def test_bit_generator_spawns_reproducible_children():
    parent = Philox(11)
    children = [Philox(s) for s in parent._seed_seq.spawn(2)]
    twins = [Philox(s) for s in Philox(11)._seed_seq.spawn(2)]
    assert isinstance(children[0], npx.random.Generator)
    for child, twin in zip(children, twins):
        np.testing.assert_array_equal(child.random(5).to_host(), twin.random(5).to_host())
    assert not np.array_equal(children[0].random(5).to_host(), children[1].random(5).to_host())
    assert npx.random.default_rng(parent) is parent  # how Dask's tasks get their generator
    assert dask.base.tokenize(Philox(11)) == dask.base.tokenize(Philox(11))
    assert dask.base.tokenize(Philox(11)) != dask.base.tokenize(Philox(12))


# -- the legacy RandomState --------------------------------------------------------------------

_LEGACY_DRAWS = {
    "random_sample": (lambda r, s, c: r.random_sample(s, chunks=c), 0.5, 12 ** -0.5),
    "standard_normal": (lambda r, s, c: r.standard_normal(s, chunks=c), 0.0, 1.0),
    "normal": (lambda r, s, c: r.normal(10.0, 0.1, size=s, chunks=c), 10.0, 0.1),
    "uniform": (lambda r, s, c: r.uniform(1.0, 3.0, size=s, chunks=c), 2.0, 2 * 12 ** -0.5),
    "exponential": (lambda r, s, c: r.exponential(0.5, size=s, chunks=c), 0.5, 0.5),
    "poisson": (lambda r, s, c: r.poisson(2.0, size=s, chunks=c), 2.0, 2 ** 0.5),
    "randint": (lambda r, s, c: r.randint(0, 6, size=s, chunks=c), 2.5, (35 / 12) ** 0.5),
    "randint_int16": (lambda r, s, c: r.randint(-3, 3, size=s, dtype=np.int16, chunks=c), -0.5,
                      (35 / 12) ** 0.5),
}


@pytest.mark.parametrize("draw, mean, std", list(_LEGACY_DRAWS.values()), ids=list(_LEGACY_DRAWS))
def test_random_state_matches_numpys_backend(draw, mean, std):
    x = npu(lambda: draw(da.random.RandomState(1234), N, 3000))
    reference = numpy_backend(lambda: draw(da.random.RandomState(1234), N, 3000))
    assert isinstance(x._meta, npx.NPUArray)
    assert (x.shape, x.dtype, x.chunks) == (reference.shape, reference.dtype, reference.chunks)
    got = compute(x)
    assert got.dtype == reference.compute().dtype
    assert abs(got.mean() - mean) < 4 * std / N ** 0.5
    assert abs(got.std() - std) < 0.03 * std
    again = compute(npu(lambda: draw(da.random.RandomState(1234), N, 3000)))
    np.testing.assert_array_equal(got, again)


def test_module_level_legacy_functions_use_the_backend():
    x = npu(lambda: da.random.standard_normal((300, 2), chunks=100))
    assert isinstance(x._meta, npx.NPUArray)
    assert abs(compute(x).mean()) < 0.3


def test_random_state_seeds_from_dasks_state_words():
    words = np.random.RandomState(0).randint(0, 2**32, 624, dtype=np.uint32)
    a, b = RandomState(words), RandomState(words.copy())
    np.testing.assert_array_equal(a.random_sample(6).to_host(), b.random_sample(6).to_host())
    assert RandomState(7).randint(3, size=20).to_host().max() < 3


# -- errors ------------------------------------------------------------------------------------

def test_unsupported_distributions_and_dtypes_raise_when_building():
    rng = npu(lambda: da.random.default_rng(0))
    with pytest.raises(TypeError, match="float32 or float64"):
        npu(lambda: rng.random(10, dtype=np.int32))
    with pytest.raises(TypeError):
        npu(lambda: rng.integers(0, 5, 10, dtype=np.float64))
    with pytest.raises(ValueError, match="low >= high"):
        npu(lambda: rng.integers(5, 5, 10))
    with pytest.raises(ValueError):
        npu(lambda: rng.normal(0.0, -1.0, 10))
    with pytest.raises(AttributeError, match="gamma"):
        npu(lambda: da.random.RandomState(0).gamma(2.0, size=4))
    with pytest.raises(TypeError, match="out="):
        Philox(0).random(3, out=npx.empty(3))
    np.testing.assert_array_equal(compute(npu(lambda: rng.integers(2, 3, 4))), [2, 2, 2, 2])


@pytest.mark.parametrize("n", [1, 20, 1001])
def test_permutation_is_a_permutation_on_the_device(n):
    # Dask's shuffle calls the chunk's take() with host indices (NPUArray.take uploads them).
    x = npu(lambda: da.random.default_rng(3).permutation(n))
    got = compute(x)
    np.testing.assert_array_equal(np.sort(got), np.arange(n))
    again = compute(npu(lambda: da.random.default_rng(3).permutation(n)))
    np.testing.assert_array_equal(got, again)
