"""aclnnInplaceFillScalar and copies from a broadcast element: contiguous runs are filled by
repeating the converted value (memset for 1-byte dtypes); strided and offset
views, and every value conversion, must give what NumPy gives."""
import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ops

DTYPES = [np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64,
          np.complex64, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 7, 4096, 1_000_003])
def test_fill_of_contiguous_arrays(dtype, n):
    value = True if dtype is np.bool_ else 5
    x = npx.empty((n,), dtype=dtype)
    _ops.fill_(x, value)
    np.testing.assert_array_equal(x.to_host(), np.full(n, value, dtype=dtype))


@pytest.mark.parametrize("dtype, value", [(np.int8, -3), (np.int8, 127), (np.uint8, 255), (np.int32, -7),
                                          (np.float32, -0.0), (np.float32, np.inf), (np.float64, np.nan),
                                          (np.float16, 65504.0), (np.complex64, 1.5)])
def test_full_converts_the_value_as_numpy(dtype, value):
    expected = np.full((3, 1000), value, dtype=dtype)
    got = npx.full((3, 1000), value, dtype=dtype).to_host()
    np.testing.assert_array_equal(got, expected)
    assert np.array_equal(np.signbit(got.real), np.signbit(expected.real))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.float64])
def test_fill_of_views_leaves_the_rest(dtype):
    host = np.arange(6000).reshape(60, 100).astype(dtype)
    x = npx.asarray(host)
    _ops.fill_(x[1::3, 5:77], 9)          # strided rows, a run in each
    _ops.fill_(x[:, 99], 4)               # a column: stride of a row
    x[59, 1:] = 2                          # an offset run (setitem of a scalar)
    host[1::3, 5:77], host[:, 99] = 9, 4
    host[59, 1:] = 2
    np.testing.assert_array_equal(x.to_host(), host)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_])
def test_copy_of_a_broadcast_byte(dtype):
    one = npx.asarray(np.array([1], dtype=dtype))
    out = npx.asarray(npx.broadcast_to(one, (3, 100_000)), copy=True)
    np.testing.assert_array_equal(out.to_host(), np.ones((3, 100_000), dtype=dtype))
