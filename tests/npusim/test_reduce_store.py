"""How npusim's reductions (kernels/ops/reduce.c) store their accumulators: small outputs
accumulate on the stack, and a C-contiguous out of the accumulators' dtype (or float32 from
double accumulators) is written directly; any other out (strided, another dtype) goes through
the element-wise cast. Each is launched through aclnnReduceSum / aclnnAmax / aclnnMean with the
out given, and compared with NumPy."""
import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ops
from npuarray._core._data_type import to_acl_dtype


def reduce_into(op, x, axis, out, dtype=None):
    """``op`` (aclnnReduceSum, aclnnMean, aclnnAmax) of x over ``axis`` into the given ``out``."""
    dims = _ops.dims_array((axis,))
    if op == "aclnnAmax":
        _ops.launch(op, x, dims, False, out)
    else:
        _ops.launch(op, x, dims, False, to_acl_dtype(np.dtype(dtype or out.dtype)), out)
    return out.to_host()


@pytest.mark.parametrize("shape", [(10, 64), (3, 5), (200, 7), (1, 600)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_sums_into_contiguous_and_strided_outs(rng, shape, dtype):
    a = (rng.standard_normal(shape) * 50).astype(dtype)
    x = npx.asarray(a)
    out_dtype = np.int64 if np.dtype(dtype).kind == "i" else dtype
    expected = a.sum(axis=1, dtype=out_dtype)
    contiguous = npx.empty((shape[0],), dtype=out_dtype)
    np.testing.assert_allclose(reduce_into("aclnnReduceSum", x, 1, contiguous), expected, rtol=1e-5)
    wide = npx.zeros((shape[0], 3), dtype=out_dtype)  # out every third element
    np.testing.assert_allclose(reduce_into("aclnnReduceSum", x, 1, wide[:, 1]), expected, rtol=1e-5)
    host = wide.to_host()
    assert not host[:, 0].any() and not host[:, 2].any()  # the elements between left alone


def test_more_accumulators_than_the_stack_holds(rng):
    a = rng.standard_normal((3, 5000)).astype(np.float32)  # 5000 double accumulators: 40 KB
    out = npx.empty((5000,), dtype=np.float32)
    np.testing.assert_allclose(reduce_into("aclnnReduceSum", npx.asarray(a), 0, out), a.sum(axis=0), rtol=1e-5, atol=1e-6)


def test_float32_sums_round_their_double_accumulators(rng):
    # 2**24 + 1 is no float32: the double sum rounds (to nearest even) on the way out
    a = np.array([[2.0 ** 24, 1.0, 0.0, 0.0], [1.0, 2.0 ** 24, 2.0, 1.0]], np.float32)
    out = npx.empty((2,), dtype=np.float32)
    got = reduce_into("aclnnReduceSum", npx.asarray(a), 1, out)
    np.testing.assert_array_equal(got, np.float32(a.astype(np.float64).sum(axis=1)))


def test_means_max_and_other_out_dtypes(rng):
    a = rng.standard_normal((12, 33)).astype(np.float32)
    a[4, 7] = np.nan
    x = npx.asarray(a)
    np.testing.assert_allclose(reduce_into("aclnnMean", x, 1, npx.empty((12,), np.float32)),
                               a.mean(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(reduce_into("aclnnAmax", x, 1, npx.empty((12,), np.float32)),
                                  a.max(axis=1))
    # float32 input summed into a float64 out: the element-wise cast from the accumulators
    np.testing.assert_allclose(reduce_into("aclnnReduceSum", x, 1, npx.empty((12,), np.float64)),
                               a.astype(np.float64).sum(axis=1), rtol=1e-6)
    b = np.array([[True, False, True], [False, False, False]])
    np.testing.assert_array_equal(reduce_into("aclnnReduceSum", npx.asarray(b), 1, npx.empty((2,), np.int64)),
                                  b.sum(axis=1))
