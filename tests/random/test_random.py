"""npuarray.random: the Generator API against NumPy's (shapes, dtypes, errors), reproducibility,
independence, streams, devices, threads, graph capture, and the npusim operators behind it
(aclnnInplaceUniform, aclnnInplaceNormal, aclnnInplaceRandom, aclnnRandperm)."""
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import npuarray as npx
from npuarray import _acl, runtime
from npuarray._core import _ops
from conftest import package_env

SHAPES = [(), (0,), (7,), (3, 4), (2, 0, 3), (2, 3, 4)]
INT_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64]


def host(x):
    return x.to_host()


# -- reproducibility, counters, independence ----------------------------------------------

@pytest.mark.parametrize("method", ["random", "standard_normal", "integers", "permutation"])
def test_same_seed_same_numbers(method):
    args = {"random": (50,), "standard_normal": (50,), "integers": (0, 1000, 50),
            "permutation": (50,)}[method]
    a = host(getattr(npx.random.default_rng(7), method)(*args))
    b = host(getattr(npx.random.default_rng(7), method)(*args))
    c = host(getattr(npx.random.default_rng(8), method)(*args))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_same_seed_same_numbers_in_every_process():
    script = ("import npuarray as npx; g = npx.random.default_rng(2024); "
              "print(g.random(4).to_host().tobytes().hex(), g.integers(0, 10**9, 4).to_host().tolist())")
    runs = [subprocess.run([sys.executable, "-c", script], env=package_env(), capture_output=True,
                           text=True, timeout=120) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    g = npx.random.default_rng(2024)
    expected = f"{host(g.random(4)).tobytes().hex()} {host(g.integers(0, 10**9, 4)).tolist()}\n"
    assert runs[0].stdout == expected


def test_consecutive_calls_give_fresh_reproducible_numbers():
    # the offset advances by the elements drawn: later calls never repeat earlier counters
    g = npx.random.default_rng(3)
    draws = [host(g.random(4)), host(g.random((2, 3))).ravel(), host(g.random(10))]
    again = npx.random.default_rng(3)
    for expected, shape in zip(draws, [4, (2, 3), 10]):
        np.testing.assert_array_equal(host(again.random(shape)).ravel(), expected)
    values = np.concatenate(draws)
    assert len(np.unique(values)) == values.size


def test_philox_matches_the_random123_known_answer():
    # Philox4x32-10, key 0, counter 0 -> words 6627e8d5 e169c58d ... (Random123 kat_vectors).
    # aclnnInplaceRandom over a range of 2**63 maps the 64-bit word x to from + (x >> 1).
    out = _device_empty((1,), np.int64)
    _ops.launch("aclnnInplaceRandom", out, -2**62, 2**62, 0, 0)
    assert host(out)[0] == -2**62 + (0x6627e8d5e169c58d >> 1)


def test_generators_are_independent():
    g1, g2 = npx.random.default_rng(1), npx.random.default_rng(2)
    a1 = host(g1.standard_normal(100000))
    interleaved = [host(g2.standard_normal(10)) for _ in range(3)]
    del interleaved
    b1 = host(npx.random.default_rng(1).standard_normal(100000))
    np.testing.assert_array_equal(a1, b1)  # g2's draws did not touch g1
    b2 = host(npx.random.default_rng(2).standard_normal(100000))
    assert abs(np.corrcoef(a1, b2)[0, 1]) < 0.02


def test_seed_none_gives_fresh_generators():
    a = host(npx.random.default_rng().random(20))
    b = host(npx.random.default_rng().random(20))
    assert not np.array_equal(a, b)


def test_default_rng_accepts_generator_and_sequences():
    g = npx.random.default_rng(5)
    assert npx.random.default_rng(g) is g
    np.testing.assert_array_equal(host(npx.random.default_rng([1, 2]).random(5)),
                                  host(npx.random.default_rng([1, 2]).random(5)))


@pytest.mark.parametrize("seed", [-1, 1.5, "x", True])
def test_bad_seed(seed):
    with pytest.raises((TypeError, ValueError)):
        npx.random.default_rng(seed)
    assert host(npx.random.default_rng(0).random(2)).shape == (2,)


def test_threads_reserve_disjoint_counters():
    g = npx.random.default_rng(11)
    results = []

    def draw():
        results.append(host(g.random(1000)))
    threads = [threading.Thread(target=draw) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # each thread got one of the counter ranges four sequential calls would use
    sequential = npx.random.default_rng(11)
    expected = sorted(host(sequential.random(1000)).tobytes() for _ in range(4))
    assert sorted(r.tobytes() for r in results) == expected


def test_non_default_stream_and_device():
    expected = host(npx.random.default_rng(9).standard_normal(1000))
    stream = npx.Stream()
    with stream:
        x = npx.random.default_rng(9).standard_normal(1000)
    np.testing.assert_array_equal(host(x), expected)
    y = npx.random.default_rng(9).standard_normal(1000, device=1)
    assert y.device == npx.Device(1)
    np.testing.assert_array_equal(host(y), expected)


def _capture_draws(seed, stream):
    g = npx.random.default_rng(seed)
    graph = npx.Graph()
    with stream:
        with graph.capture():
            arrays = (g.random(1000, dtype=np.float32), g.standard_normal(1000),
                      g.integers(0, 10**6, 1000), g.uniform(2.0, 3.0, 1000), g.normal(5.0, 2.0, 10))
    return g, graph, arrays


def test_captured_draws_give_fresh_numbers_on_every_replay():
    stream = npx.Stream()
    g, graph, arrays = _capture_draws(21, stream)
    replays = []
    with stream:
        for _ in range(3):
            graph.replay()
            replays.append([host(a).copy() for a in arrays])
    for first, second in zip(replays[0], replays[1]):
        assert not np.array_equal(first, second)
    u, z, k, w, _ = replays[2]
    assert u.dtype == np.float32 and np.all((u >= 0) & (u < 1)) and abs(u.mean() - 0.5) < 0.05
    assert abs(z.mean()) < 0.15 and abs(z.std() - 1) < 0.1
    assert np.all((k >= 0) & (k < 10**6)) and np.all((w >= 2) & (w < 3))
    # eager draws after the capture use their own counters: not a replayed block
    eager = host(g.random(1000, dtype=np.float32))
    assert all(not np.array_equal(eager, r[0]) for r in replays)
    graph.destroy()


def test_captured_draws_replay_the_same_sequence_for_the_same_seed():
    stream = npx.Stream()
    runs = []
    for _ in range(2):
        _, graph, arrays = _capture_draws(22, stream)
        sequence = []
        with stream:
            for _ in range(2):
                graph.replay()
                sequence.append([host(a).copy() for a in arrays])
        graph.destroy()
        runs.append(sequence)
    for replay_a, replay_b in zip(*runs):
        for a, b in zip(replay_a, replay_b):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("draw", [lambda g: g.permutation(5), lambda g: g.choice(5, 3, replace=False),
                                  lambda g: g.choice(3, 2, p=[0.2, 0.3, 0.5])])
def test_capture_refuses_draws_without_device_counter_and_next_operation_works(draw):
    g = npx.random.default_rng(4)
    stream = npx.Stream()
    graph = npx.Graph()
    with stream:
        with pytest.raises(npx.CaptureError, match="captured"):
            with graph.capture():
                draw(g)
        x = g.random(10)  # the refused draw consumed nothing
    np.testing.assert_array_equal(host(x), host(npx.random.default_rng(4).random(10)))


def test_generator_made_inside_a_capture_is_refused_there():
    stream = npx.Stream()
    graph = npx.Graph()
    with stream:
        with pytest.raises(npx.CaptureError, match="first draw"):
            with graph.capture():
                npx.random.default_rng(1).random(3)
        assert host(npx.random.default_rng(1).random(3)).shape == (3,)


@pytest.mark.parametrize("op, dtype, params", [
    ("aclnnInplaceUniformTensor", np.uint64, (0.0, 1.0)), ("aclnnInplaceNormalTensor", np.int64, (0.0, 1.0)),
    ("aclnnInplaceRandomTensor", np.int64, (0, 50))])
def test_tensor_variants_read_seed_and_offset_from_device(op, dtype, params):
    scalar_op = op[:-len("Tensor")]
    seed = 1234 if dtype == np.int64 else 2**63 + 5
    state = npx.asarray(np.array([seed, 40], dtype=dtype))
    out = _device_empty((100,), np.float32)
    _ops.launch(op, out, *params, state[0:1], state[1:2], 2)
    expected = _device_empty((100,), np.float32)
    _ops.launch(scalar_op, expected, *params, seed if dtype == np.uint64 else int(seed), 42)
    np.testing.assert_array_equal(host(out), host(expected))
    for bad in (npx.asarray(np.array([1, 2], dtype=dtype)), npx.asarray(np.array([1], dtype=np.int32))):
        with pytest.raises(_acl.AclError) as info:
            _ops.launch(op, out, *params, bad, state[1:2], 0)
        assert info.value.code == 161002


def test_no_host_transfer_while_drawing():
    g = npx.random.default_rng(6)
    with npx.transfer_guard("disallow"):
        values = [g.random(5), g.uniform(1, 2, 5), g.normal(1, 2, 5), g.exponential(1, 5),
                  g.integers(0, 9, 5), g.permutation(5), g.choice(5, 3), g.standard_normal(5)]
    assert all(isinstance(v, npx.NPUArray) for v in values)


# -- floating methods ------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("method", ["random", "standard_normal", "uniform", "normal",
                                    "exponential"])
