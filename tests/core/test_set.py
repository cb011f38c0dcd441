"""unique_all, unique_counts, unique_inverse, unique_values (aclnnUnique2) and isin
against NumPy 2, with the standard's special cases (NaNs distinct, signed zeros equal)."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx

DTYPES = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float16", "float32", "float64",
                                "complex64", "complex128")] + [np.dtype(ml_dtypes.bfloat16)]


def _values(rng, shape, dtype):
    """Random values with many repeats."""
    values = rng.integers(-6, 7, size=shape)
    if dtype.kind == "c":
        return (values + 1j * rng.integers(-2, 3, size=shape)).astype(dtype)
    if dtype.kind == "u":
        values = np.abs(values)
    return values.astype(dtype)


def _host(dtype, values):
    """NumPy oracle input: bfloat16 as float32 (NumPy cannot sort bfloat16)."""
    return values.astype(np.float32) if dtype == ml_dtypes.bfloat16 else values


def _np_unique(h):
    """NumPy's sorted unique (np.unique; NumPy >= 2.3's unique_values may be unordered),
    NaNs distinct as the standard says: (values, indices, inverse_indices, counts)."""
    values, indices, inverse, counts = np.unique(h, return_index=True, return_inverse=True,
                                                 return_counts=True, equal_nan=False)
    return values, indices, inverse.reshape(np.shape(h)), counts


def _assert_equal(got, want, dtype=None):
    got_host = got.to_host()
    if dtype == ml_dtypes.bfloat16:
        got_host = got_host.astype(np.float32)
    assert got.shape == np.shape(want)
    np.testing.assert_array_equal(got_host, want)


def _views(host):
    x = npx.asarray(host)
    return [("contiguous", host, x), ("transposed", host.T, x.T),
            ("strided", host[::2, 1::2], x[::2, 1::2]), ("reversed", host[::-1, ::-1], x[::-1, ::-1])]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_unique_all_every_dtype_and_view(rng, dtype):
    host = _values(rng, (6, 5), dtype)
    for name, h, x in _views(host):
        got = npx.unique_all(x)
        want = _np_unique(_host(dtype, h))
        assert got._fields == ("values", "indices", "inverse_indices", "counts")
        assert got.values.dtype == dtype, name
        for field in ("indices", "inverse_indices", "counts"):
            assert getattr(got, field).dtype == np.int64
        for g, w in zip(got, want):
            _assert_equal(g, w, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_unique_values_counts_inverse(rng, dtype):
    host = _values(rng, (4, 3, 5), dtype)
    x = npx.asarray(host)
    values, _, inverse_indices, counts = _np_unique(_host(dtype, host))
    _assert_equal(npx.unique_values(x), values, dtype)
    got = npx.unique_counts(x)
    assert got._fields == ("values", "counts")
    _assert_equal(got.values, values, dtype)
    _assert_equal(got.counts, counts)
    got = npx.unique_inverse(x)
    assert got._fields == ("values", "inverse_indices")
    _assert_equal(got.values, values, dtype)
    _assert_equal(got.inverse_indices, inverse_indices)  # x's shape


# The standard's special cases (set_functions.rst): NaNs are distinct with a count of 1
# each, signed zeros are one value with their counts added.
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_unique_special_cases(dtype):
    host = np.array([np.nan, 0.0, -0.0, 1.0, np.nan, np.inf, -np.inf, 1.0], dtype=dtype)
    got = npx.unique_all(npx.asarray(host))
    values = got.values.to_host()
    np.testing.assert_array_equal(values[:4], [-np.inf, 0.0, 1.0, np.inf])
    assert np.isnan(values[4:]).all() and len(values) == 6
    np.testing.assert_array_equal(got.counts.to_host(), [1, 2, 2, 1, 1, 1])
    np.testing.assert_array_equal(got.indices.to_host(), [6, 1, 3, 5, 0, 4])
    np.testing.assert_array_equal(values[got.inverse_indices.to_host()][[1, 2, 3, 5]],
                                  host[[1, 2, 3, 5]])
    assert npx.unique_values(npx.asarray(host)).shape == (6,)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name)
def test_unique_complex_nan_components_are_distinct_in_numpy_order(dtype):
    nan = float("nan")
    host = np.array([complex(1, nan), complex(1, nan), complex(nan, 0), 1 + 0j, 1 - 0j, 0j,
                     complex(nan, -1), complex(nan, nan), complex(0, nan), 2 - 1j, 1 + 1j],
                    dtype=dtype)
    got = npx.unique_all(npx.asarray(host))
    for g, w in zip(got, _np_unique(host)):
        _assert_equal(g, w)
    assert len(got.values.to_host()) == 10  # 1 + 0j == 1 - 0j; the 5 with a NaN part stay apart


@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (1,)])
def test_unique_zero_dim_and_empty(rng, shape):
    host = _values(rng, shape, np.dtype(np.int32))
    got = npx.unique_all(npx.asarray(host))
    for g, w in zip(got, _np_unique(host)):
        _assert_equal(g, w)


def test_unique_non_array_raises_and_next_call_works():
    with pytest.raises(TypeError):
        npx.unique_values([1, 2, 2])
    _assert_equal(npx.unique_values(npx.asarray(np.array([2, 1, 2]))), [1, 2])


def test_unique_on_a_non_default_stream(rng):
    host = rng.integers(0, 20, size=1000)
    with npx.Stream():
        got = npx.unique_counts(npx.asarray(host))
        values, _, _, counts = _np_unique(host)
        _assert_equal(got.values, values)
        _assert_equal(got.counts, counts)


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(0, 6), max_size=3), seed=st.integers(0, 2**32 - 1))
def test_unique_all_random(shape, seed):
    host = np.random.default_rng(seed).integers(-3, 4, size=shape).astype(np.float32)
    got = npx.unique_all(npx.asarray(host))
    for g, w in zip(got, _np_unique(host)):
        _assert_equal(g, w)


# -- isin ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("invert", [False, True])
def test_isin_every_dtype(rng, dtype, invert):
    host = _values(rng, (5, 6), dtype)
    test = _values(rng, (4,), dtype)
    got = npx.isin(npx.asarray(host), npx.asarray(test), invert=invert)
    assert got.dtype == np.bool_
    _assert_equal(got, np.isin(_host(dtype, host), _host(dtype, test), invert=invert))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_isin_large_inputs_search_sorted_values(rng, dtype):
    # beyond the pairwise limit: aclnnUnique2 + aclnnSearchSorted (or blocks of pairs)
    host = _values(rng, (3000,), dtype)
    test = _values(rng, (2000,), dtype)
    for invert in (False, True):
        got = npx.isin(npx.asarray(host), npx.asarray(test), invert=invert)
        _assert_equal(got, np.isin(_host(dtype, host), _host(dtype, test), invert=invert))


def test_isin_large_integers(rng):
    host = rng.integers(0, 10**6, size=5000)
    test = rng.integers(0, 10**6, size=5000)
    test[:100] = host[:100]
    _assert_equal(npx.isin(npx.asarray(host), npx.asarray(test)), np.isin(host, test))


def test_isin_promotion_and_scalars(rng):
    host = np.array([1, 2, 3, 4], dtype=np.int8)
    test = np.array([2.0, 4.5], dtype=np.float32)
    _assert_equal(npx.isin(npx.asarray(host), npx.asarray(test)), np.isin(host, test))
    _assert_equal(npx.isin(npx.asarray(host), 3), np.isin(host, 3))
    got = npx.isin(3, npx.asarray(host))
    assert got.shape == () and bool(got) is True
    assert bool(npx.isin(7, npx.asarray(host), invert=True)) is True


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("invert", [False, True])
def test_isin_scalar_test_element(rng, dtype, invert):
    # a Python scalar x2: aclnnIsInTensorScalar (composed for uint32/uint64, which it lacks)
    host = _values(rng, (3, 5), dtype)
    value = {"b": True, "c": complex(host.flat[0])}.get(dtype.kind, host.flat[0].item())
    if dtype == ml_dtypes.bfloat16:
        value = float(value)
    got = npx.isin(npx.asarray(host), value, invert=invert)
    _assert_equal(got, np.isin(_host(dtype, host), value, invert=invert))
    got = npx.isin(npx.asarray(host).T[::-1], value, invert=invert)
    _assert_equal(got, np.isin(_host(dtype, host).T[::-1], value, invert=invert))


def test_isin_out_of_range_int_scalar_matches_nothing():
    host = np.array([0, 255, 7], dtype=np.uint8)
    x = npx.asarray(host)
    for x1, x2 in [(x, 300), (x, -1), (300, x)]:
        for invert in (False, True):
            want = np.isin(np.asarray(x1.to_host() if isinstance(x1, npx.NPUArray) else x1),
                           x2.to_host() if isinstance(x2, npx.NPUArray) else x2, invert=invert)
            _assert_equal(npx.isin(x1, x2, invert=invert), want)


def test_isin_special_values_views_and_empty(rng):
    host = np.array([np.nan, 0.0, -0.0, np.inf, 1.0])
    test = np.array([np.nan, 0.0, np.inf])
    _assert_equal(npx.isin(npx.asarray(host), npx.asarray(test)), [False, True, True, True, False])
    h2 = rng.integers(0, 5, size=(4, 6))
    x = npx.asarray(h2)
    _assert_equal(npx.isin(x.T, x[0, ::-2]), np.isin(h2.T, h2[0, ::-2]))
    _assert_equal(npx.isin(x[:, :0], x), np.isin(h2[:, :0], h2))
    _assert_equal(npx.isin(x, x[:0]), np.isin(h2, h2[:0]))
    _assert_equal(npx.isin(x, x[:0], invert=True), np.isin(h2, h2[:0], invert=True))


def test_isin_bad_operands_then_next_call_works():
    assert npx.isin(1, 2).shape == () and not npx.isin(1, 2).item()  # scalars, as NumPy
    with pytest.raises(TypeError):
        npx.isin(npx.ones(3), "a")
    _assert_equal(npx.isin(npx.asarray(np.array([1, 5])), npx.asarray(np.array([5]))), [False, True])


# -- npusim accepts exactly the dtypes CANN documents --------------------------------------------

def _launch_fails(op, *args):
    from npuarray._core import _ops
    with pytest.raises(npx.InvalidValueError) as info:
        _ops.launch(op, *args)
    assert info.value.code == 161002 and op in str(info.value)


def test_npusim_rejects_undocumented_dtypes():
    c = npx.ones((4,), dtype=npx.complex64)
    i64 = npx.zeros((4,), dtype=npx.int64)
    # aclnnNonzero and aclnnUnique2 have no complex kernel (ops-nn index/non_zero,
    # index/unique_consecutive docs)
    _launch_fails("aclnnNonzero", c, npx.zeros((4, 1), dtype=npx.int64))
    _launch_fails("aclnnUnique2", c, True, False, False, npx.ones((4,), dtype=npx.complex64),
                  None, None)
    # aclnnSearchSorted: no bool, uint16 (ops-math math/search_sorted docs)
    for dtype in (npx.bool, npx.uint16):
        seq = npx.zeros((4,), dtype=dtype)
        _launch_fails("aclnnSearchSorted", seq, seq, False, False, None, i64)
    # aclnnGather: no complex (ops-nn index/gather_elements_v2 docs)
    _launch_fails("aclnnGather", c, 0, i64, npx.ones((4,), dtype=npx.complex64))
    # aclnnIsInTensorScalar: no uint32 element; out must be BOOL
    from npuarray._core import _ops
    scalar = _ops.acl_scalar(1, np.dtype(np.int64))
    _launch_fails("aclnnIsInTensorScalar", npx.ones((4,), dtype=npx.uint32), scalar, False, False,
                  npx.zeros((4,), dtype=npx.bool))
    _launch_fails("aclnnIsInTensorScalar", npx.ones((4,)), scalar, False, False,
                  npx.zeros((4,), dtype=npx.int8))
    # wrong output shapes or dtypes
    _launch_fails("aclnnNonzero", npx.ones((4,)), npx.zeros((3, 1), dtype=npx.int64))
    _launch_fails("aclnnUnique2", npx.ones((4,)), True, True, False, npx.ones((4,)),
                  npx.zeros((4,), dtype=npx.int32), None)
    # the next operation still works
    _assert_equal(npx.unique_values(npx.asarray(np.array([3, 1, 3]))), [1, 3])


def test_npusim_reports_a_bad_sorter_on_the_stream():
    from npuarray._core import _ops
    seq = npx.asarray(np.array([1.0, 2.0, 3.0]))
    out = npx.zeros((2,), dtype=npx.int64)
    _ops.launch("aclnnSearchSorted", seq, npx.asarray(np.array([1.5, 2.5])), False, False,
                npx.asarray(np.array([0, 7, 1])), out)
    with pytest.raises(npx.AclError):
        out.to_host()
    _assert_equal(npx.searchsorted(seq, 2.5), 2)


# -- the operators through the C ABI, plain and under the sanitizers ----------------------------

@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant", ["release", "asan", "tsan"])
def test_c_program_search_set(variant):
    """tests/npusim/c/aclnn_search_set.cpp: aclnnNonzero, aclnnUnique2, aclnnSearchSorted, aclnnGather
    against hand-computed values; no leak, overrun (asan) or data race (tsan)."""
    from cbuild import run_program_or_skip
    out = run_program_or_skip("aclnn_search_set.cpp", variant=variant, timeout=300)
    assert "aclnn_search_set ok" in out


# -- synchronisation: isin has none (it can be captured), unique_* exactly one ------------------

def test_isin_needs_no_synchronisation_so_it_can_be_captured(rng):
    stream = npx.Stream()
    with stream:
        x1 = npx.asarray(rng.integers(0, 3000, size=4000).astype(np.float32))
        x2 = npx.asarray(rng.integers(0, 3000, size=2000).astype(np.float32))
        stream.synchronize()
        graph = npx.Graph()
        with graph.capture():
            found = npx.isin(x1, x2)  # sorted path: aclnnSort + aclnnSearchSorted
            small = npx.isin(x1, x2[:3])  # pairwise path
        for _ in range(2):
            fresh = rng.integers(0, 3000, size=4000).astype(np.float32)
            x1[...] = npx.asarray(fresh)
            graph.replay()
            _assert_equal(found, np.isin(fresh, x2.to_host()))
            _assert_equal(small, np.isin(fresh, x2.to_host()[:3]))
        graph.destroy()


def test_unique_refuses_capture_with_a_clear_error(rng):
    stream = npx.Stream()
    with stream:
        x = npx.asarray(rng.integers(0, 5, size=10))
        stream.synchronize()
        graph = npx.Graph()
        with pytest.raises(npx.CaptureError):
            with graph.capture():
                npx.unique_values(x)
    _assert_equal(npx.unique_values(x), np.unique(x.to_host()))


@pytest.mark.parametrize("name", ["unique_values", "unique_counts", "unique_inverse", "unique_all"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=lambda d: np.dtype(d).name)
def test_unique_synchronises_exactly_once(rng, monkeypatch, name, dtype):
    x = npx.asarray(_values(rng, (40, 3), np.dtype(dtype)))
    stream = npx.get_current_stream()
    stream.synchronize()
    calls = []
    original = type(stream).synchronize
    monkeypatch.setattr(type(stream), "synchronize",
                        lambda self: calls.append(self) or original(self))
    result = getattr(npx, name)(x)
    monkeypatch.undo()
    assert calls == [stream]
    values = result if name == "unique_values" else result.values
    _assert_equal(values, np.unique(x.to_host()))
