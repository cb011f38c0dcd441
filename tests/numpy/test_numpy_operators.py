"""The aclnn operators added for NumPy's names, launched directly: aclnnKthvalue
(kernels/ops/numpy_select.c) against NumPy's sort, aclnnBincount (kernels/ops/numpy_count.c)
against numpy.bincount, aclnnHistc (kernels/ops/histc.c) against numpy.histogram; CANN's prototypes and dtype rules (unsupported -> 161002)."""
import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ops
from _numpy_names_helpers import up

KTH_DTYPES = ["float16", "float32", "int8", "int16", "int32", "int64", "uint8"]


def kthvalue(x, k, dim, keepdim=False):
    shape = list(x.shape)
    if x.ndim and -x.ndim <= dim < x.ndim:
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
    stream = _ops.stream_of(x)
    values = _ops.empty(tuple(shape), x.dtype, x.device, stream)
    indices = _ops.empty(tuple(shape), np.dtype(np.int64), x.device, stream)
    _ops.launch("aclnnKthvalue", x, k, dim, keepdim, values, indices, stream=stream)
    return values.to_host(), indices.to_host()


@pytest.mark.parametrize("dtype", KTH_DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_kthvalue_matches_sorting(dtype, dim, rng):
    a = (rng.standard_normal((5, 7)) * 20).astype(dtype)
    length = a.shape[dim]
    for k in (1, length // 2 + 1, length):
        values, indices = kthvalue(up(a), k, dim)
        expected = np.take(np.sort(a, axis=dim), k - 1, axis=dim)
        np.testing.assert_array_equal(values, expected)
        np.testing.assert_array_equal(np.take_along_axis(a, np.expand_dims(indices, dim), dim)
                                      .squeeze(dim), expected)
    values, indices = kthvalue(up(a), 2, dim, keepdim=True)
    assert values.shape == indices.shape == tuple(1 if i == dim % 2 else n
                                                  for i, n in enumerate(a.shape))


def test_kthvalue_views_nan_and_ties(rng):
    a = rng.standard_normal((6, 8)).astype(np.float32)
    x = up(a)
    values, _ = kthvalue(x.T, 3, 1)
    np.testing.assert_array_equal(values, np.sort(a.T, axis=1)[:, 2])
    values, _ = kthvalue(x[::-1, ::2], 2, 0)
    np.testing.assert_array_equal(values, np.sort(a[::-1, ::2], axis=0)[1])
    b = np.array([[np.nan, 1.0, -0.0, 0.0, 3.0]], np.float32)
    for k, want in ((1, -0.0), (4, 3.0), (5, np.nan)):
        np.testing.assert_array_equal(kthvalue(up(b), k, 1)[0], [want])
    ties = np.array([2, 2, 2, 1, 1], np.int32)
    np.testing.assert_array_equal(kthvalue(up(ties), 3, 0)[0], 2)
    np.testing.assert_array_equal(kthvalue(up(np.array(5, np.int32)), 1, 0)[0], 5)


def test_kthvalue_rejects_what_cann_rejects():
    with pytest.raises(npx.AclError) as info:  # no DOUBLE in CANN's dtype table
        kthvalue(up(np.ones(4)), 1, 0)
    assert info.value.code == 161002
    for k in (0, 5):
        with pytest.raises(npx.AclError) as info:
            kthvalue(up(np.ones(4, np.float32)), k, 0)
        assert info.value.code == 161002
    with pytest.raises(npx.AclError):
        kthvalue(up(np.ones((2, 2), np.float32)), 1, 2)
    stream = npx.get_current_stream()
    x = up(np.ones(4, np.float32))
    with pytest.raises(npx.AclError):  # valuesOut of another dtype
        _ops.launch("aclnnKthvalue", x, 1, 0, False,
                    _ops.empty((), np.dtype(np.float16), x.device, stream),
                    _ops.empty((), np.dtype(np.int64), x.device, stream), stream=stream)
    np.testing.assert_array_equal(kthvalue(x, 1, 0)[0], 1.0)  # the next launch works


def bincount(x, length, weights=None, out_dtype=np.int64, minlength=0):
    stream = _ops.stream_of(x)
    out = _ops.empty((length,), np.dtype(out_dtype), x.device, stream)
    _ops.launch("aclnnBincount", x, weights, minlength, out, stream=stream)
    return out.to_host()


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8"])
@pytest.mark.parametrize("out_dtype", ["int32", "int64", "float32", "float64"])
def test_bincount_matches_numpy(dtype, out_dtype, rng):
    a = rng.integers(0, 12, 300).astype(dtype)
    got = bincount(up(a), 15, out_dtype=out_dtype)
    np.testing.assert_array_equal(got, np.bincount(a, minlength=15).astype(out_dtype))
    w = rng.standard_normal(300)
    got = bincount(up(a)[::-2], 12, weights=up(w)[::-2], out_dtype="float64")
    np.testing.assert_allclose(got, np.bincount(a[::-2], weights=w[::-2], minlength=12))
    for wdtype in ("float32", "int32", "bool"):
        weights = w.astype(wdtype) if wdtype != "bool" else w > 0
        got = bincount(up(a), 12, weights=up(weights), out_dtype="float64")
        np.testing.assert_allclose(got, np.bincount(a, weights=weights.astype(np.float64),
                                                    minlength=12), rtol=1e-6)


def test_bincount_rejects_what_cann_rejects():
    x = up(np.array([0, 1, 1], np.int64))
    for bad in (up(np.array([0.0, 1.0])), up(np.array([[0, 1]], np.int64))):
        with pytest.raises(npx.AclError) as info:
            bincount(bad, 2)
        assert info.value.code == 161002
    with pytest.raises(npx.AclError):
        bincount(x, 2, out_dtype=np.int16)
    with pytest.raises(npx.AclError):
        bincount(x, 2, minlength=3)
    with pytest.raises(npx.AclError):
        bincount(x, 2, weights=up(np.ones(2)), out_dtype=np.float64)
    with pytest.raises(npx.AclError):  # a value beyond out: loud, not a silent overrun
        bincount(up(np.array([0, 5], np.int64)), 3)
    with pytest.raises(npx.AclError):
        bincount(up(np.array([-1], np.int64)), 3)
    np.testing.assert_array_equal(bincount(x, 3), [1, 2, 0])  # the next launch works


def histc(x, bins, low, high, scalar_dtype=np.float64, out_dtype=np.int64):
    stream = _ops.stream_of(x)
    out = _ops.empty((bins,), np.dtype(out_dtype), x.device, stream)
    _ops.launch("aclnnHistc", x, bins, _ops.acl_scalar(low, np.dtype(scalar_dtype)),
                _ops.acl_scalar(high, np.dtype(scalar_dtype)), out, stream=stream)
    return out.to_host()


@pytest.mark.parametrize("dtype", ["float16", "float32", "int8", "int16", "int32", "int64", "uint8"])
@pytest.mark.parametrize("out_dtype", ["int64", "int32", "float32"])
def test_histc_matches_numpy_histogram(dtype, out_dtype, rng):
    a = (rng.standard_normal((30, 40)) * 40).astype(dtype)
    # the edges are computed in double for DOUBLE ends, then compared in float for float16 and
    # float32 self (NumPy's histogram of float32 data), in double for integers (NumPy's too)
    edges_dtype = np.float64 if np.dtype(dtype).kind in "iu" else np.float32
    got = histc(up(a), 13, -33.5, 47.25, out_dtype=out_dtype)
    want = np.histogram(a.astype(edges_dtype), 13, range=(-33.5, 47.25))[0]
    np.testing.assert_array_equal(got, want.astype(out_dtype))
    got = histc(up(a)[::2, 1::3], 5, 0.0, 0.0)  # min == max: the data's range, NumPy's too
    np.testing.assert_array_equal(got, np.histogram(a[::2, 1::3].astype(np.float64), 5)[0])


def test_histc_float_ends_give_numpy_float32_edges(rng):
    a = rng.standard_normal(50_000).astype(np.float32)
    low, high = a.min(), a.max()  # NumPy's float32 edges: linspace in float32
    got = histc(up(a), 100, float(low), float(high), scalar_dtype=np.float32)
    np.testing.assert_array_equal(got, np.histogram(a, 100)[0])
    a[:101] = np.histogram_bin_edges(a, 100)  # on every edge
    got = histc(up(a), 100, float(low), float(high), scalar_dtype=np.float32)
    np.testing.assert_array_equal(got, np.histogram(a, 100)[0])


def test_histc_rejects_what_cann_rejects():
    x = up(np.arange(6, dtype=np.float32))
    for bins, low, high in ((0, 0.0, 1.0), (3, 2.0, 1.0), (3, 0.0, float("inf"))):
        with pytest.raises(npx.AclError) as info:
            histc(x, bins, low, high)
        assert info.value.code == 161002
    with pytest.raises(npx.AclError) as info:  # no DOUBLE self in CANN's table
        histc(up(np.ones(3)), 2, 0.0, 1.0)
    assert info.value.code == 161002
    stream = npx.get_current_stream()
    with pytest.raises(npx.AclError) as info:  # out of another length than bins
        _ops.launch("aclnnHistc", x, 3, _ops.acl_scalar(0.0, np.dtype(np.float64)),
                    _ops.acl_scalar(1.0, np.dtype(np.float64)),
                    _ops.empty((4,), np.dtype(np.int64), x.device, stream), stream=stream)
    assert info.value.code == 161002
    np.testing.assert_array_equal(histc(x, 3, 0.0, 6.0), [2, 2, 2])  # the next launch works