def test_float_methods_shape_and_dtype(method, dtype, shape):
    g = npx.random.default_rng(12)
    x = getattr(g, method)(size=shape, dtype=dtype)
    assert x.shape == shape and x.dtype == dtype
    values = host(x)
    assert np.all(np.isfinite(values))
    if method in ("random", "uniform"):
        assert np.all((values >= 0) & (values < 1))
    if method == "exponential":
        assert np.all(values >= 0)


@given(shape=st.lists(st.integers(0, 5), max_size=4).map(tuple), seed=st.integers(0, 2**64 - 1))
@settings(max_examples=30, deadline=None)
def test_random_shapes_hypothesis(shape, seed):
    x = npx.random.default_rng(seed).random(shape)
    assert x.shape == shape
    values = host(x)
    assert np.all((values >= 0) & (values < 1))


@pytest.mark.parametrize("method", ["random", "standard_normal", "exponential"])
@pytest.mark.parametrize("dtype", [np.float16, np.int32, np.complex64, np.bool_])
def test_float_methods_reject_dtypes_as_numpy(method, dtype):
    with pytest.raises(TypeError):
        getattr(np.random.default_rng(0), method)(size=3, dtype=dtype)
    with pytest.raises(TypeError):
        getattr(npx.random.default_rng(0), method)(size=3, dtype=dtype)


