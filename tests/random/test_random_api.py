"""npuarray.random's API against numpy.random's: the names (module level, Generator,
RandomState, bit generators), the keywords of every method, NumPy's exceptions for bad
parameters, seeding and state (SeedSequence, spawn, jumped, get_state/set_state), out= and
dtype=, and graph capture of the composed distributions."""
import inspect

import numpy as np
import pytest

import npuarray as npx

R = npx.random


def public(obj):
    return {n for n in dir(obj) if not n.startswith("_")}


def host(x):
    return npx.asnumpy(x)


# -- names and keywords ------------------------------------------------------------------------

def test_every_numpy_module_level_name_is_present():
    assert set(np.random.__all__) <= set(R.__all__)
    for name in np.random.__all__:
        assert hasattr(R, name), name


def test_every_generator_and_random_state_method_is_present():
    assert public(np.random.Generator) <= public(R.Generator)
    assert public(np.random.RandomState) <= public(R.RandomState)
    for bit_generator in ("Philox", "MT19937", "PCG64", "PCG64DXSM", "SFC64"):
        numpy_names = public(getattr(np.random, bit_generator)) - {"capsule", "cffi", "ctypes"}
        assert numpy_names <= public(getattr(R, bit_generator)), bit_generator


def _keywords(function):
    return [p.name for p in inspect.signature(function).parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"]


@pytest.mark.parametrize("name", sorted(public(np.random.Generator) - {"bit_generator"}))
def test_generator_methods_take_numpys_keywords(name):
    try:
        theirs = _keywords(getattr(np.random.Generator, name))
    except ValueError:  # a Cython method without a signature
        pytest.skip(f"numpy.random.Generator.{name} has no introspectable signature")
    ours = _keywords(getattr(R.Generator, name))
    assert [k for k in theirs if k in ours] == theirs, (theirs, ours)


@pytest.mark.parametrize("name", sorted(public(np.random.RandomState)))
def test_random_state_methods_take_numpys_keywords(name):
    try:
        theirs = _keywords(getattr(np.random.RandomState, name))
    except ValueError:
        pytest.skip(f"numpy.random.RandomState.{name} has no introspectable signature")
    ours = _keywords(getattr(R.RandomState, name))
    assert set(theirs) <= set(ours), (theirs, ours)


# -- calls with keywords, as NumPy's --------------------------------------------------------

KEYWORD_CALLS = [
    ("integers", dict(low=0, high=5, size=3, dtype=np.int32, endpoint=True)),
    ("random", dict(size=3, dtype=np.float32)),
    ("choice", dict(a=5, size=3, replace=False, p=None, axis=0, shuffle=True)),
    ("bytes", dict(length=4)),
    ("permutation", dict(x=5, axis=0)),
    ("beta", dict(a=1.0, b=2.0, size=3)),
    ("binomial", dict(n=5, p=0.5, size=3)),
    ("chisquare", dict(df=2.0, size=3)),
    ("dirichlet", dict(alpha=[1.0, 2.0], size=3)),
    ("exponential", dict(scale=2.0, size=3)),
    ("f", dict(dfnum=2.0, dfden=3.0, size=3)),
    ("gamma", dict(shape=2.0, scale=1.0, size=3)),
    ("geometric", dict(p=0.5, size=3)),
    ("gumbel", dict(loc=0.0, scale=1.0, size=3)),
    ("hypergeometric", dict(ngood=3, nbad=4, nsample=2, size=3)),
    ("laplace", dict(loc=0.0, scale=1.0, size=3)),
    ("logistic", dict(loc=0.0, scale=1.0, size=3)),
    ("lognormal", dict(mean=0.0, sigma=1.0, size=3)),
    ("logseries", dict(p=0.5, size=3)),
    ("multinomial", dict(n=5, pvals=[0.5, 0.5], size=3)),
    ("multivariate_hypergeometric", dict(colors=[2, 3], nsample=2, size=3, method="count")),
    ("multivariate_normal", dict(mean=[0.0, 0.0], cov=np.eye(2), size=3, check_valid="raise",
                                 tol=1e-8, method="cholesky")),
    ("negative_binomial", dict(n=2.0, p=0.5, size=3)),
    ("noncentral_chisquare", dict(df=2.0, nonc=1.0, size=3)),
    ("noncentral_f", dict(dfnum=2.0, dfden=3.0, nonc=1.0, size=3)),
    ("normal", dict(loc=0.0, scale=1.0, size=3)),
    ("pareto", dict(a=2.0, size=3)),
    ("poisson", dict(lam=2.0, size=3)),
    ("power", dict(a=2.0, size=3)),
    ("rayleigh", dict(scale=1.0, size=3)),
    ("standard_cauchy", dict(size=3)),
    ("standard_exponential", dict(size=3, dtype=np.float32, method="inv")),
    ("standard_gamma", dict(shape=2.0, size=3, dtype=np.float64)),
    ("standard_normal", dict(size=3, dtype=np.float32)),
    ("standard_t", dict(df=3.0, size=3)),
    ("triangular", dict(left=0.0, mode=1.0, right=2.0, size=3)),
    ("uniform", dict(low=0.0, high=1.0, size=3)),
    ("vonmises", dict(mu=0.0, kappa=1.0, size=3)),
    ("wald", dict(mean=1.0, scale=1.0, size=3)),
    ("weibull", dict(a=2.0, size=3)),
    ("zipf", dict(a=2.0, size=3)),
]


@pytest.mark.parametrize("name, kwargs", KEYWORD_CALLS, ids=[c[0] for c in KEYWORD_CALLS])
def test_generator_calls_with_numpys_keywords_give_numpys_shape_and_dtype(name, kwargs):
    ours = getattr(R.default_rng(1), name)(**kwargs)
    theirs = getattr(np.random.default_rng(1), name)(**kwargs)
    if name == "bytes":
        assert isinstance(ours, bytes) and len(ours) == len(theirs)
        return
    ours = host(ours)
    assert ours.shape == np.shape(theirs) and ours.dtype == np.asarray(theirs).dtype


LEGACY_CALLS = [
    ("rand", (2, 3), {}), ("randn", (2, 3), {}), ("randint", (), dict(low=1, high=9, size=4)),
    ("random_sample", (), dict(size=4)), ("random", (), dict(size=4)),
    ("tomaxint", (), dict(size=4)), ("standard_normal", (), dict(size=4)),
    ("standard_gamma", (), dict(shape=2.0, size=4)), ("choice", (), dict(a=5, size=3, p=None)),
    ("permutation", (), dict(x=6)), ("binomial", (), dict(n=4, p=0.3, size=3)),
    ("multivariate_normal", (), dict(mean=[0.0], cov=[[1.0]], size=2)),
]


@pytest.mark.parametrize("name, args, kwargs", LEGACY_CALLS, ids=[c[0] for c in LEGACY_CALLS])
def test_random_state_and_module_functions_give_numpys_shape_and_dtype(name, args, kwargs):
    theirs = np.asarray(getattr(np.random.RandomState(3), name)(*args, **kwargs))
    module_level = [getattr(R, name)(*args, **kwargs)] if hasattr(np.random, name) else []
    for ours in [getattr(R.RandomState(3), name)(*args, **kwargs)] + module_level:
        ours = host(ours)
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype


def test_random_integers_is_closed_and_deprecated():
    with pytest.deprecated_call():
        x = host(R.RandomState(4).random_integers(1, 3, size=3000))
    assert set(np.unique(x)) == {1, 2, 3}


def test_module_aliases_and_bit_generator_access():
    assert R.ranf is R.random_sample and R.sample is R.random_sample
    R.set_bit_generator(R.PCG64(5))
    assert isinstance(R.get_bit_generator(), R.PCG64)
    a = host(R.random(4))
    R.set_bit_generator(R.PCG64(5))
    np.testing.assert_array_equal(host(R.random(4)), a)
    with pytest.raises(TypeError):
        R.set_bit_generator(5)


# -- bad parameters raise NumPy's exceptions ---------------------------------------------------

BAD_CALLS = [
    ("beta", (0.0, 1.0)), ("beta", (1.0, -1.0)), ("gamma", (-1.0,)), ("gamma", (1.0, -1.0)),
    ("standard_gamma", (-0.5,)), ("chisquare", (0.0,)), ("f", (0.0, 1.0)), ("f", (1.0, 0.0)),
    ("noncentral_chisquare", (0.0, 1.0)), ("noncentral_chisquare", (1.0, -1.0)),
    ("noncentral_f", (1.0, 1.0, -1.0)), ("standard_t", (0.0,)), ("lognormal", (0.0, -1.0)),
    ("laplace", (0.0, -1.0)), ("logistic", (0.0, -1.0)), ("gumbel", (0.0, -1.0)),
    ("pareto", (0.0,)), ("power", (0.0,)), ("rayleigh", (-1.0,)), ("weibull", (-1.0,)),
    ("wald", (0.0, 1.0)), ("wald", (1.0, 0.0)), ("triangular", (1.0, 0.0, 2.0)),
    ("triangular", (0.0, 3.0, 2.0)), ("triangular", (1.0, 1.0, 1.0)), ("vonmises", (0.0, -1.0)),
    ("poisson", (-1.0,)), ("poisson", (np.nan,)), ("binomial", (-1, 0.5)),
    ("binomial", (5, 1.5)), ("binomial", (5, np.nan)), ("negative_binomial", (0.0, 0.5)),
    ("negative_binomial", (1.0, 0.0)), ("geometric", (0.0,)), ("geometric", (1.5,)),
    ("hypergeometric", (-1, 2, 1)), ("hypergeometric", (1, 1, 3)), ("logseries", (1.0,)),
    ("logseries", (-0.1,)), ("zipf", (1.0,)), ("dirichlet", ([-1.0, 1.0],)),
    ("multinomial", (5, [0.7, 0.7, 0.1])), ("multinomial", (-1, [0.5, 0.5])),
    ("multivariate_hypergeometric", ([2, 3], 6)), ("multivariate_hypergeometric", ([-2, 3], 1)),
    ("multivariate_normal", ([0.0, 0.0], [[1.0, 0.0]])),
    ("multivariate_normal", ([0.0], [[-1.0]]), {"check_valid": "raise"}),
    ("exponential", (-1.0,)), ("normal", (0.0, -1.0)), ("integers", (5, 5)),
    ("choice", (3, 5), {"replace": False}), ("choice", (3,), {"p": [0.5, 0.6, -0.1]}),
    ("gamma", ([1.0, -1.0],)), ("poisson", ([1.0, -2.0],)), ("binomial", ([3, 4], [0.5, 2.0])),
]


@pytest.mark.parametrize("call", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_parameters_raise_numpys_exception(call):
    name, args = call[0], call[1]
    kwargs = call[2] if len(call) > 2 else {}
    with pytest.raises(Exception) as theirs:
        getattr(np.random.default_rng(0), name)(*args, **kwargs)
    with pytest.raises(theirs.type):
        getattr(R.default_rng(0), name)(*args, **kwargs)


def test_bad_parameters_of_the_legacy_functions():
    with pytest.raises(ValueError):
        R.RandomState(0).normal(0.0, -1.0)
    with pytest.raises(ValueError):
        R.binomial(3, 2.0)
    with pytest.raises(ValueError):
        R.RandomState(0).set_state(("MT19937",))
    with pytest.raises(TypeError):
        R.RandomState(1.5)


def test_covariance_check_valid_warns():
    with pytest.warns(RuntimeWarning):
        R.default_rng(0).multivariate_normal([0.0], [[-1.0]])
    with pytest.raises(ValueError):
        R.default_rng(0).multivariate_normal([0.0], np.eye(1), check_valid="maybe")


# -- seeding, state and independence -------------------------------------------------------------

def test_default_rng_takes_ints_seed_sequences_bit_generators_and_generators():
    a = host(R.default_rng(42).random(5))
    np.testing.assert_array_equal(host(R.default_rng(R.SeedSequence(42)).random(5)), a)
    np.testing.assert_array_equal(host(R.default_rng(R.Philox(42)).random(5)), a)
    g = R.default_rng(42)
    assert R.default_rng(g) is g
    bits = R.PCG64(7)
    assert R.default_rng(bits).bit_generator is bits
    assert not np.array_equal(host(R.default_rng(43).random(5)), a)


def test_generators_sharing_a_bit_generator_share_its_stream():
    bits = R.Philox(3)
    a, b = R.Generator(bits), R.Generator(bits)
    first, second = host(a.random(4)), host(b.random(4))
    reference = R.Generator(R.Philox(3))
    np.testing.assert_array_equal(host(reference.random(4)), first)
    np.testing.assert_array_equal(host(reference.random(4)), second)


def test_spawn_gives_independent_reproducible_streams():
    children = R.default_rng(9).spawn(3)
    draws = [host(c.standard_normal(20_000)) for c in children]
    again = [host(c.standard_normal(20_000)) for c in R.default_rng(9).spawn(3)]
    for a, b in zip(draws, again):
        np.testing.assert_array_equal(a, b)
    corr = np.corrcoef(draws)
    assert np.all(np.abs(corr[np.triu_indices(3, 1)]) < 0.03)
    bits = R.Philox(9).spawn(2)
    assert all(isinstance(b, R.Philox) for b in bits)
    assert R.SeedSequence(9).spawn(2)[0].spawn_key == (0,)


def test_jumped_is_independent_and_deterministic():
    bits = R.PCG64(11)
    jumped = bits.jumped()
    assert isinstance(jumped, R.PCG64)
    a = host(R.Generator(bits).standard_normal(20_000))
    b = host(R.Generator(jumped).standard_normal(20_000))
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.03
    np.testing.assert_array_equal(host(R.Generator(R.PCG64(11).jumped()).standard_normal(20_000)), b)
    assert R.PCG64(11).jumped(2).state != jumped.state
    with pytest.raises(ValueError):
        bits.jumped(-1)


def test_philox_key_counter_and_advance():
    a = R.Philox(key=0x1234, counter=0)
    b = R.Philox(key=0x1234)
    np.testing.assert_array_equal(host(R.Generator(a).random(8)), host(R.Generator(b).random(8)))
    skipped = R.Philox(key=0x1234).advance(4)
    full = host(R.Generator(R.Philox(key=0x1234)).random(12))
    np.testing.assert_array_equal(host(R.Generator(skipped).random(4)), full[8:12])
    with pytest.raises(ValueError):
        R.Philox(1, key=2)


def test_bit_generator_state_round_trip():
    bits = R.SFC64(5)
    g = R.Generator(bits)
    g.random(10)
    state = bits.state
    assert state["bit_generator"] == "SFC64"
    a = host(g.standard_normal(6))
    bits.state = state
    np.testing.assert_array_equal(host(g.standard_normal(6)), a)
    with pytest.raises(ValueError):
        bits.state = {"bit_generator": "MT19937", "state": state["state"]}


@pytest.mark.parametrize("legacy", [True, False])
def test_random_state_get_set_state_round_trip(legacy):
    rs = R.RandomState(8)
    rs.rand(5)
    state = rs.get_state(legacy=legacy)
    a = host(rs.gamma(2.0, size=50))
    rs.set_state(state)
    np.testing.assert_array_equal(host(rs.gamma(2.0, size=50)), a)


def test_module_seed_get_state_set_state():
    R.seed(123)
    a = host(R.normal(size=5))
    R.seed(123)
    np.testing.assert_array_equal(host(R.normal(size=5)), a)
    state = R.get_state()
    b = host(R.poisson(3.0, 7))
    R.set_state(state)
    np.testing.assert_array_equal(host(R.poisson(3.0, 7)), b)
    R.seed(124)
    assert not np.array_equal(host(R.normal(size=5)), a)


def test_random_raw():
    raw = host(R.Philox(1).random_raw(1000))
    assert raw.dtype == np.uint64 and raw.shape == (1000,)
    assert raw.max() > 2**63 and len(np.unique(raw)) == 1000
    assert R.Philox(1).random_raw(3, output=False) is None


@pytest.mark.parametrize("name, args", [("gamma", (2.5,)), ("binomial", (30, 0.4)),
                                        ("hypergeometric", (7, 9, 5)), ("vonmises", (0.0, 3.0)),
                                        ("dirichlet", ([0.5, 1.5],)), ("zipf", (3.0,))])
def test_same_seed_same_numbers(name, args):
    a = host(getattr(R.default_rng(31), name)(*args, size=1000))
    b = host(getattr(R.default_rng(31), name)(*args, size=1000))
    np.testing.assert_array_equal(a, b)


# -- out=, dtype=, permuted, bytes ------------------------------------------------------------------

@pytest.mark.parametrize("name, args", [("random", ()), ("standard_normal", ()),
                                        ("standard_exponential", ()), ("standard_gamma", (2.0,))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_out_receives_the_draw(name, args, dtype):
    out = npx.zeros((3, 4), dtype=dtype)
    result = getattr(R.default_rng(2), name)(*args, out=out, dtype=dtype)
    assert result is out
    expected = host(getattr(R.default_rng(2), name)(*args, size=(3, 4), dtype=dtype))
    np.testing.assert_allclose(host(out), expected, rtol=1e-6)
    with pytest.raises(ValueError):
        getattr(R.default_rng(2), name)(*args, size=(2, 2), out=out, dtype=dtype)
    with pytest.raises(TypeError):
        getattr(R.default_rng(2), name)(*args, out=out, dtype=np.int32)


def test_out_of_another_dtype_is_refused():
    with pytest.raises(TypeError):
        R.default_rng(0).random(out=npx.zeros(3, dtype=np.float32))


def test_permuted_shuffles_each_slice_independently():
    x = np.arange(40).reshape(4, 10)
    g = R.default_rng(3)
    rows = host(g.permuted(npx.asarray(x), axis=1))
    assert np.all(np.sort(rows, axis=1) == x)
    assert len({tuple(np.argsort(r)) for r in rows}) > 1
    flat = host(g.permuted(x))
    np.testing.assert_array_equal(np.sort(flat.ravel()), x.ravel())
    out = npx.asarray(x.copy())
    assert g.permuted(out, axis=0, out=out) is out
    assert np.all(np.sort(host(out), axis=0) == x)
    with pytest.raises(IndexError):
        g.permuted(x, axis=2)


def test_bytes_are_uniform():
    data = np.frombuffer(R.default_rng(4).bytes(256_000), dtype=np.uint8)
    counts = np.bincount(data, minlength=256)
    expected = data.size / 256
    assert ((counts - expected) ** 2 / expected).sum() < 400  # chi-square, 255 dof, p ~ 1e-8


# -- graph capture --------------------------------------------------------------------------------

def test_inversion_draws_replay_fresh_numbers_in_a_graph():
    g = R.default_rng(6)
    g.random(1)  # the counter buffer exists before the capture
    stream = npx.Stream()
    graph = npx.Graph()
    with stream:
        with graph.capture():
            arrays = (g.exponential(2.0, 500), g.gumbel(0.0, 1.0, 500), g.logistic(size=500),
                      g.standard_cauchy(500), g.triangular(0.0, 1.0, 2.0, 500))
        first, second = [], []
        for replay in (first, second):
            graph.replay()
            replay.extend(host(a).copy() for a in arrays)
    for a, b in zip(first, second):
        assert not np.array_equal(a, b)
    assert np.all((second[4] >= 0) & (second[4] <= 2))
    graph.destroy()


@pytest.mark.parametrize("draw", [lambda g: g.gamma(2.0, size=5), lambda g: g.binomial(5, 0.5, 5),
                                  lambda g: g.vonmises(0.0, 1.0, 5)])
def test_rejection_draws_refuse_capture(draw):
    g = R.default_rng(6)
    stream = npx.Stream()
    graph = npx.Graph()
    with stream:
        with pytest.raises(npx.CaptureError, match="captured"):
            with graph.capture():
                draw(g)


@pytest.mark.parametrize("low, high, dtype", [(0, 2**64, np.uint64), (-2**63, 2**63, np.int64)])
def test_integers_whole_64_bit_range(low, high, dtype):
    x = host(R.default_rng(20).integers(low, high, 100_000, dtype=dtype))
    assert x.dtype == dtype and len(np.unique(x)) == x.size
    top = (x.view(np.uint64) >> np.uint64(60)).astype(np.int64)  # uniform top nibble
    assert np.bincount(top, minlength=16).min() > 100_000 / 16 * 0.9
    closed = host(R.default_rng(20).integers(low, high - 1, 10, dtype=dtype, endpoint=True))
    assert closed.dtype == dtype
    with pytest.raises(ValueError):
        R.default_rng(0).integers(2**63, 2**64 - 1, dtype=np.uint64)  # beyond the operator


def test_generators_and_states_pickle():
    import pickle
    g = R.default_rng(21)
    g.random(5)
    clone = pickle.loads(pickle.dumps(g))
    np.testing.assert_array_equal(host(clone.standard_normal(8)), host(g.standard_normal(8)))
    rs = pickle.loads(pickle.dumps(R.RandomState(3)))
    np.testing.assert_array_equal(host(rs.rand(4)), host(R.RandomState(3).rand(4)))


def test_numpy_bit_generator_seeds_through_its_seed_sequence():
    ours = host(R.default_rng(np.random.PCG64(5)).random(4))
    np.testing.assert_array_equal(ours, host(R.default_rng(R.SeedSequence(5)).random(4)))


@pytest.mark.parametrize("args, kwargs", [(([0, 5], [10, 2]), {}), (([0, 5], [10, 300]), {"dtype": np.uint8}),
                                          (([-1, 5], [10, 20]), {"dtype": np.uint16})])
def test_integers_array_bounds_errors_as_numpy(args, kwargs):
    with pytest.raises(ValueError):
        np.random.default_rng(0).integers(*args, **kwargs)
    with pytest.raises(ValueError):
        R.default_rng(0).integers(*args, **kwargs)
