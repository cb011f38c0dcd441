"""aclnnKthvalue (kernels/ops/numpy_select.c): CANN's prototype and dtype rules, against
NumPy's partition / sort."""
import numpy as np
import pytest

import npuarray as npx
from npuarray import _ops
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