@pytest.mark.parametrize("size", [-1, (2, -1), 1.5, "3"])
def test_bad_size(size):
    with pytest.raises((TypeError, ValueError)) as expected:
        np.random.default_rng(0).random(size)
    with pytest.raises(expected.type):
        npx.random.default_rng(0).random(size)


def test_uniform_bounds_and_reversed_bounds():
    a = host(npx.random.default_rng(13).uniform(-2.5, 7.0, 10000))
    assert a.min() >= -2.5 and a.max() < 7.0
    b = host(npx.random.default_rng(13).uniform(7.0, -2.5, 10000))  # NumPy: (high, low]
    assert b.min() > -2.5 and b.max() <= 7.0
    assert np.all(host(npx.random.default_rng(1).uniform(3.0, 3.0, 5)) == 3.0)
    with pytest.raises(OverflowError):
        npx.random.default_rng(0).uniform(-1e308, 1e308, 3)
    with pytest.raises(TypeError):
        npx.random.default_rng(0).uniform("0", 1.0)


def test_normal_and_exponential_parameters():
    g = npx.random.default_rng(14)
    z = host(npx.random.default_rng(14).standard_normal(1000))
    np.testing.assert_allclose(host(g.normal(3.0, 0.5, 1000)), z * 0.5 + 3.0, rtol=1e-12)
    assert np.all(host(g.normal(2.0, 0.0, 5)) == 2.0)
    u = host(npx.random.default_rng(15).random(1000))
    np.testing.assert_allclose(host(npx.random.default_rng(15).exponential(3.0, 1000)),
                               -np.log1p(-u) * 3.0, rtol=1e-12)
    for bad in (lambda: g.normal(0, -1.0), lambda: g.exponential(-1.0), lambda: g.normal(0, np.nan)):
        with pytest.raises(ValueError):
            bad()
    assert host(g.random(2)).shape == (2,)


def test_array_parameters_broadcast(rng):
    loc_host, scale_host = rng.standard_normal((3, 1)) * 10, rng.random(4) + 0.5
    loc, scale = npx.asarray(loc_host), npx.asarray(scale_host)
    z = host(npx.random.default_rng(40).standard_normal((3, 4)))
    x = npx.random.default_rng(40).normal(loc, scale)
    assert x.shape == (3, 4) and x.dtype == np.float64
    np.testing.assert_allclose(host(x), z * scale_host + loc_host, rtol=1e-12)
    y = npx.random.default_rng(40).normal(loc_host.tolist(), 2.0, size=(2, 3, 4))
    assert y.shape == (2, 3, 4)
    with pytest.raises(ValueError):
        npx.random.default_rng(40).normal(loc, scale, size=(4,))
    low, high = npx.asarray(np.array([0.0, 10.0])), npx.asarray(np.array([1.0, 5.0]))
    u = host(npx.random.default_rng(41).uniform(low, high, size=(1000, 2), dtype=np.float32))
    assert u.dtype == np.float32
    assert u[:, 0].min() >= 0 and u[:, 0].max() < 1 and u[:, 1].min() > 5 and u[:, 1].max() <= 10
    e = host(npx.random.default_rng(42).exponential(npx.asarray(np.array([1.0, 100.0])),
                                                    size=(5000, 2)))
    assert 0.9 < e[:, 0].mean() < 1.1 and 90 < e[:, 1].mean() < 110


def test_negative_array_scale_gives_nan():
    scale = npx.asarray(np.array([1.0, -1.0, 0.0]))
    for x in (npx.random.default_rng(43).normal(0.0, scale),
              npx.random.default_rng(43).exponential(scale)):
        values = host(x)
        assert np.isfinite(values[0]) and np.isnan(values[1]) and values[2] == 0.0


# -- integers ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integers_every_dtype_covers_range(dtype):
    info = np.iinfo(dtype) if dtype is not np.bool_ else None
    low, high = (0, 2) if info is None else (int(info.min), min(int(info.min) + 50, int(info.max)))
    x = npx.random.default_rng(16).integers(low, high, 5000, dtype=dtype)
    assert x.dtype == dtype and x.shape == (5000,)
    values = host(x).astype(np.int64)
    assert set(np.unique(values)) == set(range(low, high))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_integers_full_dtype_range_with_endpoint(dtype):
    info = np.iinfo(dtype)
    high = int(info.max) if dtype is not np.int64 else int(info.max) - 1
    values = host(npx.random.default_rng(17).integers(int(info.min), high, 20000, dtype=dtype,
                                                      endpoint=True))
    assert values.min() >= info.min and values.max() <= high
    if dtype in (np.int8, np.uint8):
        assert values.min() == info.min and values.max() == high


def test_integers_high_none_and_endpoint():
    g = npx.random.default_rng(18)
    assert set(np.unique(host(g.integers(5, size=2000)))) == set(range(5))
    assert set(np.unique(host(g.integers(1, 3, size=2000, endpoint=True)))) == {1, 2, 3}
    assert host(g.integers(4, 5, size=3)).tolist() == [4, 4, 4]


@pytest.mark.parametrize("args, kwargs", [
    ((5, 5), {}), ((0,), {}), ((6, 5), {}), ((-1, 5), {"dtype": np.uint8}),
    ((0, 257), {"dtype": np.uint8}), ((0, 2**63), {"dtype": np.uint64}),
    ((0, 3), {"dtype": bool}), ((-1, 1), {"dtype": bool})])
def test_integers_bad_bounds(args, kwargs):
    with pytest.raises(ValueError):
        npx.random.default_rng(0).integers(*args, **kwargs)
    if args != (0, 2**63):  # NumPy's uint64 reaches 2**64; npuarray's operator takes int64 bounds
        with pytest.raises(ValueError):
            np.random.default_rng(0).integers(*args, **kwargs)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_integers_bad_dtype(dtype):
    with pytest.raises(TypeError):
        npx.random.default_rng(0).integers(0, 5, 3, dtype=dtype)
    with pytest.raises(TypeError):
        npx.random.default_rng(0).integers(0.5, 5, 3)


# -- poisson -------------------------------------------------------------------------------

def test_poisson_shapes_and_errors():
    g = npx.random.default_rng(19)
    assert host(g.poisson(0.0, (3, 2))).tolist() == [[0, 0], [0, 0], [0, 0]]
    x = g.poisson(2.0)
    assert x.shape == () and x.dtype == np.int64
    assert g.poisson(1.0, (0, 4)).shape == (0, 4)
    for lam in (-1.0, np.nan, 1e19):  # NumPy refuses negative, NaN and beyond ~9.2e18
        with pytest.raises(ValueError):
            g.poisson(lam, 3)
        with pytest.raises(ValueError):
            np.random.default_rng(0).poisson(lam, 3)


# -- permutation, shuffle, choice --------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 17, 1000])
def test_permutation_of_int(n):
    p = npx.random.default_rng(20).permutation(n)
    assert p.dtype == np.int64 and p.shape == (n,)
    assert np.array_equal(np.sort(host(p)), np.arange(n))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_permutation_of_array_along_axis(rng, axis):
    data = rng.standard_normal((4, 5))
    x = npx.asarray(data)
    p = host(npx.random.default_rng(21).permutation(x, axis=axis))
    expected_sorted = np.sort(data, axis=axis)
    np.testing.assert_array_equal(np.sort(p, axis=axis), expected_sorted)
    # whole slices move together
    slices = np.moveaxis(p, axis, 0)
    originals = np.moveaxis(data, axis, 0)
    for s in slices:
        assert any(np.array_equal(s, o) for o in originals)


def test_permutation_of_non_contiguous_views(rng):
    data = rng.standard_normal((6, 8))
    for view, ref in [(npx.asarray(data).T, data.T), (npx.asarray(data)[::2], data[::2]),
                      (npx.asarray(data)[::-1], data[::-1])]:
        p = host(npx.random.default_rng(22).permutation(view))
        np.testing.assert_array_equal(np.sort(p, axis=0), np.sort(ref, axis=0))


def test_permutation_errors():
    g = npx.random.default_rng(0)
    with pytest.raises(IndexError):
        g.permutation(npx.asarray(3.0))
    with pytest.raises(IndexError):
        g.permutation(npx.zeros((2, 3)), axis=2)
    with pytest.raises(ValueError):
        g.permutation(-1)
    with pytest.raises(TypeError):
        g.permutation("abc")
    assert sorted(host(g.permutation([3, 1, 2])).tolist()) == [1, 2, 3]  # host data is uploaded
    assert host(g.permutation(3)).shape == (3,)


@pytest.mark.parametrize("axis", [0, 1])
def test_shuffle_in_place(rng, axis):
    data = rng.standard_normal((5, 6))
    x = npx.asarray(data)
    assert npx.random.default_rng(23).shuffle(x, axis=axis) is None
    shuffled = host(x)
    np.testing.assert_array_equal(np.sort(shuffled, axis=axis), np.sort(data, axis=axis))
    assert not np.array_equal(shuffled, data)


def test_shuffle_strided_view_touches_only_the_view(rng):
    data = rng.standard_normal(10)
    x = npx.asarray(data)
    npx.random.default_rng(24).shuffle(x[::2])
    after = host(x)
    np.testing.assert_array_equal(after[1::2], data[1::2])
    np.testing.assert_array_equal(np.sort(after[::2]), np.sort(data[::2]))


def test_shuffle_errors():
    g = npx.random.default_rng(0)
    with pytest.raises(TypeError):
        g.shuffle(np.arange(3))
    with pytest.raises(IndexError):
        g.shuffle(npx.asarray(1.0))
    with pytest.raises(IndexError):
        g.shuffle(npx.zeros(3), axis=1)


@pytest.mark.parametrize("size", [None, 5, (2, 3), (0,)])
@pytest.mark.parametrize("replace", [True, False])
def test_choice_from_int(size, replace):
    x = npx.random.default_rng(25).choice(10, size, replace=replace)
    expected_shape = np.shape(np.random.default_rng(0).choice(10, size, replace=replace))
    assert x.shape == expected_shape and x.dtype == np.int64
    values = host(x).ravel()
    assert np.all((values >= 0) & (values < 10))
    if not replace:
        assert len(set(values.tolist())) == values.size


def test_choice_from_array_along_axis(rng):
    data = rng.standard_normal((3, 8))
    x = npx.asarray(data)
    picked = host(npx.random.default_rng(26).choice(x, (2, 2), axis=1, replace=False))
    assert picked.shape == (3, 2, 2)
    columns = [data[:, j] for j in range(8)]
    for cols in picked.reshape(3, 4).T:
        assert any(np.array_equal(cols, c) for c in columns)


def test_choice_with_p():
    g = npx.random.default_rng(27)
    p = [0.0, 0.5, 0.0, 0.5]
    values = host(g.choice(4, 1000, p=p))
    assert set(values.tolist()) == {1, 3}
    picked = host(g.choice(4, 2, replace=False, p=p))
    assert sorted(picked.tolist()) == [1, 3]
    device_p = npx.asarray(np.array([0.0, 2.0, 0.0, 2.0]))  # used as given, normalised
    assert set(host(g.choice(4, 500, p=device_p)).tolist()) == {1, 3}


@pytest.mark.parametrize("args, kwargs", [
    ((0, 3), {}), ((3, 4), {"replace": False}), ((3, 2), {"p": [0.5, 0.5]}),
    ((3, 2), {"p": [0.5, 0.6, -0.1]}), ((3, 2), {"p": [0.2, 0.2, 0.2]}),
    ((3, 2), {"replace": False, "p": [1.0, 0.0, 0.0]}), ((-2, 1), {})])
def test_choice_errors_match_numpy(args, kwargs):
    with pytest.raises(ValueError):
        np.random.default_rng(0).choice(*args, **kwargs)
    with pytest.raises(ValueError):
        npx.random.default_rng(0).choice(*args, **kwargs)


def test_choice_bad_axis_and_input():
    g = npx.random.default_rng(0)
    with pytest.raises(IndexError):
        g.choice(npx.zeros((2, 2)), 1, axis=3)
    with pytest.raises(TypeError):
        g.choice("abc", 1)
    assert set(host(g.choice([5, 7], 10)).tolist()) <= {5, 7}
    assert host(g.choice(3, 2)).shape == (2,)


# -- legacy module functions -------------------------------------------------------------

def test_legacy_functions():
    npx.random.seed(31)
    a = [host(npx.random.rand(2, 3)), host(npx.random.randn(4)),
         host(npx.random.randint(5, size=6)), host(npx.random.random_sample((2,))),
         host(npx.random.random(3))]
    npx.random.seed(31)
    b = [host(npx.random.rand(2, 3)), host(npx.random.randn(4)),
         host(npx.random.randint(5, size=6)), host(npx.random.random_sample((2,))),
         host(npx.random.random(3))]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert a[0].shape == (2, 3) and a[1].shape == (4,) and a[2].dtype == np.int64
    assert np.all((a[2] >= 0) & (a[2] < 5))
    assert npx.random.rand().shape == ()
    with pytest.raises(ValueError):
        npx.random.randint(3, 3)


# -- the npusim operators ------------------------------------------------------------------

def _device_empty(shape, dtype):
    device = npx.Device(0)
    return _ops.empty(shape, np.dtype(dtype), device, runtime.get_current_stream(device))


@pytest.mark.parametrize("op, params", [("aclnnInplaceUniform", (0.0, 1.0)),
                                        ("aclnnInplaceNormal", (0.0, 1.0)),
                                        ("aclnnInplaceRandom", (0, 100))])
def test_operators_fill_strided_views_in_logical_order(op, params):
    base = _device_empty((6, 8), np.float32)
    _ops.fill_(base, -7.0)
    contiguous = _device_empty((4, 3), np.float32)
    _ops.launch(op, contiguous, *params, 77, 5)
    view = base.T[2:6, ::2][:, :3]  # transposed and strided: shape (4, 3)
    _ops.launch(op, view, *params, 77, 5)
    np.testing.assert_array_equal(host(view), host(contiguous))
    full = host(base)
    untouched = np.ones((6, 8), bool)
    untouched[0:6:2, 2:6][:3] = False
    assert np.all(full[untouched] == -7.0)


@pytest.mark.parametrize("op, params, dtype", [
    ("aclnnInplaceUniform", (0.0, 1.0), np.uint16), ("aclnnInplaceUniform", (0.0, 1.0), np.bool_),
    ("aclnnInplaceUniform", (0.0, 1.0), np.complex64), ("aclnnInplaceNormal", (0.0, 1.0), np.uint32),
    ("aclnnInplaceRandom", (0, 5), np.uint64)])
def test_operators_refuse_undocumented_dtypes(op, params, dtype):
    with pytest.raises(_acl.AclError) as info:
        _ops.launch(op, _device_empty((3,), dtype), *params, 1, 0)
    assert info.value.code == 161002 and "does not support" in str(info.value)


@pytest.mark.parametrize("op, params", [
    ("aclnnInplaceUniform", (2.0, 1.0)), ("aclnnInplaceUniform", (0.0, float("inf"))),
    ("aclnnInplaceNormal", (0.0, -1.0)), ("aclnnInplaceRandom", (5, 5)),
    ("aclnnInplaceRandom", (0, 300))])
def test_operators_refuse_bad_parameters(op, params):
    out = _device_empty((3,), np.uint8 if op == "aclnnInplaceRandom" else np.float32)
    with pytest.raises(_acl.AclError) as info:
        _ops.launch(op, out, *params, 1, 0)
    assert info.value.code == 161002


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.uint8, np.int8, np.float32,
                                   np.float16, np.float64])
def test_randperm_documented_dtypes(dtype):
    out = _device_empty((100,), dtype)
    _ops.launch("aclnnRandperm", 100, 3, 0, out)
    np.testing.assert_array_equal(np.sort(host(out)), np.arange(100, dtype=dtype))


def test_randperm_refuses_bad_output():
    for n, out in [(5, _device_empty((4,), np.int64)), (300, _device_empty((300,), np.int8)),
                   (3, _device_empty((3,), np.uint32))]:
        with pytest.raises(_acl.AclError) as info:
            _ops.launch("aclnnRandperm", n, 3, 0, out)
        assert info.value.code == 161002


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial_rows(dtype, replacement):
    weights = np.array([[0.0, 1.0, 3.0, 0.0, 4.0], [2.0, 2.0, 2.0, 2.0, 2.0]], dtype=dtype)
    p = npx.asarray(weights)
    out = _device_empty((2, 3), np.int64)
    _ops.launch("aclnnMultinomial", p, 3, replacement, 5, 0, out)
    picked = host(out)
    assert set(picked[0].tolist()) <= {1, 2, 4}
    assert np.all((picked[1] >= 0) & (picked[1] < 5))
    if not replacement:
        assert sorted(picked[0].tolist()) == [1, 2, 4]
        assert len(set(picked[1].tolist())) == 3


def test_multinomial_frequencies_on_a_transposed_input():
    weights = np.array([[1.0, 0.0], [2.0, 1.0], [7.0, 1.0]])  # columns are the rows of self
    out = _device_empty((2, 20000), np.int64)
    _ops.launch("aclnnMultinomial", npx.asarray(weights).T, 20000, True, 8, 0, out)
    counts = [np.bincount(row, minlength=3) for row in host(out)]
    np.testing.assert_allclose(counts[0] / 20000, [0.1, 0.2, 0.7], atol=0.015)
    assert counts[1][0] == 0
    np.testing.assert_allclose(counts[1][1:] / 20000, [0.5, 0.5], atol=0.015)


def test_multinomial_refuses_bad_arguments():
    p = npx.asarray(np.ones(4))
    for args in [(npx.asarray(np.ones(4, np.int32)), 2, True, _device_empty((2,), np.int64)),
                 (p, 2, True, _device_empty((2,), np.int32)),
                 (p, 5, False, _device_empty((5,), np.int64)),
                 (p, 0, True, _device_empty((0,), np.int64)),
                 (p, 3, True, _device_empty((2,), np.int64)),
                 (npx.asarray(np.ones((2, 2, 2))), 1, True, _device_empty((2, 2, 1), np.int64))]:
        self, n, replacement, out = args
        with pytest.raises(_acl.AclError) as info:
            _ops.launch("aclnnMultinomial", self, n, replacement, 1, 0, out)
        assert info.value.code == 161002


@pytest.mark.parametrize("weights, replacement", [([0.5, -0.1, 0.6], True), ([0.0, 0.0], True),
                                                  ([1.0, np.nan], True), ([1.0, 0.0, 0.0], False)])
def test_multinomial_bad_weights_fail_the_launch_loudly(weights, replacement):
    # the NPU would return arbitrary categories; npusim fails the task (seen at synchronisation)
    out = _device_empty((2,), np.int64)
    _ops.launch("aclnnMultinomial", npx.asarray(np.array(weights)), 2, replacement, 1, 0, out)
    with pytest.raises(_acl.AclError, match="weight|sums to 0|positive weights"):
        out.to_host()
    assert host(npx.asarray(np.arange(3.0)) + 1).tolist() == [1.0, 2.0, 3.0]
